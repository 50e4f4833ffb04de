//! The connection policy, step by step, with the numbers the module doc
//! states: a break left to the transport, back-off, a refusal waited out
//! while the seat map is polled, comebacks, clock re-sampling. Runs
//! natively and, through wasm-bindgen-test, in headless Chromium.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use seat_state::sync::Connection;
use seat_state::sync::ConnectionStatus as Status;
use seat_state::sync::connection::{Input, Output};
use seat_state::{ClockSample, LocalMillis, ServerMillis};

const T0: i64 = 1_000_000;

/// A connection at local `T0`, its stream open, its clock warm (three
/// samples), with nothing else asked.
fn live() -> Connection {
    let mut connection = Connection::new(Some(7));
    connection.handle_input(Input::Tick(LocalMillis(T0)));
    for n in 0..3 {
        connection.handle_input(Input::ClockSample(sample(T0 - 300 + n * 100)));
    }
    assert_eq!(asks(&mut connection), [Output::OpenStream { resume_after: Some(7) }]);
    connection.handle_input(Input::StreamOpened);
    connection
}

/// A live connection whose stream broke twice (given up, 1 s), then was
/// reopened at `T0 + 1_000` and closed before it opened: probing.
fn probing_after_a_reopen() -> Connection {
    let mut connection = live();
    connection.handle_input(error(true));
    connection.handle_input(error(false));
    assert_eq!(asks(&mut connection), [Output::CloseStream]);
    assert_eq!(at(&mut connection, T0 + 1_000), [Output::OpenStream { resume_after: Some(7) }]);
    connection.handle_input(error(false));
    assert_eq!(asks(&mut connection), [Output::CloseStream, Output::ProbeStream]);
    connection
}

/// A round trip of 20 ms received at local `received`.
fn sample(received: i64) -> ClockSample {
    ClockSample {
        sent: LocalMillis(received - 20),
        server: ServerMillis(received + 5_000),
        received: LocalMillis(received),
    }
}

/// Everything asked for now (the timeout left out).
fn asks(connection: &mut Connection) -> Vec<Output> {
    let mut asked = Vec::new();
    loop {
        match connection.poll_output() {
            Output::Timeout(_) => return asked,
            output => asked.push(output),
        }
    }
}

fn timeout(connection: &mut Connection) -> Option<i64> {
    match connection.poll_output() {
        Output::Timeout(at) => at.map(|at| at.0),
        other => panic!("expected the timeout, got {other:?}"),
    }
}

/// Ticks at `local`; what is asked then, clock samples answered and left out.
fn at(connection: &mut Connection, local: i64) -> Vec<Output> {
    connection.handle_input(Input::Tick(LocalMillis(local)));
    let asked = asks(connection);
    if asked.contains(&Output::SampleClock) {
        connection.handle_input(Input::ClockSample(sample(local)));
    }
    asked.into_iter().filter(|output| *output != Output::SampleClock).collect()
}

fn error(reconnecting: bool) -> Input {
    Input::StreamError { reconnecting, jitter_permille: 0 }
}

#[test]
fn it_opens_the_stream_at_once_and_shows_connecting_until_open() {
    let mut connection = Connection::new(None);
    assert_eq!(connection.status(), Status::Connecting);
    assert_eq!(connection.poll_output(), Output::OpenStream { resume_after: None });
    // No clock sample yet: one is asked for at once.
    assert_eq!(connection.poll_output(), Output::SampleClock);
    assert_eq!(connection.poll_output(), Output::Timeout(None), "nothing timed before the first tick");
    connection.handle_input(Input::StreamOpened);
    assert_eq!(connection.status(), Status::Live);
}

#[test]
fn a_first_break_is_left_to_the_transport_and_a_second_closes_and_backs_off() {
    let mut connection = live();
    connection.handle_input(Input::Version(9));
    connection.handle_input(error(true));
    assert_eq!(connection.status(), Status::Reconnecting);
    assert_eq!(asks(&mut connection), [], "the transport reconnects by itself");
    connection.handle_input(Input::StreamError { reconnecting: true, jitter_permille: 1000 });
    assert_eq!(asks(&mut connection), [Output::CloseStream]);
    // Two errors: 1 s, plus 250 ms of jitter.
    assert_eq!(timeout(&mut connection), Some(T0 + 1_250));
    assert_eq!(at(&mut connection, T0 + 1_249), []);
    assert_eq!(at(&mut connection, T0 + 1_250), [Output::OpenStream { resume_after: Some(9) }]);
    connection.handle_input(Input::StreamOpened);
    assert_eq!(connection.status(), Status::Live);
}

