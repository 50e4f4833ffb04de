//! The browser's connection policy as a sans-io machine (str0m style): how
//! the live stream (`GET …/events`) is opened, kept, given up and reopened,
//! when the seat map is polled instead, and when the server's clock is
//! sampled. Feed it what happened with [`Connection::handle_input`], then
//! call [`Connection::poll_output`] until it answers [`Output::Timeout`]. It
//! reads no clock, does no I/O and draws no random number: local time comes
//! in as [`Input::Tick`], jitter with each failure.
//!
//! The policy:
//!
//! - **Stream.** Opened at once (after the version the caller last knew:
//!   [`Input::Version`]). A first break of an open stream is left to the
//!   transport, which reconnects by itself (EventSource sends
//!   `Last-Event-ID`); a second error before it opens again, or a stream the
//!   transport closed, is given up ([`Output::CloseStream`]) and reopened
//!   after a back-off: 0.5 s doubling per error up to 30 s, plus 0–250 ms of
//!   jitter; it resets once a stream opens.
//! - **Refused.** A stream closed before it ever opened is asked about
//!   ([`Output::ProbeStream`]): a `503` ([`Input::StreamRefused`]) is waited
//!   out for its `Retry-After` (10 s without one; kept within 1 s – 5 min)
//!   plus jitter, and nothing cuts that wait short; anything else is a
//!   failure like any other.
//! - **Polling.** From a refusal until a stream opens, the seat map is
//!   fetched ([`Output::FetchSnapshot`]) at once and then 3 s after each
//!   answer (or the answer's `Retry-After`, if longer); one fetch at a time.
//! - **Clock.** Sampled ([`Output::SampleClock`], one round trip at a time)
//!   when [`ClockSync::next_sample_at`] says (warm-up 1 s apart, then every
//!   minute; at once when the clock went back past that schedule); a failed
//!   sample is retried after 1 s doubling to a minute, or its `Retry-After`.
//! - **Comeback.** [`Input::Visible`] (the tab is in view again) reopens a
//!   stream waiting out a back-off, polls, and samples the clock at once, at
//!   most once a second however often it flaps. [`Input::Hidden`] pauses
//!   polls and samples until then; the stream is left as it is.
//!
//! Every wait is measured on the local clock from the tick it began at; a
//! clock that jumps back restarts it (never cuts it short), and the next
//! timeout is never before the last tick.

use std::collections::VecDeque;

use super::wait::{Wait, doubling};
use crate::clock::{ClockSample, ClockSync, SampleOutcome};
use crate::time::LocalMillis;

/// What happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Input {
    /// The local clock reads this now (the timer fired, or before other input).
    Tick(LocalMillis),
    /// The stream asked for by [`Output::OpenStream`] is open.
    StreamOpened,
    /// The stream reported an error. `reconnecting`: the transport is
    /// trying again by itself (EventSource's `CONNECTING`); otherwise it closed.
    StreamError {
        reconnecting: bool,
        /// A random number in 0..=1000 (spreads many browsers' retries).
        jitter_permille: u16,
    },
    /// The answer to [`Output::ProbeStream`]: the server has no room for a
    /// stream now (`503`), with its `Retry-After` when it gave one.
    StreamRefused { retry_after_millis: Option<i64>, jitter_permille: u16 },
    /// The answer to [`Output::ProbeStream`]: not a refusal (another status,
    /// or no answer at all).
    StreamFailed { jitter_permille: u16 },
    /// The facts shown are at this version: a reopened stream resumes after it.
    Version(i64),
    /// The fetch asked for by [`Output::FetchSnapshot`] answered (the caller
    /// feeds the seat map itself to its map).
    SnapshotFetched,
    /// That fetch failed, with the server's `Retry-After` when it gave one.
    SnapshotFailed { retry_after_millis: Option<i64> },
    /// A round trip to `GET /api/time` (asked for or not).
    ClockSample(ClockSample),
    /// The round trip asked for by [`Output::SampleClock`] failed.
    ClockSampleFailed { retry_after_millis: Option<i64> },
    /// The page is in view again (or got the focus): look again at once.
    Visible,
    /// The page is out of view.
    Hidden,
}

/// What the machine asks of its caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    /// Open the stream, resuming after this version (`None`: from a snapshot).
    OpenStream { resume_after: Option<i64> },
    /// Close the stream (stop the transport's own retries too).
    CloseStream,
    /// The stream closed before it opened: ask the server why (`HEAD` of its
    /// URL), and feed [`Input::StreamRefused`] or [`Input::StreamFailed`].
    ProbeStream,
    /// Fetch the seat map; feed [`Input::SnapshotFetched`] or [`Input::SnapshotFailed`].
    FetchSnapshot,
    /// One round trip to the server's clock; feed [`Input::ClockSample`] or
    /// [`Input::ClockSampleFailed`].
    SampleClock,
    /// Nothing more now; tick again at this local instant (`None`: before
    /// the first tick, when nothing is due).
    Timeout(Option<LocalMillis>),
}

