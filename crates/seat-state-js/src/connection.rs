//! `class Connection`: the live stream's policy as a sans-io machine (when
//! to open, give up, reopen or poll, and when to sample the clock). Feed it
//! what happened with `handleInput`, call `pollOutput` until it answers a
//! `timeout`, and do what it asks; it reads no clock.

use seat_state::sync::ConnectionStatus;
use seat_state::sync::connection::{Input, Output};
use seat_state::{ClockSample, LocalMillis, ServerMillis};
use serde::{Deserialize, Serialize};
use tsify::{Ts, Tsify};
use wasm_bindgen::prelude::*;

use crate::boundary::{from_js, to_js};
use crate::machine::{Failure, Sample};
use crate::{millis, number};

/// What happened, e.g. `{tick: Date.now()}`, `"streamOpened"` or
/// `{streamError: {reconnecting: false, jitterPermille: 420}}`.
#[derive(Debug, Clone, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub enum ConnectionInput {
    /// The local clock reads this now (the timer fired, or before other input).
    Tick(f64),
    /// The stream asked for is open (EventSource `open`).
    StreamOpened,
    /// The stream reported an error (EventSource `error`).
    StreamError(StreamError),
    /// The probe's answer: `503`, with its `Retry-After` in ms when given.
    StreamRefused(Failure),
    /// The probe's answer: anything else.
    StreamFailed(Failure),
    /// The facts shown are at this version (an event's id).
    Version(i64),
    /// The seat map fetched (`fetchSnapshot`) arrived.
    SnapshotFetched,
    /// That fetch failed.
    SnapshotFailed(Failure),
    /// A round trip to `GET /api/time`.
    ClockSample(Sample),
    /// The round trip asked for failed.
    ClockSampleFailed(Failure),
    /// The page is in view again (or got the focus).
    Visible,
    /// The page is out of view.
    Hidden,
}

/// An EventSource `error`.
#[derive(Debug, Clone, Copy, Deserialize, Tsify)]
#[tsify(missing_as_null)]
#[serde(rename_all = "camelCase")]
pub struct StreamError {
    /// `readyState` is still `CONNECTING`: the browser retries by itself.
    pub reconnecting: bool,
    /// 0..=1000, random: spreads many browsers' retries (0 when absent).
    #[serde(default)]
    pub jitter_permille: u16,
}

/// What the machine asks for.
#[derive(Debug, Clone, Copy, Serialize, Tsify)]
#[tsify(missing_as_null)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum ConnectionOutput {
    /// Open the stream, with `lastEventId=resumeAfter` when not `null`.
    #[serde(rename_all = "camelCase")]
    OpenStream { resume_after: Option<i64> },
    /// Close the stream.
    CloseStream,
    /// The stream closed before it opened: `HEAD` its URL; feed
    /// `streamRefused` for a `503`, else `streamFailed`.
    ProbeStream,
    /// Fetch the seat map (the stream is refused); feed it, then `snapshotFetched`.
    FetchSnapshot,
    /// Sample the server's clock once; feed `clockSample` or `clockSampleFailed`.
    SampleClock,
    /// Nothing more now: tick again at local time `at` (`null`: no timer).
    Timeout { at: Option<f64> },
}

/// The connection policy; see `seat_state::sync::connection`.
#[wasm_bindgen]
#[derive(Debug, Clone)]
pub struct Connection {
    inner: seat_state::sync::Connection,
}

#[wasm_bindgen]
impl Connection {
    /// Asks to open the stream after `resumeAfter` (omitted: from a snapshot).
    #[wasm_bindgen(constructor)]
    pub fn new(#[wasm_bindgen(js_name = resumeAfter)] resume_after: Option<f64>) -> Result<Connection, JsError> {
        let resume_after = resume_after.map(millis).transpose()?;
        Ok(Self { inner: seat_state::sync::Connection::new(resume_after) })
    }

    /// Takes one input. Tick before other input when time has passed.
    #[wasm_bindgen(js_name = handleInput)]
    pub fn handle_input(&mut self, input: Ts<ConnectionInput>) -> Result<(), JsError> {
        let retry_after = |failure: Failure| failure.retry_after_ms.map(millis).transpose();
        let input = match from_js(&input)? {
            ConnectionInput::Tick(local) => Input::Tick(LocalMillis(millis(local)?)),
            ConnectionInput::StreamOpened => Input::StreamOpened,
            ConnectionInput::StreamError(error) => {
                Input::StreamError { reconnecting: error.reconnecting, jitter_permille: error.jitter_permille }
            }
            ConnectionInput::StreamRefused(failure) => Input::StreamRefused {
                retry_after_millis: retry_after(failure)?,
                jitter_permille: failure.jitter_permille,
            },
            ConnectionInput::StreamFailed(failure) => Input::StreamFailed { jitter_permille: failure.jitter_permille },
            ConnectionInput::Version(version) => Input::Version(version),
            ConnectionInput::SnapshotFetched => Input::SnapshotFetched,
            ConnectionInput::SnapshotFailed(failure) => {
                Input::SnapshotFailed { retry_after_millis: retry_after(failure)? }
            }
            ConnectionInput::ClockSample(sample) => Input::ClockSample(ClockSample {
                sent: LocalMillis(millis(sample.sent_at_local_ms)?),
                server: ServerMillis(millis(sample.server_time_ms)?),
                received: LocalMillis(millis(sample.received_at_local_ms)?),
            }),
            ConnectionInput::ClockSampleFailed(failure) => {
                Input::ClockSampleFailed { retry_after_millis: retry_after(failure)? }
            }
            ConnectionInput::Visible => Input::Visible,
            ConnectionInput::Hidden => Input::Hidden,
        };
        self.inner.handle_input(input);
        Ok(())
    }

    /// The next thing to do; a `timeout` when nothing is due.
    #[wasm_bindgen(js_name = pollOutput)]
    pub fn poll_output(&mut self) -> Result<Ts<ConnectionOutput>, JsError> {
        let output = match self.inner.poll_output() {
            Output::OpenStream { resume_after } => ConnectionOutput::OpenStream { resume_after },
            Output::CloseStream => ConnectionOutput::CloseStream,
            Output::ProbeStream => ConnectionOutput::ProbeStream,
            Output::FetchSnapshot => ConnectionOutput::FetchSnapshot,
            Output::SampleClock => ConnectionOutput::SampleClock,
            Output::Timeout(at) => ConnectionOutput::Timeout { at: at.map(|at| number(at.0)) },
        };
        to_js(&output)
    }

    /// What the page says: `"connecting"`, `"live"`, `"reconnecting"` or `"polling"`.
    #[wasm_bindgen(getter)]
    pub fn status(&self) -> Result<Ts<ConnectionStatus>, JsError> {
        to_js(&self.inner.status())
    }

    /// The server's clock from the samples fed: estimated server time at
    /// local time `localMs`; `undefined` before any sample.
    #[wasm_bindgen(js_name = serverNow)]
    pub fn server_now(&self, #[wasm_bindgen(js_name = localMs)] local_ms: f64) -> Result<Option<f64>, JsError> {
        Ok(self.inner.clock().server_now(LocalMillis(millis(local_ms)?)).map(|at| number(at.0)))
    }
}
