//! Why the rules refuse a request: one variant per API.md error code.
//!
//! This is the one place that maps a refusal to its code, HTTP status and
//! sentence; the server and the browser both read them from here.

use std::fmt;

use crate::time::ServerMillis;
use crate::wire;

/// A refused request. A refusal changes nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rejection {
    /// `422 invalid_seats`: an empty request, or a duplicate or unknown seat,
    /// or more places than `maxSeatsPerHold`. `seats` names every offending
    /// id: each unknown or duplicated one, or, for a request that is too
    /// large, every requested seat. It is empty for an empty request and for
    /// one made too large by area quantities alone.
    InvalidSeats { seats: Vec<String> },
    /// `422 invalid_quantity`: an area quantity below 1, not an integer (a
    /// string too), or an unknown area. `area` names it.
    InvalidQuantity { area: Option<String> },
    /// `422 invalid_hold_id`: `holdId` is not `[A-Za-z0-9_-]{8,64}`.
    InvalidHoldId,
    /// `409 idempotency_mismatch`: the `holdId` exists with another body or
    /// belongs to someone else.
    IdempotencyMismatch,
    /// `429 hold_limit`: the holder already has `maxActiveHoldsPerHolder`
    /// active holds.
    HoldLimit,
    /// `409 seats_taken`: every requested seat that is held (unexpired) or sold.
    SeatsTaken { seats: Vec<String> },
    /// `409 not_enough_seats`: an area has only `available` places left.
    NotEnoughSeats { area: String, available: u32 },
    /// `422 invalid_seats` for a `best` request: with seats or areas too, a
    /// count that is not a whole number from 1 to `maxSeatsPerHold`, or an
    /// unknown category. The reason is the message.
    InvalidBest { reason: String },
    /// `409 not_enough_seats` for a `best` request: no block that large is
    /// free; `available` is the largest one that is.
    NoBlock { available: u32 },
    /// `409 seats_unavailable`: requested seats that are blocked, in a
    /// channel whose code the request does not carry, or kept for access
    /// (before `accessReleaseAt`) when the request does not ask for it.
    SeatsUnavailable { seats: Vec<String> },
    /// `409 would_strand`: the hold would leave these free seats (in row
    /// order) with no free neighbour, under the show's orphan rule.
    WouldStrand { seats: Vec<String> },
    /// `404 no_hold`: unknown hold, or another holder's (never says which).
    NoHold,
    /// `410 hold_expired`: its deadline passed.
    HoldExpired,
    /// `410 hold_released`: it was released.
    HoldReleased,
    /// `409 already_confirmed`.
    AlreadyConfirmed,
    /// `409 extension_limit`: no extensions left.
    ExtensionLimit,
    /// `403 not_admitted`: the show's queue has not admitted the holder
    /// (or its window for a first hold passed). `None`s for a holder that
    /// never joined (or one waiting for the draw).
    NotAdmitted { position: Option<u64>, estimated_admit_at: Option<ServerMillis> },
}

