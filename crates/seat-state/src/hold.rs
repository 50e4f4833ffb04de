//! A hold: who holds which places until when, and what became of it.

use std::fmt;
use std::num::NonZeroU32;

use crate::ids::{AreaId, HoldId, SeatId, ShowId};
use crate::time::ServerMillis;
use crate::wire;

/// Who acts on holds: the id behind a session token.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct HolderId(String);

impl HolderId {
    /// Wraps an id the server issued (or read back from storage).
    pub fn new(id: impl Into<String>) -> Self {
        Self(id.into())
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for HolderId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// How many places of a general-admission area a hold takes: never zero.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Quantity(NonZeroU32);

impl Quantity {
    /// `None` for zero.
    pub fn new(places: u32) -> Option<Self> {
        NonZeroU32::new(places).map(Self)
    }

    /// The number of places.
    pub fn get(self) -> u32 {
        self.0.get()
    }
}

/// What became of a hold.
#[cfg_attr(feature = "js", derive(serde::Serialize, tsify::Tsify), serde(rename_all = "UPPERCASE"))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HoldStatus {
    /// Holding its places until `expires_at`.
    Held,
    /// Bought: its places are sold.
    Confirmed,
    /// Let go by its holder (an expired hold can be released too).
    Released,
    /// Its deadline passed without confirmation.
    Expired,
}

impl HoldStatus {
    /// The wire name: `HELD`, `CONFIRMED`, `RELEASED` or `EXPIRED`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Held => "HELD",
            Self::Confirmed => "CONFIRMED",
            Self::Released => "RELEASED",
            Self::Expired => "EXPIRED",
        }
    }

    /// Reads a wire name back.
    pub fn parse(name: &str) -> Option<Self> {
        [Self::Held, Self::Confirmed, Self::Released, Self::Expired].into_iter().find(|status| status.as_str() == name)
    }
}

impl fmt::Display for HoldStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One hold, as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hold {
    pub id: HoldId,
    pub holder: HolderId,
    /// The numbered seats, in the order they were requested.
    pub seats: Vec<SeatId>,
    /// Places per general-admission area, by area id.
    pub areas: Vec<(AreaId, Quantity)>,
    pub created_at: ServerMillis,
    /// The show's version its creation made: the order holds were decided
    /// in. Instants can tie (a batch is decided at one instant) and, before
    /// a fix, went backwards; this cannot.
    pub created_version: i64,
    /// The deadline: the hold is active while `expires_at > now`.
    pub expires_at: ServerMillis,
    /// How many times it was extended.
    pub extensions: u32,
    /// The status last written: `Held`, `Confirmed`, `Released`, or
    /// `Expired` once the expiry sweep recorded it. A stored `Held` past its
    /// deadline is expired all the same; see [`Hold::status_at`].
    pub stored_status: HoldStatus,
    /// Confirmed after its deadline under `latePolicy: honorIfFree`.
    pub late: bool,
}

impl Hold {
    /// The status at `now`: a stored `Held` whose deadline is at or before
    /// `now` is `Expired`, whether or not any sweep has run.
    pub fn status_at(&self, now: ServerMillis) -> HoldStatus {
        match self.stored_status {
            HoldStatus::Held if self.expires_at <= now => HoldStatus::Expired,
            status => status,
        }
    }

    /// Whether it holds its places at `now`.
    pub fn is_active(&self, now: ServerMillis) -> bool {
        self.status_at(now) == HoldStatus::Held
    }

    /// How many places it takes: seats plus area quantities.
    pub fn places(&self) -> u64 {
        let areas: u64 = self.areas.iter().map(|(_, q)| u64::from(q.get())).sum();
        self.seats.len() as u64 + areas
    }

    /// The hold as every hold endpoint answers it, at `now`.
    pub fn to_wire(&self, show_id: &ShowId, now: ServerMillis) -> wire::HoldBody {
        wire::HoldBody {
            hold_id: String::from(&self.id),
            show_id: String::from(show_id),
            seats: self.seats.iter().map(String::from).collect(),
            areas: self.areas.iter().map(|(area, q)| (String::from(area), i64::from(q.get()))).collect(),
            status: self.status_at(now).as_str().to_owned(),
            expires_at: self.expires_at.0,
            extensions: i64::from(self.extensions),
            late: self.late,
            server_time: now.0,
        }
    }
}