/// What the page says about the live stream.
#[cfg_attr(feature = "js", derive(serde::Serialize, tsify::Tsify), serde(rename_all = "lowercase"))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ConnectionStatus {
    /// Opening for the first time.
    Connecting,
    /// Changes arrive as they happen.
    Live,
    /// The stream broke and is being reopened; the map may be behind.
    Reconnecting,
    /// The server has no room for another stream now: the seat map is
    /// polled every few seconds until a stream opens again.
    Polling,
}

/// Where the stream is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stream {
    /// Asked for, not open yet.
    Opening,
    Open,
    /// Broke while open; the transport is reconnecting by itself.
    Resuming,
    /// Closed before it opened; asked why.
    Probing,
    /// Closed; reopened once the wait is over. `refused`: a `Retry-After`,
    /// which a comeback does not cut short.
    Waiting {
        wait: Wait,
        refused: bool,
    },
}

/// One kind of request that goes out one at a time, on a schedule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Asking {
    in_flight: bool,
    /// When to ask next; for the clock, `None` follows [`ClockSync::next_sample_at`].
    next: Option<Wait>,
    /// Failures in a row.
    failures: u32,
}

impl Asking {
    const IDLE: Self = Self { in_flight: false, next: None, failures: 0 };
}

/// The connection policy; see the module docs.
#[derive(Debug, Clone, PartialEq)]
pub struct Connection {
    now: Option<LocalMillis>,
    stream: Stream,
    /// Errors since a stream was last open.
    failures: u32,
    /// Any error since the start (the page says "Reconnecting", no longer "Connecting").
    troubled: bool,
    resume_after: Option<i64>,
    /// From a refusal until a stream opens.
    polling: bool,
    /// The polls (one under way may outlive `polling`: a refusal soon
    /// after must not send a second).
    poll: Asking,
    sampling: Asking,
    clock: ClockSync,
    hidden: bool,
    last_comeback: Option<LocalMillis>,
    outputs: VecDeque<Output>,
}

impl Default for Connection {
    fn default() -> Self {
        Self::new(None)
    }
}

impl Connection {
    /// The first back-off after an error.
    pub const FIRST_BACK_OFF_MILLIS: i64 = 500;
    /// The longest back-off (before jitter).
    pub const MAX_BACK_OFF_MILLIS: i64 = 30_000;
    /// Jitter added to a reopen's wait, at most.
    pub const MAX_JITTER_MILLIS: i64 = 250;
    /// The wait after a refusal without `Retry-After`.
    pub const REFUSED_WAIT_MILLIS: i64 = 10_000;
    /// A refusal's `Retry-After` is kept within these.
    pub const MIN_RETRY_AFTER_MILLIS: i64 = 1_000;
    pub const MAX_RETRY_AFTER_MILLIS: i64 = 300_000;
    /// Pause between polls of the seat map while refused.
    pub const POLL_MILLIS: i64 = 3_000;
    /// The first wait after a failed clock sample (doubling to [`ClockSync::RESYNC_INTERVAL_MILLIS`]).
    pub const FIRST_SAMPLE_RETRY_MILLIS: i64 = 1_000;
    /// Comebacks closer together than this are one.
    pub const COMEBACK_GAP_MILLIS: i64 = 1_000;

    /// Asks to open the stream after `resume_after` (`None`: from a snapshot).
    pub fn new(resume_after: Option<i64>) -> Self {
        Self {
            now: None,
            stream: Stream::Opening,
            failures: 0,
            troubled: false,
            resume_after,
            polling: false,
            poll: Asking::IDLE,
            sampling: Asking::IDLE,
            clock: ClockSync::new(),
            hidden: false,
            last_comeback: None,
            outputs: VecDeque::from([Output::OpenStream { resume_after }]),
        }
    }

