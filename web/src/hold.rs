//! The customer's hold as the page shows it, and what they can ask of it.
//! Model types: the hold panel renders them, the controller acts on them.

use seat_state::{HoldStatus, ServerMillis};

/// What the customer asked the panel to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HoldAction {
    Extend,
    Confirm,
    Release,
    /// Close the panel of a finished (confirmed or expired) hold.
    Dismiss,
}

/// The customer's hold as the panel shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HoldSummary {
    /// "Row B, seat 7 and Standing × 2".
    pub places: String,
    pub expires_at: ServerMillis,
    /// Extensions still allowed.
    pub extensions_left: u32,
    /// Its status now (`Expired` from the deadline on, as `seat-state` says).
    pub status: HoldStatus,
    /// What its seats cost together ("€90.00"), when all are priced in
    /// one currency and it has no standing places.
    pub total: Option<String>,
}
