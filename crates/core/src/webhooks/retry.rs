//! When a failed delivery is tried again (API.md "A delivery"): the first
//! retry after at most 2 s, then doubling with ±20 % jitter, at most 10
//! minutes apart, for 24 hours from the first failure; then the event is
//! parked and the next one goes. Pure: the caller brings the randomness.

use std::time::Duration;

use crate::randomness::Randomness;

/// No two attempts at one event are further apart than this.
pub const MAX_GAP: Duration = Duration::from_secs(10 * 60);

/// The wait after the `failed`-th failed attempt (1 for the first), with
/// `unit` (in `[0, 1)`, random) choosing the jitter: `first` doubled
/// `failed - 1` times, times 0.8 to 1.2, never over [`MAX_GAP`].
pub fn delay(failed: u32, first: Duration, unit: f64) -> Duration {
    let doublings = failed.saturating_sub(1).min(40);
    let base = (first.as_secs_f64() * 2f64.powi(doublings as i32)).min(MAX_GAP.as_secs_f64());
    let jitter = 0.8 + 0.4 * unit.clamp(0.0, 1.0);
    Duration::from_secs_f64((base * jitter).min(MAX_GAP.as_secs_f64()))
}

/// Whether an event failing since `since` (ms) is parked rather than tried
/// again at `next` (ms): when `next` falls outside the retry period.
pub fn parks(since: i64, next: i64, give_up: Duration) -> bool {
    let give_up = i64::try_from(give_up.as_millis()).unwrap_or(i64::MAX);
    next.saturating_sub(since) > give_up
}

/// A uniform number in `[0, 1)` from `randomness` (0.5 without it).
pub fn random_unit(randomness: &dyn Randomness) -> f64 {
    randomness.next_u64().map_or(0.5, |word| (word >> 11) as f64 / (1u64 << 53) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIRST: Duration = Duration::from_secs(1);
    const DAY: Duration = Duration::from_secs(24 * 3600);

    #[test]
    fn the_first_retry_comes_within_two_seconds_whatever_the_jitter() {
        for unit in [0.0, 0.5, 0.999_999] {
            let wait = delay(1, FIRST, unit);
            assert!(wait >= Duration::from_millis(800) && wait <= Duration::from_secs(2), "{wait:?}");
        }
    }

    #[test]
    fn waits_double_within_twenty_percent_up_to_ten_minutes() {
        for failed in 1..=20 {
            let middle = delay(failed, FIRST, 0.5).as_secs_f64();
            let expected = (2f64.powi(failed as i32 - 1)).min(600.0);
            assert!((middle - expected).abs() < 1e-6, "{failed}: {middle} vs {expected}");
            let (low, high) = (delay(failed, FIRST, 0.0), delay(failed, FIRST, 0.999_999));
            assert!(low.as_secs_f64() >= expected * 0.8 - 1e-6, "{failed}: {low:?}");
            assert!(high <= MAX_GAP && high.as_secs_f64() <= expected * 1.2 + 1e-6, "{failed}: {high:?}");
        }
        assert_eq!(delay(u32::MAX, FIRST, 0.999), MAX_GAP);
    }

    #[test]
    fn an_event_is_tried_for_a_day_then_parked() {
        let (mut at, mut attempts) = (0i64, 1u32);
        loop {
            let next = at + i64::try_from(delay(attempts, FIRST, 0.5).as_millis()).unwrap();
            if parks(0, next, DAY) {
                break;
            }
            (at, attempts) = (next, attempts + 1);
        }
        assert!(at <= 24 * 3600 * 1000 && at > 24 * 3600 * 1000 - 600_000, "last attempt at {at} ms");
        assert!((150..=160).contains(&attempts), "{attempts} attempts in a day");
    }

    #[test]
    fn random_units_stay_in_range() {
        let randomness = crate::randomness::OsRandomness;
        for _ in 0..1000 {
            let unit = random_unit(&randomness);
            assert!((0.0..1.0).contains(&unit), "{unit}");
        }
    }
}
