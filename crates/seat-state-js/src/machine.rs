//! `class SeatMapSync`: the live seat map as a sans-io machine. Feed it what
//! arrives with `handleInput`, call `pollOutput` until it answers a
//! `timeout`, redraw the seats `drainChanged` names, and set one timer.

use seat_state::sync::{AreaView, Changed, Input, Output};
use seat_state::wire::{ChangeEvent, HoldBody, SeatMap};
use seat_state::{ClockSample, CountdownView, HoldStatus, LocalMillis, SeatView, ServerMillis};
use serde::{Deserialize, Serialize};
use tsify::{Ts, Tsify};
use wasm_bindgen::prelude::*;

use crate::boundary::{from_js, to_js};
use crate::{millis, number};

/// One thing that arrived, e.g. `{snapshot: seatMap}` or `{tick: Date.now()}`.
/// Local instants are the caller's clock, in ms. (Externally tagged: the
/// other serde shapes buffer every payload once more, and double the code.)
#[derive(Debug, Clone, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub enum SyncInput {
    /// `GET …/seats`, or the event stream's `snapshot`.
    Snapshot(SeatMap),
    /// A `change` event.
    Change(ChangeEvent),
    /// Answers about my holds: `GET /api/holds`'s list, or `[hold]` from
    /// any hold endpoint.
    MyHolds(Vec<HoldBody>),
    /// A round trip to `GET /api/time`.
    ClockSample(Sample),
    /// The local clock reads this now (the timer fired, or before other input).
    Tick(f64),
    /// The fetch a `resyncNeeded` asked for failed.
    ResyncFailed(Failure),
}

/// A round trip to `GET /api/time`, as `ClockSync.addSample` takes it.
#[derive(Debug, Clone, Copy, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct Sample {
    pub sent_at_local_ms: f64,
    pub server_time_ms: f64,
    pub received_at_local_ms: f64,
}

/// Why a request failed (a re-sync, a poll, a probe, a clock sample).
#[derive(Debug, Clone, Copy, Default, Deserialize, Tsify)]
#[tsify(missing_as_null)]
#[serde(rename_all = "camelCase")]
pub struct Failure {
    /// The server's `Retry-After`, in ms, when it gave one.
    #[serde(default)]
    pub retry_after_ms: Option<f64>,
    /// 0..=1000, random: spreads many browsers' retries (0 when absent).
    #[serde(default)]
    pub jitter_permille: u16,
}

/// What the machine asks for.
#[derive(Debug, Clone, Copy, Serialize, Tsify)]
#[tsify(missing_as_null)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum SyncOutput {
    /// A change after `lastVersion` is missing: reconnect the stream with
    /// `Last-Event-ID: lastVersion` or fetch the seat map, and feed the
    /// snapshot (or a `resyncFailed`).
    #[serde(rename_all = "camelCase")]
    ResyncNeeded { last_version: i64 },
    /// Nothing more now: tick again at local time `at` (`null`: no timer needed).
    Timeout { at: Option<f64> },
}

/// One of my holds as it looks now (the caller has the server's answer
/// itself; sending it back would cost the package its serializer).
#[derive(Debug, Clone, Serialize, Tsify)]
#[tsify(missing_as_null)]
#[serde(rename_all = "camelCase")]
pub struct MyHold {
    pub hold_id: String,
    /// Now: a `HELD` hold past its deadline is `EXPIRED`.
    pub status: HoldStatus,
    /// The buffered countdown while it is `HELD`, else `null`.
    pub countdown: Option<CountdownView>,
}

/// The live seat map; see `seat_state::SeatMapSync`.
#[wasm_bindgen]
#[derive(Debug, Clone, Default)]
pub struct SeatMapSync {
    inner: seat_state::SeatMapSync,
}

