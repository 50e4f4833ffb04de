//! Estimating the server's clock from the browser.
//!
//! The browser never trusts its own clock. It asks the server for the time
//! and notes when it sent the request and when the answer arrived (both on
//! its own clock). Assuming the server read its clock half way through the
//! round trip gives an offset; the true offset is within half the round trip
//! of that estimate.

use crate::time::{LocalMillis, ServerMillis};

/// One request round trip to the server's clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClockSample {
    /// Local time when the request was sent.
    pub sent: LocalMillis,
    /// The server's `serverTime` in the answer.
    pub server: ServerMillis,
    /// Local time when the answer arrived.
    pub received: LocalMillis,
}

/// Server time minus local time, as estimated from a round trip.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClockOffset {
    /// Add this to a local instant to get the estimated server instant.
    pub offset_millis: i64,
    /// How far the true offset may be from `offset_millis`: half the round trip.
    pub uncertainty_millis: i64,
}

impl ClockOffset {
    /// The offset for a browser whose clock agrees with the server's.
    pub const ZERO: Self = Self {
        offset_millis: 0,
        uncertainty_millis: 0,
    };

    /// Estimates the offset from one round trip. A sample whose answer seems
    /// to arrive before it was sent (the local clock jumped back) counts as a
    /// zero-length round trip rather than a negative one.
    pub fn from_sample(sample: ClockSample) -> Self {
        let round_trip = (sample.received.0 - sample.sent.0).max(0);
        let midpoint = sample.sent.0 + round_trip / 2;
        Self {
            offset_millis: sample.server.0 - midpoint,
            uncertainty_millis: (round_trip + 1) / 2,
        }
    }

    /// The estimated server instant at a local instant.
    pub fn server_now(self, local: LocalMillis) -> ServerMillis {
        ServerMillis(local.0.saturating_add(self.offset_millis))
    }

    /// The local instant at which the server's clock is estimated to read `server`.
    pub fn local_at(self, server: ServerMillis) -> LocalMillis {
        LocalMillis(server.0.saturating_sub(self.offset_millis))
    }
}
