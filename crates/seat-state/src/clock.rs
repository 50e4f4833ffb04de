//! Estimating the server's clock from the browser.
//!
//! The browser never trusts its own clock. It asks the server for the time
//! and notes when it sent the request and when the answer arrived (both on
//! its own clock). Assuming the server read its clock half way through the
//! round trip gives an offset; the true offset is within half the round trip
//! of that estimate.
//!
//! ```
//! use seat_state::{ClockOffset, ClockSample, LocalMillis, ServerMillis, SeatState, seat_state};
//!
//! // Sent at local 1_000, the answer said 61_050, received at local 1_100:
//! // the local clock is about a minute behind.
//! let offset = ClockOffset::from_sample(ClockSample {
//!     sent: LocalMillis(1_000),
//!     server: ServerMillis(61_050),
//!     received: LocalMillis(1_100),
//! });
//! let server_now = offset.server_now(LocalMillis(1_950));
//! assert_eq!(server_now, ServerMillis(61_950));
//!
//! // A seat whose hold ends at server 62_000 is still held...
//! assert_eq!(seat_state(false, Some(ServerMillis(62_000)), server_now), SeatState::Held);
//! // ...and free from its deadline on, with no message from the server.
//! assert_eq!(seat_state(false, Some(ServerMillis(62_000)), ServerMillis(62_000)), SeatState::Free);
//! ```

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
    pub const ZERO: Self = Self { offset_millis: 0, uncertainty_millis: 0 };

    /// Estimates the offset from one round trip. A sample whose answer seems
    /// to arrive before it was sent (the local clock jumped back) counts as a
    /// zero-length round trip rather than a negative one.
    pub fn from_sample(sample: ClockSample) -> Self {
        let round_trip = (sample.received.0 - sample.sent.0).max(0);
        let midpoint = sample.sent.0 + round_trip / 2;
        Self { offset_millis: sample.server.0 - midpoint, uncertainty_millis: (round_trip + 1) / 2 }
    }

    /// The same knowledge with the estimate moved to the earliest instant
    /// the server's clock can read (the server read it before its answer
    /// arrived), the uncertainty now spanning the whole interval above it.
    /// States derived from it never show a seat free before the server
    /// frees it; a countdown shortened by its uncertainty is the same as
    /// from the middle estimate.
    pub fn earliest(self) -> Self {
        Self {
            offset_millis: self.offset_millis.saturating_sub(self.uncertainty_millis),
            uncertainty_millis: self.uncertainty_millis.saturating_mul(2),
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

/// What [`ClockSync::add`] did with a sample.
#[cfg_attr(feature = "js", derive(serde::Serialize, tsify::Tsify), serde(rename_all = "lowercase"))]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SampleOutcome {
    /// Added to the window.
    Kept,
    /// It disagreed with the current estimate beyond both uncertainties: a
    /// clock (usually the local one) jumped. The older samples were dropped
    /// and this one alone is the estimate now.
    Replaced,
    /// Its answer seems to arrive before it was sent: the local clock jumped
    /// back during the trip, so it says nothing. Sample again.
    Ignored,
}

/// One kept sample: when it arrived and what it says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Kept {
    received: LocalMillis,
    round_trip: i64,
    offset: ClockOffset,
}

/// The browser's running estimate of the server clock, from several round
/// trips (`GET /api/time`).
///
/// It keeps at most [`ClockSync::WINDOW`] samples, none older than
/// [`ClockSync::MAX_AGE_MILLIS`] of local time before the newest, and trusts
/// the one with the smallest round trip (newest on ties); its uncertainty is
/// half that round trip. A sample that disagrees with that estimate by more
/// than both uncertainties plus [`ClockSync::JUMP_TOLERANCE_MILLIS`] means a
/// clock jumped: the newest sample wins and the old ones go. A jump between
/// samples goes unnoticed until the next sample, so feed it from a monotonic
/// clock (`performance.timeOrigin + performance.now()`) where possible and
/// sample again at [`ClockSync::next_sample_at`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClockSync {
    /// In the order added; at most `WINDOW`.
    kept: Vec<Kept>,
}

impl ClockSync {
    /// Samples kept.
    pub const WINDOW: usize = 8;
    /// Samples older than this (local time before the newest) are dropped.
    pub const MAX_AGE_MILLIS: i64 = 10 * 60 * 1000;
    /// Disagreement beyond both uncertainties that still counts as drift.
    pub const JUMP_TOLERANCE_MILLIS: i64 = 250;
    /// Until this many samples are kept, sample again soon.
    pub const WARM_UP_SAMPLES: usize = 3;
    /// Pause between samples while warming up.
    pub const WARM_UP_INTERVAL_MILLIS: i64 = 1_000;
    /// Pause between samples once warm.
    pub const RESYNC_INTERVAL_MILLIS: i64 = 60 * 1000;

    /// No samples yet: [`Self::server_now`] answers `None`.
    pub fn new() -> Self {
        Self::default()
    }

    /// Takes one round trip into account. O(WINDOW).
    pub fn add(&mut self, sample: ClockSample) -> SampleOutcome {
        let round_trip = sample.received.0 - sample.sent.0;
        if round_trip < 0 {
            return SampleOutcome::Ignored;
        }
        let new = Kept { received: sample.received, round_trip, offset: ClockOffset::from_sample(sample) };
        let oldest = sample.received.0.saturating_sub(Self::MAX_AGE_MILLIS);
        self.kept.retain(|kept| kept.received.0 >= oldest);
        let jumped = self.offset().is_some_and(|best| {
            let apart = (best.offset_millis - new.offset.offset_millis).abs();
            apart > best.uncertainty_millis + new.offset.uncertainty_millis + Self::JUMP_TOLERANCE_MILLIS
        });
        if jumped {
            self.kept.clear();
        }
        if self.kept.len() == Self::WINDOW {
            self.kept.remove(0);
        }
        self.kept.push(new);
        if jumped { SampleOutcome::Replaced } else { SampleOutcome::Kept }
    }

    /// The estimate: the kept sample with the smallest round trip, the
    /// newest among equals. `None` before any sample.
    pub fn offset(&self) -> Option<ClockOffset> {
        self.kept.iter().rev().min_by_key(|kept| kept.round_trip).map(|kept| kept.offset)
    }

    /// The estimated server instant at a local instant; `None` before any
    /// sample (use [`Self::offset_or_zero`] to trust the local clock then).
    pub fn server_now(&self, local: LocalMillis) -> Option<ServerMillis> {
        self.offset().map(|offset| offset.server_now(local))
    }

    /// The estimate, or [`ClockOffset::ZERO`] (the local clock) before any sample.
    pub fn offset_or_zero(&self) -> ClockOffset {
        self.offset().unwrap_or(ClockOffset::ZERO)
    }

    /// How many samples are kept.
    pub fn len(&self) -> usize {
        self.kept.len()
    }

    /// Whether no sample is kept.
    pub fn is_empty(&self) -> bool {
        self.kept.is_empty()
    }

    /// When to sample next (local time); `None`: now, there is no estimate.
    pub fn next_sample_at(&self) -> Option<LocalMillis> {
        let latest = self.kept.iter().map(|kept| kept.received).max()?;
        let pause = if self.kept.len() < Self::WARM_UP_SAMPLES {
            Self::WARM_UP_INTERVAL_MILLIS
        } else {
            Self::RESYNC_INTERVAL_MILLIS
        };
        Some(LocalMillis(latest.0.saturating_add(pause)))
    }
}
