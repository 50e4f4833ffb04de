//! Estimating server time from round trips, and the buffered countdown.
//! Runs natively and, through wasm-bindgen-test, in headless Chromium.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use seat_state::{
    ClockOffset, ClockSample, ClockSync, Countdown, LocalMillis, Phase, SampleOutcome, ServerMillis, SteadyCountdown,
};

/// A round trip sent at local `sent`, lasting `round_trip`, to a server
/// whose clock is `offset` ahead of the local one (read mid-trip).
fn trip(sent: i64, round_trip: i64, offset: i64) -> ClockSample {
    ClockSample {
        sent: LocalMillis(sent),
        server: ServerMillis(sent + round_trip / 2 + offset),
        received: LocalMillis(sent + round_trip),
    }
}

#[test]
fn before_any_sample_there_is_no_estimate() {
    let sync = ClockSync::new();
    assert_eq!(sync.server_now(LocalMillis(5)), None);
    assert_eq!(sync.offset_or_zero(), ClockOffset::ZERO);
    assert_eq!(sync.next_sample_at(), None);
}

#[test]
fn the_smallest_round_trip_wins_and_gives_the_uncertainty() {
    let mut sync = ClockSync::new();
    for (sent, round_trip) in [(0, 300), (1_000, 40), (2_000, 500), (3_000, 40)] {
        assert_eq!(sync.add(trip(sent, round_trip, 60_000)), SampleOutcome::Kept);
    }
    let offset = sync.offset().unwrap();
    assert_eq!(offset, ClockOffset { offset_millis: 60_000, uncertainty_millis: 20 });
    assert_eq!(sync.server_now(LocalMillis(10_000)), Some(ServerMillis(70_000)));
}

#[test]
fn the_window_is_bounded_in_count_and_age() {
    let mut sync = ClockSync::new();
    sync.add(trip(0, 10, 500));
    for n in 1..=ClockSync::WINDOW as i64 {
        sync.add(trip(n * 1_000, 100, 500));
    }
    // The 10 ms sample was pushed out by count.
    assert_eq!(sync.len(), ClockSync::WINDOW);
    assert_eq!(sync.offset().unwrap().uncertainty_millis, 50);
    let mut aged = ClockSync::new();
    aged.add(trip(0, 10, 500));
    aged.add(trip(ClockSync::MAX_AGE_MILLIS + 100, 100, 500));
    assert_eq!((aged.len(), aged.offset().unwrap().uncertainty_millis), (1, 50));
}

#[test]
fn a_local_clock_jump_replaces_the_old_samples() {
    let mut sync = ClockSync::new();
    for n in 0..4 {
        sync.add(trip(n * 1_000, 20, 60_000));
    }
    // The local clock jumps two minutes ahead: the same server now reads as
    // a smaller offset. The old, precise samples would be two minutes wrong.
    let jumped = 120_000;
    assert_eq!(sync.add(trip(5_000 + jumped, 200, 60_000 - jumped)), SampleOutcome::Replaced);
    assert_eq!(sync.len(), 1);
    assert_eq!(sync.server_now(LocalMillis(6_000 + jumped)), Some(ServerMillis(66_000)));
    // And back again.
    assert_eq!(sync.add(trip(7_000, 50, 60_000)), SampleOutcome::Replaced);
    assert_eq!(sync.server_now(LocalMillis(8_000)), Some(ServerMillis(68_000)));
}

#[test]
fn after_a_long_jump_the_old_samples_have_aged_out() {
    let mut sync = ClockSync::new();
    for n in 0..4 {
        sync.add(trip(n * 1_000, 20, 60_000));
    }
    let jumped = 3_600_000;
    sync.add(trip(5_000 + jumped, 200, 60_000 - jumped));
    assert_eq!(sync.len(), 1);
    assert_eq!(sync.server_now(LocalMillis(6_000 + jumped)), Some(ServerMillis(66_000)));
}

#[test]
fn small_disagreement_within_the_uncertainties_is_not_a_jump() {
    let mut sync = ClockSync::new();
    sync.add(trip(0, 100, 1_000));
    let within = 50 + 50 + ClockSync::JUMP_TOLERANCE_MILLIS;
    assert_eq!(sync.add(trip(1_000, 100, 1_000 + within)), SampleOutcome::Kept);
    assert_eq!(sync.add(trip(2_000, 100, 1_000 + within * 3)), SampleOutcome::Replaced);
}

