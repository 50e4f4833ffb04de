//! A re-sync under way: the version it was asked from, and when to ask
//! again after the caller's fetch failed (exponential back-off).

use super::wait::doubling;
use crate::time::LocalMillis;

/// The first wait after a failed re-sync.
const FIRST_RETRY_MILLIS: i64 = 250;
/// The longest wait the back-off grows to (before jitter).
const MAX_RETRY_MILLIS: i64 = 10_000;

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Resync {
    /// The version known when it was asked for.
    pub from: i64,
    /// Failed fetches in a row.
    failures: u32,
    /// When to ask again; `None` while a fetch is under way.
    retry_at: Option<LocalMillis>,
}

impl Resync {
    /// Just asked for, from `from`.
    pub fn asked(from: i64) -> Self {
        Self { from, failures: 0, retry_at: None }
    }

    /// The fetch failed at `now`: the next ask waits out the back-off (up
    /// to a quarter longer by `jitter_permille`, which spreads many
    /// browsers' retries) or the server's `Retry-After`, whichever is longer.
    /// Without any local time yet, the next tick asks again.
    pub fn failed(&mut self, now: Option<LocalMillis>, retry_after_millis: Option<i64>, jitter_permille: u16) {
        self.failures = self.failures.saturating_add(1);
        let back_off = doubling(FIRST_RETRY_MILLIS, MAX_RETRY_MILLIS, self.failures);
        let jitter = back_off * i64::from(jitter_permille.min(1000)) / 4000;
        let wait = (back_off + jitter).max(retry_after_millis.unwrap_or(0));
        self.retry_at = Some(now.map_or(LocalMillis(i64::MIN), |now| now.plus(wait)));
    }

    /// Whether to ask again at `now`; if so, a fetch is under way again.
    pub fn take_due(&mut self, now: LocalMillis) -> bool {
        let due = self.retry_at.is_some_and(|at| at <= now);
        if due {
            self.retry_at = None;
        }
        due
    }

    /// When to ask again, while waiting to.
    pub fn retry_at(&self) -> Option<LocalMillis> {
        self.retry_at
    }
}