#[test]
fn the_back_off_doubles_per_error_up_to_30_seconds_and_resets_once_open() {
    let mut connection = live();
    connection.handle_input(error(false));
    let mut now = T0;
    let mut waits = Vec::new();
    assert_eq!(asks(&mut connection), [Output::CloseStream]);
    for _ in 0..9 {
        let due = (now..).find(|&local| !at(&mut connection, local).is_empty()).unwrap();
        waits.push(due - now);
        now = due;
        // The transport keeps trying: a second error gives it up.
        connection.handle_input(error(true));
        assert_eq!(asks(&mut connection), [Output::CloseStream]);
    }
    assert_eq!(waits, [500, 1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000]);
    let now = now + 30_000;
    assert_eq!(at(&mut connection, now), [Output::OpenStream { resume_after: Some(7) }]);
    connection.handle_input(Input::StreamOpened);
    connection.handle_input(error(false));
    assert_eq!(asks(&mut connection), [Output::CloseStream]);
    assert_eq!(at(&mut connection, now + 499), [], "back to 0.5 s after a stream that opened");
    assert_eq!(at(&mut connection, now + 500), [Output::OpenStream { resume_after: Some(7) }]);
}

#[test]
fn a_refused_stream_is_probed_polled_and_reopened_after_retry_after() {
    let mut connection = Connection::new(Some(3));
    connection.handle_input(Input::Tick(LocalMillis(T0)));
    for n in 0..3 {
        connection.handle_input(Input::ClockSample(sample(T0 - 300 + n * 100)));
    }
    assert_eq!(asks(&mut connection), [Output::OpenStream { resume_after: Some(3) }]);
    // Closed before it opened: ask why.
    connection.handle_input(error(false));
    assert_eq!(asks(&mut connection), [Output::CloseStream, Output::ProbeStream]);
    connection.handle_input(Input::StreamRefused { retry_after_millis: Some(5_000), jitter_permille: 0 });
    assert_eq!(connection.status(), Status::Polling);
    assert_eq!(asks(&mut connection), [Output::FetchSnapshot], "a poll at once");
    assert_eq!(at(&mut connection, T0 + 400), [], "one poll at a time");
    connection.handle_input(Input::SnapshotFetched);
    assert_eq!(at(&mut connection, T0 + 3_399), []);
    assert_eq!(at(&mut connection, T0 + 3_400), [Output::FetchSnapshot], "3 s after the answer");
    // A failed poll with a longer Retry-After waits that out.
    connection.handle_input(Input::SnapshotFailed { retry_after_millis: Some(4_000) });
    assert_eq!(at(&mut connection, T0 + 4_999), []);
    assert_eq!(at(&mut connection, T0 + 5_000), [Output::OpenStream { resume_after: Some(3) }]);
    assert_eq!(connection.status(), Status::Polling, "polling until a stream opens");
    assert_eq!(at(&mut connection, T0 + 7_399), []);
    assert_eq!(at(&mut connection, T0 + 7_400), [Output::FetchSnapshot]);
    connection.handle_input(Input::StreamOpened);
    connection.handle_input(Input::SnapshotFetched);
    assert_eq!(connection.status(), Status::Live);
    assert_eq!(at(&mut connection, T0 + 60_000), [], "no polls once live");
}

#[test]
fn a_retry_after_is_kept_within_a_second_and_five_minutes_and_defaults_to_ten() {
    for (retry_after, wait) in [(Some(-5), 1_000), (Some(0), 1_000), (Some(i64::MAX), 300_000), (None, 10_000)] {
        let mut connection = probing_after_a_reopen();
        connection.handle_input(Input::StreamRefused { retry_after_millis: retry_after, jitter_permille: 0 });
        assert_eq!(asks(&mut connection), [Output::FetchSnapshot]);
        connection.handle_input(Input::SnapshotFetched);
        let opened = (1..).map(|step| T0 + 1_000 + step * 500).find(|&now| {
            let asked = at(&mut connection, now);
            if asked.contains(&Output::FetchSnapshot) {
                connection.handle_input(Input::SnapshotFetched);
            }
            asked.contains(&Output::OpenStream { resume_after: Some(7) })
        });
        assert_eq!(opened, Some(T0 + 1_000 + wait), "Retry-After {retry_after:?}");
    }
}

#[test]
fn a_failed_probe_is_a_failure_like_any_other() {
    let mut connection = probing_after_a_reopen();
    connection.handle_input(Input::StreamFailed { jitter_permille: 0 });
    assert_eq!(connection.status(), Status::Reconnecting, "no polling without a refusal");
    assert_eq!(timeout(&mut connection), Some(T0 + 1_000 + 2_000), "three errors: 2 s");
}

