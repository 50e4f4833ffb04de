//! The connection policy under hostile timings (native only: proptest
//! needs the OS): news in any order, the clock jumping back and forth,
//! zero, negative and huge `Retry-After`s, refusal storms, flapping
//! visibility. After every input a harness that knows only what it fed and
//! what was asked checks the promises of the module doc.
#![cfg(not(target_arch = "wasm32"))]
// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

use proptest::prelude::*;

use seat_state::sync::Connection;
use seat_state::sync::ConnectionStatus as Status;
use seat_state::sync::connection::{Input, Output};
use seat_state::{ClockSample, LocalMillis, ServerMillis};

const T0: i64 = 1_764_460_000_000;
/// The longest any wait may be: a refusal's longest `Retry-After` plus jitter.
const LONGEST_WAIT: i64 = Connection::MAX_RETRY_AFTER_MILLIS + Connection::MAX_JITTER_MILLIS;

#[derive(Debug, Clone)]
enum Event {
    /// The local clock moves by this much (back, too).
    Clock(i64),
    Feed(Input),
    /// A clock sample with this round trip, received now.
    Sampled(i64),
}

fn jitter() -> impl Strategy<Value = u16> {
    prop_oneof![0..=1000u16, any::<u16>()]
}

fn event() -> impl Strategy<Value = Event> {
    prop_oneof![
        6 => prop_oneof![0..3_000i64, -5_000..0i64, 0..400_000i64, Just(-3_600_000), Just(86_400_000)]
            .prop_map(Event::Clock),
        2 => Just(Event::Feed(Input::StreamOpened)),
        3 => (any::<bool>(), jitter())
            .prop_map(|(reconnecting, jitter_permille)| Event::Feed(Input::StreamError { reconnecting, jitter_permille })),
        3 => (prop::option::of(prop_oneof![-10_000..0i64, 0..400_000i64, Just(i64::MAX), Just(i64::MIN)]), jitter())
            .prop_map(|(retry_after_millis, jitter_permille)| {
                Event::Feed(Input::StreamRefused { retry_after_millis, jitter_permille })
            }),
        1 => jitter().prop_map(|jitter_permille| Event::Feed(Input::StreamFailed { jitter_permille })),
        2 => Just(Event::Feed(Input::SnapshotFetched)),
        1 => prop::option::of(-10_000..400_000i64)
            .prop_map(|retry_after_millis| Event::Feed(Input::SnapshotFailed { retry_after_millis })),
        2 => (-50..500i64).prop_map(Event::Sampled),
        1 => prop::option::of(-10_000..400_000i64)
            .prop_map(|retry_after_millis| Event::Feed(Input::ClockSampleFailed { retry_after_millis })),
        2 => Just(Event::Feed(Input::Visible)),
        1 => Just(Event::Feed(Input::Hidden)),
        1 => (0..100i64).prop_map(|version| Event::Feed(Input::Version(version))),
    ]
}

/// What the harness knows from what it fed and what was asked.
#[derive(Debug)]
struct Harness {
    connection: Connection,
    now: i64,
    /// Between `OpenStream` and `CloseStream`.
    stream_open: bool,
    probe_pending: bool,
    fetching: bool,
    sampling: bool,
    hidden: bool,
    /// A refusal was taken since a stream last opened.
    refused: bool,
    /// After a refusal: the earliest clock reading since, and its `Retry-After`.
    not_before: Option<(i64, i64)>,
    /// The highest version fed.
    version: Option<i64>,
}

impl Harness {
    fn new(resume_after: Option<i64>) -> Self {
        let mut harness = Self {
            connection: Connection::new(resume_after),
            now: T0,
            stream_open: false,
            probe_pending: false,
            fetching: false,
            sampling: false,
            hidden: false,
            refused: false,
            not_before: None,
            version: resume_after,
        };
        harness.feed(Input::Tick(LocalMillis(T0)));
        harness
    }

    fn feed(&mut self, input: Input) {
        match input {
            Input::Tick(now) => {
                self.now = now.0;
                if let Some((earliest, _)) = &mut self.not_before {
                    *earliest = (*earliest).min(now.0);
                }
            }
            Input::StreamOpened if self.stream_open => self.refused = false,
            Input::StreamRefused { retry_after_millis, .. } if self.probe_pending => {
                self.refused = true;
                let wait = retry_after_millis
                    .unwrap_or(Connection::REFUSED_WAIT_MILLIS)
                    .clamp(Connection::MIN_RETRY_AFTER_MILLIS, Connection::MAX_RETRY_AFTER_MILLIS);
                self.not_before = Some((self.now, wait));
            }
            Input::SnapshotFetched | Input::SnapshotFailed { .. } => self.fetching = false,
            Input::ClockSample(_) | Input::ClockSampleFailed { .. } => self.sampling = false,
            Input::Visible => self.hidden = false,
            Input::Hidden => self.hidden = true,
            Input::Version(version) => self.version = self.version.max(Some(version)),
            _ => {}
        }
        if matches!(input, Input::StreamRefused { .. } | Input::StreamFailed { .. }) {
            self.probe_pending = false;
        }
        self.connection.handle_input(input);
        self.drain();
    }

