//! `class ClockSync`: the server's clock estimated from round trips to
//! `GET /api/time` (smallest round trip of recent samples).

use seat_state::{ClockSample, LocalMillis, SampleOutcome, ServerMillis};
use tsify::Ts;
use wasm_bindgen::prelude::*;

use crate::boundary::to_js;
use crate::{millis, number};

/// The running estimate of the server's clock; see `seat_state::ClockSync`.
#[wasm_bindgen]
#[derive(Debug, Clone, Default)]
pub struct ClockSync {
    inner: seat_state::ClockSync,
}

#[wasm_bindgen]
impl ClockSync {
    /// No samples yet: `serverNow` answers `undefined`.
    #[wasm_bindgen(constructor)]
    pub fn new() -> Self {
        Self::default()
    }

    /// One round trip: local time when the request was sent, the answer's
    /// `serverTime`, local time when it arrived. `"replaced"`: a clock
    /// jumped and this sample alone is the estimate now; `"ignored"`: the
    /// local clock went back during the trip.
    #[wasm_bindgen(js_name = addSample)]
    pub fn add_sample(
        &mut self,
        #[wasm_bindgen(js_name = sentAtLocalMs)] sent_at_local_ms: f64,
        #[wasm_bindgen(js_name = serverTimeMs)] server_time_ms: f64,
        #[wasm_bindgen(js_name = receivedAtLocalMs)] received_at_local_ms: f64,
    ) -> Result<Ts<SampleOutcome>, JsError> {
        let outcome = self.inner.add(ClockSample {
            sent: LocalMillis(millis(sent_at_local_ms)?),
            server: ServerMillis(millis(server_time_ms)?),
            received: LocalMillis(millis(received_at_local_ms)?),
        });
        to_js(&outcome)
    }

    /// The estimated server time at local time `localMs`; `undefined` before any sample.
    #[wasm_bindgen(js_name = serverNow)]
    pub fn server_now(&self, #[wasm_bindgen(js_name = localMs)] local_ms: f64) -> Result<Option<f64>, JsError> {
        Ok(self.inner.server_now(LocalMillis(millis(local_ms)?)).map(|at| number(at.0)))
    }

    /// Server minus local time, in ms; `undefined` before any sample.
    #[wasm_bindgen(getter, js_name = offsetMs)]
    pub fn offset_ms(&self) -> Option<f64> {
        self.inner.offset().map(|offset| number(offset.offset_millis))
    }

    /// How far the true offset may be from `offsetMs` (half the best round
    /// trip); `undefined` before any sample.
    #[wasm_bindgen(getter, js_name = uncertaintyMs)]
    pub fn uncertainty_ms(&self) -> Option<f64> {
        self.inner.offset().map(|offset| number(offset.uncertainty_millis))
    }

    /// When to sample again (local time); `undefined`: now.
    #[wasm_bindgen(getter, js_name = nextSampleAt)]
    pub fn next_sample_at(&self) -> Option<f64> {
        self.inner.next_sample_at().map(|at| number(at.0))
    }
}