    /// Takes one input.
    pub fn handle_input(&mut self, input: Input) {
        match input {
            Input::Tick(now) => self.tick(now),
            Input::StreamOpened => self.opened(),
            Input::StreamError { reconnecting, jitter_permille } => self.stream_error(reconnecting, jitter_permille),
            Input::StreamRefused { retry_after_millis, jitter_permille } => {
                self.refused(retry_after_millis, jitter_permille);
            }
            Input::StreamFailed { jitter_permille } => {
                if self.stream == Stream::Probing {
                    self.back_off(jitter_permille);
                }
            }
            Input::Version(version) => self.resume_after = self.resume_after.max(Some(version)),
            Input::SnapshotFetched => self.polled(None),
            Input::SnapshotFailed { retry_after_millis } => self.polled(Some(retry_after_millis)),
            Input::ClockSample(sample) => self.sampled(sample),
            Input::ClockSampleFailed { retry_after_millis } => self.sample_failed(retry_after_millis),
            Input::Visible => self.comeback(),
            Input::Hidden => self.hidden = true,
        }
    }

    /// The next thing to do; [`Output::Timeout`] when nothing is due. What
    /// is due is decided here, so inputs fed together count together.
    pub fn poll_output(&mut self) -> Output {
        self.advance();
        self.outputs.pop_front().unwrap_or_else(|| Output::Timeout(self.next_timeout()))
    }

    /// What the page says about the stream.
    pub fn status(&self) -> ConnectionStatus {
        match self.stream {
            Stream::Open => ConnectionStatus::Live,
            _ if self.polling => ConnectionStatus::Polling,
            _ if self.troubled => ConnectionStatus::Reconnecting,
            _ => ConnectionStatus::Connecting,
        }
    }

    /// The clock estimate from the samples fed.
    pub fn clock(&self) -> &ClockSync {
        &self.clock
    }

    /// The version a reopened stream resumes after.
    pub fn resume_after(&self) -> Option<i64> {
        self.resume_after
    }

    /// The next local instant something is due (never before the last tick).
    pub fn next_timeout(&self) -> Option<LocalMillis> {
        let stream = match self.stream {
            Stream::Waiting { wait, .. } => wait.due_at(),
            _ => None,
        };
        let poll = Some(self.poll)
            .filter(|poll| self.polling && !self.hidden && !poll.in_flight)
            .and_then(|poll| poll.next?.due_at());
        let sample = (!self.hidden && !self.sampling.in_flight).then(|| self.sample_due_at()).flatten();
        let next = [stream, poll, sample].into_iter().flatten().min()?;
        Some(self.now.map_or(next, |now| next.max(now)))
    }

    fn tick(&mut self, now: LocalMillis) {
        self.now = Some(now);
        if let Stream::Waiting { wait, .. } = &mut self.stream {
            wait.observe(now);
        }
        for asking in [&mut self.poll, &mut self.sampling] {
            if let Some(next) = &mut asking.next {
                next.observe(now);
            }
        }
    }

    fn opened(&mut self) {
        if matches!(self.stream, Stream::Opening | Stream::Resuming) {
            self.stream = Stream::Open;
            self.failures = 0;
            self.polling = false;
        }
    }

    fn stream_error(&mut self, reconnecting: bool, jitter_permille: u16) {
        let next = match self.stream {
            // A closed stream's late news.
            Stream::Probing | Stream::Waiting { .. } => return,
            Stream::Open if reconnecting => Some(Stream::Resuming),
            Stream::Opening if reconnecting && self.failures == 0 => Some(Stream::Opening),
            Stream::Opening if !reconnecting => Some(Stream::Probing),
            Stream::Open | Stream::Opening | Stream::Resuming => None,
        };
        self.failures = self.failures.saturating_add(1);
        self.troubled = true;
        match next {
            Some(Stream::Probing) => {
                self.stream = Stream::Probing;
                self.outputs.extend([Output::CloseStream, Output::ProbeStream]);
            }
            Some(stream) => self.stream = stream,
            None => {
                self.outputs.push_back(Output::CloseStream);
                self.back_off(jitter_permille);
            }
        }
    }

    /// Waits out the back-off the errors so far call for, then reopens.
    fn back_off(&mut self, jitter_permille: u16) {
        let base = doubling(Self::FIRST_BACK_OFF_MILLIS, Self::MAX_BACK_OFF_MILLIS, self.failures);
        let wait = Wait::of(self.now, base + jitter(jitter_permille));
        self.stream = Stream::Waiting { wait, refused: false };
    }

    fn refused(&mut self, retry_after_millis: Option<i64>, jitter_permille: u16) {
        if self.stream != Stream::Probing {
            return;
        }
        let retry_after = retry_after_millis
            .unwrap_or(Self::REFUSED_WAIT_MILLIS)
            .clamp(Self::MIN_RETRY_AFTER_MILLIS, Self::MAX_RETRY_AFTER_MILLIS);
        let wait = Wait::of(self.now, retry_after + jitter(jitter_permille));
        self.stream = Stream::Waiting { wait, refused: true };
        if !self.polling {
            self.polling = true;
            self.poll.next = Some(Wait::none(self.now));
        }
    }