    fn event(&mut self, event: &Event) {
        match *event {
            Event::Clock(by) => self.feed(Input::Tick(LocalMillis(self.now.saturating_add(by)))),
            Event::Feed(input) => self.feed(input),
            Event::Sampled(round_trip) => self.feed(Input::ClockSample(ClockSample {
                sent: LocalMillis(self.now - round_trip),
                server: ServerMillis(self.now + 3_600_000),
                received: LocalMillis(self.now),
            })),
        }
    }

    /// Takes every output, checking each; answers the next timeout.
    fn drain(&mut self) -> Option<i64> {
        loop {
            let output = self.connection.poll_output();
            match output {
                Output::OpenStream { resume_after } => {
                    assert!(!self.stream_open, "a second stream opened");
                    assert_eq!(resume_after, self.version, "resumes after the highest version fed");
                    if let Some((earliest, wait)) = self.not_before.take() {
                        assert!(
                            self.now >= earliest + wait,
                            "reopened at {} before Retry-After: {earliest} + {wait}",
                            self.now
                        );
                    }
                    self.stream_open = true;
                }
                Output::CloseStream => {
                    assert!(self.stream_open, "closed a stream that was not open");
                    self.stream_open = false;
                }
                Output::ProbeStream => {
                    assert!(!self.stream_open && !self.probe_pending, "a probe of an open stream, or a second");
                    self.probe_pending = true;
                }
                Output::FetchSnapshot => {
                    assert!(self.refused, "polled without a refusal since the stream last opened");
                    assert!(!self.fetching && !self.hidden, "a second poll, or one while hidden");
                    self.fetching = true;
                }
                Output::SampleClock => {
                    assert!(!self.sampling && !self.hidden, "a second sample, or one while hidden");
                    self.sampling = true;
                }
                Output::Timeout(at) => {
                    let at = at.map(|at| at.0);
                    if let Some(at) = at {
                        assert!(at >= self.now, "the next timeout {at} is before now {}", self.now);
                        assert!(at - self.now <= LONGEST_WAIT, "waits {} ms", at - self.now);
                    }
                    self.check_status();
                    return at;
                }
            }
        }
    }

    fn check_status(&self) {
        let status = self.connection.status();
        assert_eq!(status == Status::Polling, self.refused && status != Status::Live, "{status:?}");
        if !self.stream_open {
            assert_ne!(status, Status::Live, "live without a stream");
        }
    }

    /// From now on nothing but failures and time passing: the stream is
    /// asked for again within the longest wait.
    fn quiet_until_reopened(&mut self) {
        let start = self.now;
        while !self.stream_open {
            if self.probe_pending {
                self.feed(Input::StreamFailed { jitter_permille: 1000 });
            }
            if self.fetching {
                self.feed(Input::SnapshotFailed { retry_after_millis: None });
            }
            if self.sampling {
                self.feed(Input::ClockSampleFailed { retry_after_millis: None });
            }
            let Some(at) = self.drain() else {
                panic!("the closed stream waits for nothing");
            };
            assert!(at - start <= 2 * LONGEST_WAIT, "still closed {} ms later", at - start);
            if !self.stream_open {
                self.feed(Input::Tick(LocalMillis(at)));
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn hostile_timings_never_break_the_policy(
        resume_after in prop::option::of(0..50i64),
        events in prop::collection::vec(event(), 1..80),
    ) {
        let mut harness = Harness::new(resume_after);
        for event in &events {
            harness.event(event);
        }
        harness.quiet_until_reopened();
    }

    #[test]
    fn the_back_off_grows_and_stays_bounded_until_a_stream_opens(
        errors in prop::collection::vec((any::<bool>(), 0..=1000u16), 1..40),
    ) {
        let mut harness = Harness::new(Some(1));
        harness.feed(Input::StreamOpened);
        let mut last_wait = 0;
        for (reconnecting, jitter_permille) in errors {
            harness.feed(Input::StreamError { reconnecting, jitter_permille });
            if harness.probe_pending {
                harness.feed(Input::StreamFailed { jitter_permille });
            }
            let closed_at = harness.now;
            while !harness.stream_open {
                if harness.sampling {
                    harness.event(&Event::Sampled(20));
                }
                let at = harness.drain().unwrap();
                harness.feed(Input::Tick(LocalMillis(at)));
            }
            if harness.now > closed_at {
                let wait = harness.now - closed_at;
                prop_assert!(wait + Connection::MAX_JITTER_MILLIS >= last_wait, "{wait} ms after {last_wait} ms");
                prop_assert!(wait <= Connection::MAX_BACK_OFF_MILLIS + Connection::MAX_JITTER_MILLIS, "{wait} ms");
                last_wait = wait;
            }
        }
    }
}
