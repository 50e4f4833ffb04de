//! What a waiting browser shows between the server's answers: how far off
//! its admission is, never sooner than the server would admit it.

use crate::clock::ClockOffset;
use crate::time::{LocalMillis, ServerMillis};
use crate::wire::QueueProgress;

/// The admission instant a progress event implies for `position`: never
/// earlier than the server's own estimate, since the server's credit is at
/// least `admittedThrough` places. `None` once admitted.
pub fn estimate_from_progress(position: u64, progress: &QueueProgress) -> Option<ServerMillis> {
    let missing = position.checked_sub(progress.admitted_through).filter(|missing| *missing > 0)?;
    let rate = u64::from(progress.rate_per_minute.max(1));
    let millis = (missing * 60_000).div_ceil(rate);
    Some(ServerMillis(progress.server_time).plus_millis(i64::try_from(millis).unwrap_or(i64::MAX)))
}

/// Milliseconds left until `admit_at` on the server's clock as the browser
/// estimates it at `local`, counted from the earliest the server's clock can
/// read: the wait shown is never shorter than the real one.
pub fn wait_millis(admit_at: ServerMillis, offset: ClockOffset, local: LocalMillis) -> i64 {
    (admit_at.0 - offset.earliest().server_now(local).0).max(0)
}

/// The wait as text, rounded up: "12 min", "1 min 05 s", "45 s".
pub fn wait_text(millis: i64) -> String {
    let seconds = (millis.max(0) + 999) / 1000;
    match (seconds / 60, seconds % 60) {
        (0, s) => format!("{s} s"),
        (m, 0) => format!("{m} min"),
        (m, _) if m >= 10 => format!("{} min", m + 1),
        (m, s) => format!("{m} min {s:02} s"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_estimate_from_progress_waits_for_the_missing_places_at_the_rate() {
        let progress = QueueProgress { admitted_through: 10, rate_per_minute: 60, paused: false, server_time: 5_000 };
        assert_eq!(estimate_from_progress(13, &progress), Some(ServerMillis(8_000)));
        assert_eq!(estimate_from_progress(10, &progress), None, "admitted");
    }

    #[test]
    fn the_wait_counts_from_the_earliest_server_instant_and_rounds_up() {
        let offset = ClockOffset { offset_millis: 600_000, uncertainty_millis: 50 };
        // The device clock is 10 minutes behind: the estimate still waits the server's time.
        let wait = wait_millis(ServerMillis(1_000_000), offset, LocalMillis(390_000));
        assert_eq!(wait, 10_050);
        assert_eq!(wait_text(wait), "11 s");
        assert_eq!(wait_text(65_000), "1 min 05 s");
        assert_eq!(wait_text(600_001), "11 min");
        assert_eq!(wait_text(0), "0 s");
    }
}