#[test]
fn an_answer_before_its_question_is_ignored() {
    let mut sync = ClockSync::new();
    sync.add(trip(0, 40, 7));
    let backwards = ClockSample { sent: LocalMillis(5_000), server: ServerMillis(1), received: LocalMillis(4_000) };
    assert_eq!(sync.add(backwards), SampleOutcome::Ignored);
    assert_eq!(sync.offset().unwrap().offset_millis, 7);
}

#[test]
fn samples_come_quickly_at_first_then_once_a_minute() {
    let mut sync = ClockSync::new();
    sync.add(trip(0, 10, 0));
    assert_eq!(sync.next_sample_at(), Some(LocalMillis(10 + ClockSync::WARM_UP_INTERVAL_MILLIS)));
    sync.add(trip(1_000, 10, 0));
    sync.add(trip(2_000, 10, 0));
    assert_eq!(sync.next_sample_at(), Some(LocalMillis(2_010 + ClockSync::RESYNC_INTERVAL_MILLIS)));
}

#[test]
fn the_countdown_shows_less_than_the_server_allows() {
    let deadline = ServerMillis(1_000_000);
    let view = Countdown::at(deadline, ServerMillis(1_000_000 - 605_000), 0, 5_000);
    assert_eq!((view.remaining_secs, view.text.as_str(), view.phase), (600, "10:00", Phase::Normal));
    assert_eq!(view.next_change_in_millis, Some(1));
    let view = Countdown::at(deadline, ServerMillis(1_000_000 - 65_001), 0, 5_000);
    assert_eq!((view.text.as_str(), view.phase, view.next_change_in_millis), ("1:00", Phase::Normal, Some(2)));
    let view = Countdown::at(deadline, ServerMillis(1_000_000 - 64_999), 0, 5_000);
    assert_eq!((view.text.as_str(), view.phase, view.next_change_in_millis), ("0:59", Phase::Warning, Some(1_000)));
    // The uncertainty comes off too.
    let view = Countdown::at(deadline, ServerMillis(1_000_000 - 9_500), 1_000, 5_000);
    assert_eq!((view.text.as_str(), view.next_change_in_millis), ("0:03", Some(501)));
    for now in [1_000_000 - 5_999, 1_000_000, 2_000_000] {
        let view = Countdown::at(deadline, ServerMillis(now), 0, 5_000);
        assert_eq!((view.remaining_secs, view.text.as_str(), view.phase), (0, "0:00", Phase::Expired));
        assert_eq!(view.next_change_in_millis, None);
    }
    assert_eq!(Countdown::at(deadline, ServerMillis(0), 0, 0).text, "16:40");
}

#[test]
fn a_steady_countdown_never_goes_up_for_the_same_deadline() {
    let mut steady = SteadyCountdown::default();
    let deadline = ServerMillis(100_000);
    assert_eq!(steady.view(deadline, ServerMillis(30_000), 0, 5_000).remaining_secs, 65);
    // A new clock sample moves the estimate back by two seconds.
    let view = steady.view(deadline, ServerMillis(28_000), 0, 5_000);
    assert_eq!((view.remaining_secs, view.next_change_in_millis), (65, Some(2_001)));
    // An extension moves the deadline: it starts afresh.
    assert_eq!(steady.view(ServerMillis(400_000), ServerMillis(28_000), 0, 5_000).remaining_secs, 367);
}

#[test]
fn a_short_hold_gets_at_most_a_quarter_of_its_time_as_buffer() {
    assert_eq!(Countdown::buffer_for_hold(600), Countdown::DEFAULT_BUFFER_MILLIS);
    assert_eq!(Countdown::buffer_for_hold(8), 2_000);
    assert_eq!(Countdown::buffer_for_hold(0), 0);
    assert_eq!(Countdown::buffer_for_hold(-5), 0);
}

#[test]
fn a_view_says_how_many_milliseconds_it_shows_as_left() {
    // 9.5 s left with no uncertainty or buffer: 9 s shown for 500 ms more.
    let view = Countdown::at(ServerMillis(10_500), ServerMillis(1_000), 0, 0);
    assert_eq!((view.remaining_secs, view.remaining_millis()), (9, 9_500));
    assert_eq!(Countdown::at(ServerMillis(1_000), ServerMillis(1_000), 0, 0).remaining_millis(), 0);
}