impl Rejection {
    /// The API.md error code, e.g. `"seats_taken"`.
    pub fn code(&self) -> &'static str {
        self.code_and_status().0
    }

    /// The HTTP status.
    pub fn status(&self) -> u16 {
        self.code_and_status().1
    }

    fn code_and_status(&self) -> (&'static str, u16) {
        match self {
            Self::InvalidSeats { .. } => ("invalid_seats", 422),
            Self::InvalidQuantity { .. } => ("invalid_quantity", 422),
            Self::InvalidHoldId => ("invalid_hold_id", 422),
            Self::IdempotencyMismatch => ("idempotency_mismatch", 409),
            Self::HoldLimit => ("hold_limit", 429),
            Self::SeatsTaken { .. } => ("seats_taken", 409),
            Self::NotEnoughSeats { .. } | Self::NoBlock { .. } => ("not_enough_seats", 409),
            Self::InvalidBest { .. } => ("invalid_seats", 422),
            Self::SeatsUnavailable { .. } => ("seats_unavailable", 409),
            Self::WouldStrand { .. } => ("would_strand", 409),
            Self::NoHold => ("no_hold", 404),
            Self::HoldExpired => ("hold_expired", 410),
            Self::HoldReleased => ("hold_released", 410),
            Self::AlreadyConfirmed => ("already_confirmed", 409),
            Self::ExtensionLimit => ("extension_limit", 409),
            Self::NotAdmitted { .. } => ("not_admitted", 403),
        }
    }

    /// One human sentence, e.g. "B8 was just taken."
    pub fn message(&self) -> String {
        match self {
            Self::InvalidSeats { seats } if seats.is_empty() => {
                "A hold needs at least one place, and no more than this show allows per hold.".into()
            }
            Self::InvalidSeats { seats } => format!(
                "{} cannot be held this way: each seat must exist, be asked for once, \
                 and fit within this show's places per hold.",
                list(seats)
            ),
            Self::InvalidQuantity { area: Some(area) } => {
                format!("The quantity for {area} must be a whole number of at least 1, for an area of this show.")
            }
            Self::InvalidQuantity { area: None } => "Each area quantity must be a whole number of at least 1.".into(),
            Self::InvalidHoldId => "A holdId must be 8 to 64 letters, digits, '_' or '-'.".into(),
            Self::IdempotencyMismatch => "This holdId was already used for a different request.".into(),
            Self::HoldLimit => "You already have as many active holds as allowed; confirm or release one first.".into(),
            Self::SeatsTaken { seats } => match seats.len() {
                1 => format!("{} was just taken.", list(seats)),
                _ => format!("{} were just taken.", list(seats)),
            },
            Self::NotEnoughSeats { area, available: 0 } => format!("{area} is full."),
            Self::NotEnoughSeats { area, available: 1 } => {
                format!("Only 1 place is left in {area}.")
            }
            Self::NotEnoughSeats { area, available } => {
                format!("Only {available} places are left in {area}.")
            }
            Self::InvalidBest { reason } => reason.clone(),
            Self::NoBlock { available: 0 } => "No adjacent seats of that kind are free.".into(),
            Self::NoBlock { available } => {
                format!("No block of adjacent seats that large is free; the largest has {available}.")
            }
            Self::SeatsUnavailable { seats } => format!(
                "{} cannot be held: blocked, kept for a channel whose code was not given, \
                 or kept for wheelchair users and their companions.",
                list(seats)
            ),
            Self::WouldStrand { seats } => match seats.len() {
                1 => format!("This would leave {} as a single seat on its own; pick seats beside it.", list(seats)),
                _ => format!("This would leave {} as single seats on their own; pick seats beside them.", list(seats)),
            },
            Self::NoHold => "There is no such hold for this session.".into(),
            Self::HoldExpired => "This hold has expired.".into(),
            Self::HoldReleased => "This hold was released.".into(),
            Self::AlreadyConfirmed => "This hold is already confirmed.".into(),
            Self::ExtensionLimit => "This hold cannot be extended any more.".into(),
            Self::NotAdmitted { position: None, .. } => {
                "This show's sale has a queue: join it, and hold once you are admitted.".into()
            }
            Self::NotAdmitted { position: Some(position), .. } => {
                format!("You are number {position} in the queue; you can hold once you are admitted.")
            }
        }
    }

    /// The refusal an error body carries, for a client to word it from the
    /// same table; `None` for a code that is not a rule's (`unauthorized`,
    /// `unknown_show`, …) or a body missing its code's fields.
    pub fn from_wire(body: &wire::ErrorBody) -> Option<Self> {
        let seats = || body.seats.clone().unwrap_or_default();
        Some(match body.error.as_str() {
            // A best request's refusal: its own sentence, no seats.
            "invalid_seats"
                if body.seats.is_none() && body.message != Self::InvalidSeats { seats: vec![] }.message() =>
            {
                Self::InvalidBest { reason: body.message.clone() }
            }
            "invalid_seats" => Self::InvalidSeats { seats: seats() },
            "invalid_quantity" => Self::InvalidQuantity { area: body.area.clone() },
            "invalid_hold_id" => Self::InvalidHoldId,
            "idempotency_mismatch" => Self::IdempotencyMismatch,
            "hold_limit" => Self::HoldLimit,
            "seats_taken" => Self::SeatsTaken { seats: seats() },
            "not_enough_seats" if body.area.is_none() => {
                Self::NoBlock { available: u32::try_from(body.available?).ok()? }
            }
            "seats_unavailable" => Self::SeatsUnavailable { seats: seats() },
            "would_strand" => Self::WouldStrand { seats: seats() },
            "not_enough_seats" => {
                Self::NotEnoughSeats { area: body.area.clone()?, available: u32::try_from(body.available?).ok()? }
            }
            "no_hold" => Self::NoHold,
            "hold_expired" => Self::HoldExpired,
            "hold_released" => Self::HoldReleased,
            "already_confirmed" => Self::AlreadyConfirmed,
            "extension_limit" => Self::ExtensionLimit,
            "not_admitted" => {
                let queue = body.queue.unwrap_or_default();
                Self::NotAdmitted {
                    position: queue.position,
                    estimated_admit_at: queue.estimated_admit_at.map(ServerMillis),
                }
            }
            _ => return None,
        })
    }

    /// The same refusal with each seat it names renamed (ids to labels, for
    /// a sentence on screen).
    pub fn naming_seats(self, name: impl Fn(&str) -> String) -> Self {
        match self {
            Self::InvalidSeats { seats } => Self::InvalidSeats { seats: seats.iter().map(|s| name(s)).collect() },
            Self::SeatsTaken { seats } => Self::SeatsTaken { seats: seats.iter().map(|s| name(s)).collect() },
            Self::SeatsUnavailable { seats } => {
                Self::SeatsUnavailable { seats: seats.iter().map(|s| name(s)).collect() }
            }
            Self::WouldStrand { seats } => Self::WouldStrand { seats: seats.iter().map(|s| name(s)).collect() },
            other => other,
        }
    }

    /// The error body API.md specifies, with this code's extra fields.
    pub fn to_wire(&self, now: ServerMillis) -> wire::ErrorBody {
        let mut body = wire::ErrorBody {
            error: self.code().to_owned(),
            message: self.message(),
            server_time: now.0,
            seats: None,
            area: None,
            available: None,
            queue: None,
        };
        match self {
            Self::InvalidSeats { seats } if !seats.is_empty() => body.seats = Some(seats.clone()),
            Self::SeatsTaken { seats } | Self::SeatsUnavailable { seats } | Self::WouldStrand { seats } => {
                body.seats = Some(seats.clone());
            }
            Self::NoBlock { available } => body.available = Some(i64::from(*available)),
            Self::NotEnoughSeats { area, available } => {
                body.area = Some(area.clone());
                body.available = Some(i64::from(*available));
            }
            Self::NotAdmitted { position, estimated_admit_at } => {
                body.queue = Some(wire::NotAdmitted {
                    position: *position,
                    estimated_admit_at: estimated_admit_at.map(|at| at.0),
                });
            }
            _ => {}
        }
        body
    }
}

/// "B8", "B7 and B8", "B6, B7 and B8".
fn list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message())
    }
}

impl std::error::Error for Rejection {}