    /// A poll answered (`None`) or failed (with its `Retry-After`).
    fn polled(&mut self, failed: Option<Option<i64>>) {
        let now = self.now;
        let poll = &mut self.poll;
        if !poll.in_flight {
            return;
        }
        let asked_to_wait = failed.flatten().unwrap_or(0).clamp(0, Self::MAX_RETRY_AFTER_MILLIS);
        poll.in_flight = false;
        poll.next = Some(Wait::of(now, Self::POLL_MILLIS.max(asked_to_wait)));
    }

    fn sampled(&mut self, sample: ClockSample) {
        let outcome = self.clock.add(sample);
        self.sampling.in_flight = false;
        self.sampling.failures = 0;
        // A trip the clock went back during says nothing: soon again. Samples
        // received "later" than now (the clock went back) would put the
        // schedule far ahead: once a minute from now instead.
        let far_ahead = match (self.clock.next_sample_at(), self.now) {
            (Some(next), Some(now)) => next.0 > now.0.saturating_add(ClockSync::RESYNC_INTERVAL_MILLIS),
            _ => false,
        };
        let again = match outcome {
            SampleOutcome::Ignored => Some(ClockSync::WARM_UP_INTERVAL_MILLIS),
            _ if far_ahead => Some(ClockSync::RESYNC_INTERVAL_MILLIS),
            _ => None,
        };
        self.sampling.next = again.map(|millis| Wait::of(self.now, millis));
    }

    fn sample_failed(&mut self, retry_after_millis: Option<i64>) {
        if !self.sampling.in_flight {
            return;
        }
        let sampling = &mut self.sampling;
        sampling.in_flight = false;
        sampling.failures = sampling.failures.saturating_add(1);
        let back_off = doubling(Self::FIRST_SAMPLE_RETRY_MILLIS, ClockSync::RESYNC_INTERVAL_MILLIS, sampling.failures);
        let asked = retry_after_millis.unwrap_or(0).clamp(0, Self::MAX_RETRY_AFTER_MILLIS);
        sampling.next = Some(Wait::of(self.now, back_off.max(asked)));
    }

    fn comeback(&mut self) {
        self.hidden = false;
        let now = self.now;
        let recent = match (self.last_comeback, now) {
            (Some(last), Some(now)) => last <= now && now.0.saturating_sub(last.0) < Self::COMEBACK_GAP_MILLIS,
            _ => false,
        };
        if recent {
            return;
        }
        self.last_comeback = now;
        if let Stream::Waiting { wait, refused: false } = &mut self.stream {
            *wait = Wait::none(now);
        }
        let polls = if self.polling { Some(&mut self.poll) } else { None };
        for asking in polls.into_iter().chain([&mut self.sampling]) {
            if !asking.in_flight {
                asking.next = Some(Wait::none(now));
            }
        }
    }

    /// Asks for whatever is due now.
    fn advance(&mut self) {
        if let Stream::Waiting { wait, .. } = self.stream
            && wait.is_over(self.now)
        {
            self.stream = Stream::Opening;
            self.outputs.push_back(Output::OpenStream { resume_after: self.resume_after });
        }
        if self.hidden {
            return;
        }
        let now = self.now;
        let poll = &mut self.poll;
        if self.polling && !poll.in_flight && poll.next.is_some_and(|next| next.is_over(now)) {
            poll.in_flight = true;
            self.outputs.push_back(Output::FetchSnapshot);
        }
        // Before any tick only "now" is due.
        let now_or_min = now.unwrap_or(LocalMillis(i64::MIN));
        if !self.sampling.in_flight && self.sample_due_at().is_some_and(|due| due <= now_or_min) {
            self.sampling = Asking { in_flight: true, next: None, ..self.sampling };
            self.outputs.push_back(Output::SampleClock);
        }
    }

    /// When the next clock sample is due (`LocalMillis(i64::MIN)`: now).
    fn sample_due_at(&self) -> Option<LocalMillis> {
        if let Some(next) = self.sampling.next {
            return next.due_at();
        }
        let Some(scheduled) = self.clock.next_sample_at() else {
            return Some(self.now.unwrap_or(LocalMillis(i64::MIN)));
        };
        match self.now {
            // Further ahead than any schedule: the clock went back since.
            Some(now) if scheduled.0 > now.0.saturating_add(ClockSync::RESYNC_INTERVAL_MILLIS) => Some(now),
            _ => Some(scheduled),
        }
    }
}

/// 0..=250 ms from a number in 0..=1000.
fn jitter(permille: u16) -> i64 {
    Connection::MAX_JITTER_MILLIS * i64::from(permille.min(1000)) / 1000
}
