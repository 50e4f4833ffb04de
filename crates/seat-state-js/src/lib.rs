//! `seat-state`'s client side for JavaScript, through wasm-bindgen.
//!
//! The same rules the Leptos map uses, for any front end: [`ClockSync`]
//! (the server's clock from round trips), [`countdown`] (buffered by the
//! estimate's uncertainty), [`SeatMapSync`] (the live map: ordered changes,
//! gap detection, the next instant anything visible changes), [`Connection`]
//! (when to open, reopen or poll the live stream, and sample the clock),
//! [`SeatOrder`] (the compact frames of `?format=compact` and the bit-set
//! map of `?format=bits` read back as JSON), [`expand_seats`] (every seat
//! of a definition, its parametric rows expanded) and [`seat_state`]
//! (FREE / HELD / SOLD from facts).
//!
//! Nothing here reads a clock: every instant is a JavaScript number of epoch
//! milliseconds passed in by the caller (`Date.now()`, or
//! `performance.timeOrigin + performance.now()`). Objects cross the boundary
//! through serde, by this crate's own small (de)serializer over `JsValue`
//! (`boundary`), and their TypeScript types are generated from the Rust
//! types by tsify (the wire types are `seat-state`'s own).

mod boundary;
mod clock;
mod connection;
mod machine;
mod order;
mod seats;

use serde::Deserialize;
use tsify::{Ts, Tsify};

use boundary::{from_js, to_js};
use wasm_bindgen::prelude::*;

pub use clock::ClockSync;
pub use connection::{Connection, ConnectionInput, ConnectionOutput};
pub use machine::{MyHold, SeatMapSync, SyncInput, SyncOutput};
pub use order::{ChannelSeats, DefinedSeat, SeatOrder, ShowSeats};
pub use seat_state::{CountdownView, SeatState};
pub use seats::{ListedSeat, ShowLayout, ShowSeat, expand_seats};

/// What a seat's state is derived from: a seat of the seat map or of a
/// change event has both fields.
#[derive(Debug, Clone, Deserialize, Tsify)]
#[tsify(missing_as_null)]
#[serde(rename_all = "camelCase")]
pub struct SeatFacts {
    pub sold: bool,
    /// The deadline of the seat's latest hold; `null` (or absent) when none.
    #[serde(default)]
    pub hold_expires_at: Option<i64>,
}

/// `seatState({sold, holdExpiresAt}, serverNowMs)`: `"sold"`, `"held"` while
/// `holdExpiresAt > serverNowMs`, else `"free"`.
#[wasm_bindgen(js_name = seatState)]
pub fn seat_state(
    facts: Ts<SeatFacts>,
    #[wasm_bindgen(js_name = serverNowMs)] server_now_ms: f64,
) -> Result<Ts<SeatState>, JsError> {
    let facts = from_js(&facts)?;
    let now = seat_state::ServerMillis(millis(server_now_ms)?);
    let state = seat_state::seat_state(facts.sold, facts.hold_expires_at.map(seat_state::ServerMillis), now);
    to_js(&state)
}

/// The countdown to show for a hold ending at `expiresAtMs` (server time) at
/// `serverNowMs`, shortened by the clock's `uncertaintyMs` and `bufferMs`
/// (5,000 when omitted) so it never shows time the server has taken away.
#[wasm_bindgen]
pub fn countdown(
    #[wasm_bindgen(js_name = expiresAtMs)] expires_at_ms: f64,
    #[wasm_bindgen(js_name = serverNowMs)] server_now_ms: f64,
    #[wasm_bindgen(js_name = uncertaintyMs)] uncertainty_ms: f64,
    #[wasm_bindgen(js_name = bufferMs)] buffer_ms: Option<f64>,
) -> Result<Ts<CountdownView>, JsError> {
    let buffer = buffer_ms.map_or(Ok(seat_state::Countdown::DEFAULT_BUFFER_MILLIS), millis)?;
    let view = seat_state::Countdown::at(
        seat_state::ServerMillis(millis(expires_at_ms)?),
        seat_state::ServerMillis(millis(server_now_ms)?),
        millis(uncertainty_ms)?,
        buffer,
    );
    to_js(&view)
}

/// A JavaScript number of milliseconds as whole milliseconds (rounded down:
/// `performance.now()` has fractions). NaN and infinities are refused.
pub(crate) fn millis(value: f64) -> Result<i64, JsError> {
    if value.is_finite() {
        // Saturates beyond i64, far outside any real instant.
        Ok(value.floor() as i64)
    } else {
        // No `{value}` in the message: float formatting costs the package ~15 KB.
        Err(JsError::new("expected a finite number of milliseconds"))
    }
}

/// An instant as a JavaScript number (exact below 2^53 ms, ~285,000 years).
pub(crate) fn number(millis: i64) -> f64 {
    millis as f64
}