#[test]
fn a_comeback_cuts_a_back_off_short_but_never_a_retry_after() {
    let mut connection = live();
    connection.handle_input(error(false));
    asks(&mut connection);
    connection.handle_input(Input::Tick(LocalMillis(T0 + 100)));
    connection.handle_input(Input::Visible);
    assert_eq!(asks(&mut connection), [Output::OpenStream { resume_after: Some(7) }, Output::SampleClock]);
    connection.handle_input(Input::ClockSample(sample(T0 + 120)));
    connection.handle_input(error(false));
    assert_eq!(asks(&mut connection), [Output::CloseStream, Output::ProbeStream]);
    connection.handle_input(Input::StreamRefused { retry_after_millis: Some(20_000), jitter_permille: 0 });
    assert_eq!(asks(&mut connection), [Output::FetchSnapshot]);
    connection.handle_input(Input::SnapshotFetched);
    connection.handle_input(Input::Tick(LocalMillis(T0 + 2_000)));
    connection.handle_input(Input::Visible);
    assert_eq!(asks(&mut connection), [Output::FetchSnapshot, Output::SampleClock], "a fresh look, no stream");
    assert_eq!(timeout(&mut connection), Some(T0 + 100 + 20_000), "the refusal's wait stands");
}

#[test]
fn flapping_visibility_looks_again_at_most_once_a_second_and_hidden_pauses_polls() {
    let mut connection = live();
    connection.handle_input(Input::Tick(LocalMillis(T0 + 10)));
    connection.handle_input(Input::Visible);
    assert_eq!(asks(&mut connection), [Output::SampleClock]);
    connection.handle_input(Input::ClockSample(sample(T0 + 30)));
    for step in 0..10 {
        connection.handle_input(Input::Tick(LocalMillis(T0 + 40 + step * 50)));
        connection.handle_input(Input::Hidden);
        connection.handle_input(Input::Visible);
    }
    assert_eq!(asks(&mut connection), [], "within a second of the last comeback");
    connection.handle_input(Input::Hidden);
    assert_eq!(timeout(&mut connection), None, "a hidden, live page waits for nothing");
    connection.handle_input(Input::Tick(LocalMillis(T0 + 120_000)));
    assert_eq!(asks(&mut connection), [], "no clock sample while hidden");
    connection.handle_input(Input::Visible);
    assert_eq!(asks(&mut connection), [Output::SampleClock]);
}

#[test]
fn the_clock_is_sampled_on_its_schedule_and_a_failure_backs_off() {
    let mut connection = live();
    // Three samples, the newest received at T0 - 100: next a minute later.
    assert_eq!(timeout(&mut connection), Some(T0 - 100 + 60_000));
    connection.handle_input(Input::Tick(LocalMillis(T0 - 100 + 60_000)));
    assert_eq!(asks(&mut connection), [Output::SampleClock]);
    assert_eq!(timeout(&mut connection), None, "one sample at a time");
    let failed_at = T0 - 100 + 60_000;
    connection.handle_input(Input::ClockSampleFailed { retry_after_millis: None });
    assert_eq!(timeout(&mut connection), Some(failed_at + 1_000));
    connection.handle_input(Input::Tick(LocalMillis(failed_at + 1_000)));
    assert_eq!(asks(&mut connection), [Output::SampleClock]);
    connection.handle_input(Input::ClockSampleFailed { retry_after_millis: Some(30_000) });
    assert_eq!(timeout(&mut connection), Some(failed_at + 1_000 + 30_000), "Retry-After outlasts 2 s");
    // The local clock jumps back an hour: the old schedule is too far ahead.
    connection.handle_input(Input::Tick(LocalMillis(T0 - 3_600_000)));
    assert_eq!(timeout(&mut connection), Some(T0 - 3_600_000 + 30_000), "the wait restarts, never cut");
    connection.handle_input(Input::Tick(LocalMillis(T0 - 3_600_000 + 30_000)));
    assert_eq!(asks(&mut connection), [Output::SampleClock]);
    connection.handle_input(Input::ClockSample(sample(T0 - 3_600_000 + 30_000)));
    assert_eq!(timeout(&mut connection), Some(T0 - 3_600_000 + 30_000 + 60_000), "then once a minute");
}

#[test]
fn late_news_of_a_closed_stream_changes_nothing() {
    let mut connection = live();
    connection.handle_input(error(false));
    assert_eq!(asks(&mut connection), [Output::CloseStream]);
    let waiting = connection.clone();
    for input in [
        Input::StreamOpened,
        error(true),
        error(false),
        Input::StreamRefused { retry_after_millis: Some(1), jitter_permille: 0 },
        Input::StreamFailed { jitter_permille: 0 },
        Input::SnapshotFetched,
        Input::SnapshotFailed { retry_after_millis: None },
        Input::ClockSampleFailed { retry_after_millis: None },
    ] {
        connection.handle_input(input);
        assert_eq!(connection, waiting, "after {input:?}");
    }
}