#[wasm_bindgen]
impl SeatMapSync {
    /// Empty; countdowns shortened by `bufferMs` (5,000 when omitted).
    #[wasm_bindgen(constructor)]
    pub fn new(#[wasm_bindgen(js_name = bufferMs)] buffer_ms: Option<f64>) -> Result<SeatMapSync, JsError> {
        let inner = match buffer_ms {
            Some(buffer) => seat_state::SeatMapSync::with_buffer(millis(buffer)?),
            None => seat_state::SeatMapSync::new(),
        };
        Ok(Self { inner })
    }

    /// Takes one input. Tick before other input when time has passed.
    #[wasm_bindgen(js_name = handleInput)]
    pub fn handle_input(&mut self, input: Ts<SyncInput>) -> Result<(), JsError> {
        let input = match from_js(&input)? {
            SyncInput::Snapshot(map) => Input::Snapshot(map),
            SyncInput::Change(event) => Input::Change(event),
            SyncInput::MyHolds(holds) => Input::MyHolds(holds),
            SyncInput::ClockSample(sample) => Input::ClockSample(ClockSample {
                sent: LocalMillis(millis(sample.sent_at_local_ms)?),
                server: ServerMillis(millis(sample.server_time_ms)?),
                received: LocalMillis(millis(sample.received_at_local_ms)?),
            }),
            SyncInput::Tick(local) => Input::Tick(LocalMillis(millis(local)?)),
            SyncInput::ResyncFailed(failure) => Input::ResyncFailed {
                retry_after_millis: failure.retry_after_ms.map(millis).transpose()?,
                jitter_permille: failure.jitter_permille,
            },
        };
        self.inner.handle_input(input);
        Ok(())
    }

    /// The next thing to do: re-syncs first, then when to tick again.
    #[wasm_bindgen(js_name = pollOutput)]
    pub fn poll_output(&mut self) -> Result<Ts<SyncOutput>, JsError> {
        let output = match self.inner.poll_output() {
            Output::ResyncNeeded { last_version } => SyncOutput::ResyncNeeded { last_version },
            Output::Timeout(at) => SyncOutput::Timeout { at: at.map(|at| number(at.0)) },
        };
        to_js(&output)
    }

    /// The seats and areas that look different since last asked (the
    /// first time: all), and whether my holds' statuses or countdowns did.
    #[wasm_bindgen(js_name = drainChanged)]
    pub fn drain_changed(&mut self) -> Result<Ts<Changed>, JsError> {
        to_js(&self.inner.drain_changed())
    }

    /// How one seat looks now; `undefined` for an unknown id.
    pub fn seat(&self, id: &str) -> Result<Option<Ts<SeatView>>, JsError> {
        self.inner.seat(id).map(|view| to_js(&view)).transpose()
    }

    /// How one general-admission area looks now; `undefined` for an unknown id.
    pub fn area(&self, id: &str) -> Result<Option<Ts<AreaView>>, JsError> {
        self.inner.area(id).map(|view| to_js(&view)).transpose()
    }

    /// My holds, newest first, with their buffered countdowns.
    #[wasm_bindgen(js_name = myHolds)]
    pub fn my_holds(&self) -> Result<Vec<Ts<MyHold>>, JsError> {
        let holds = self.inner.my_holds().map(|view| MyHold {
            hold_id: view.hold.hold_id.clone(),
            status: view.status,
            countdown: view.countdown.cloned(),
        });
        holds.map(|hold| to_js(&hold)).collect()
    }

    /// The earliest server time the clock estimate allowed at the last tick
    /// (every state derives from it); `undefined` before any.
    #[wasm_bindgen(getter, js_name = serverNow)]
    pub fn server_now(&self) -> Option<f64> {
        self.inner.server_now().map(|at| number(at.0))
    }

    /// The version of the facts shown; `undefined` before a snapshot.
    #[wasm_bindgen(getter)]
    pub fn version(&self) -> Option<f64> {
        self.inner.version().map(number)
    }

    /// When to sample the server's clock again (local time); `undefined`: now.
    #[wasm_bindgen(getter, js_name = nextClockSampleAt)]
    pub fn next_clock_sample_at(&self) -> Option<f64> {
        self.inner.clock().next_sample_at().map(|at| number(at.0))
    }
}
