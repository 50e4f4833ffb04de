//! Limits on use (API.md "Limits (v2)"): rate limits per session and per
//! client address, and caps on live streams. Sizes come from the command
//! line (`config.rs`); this module only enforces them.

pub mod address;
pub mod rate;
pub mod streams;

use std::num::NonZeroU32;

pub use address::ClientAddress;
pub use rate::{HoldWrites, NewSessions, RateLimits};
pub use streams::{StreamCaps, StreamSlot, StreamSlots};

/// Every limit of one server.
#[derive(Debug, Clone)]
pub struct Limits {
    /// `None` turns the rate limits off (`--rate-limits off`).
    pub rates: Option<Quotas>,
    pub streams: StreamCaps,
    /// Take the client address from `X-Forwarded-For` (the proxy's own entry,
    /// the last one); only behind a proxy that sets it.
    pub trust_forwarded_for: bool,
    /// Places one client address may take in a show's waiting room.
    pub queue_places_per_address: u32,
}

/// API.md's default for `--queue-places-per-address`.
pub const QUEUE_PLACES_PER_ADDRESS: u32 = 50;

impl Default for Limits {
    /// No rate limits (simulations and in-process tests drive everything from
    /// one place); the stream caps stand. `seathold serve` turns rates on.
    fn default() -> Self {
        Self {
            rates: None,
            streams: StreamCaps::default(),
            trust_forwarded_for: false,
            queue_places_per_address: QUEUE_PLACES_PER_ADDRESS,
        }
    }
}

/// Requests allowed per minute, each also the burst allowed at once.
#[derive(Debug, Clone, Copy)]
pub struct Quotas {
    pub hold_writes_per_session: NonZeroU32,
    pub hold_writes_per_address: NonZeroU32,
    pub sessions_per_address: NonZeroU32,
}
