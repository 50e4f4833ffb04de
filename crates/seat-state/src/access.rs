//! Accessible seating (API.md "Box office (v3)"): wheelchair places and
//! their companion seats, kept for requests that ask for them (`"access":
//! true`, or best available with `wheelchair`) until the show's
//! `accessReleaseAt`, then sold like any seat.

use std::collections::HashSet;

use crate::ids::SeatId;
use crate::show::InvalidShow;
use crate::time::ServerMillis;
use crate::wire;

/// What a seat is kept for.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Access {
    /// A wheelchair place.
    Wheelchair,
    /// A seat for the companion of the wheelchair place `of`.
    Companion { of: SeatId },
}

impl Access {
    /// The wire name (`access`).
    pub fn as_str(&self) -> &'static str {
        match self {
            Self::Wheelchair => "wheelchair",
            Self::Companion { .. } => "companion",
        }
    }

    /// The wheelchair place a companion seat goes with.
    pub fn companion_of(&self) -> Option<&SeatId> {
        match self {
            Self::Wheelchair => None,
            Self::Companion { of } => Some(of),
        }
    }
}

/// Whether a request may take a seat: a seat kept for no one (`is_access`
/// false) always; an access seat when the request asks for access, or once
/// `release_at` has come (never, when the show sets none).
pub fn may_take(is_access: bool, asks_access: bool, release_at: Option<ServerMillis>, now: ServerMillis) -> bool {
    !is_access || asks_access || release_at.is_some_and(|release| now >= release)
}

/// Each seat's `access` and `companionOf`, checked: `wheelchair`, or
/// `companion` naming a wheelchair place of the show; `companionOf` on no
/// other seat.
pub(crate) fn seat_access(seats: &[wire::VenueSeat]) -> Result<Vec<Option<Access>>, InvalidShow> {
    let wheelchairs: HashSet<&str> = seats
        .iter()
        .filter(|seat| seat.access.as_deref() == Some("wheelchair"))
        .map(|seat| seat.seat.id.as_str())
        .collect();
    seats
        .iter()
        .map(|seat| {
            let id = &seat.seat.id;
            match (seat.access.as_deref(), seat.companion_of.as_deref()) {
                (None, None) => Ok(None),
                (Some("wheelchair"), None) => Ok(Some(Access::Wheelchair)),
                (Some("companion"), Some(of)) if wheelchairs.contains(of) => {
                    let of = SeatId::parse(of).map_err(|e| InvalidShow(e.to_string()))?;
                    Ok(Some(Access::Companion { of }))
                }
                (Some("companion"), Some(of)) => {
                    Err(InvalidShow(format!("seat {id:?} companionOf {of:?} names no wheelchair seat of the show")))
                }
                (Some("companion"), None) => {
                    Err(InvalidShow(format!("seat {id:?} is a companion seat and needs companionOf")))
                }
                (Some("wheelchair") | None, Some(_)) => {
                    Err(InvalidShow(format!("seat {id:?} has companionOf but is not a companion seat")))
                }
                (Some(other), _) => Err(InvalidShow(format!(
                    "seat {id:?} access must be \"wheelchair\" or \"companion\", not {other:?}"
                ))),
            }
        })
        .collect()
}
