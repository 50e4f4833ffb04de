//! Waits on the local clock that a clock jumping back never cuts short,
//! and the doubling back-off both machines use.

use crate::time::LocalMillis;

/// A wait of `millis` from `from`. Set before any tick, it starts at the
/// first tick; if the clock reads earlier than its start, it starts again
/// from that reading (a jump back lengthens a wait, never shortens it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Wait {
    from: Option<LocalMillis>,
    millis: i64,
}

impl Wait {
    /// `millis` (at least 0) from `now`.
    pub fn of(now: Option<LocalMillis>, millis: i64) -> Self {
        Self { from: now, millis: millis.max(0) }
    }

    /// Due at once (at the first tick, before any).
    pub fn none(now: Option<LocalMillis>) -> Self {
        Self::of(now, 0)
    }

    /// The clock reads `now`.
    pub fn observe(&mut self, now: LocalMillis) {
        if self.from.is_none_or(|from| now < from) {
            self.from = Some(now);
        }
    }

    /// When it ends; `None` until a tick started it.
    pub fn due_at(&self) -> Option<LocalMillis> {
        self.from.map(|from| from.plus(self.millis))
    }

    /// Whether it has ended at `now`.
    pub fn is_over(&self, now: Option<LocalMillis>) -> bool {
        matches!((self.due_at(), now), (Some(due), Some(now)) if due <= now)
    }
}

/// `first` doubled for each failure after the first, at most `max`
/// (`failures` counts from 1; 0 counts as 1).
pub(super) fn doubling(first: i64, max: i64, failures: u32) -> i64 {
    let doublings = failures.saturating_sub(1).min(30);
    first.saturating_mul(1 << doublings).min(max)
}
