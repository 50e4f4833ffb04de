//! What state a seat is in, derived from stored facts and the server's now.

use crate::time::ServerMillis;

/// The state a seat is in at a given server instant.
///
/// It is never stored: it is derived from facts (`sold`, `holdExpiresAt`)
/// every time, so a hold ends exactly at its deadline whether or not any
/// cleanup has run.
#[cfg_attr(feature = "js", derive(serde::Serialize, tsify::Tsify), serde(rename_all = "lowercase"))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SeatState {
    /// Nobody holds or bought it.
    Free,
    /// An unexpired hold covers it.
    Held,
    /// It was bought.
    Sold,
}

impl SeatState {
    /// The lowercase name used in the DOM (`data-state`) and in logs.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Free => "free",
            Self::Held => "held",
            Self::Sold => "sold",
        }
    }
}

/// Derives a seat's state: sold wins; a hold counts while its deadline is
/// strictly after `now` (a deadline at or before `now` is gone).
pub fn seat_state(sold: bool, hold_expires_at: Option<ServerMillis>, now: ServerMillis) -> SeatState {
    if sold {
        SeatState::Sold
    } else if hold_expires_at.is_some_and(|deadline| deadline > now) {
        SeatState::Held
    } else {
        SeatState::Free
    }
}
