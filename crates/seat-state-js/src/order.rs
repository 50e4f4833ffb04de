//! `class SeatOrder`: a show's seats in definition order (its listed seats,
//! then its parametric `rows`' seats), which the compact frames
//! (`?format=compact`, API.md "Live changes (v4)") and the bit-set map
//! (`?format=bits`) name by position. Made once from the show's definition;
//! `decodeChange`, `decodeMap` and `decodeBits` give back the JSON forms,
//! ready for `SeatMapSync.handleInput`.

use seat_state::wire::{BitsMap, ChangeEvent, CompactChange, CompactError, CompactMap, RowDefinition, SeatMap};
use serde::Deserialize;
use tsify::{Ts, Tsify};
use wasm_bindgen::prelude::*;

use crate::boundary::{from_js, to_js};

// `CompactHold` is a type alias in seat-state, which tsify cannot derive
// for; the generated `CompactChange` and `CompactMap` name it.
#[wasm_bindgen(typescript_custom_section)]
const COMPACT_HOLD: &str = r#"
/**
 * Held seats that share a deadline: `[expiresAt − serverTime, seat, seat, …]`
 * (seats by their position in the show's definition).
 */
export type CompactHold = number[];
"#;

/// What the compact frames leave out of a show's seats, read from its
/// definition (`GET /api/shows/{showId}`; other fields are ignored).
#[derive(Debug, Clone, Deserialize, Tsify)]
#[tsify(missing_as_null)]
#[serde(rename_all = "camelCase")]
pub struct ShowSeats {
    /// The definition's listed seats, in its order.
    pub seats: Vec<DefinedSeat>,
    /// Parametric rows (a stadium's): their seats follow `seats`.
    #[serde(default)]
    pub rows: Vec<RowDefinition>,
    /// The sales channels and the seats each keeps.
    #[serde(default)]
    pub channels: Vec<ChannelSeats>,
}

/// A seat of a show's definition: its id and access.
#[derive(Debug, Clone, Deserialize, Tsify)]
#[tsify(missing_as_null)]
#[serde(rename_all = "camelCase")]
pub struct DefinedSeat {
    pub id: String,
    /// `wheelchair` or `companion`.
    #[serde(default)]
    pub access: Option<String>,
}

/// A sales channel of a show's definition: its id and seats.
#[derive(Debug, Clone, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct ChannelSeats {
    pub id: String,
    pub seats: Vec<String>,
}

/// A show's seats in definition order; see `seat_state::wire::SeatOrder`.
#[wasm_bindgen]
#[derive(Debug, Clone)]
pub struct SeatOrder {
    inner: seat_state::wire::SeatOrder,
}

#[wasm_bindgen]
impl SeatOrder {
    /// From the show's definition (`GET /api/shows/{showId}`): its listed
    /// seats, then its rows' seats as `seat-state` expands them. Rows that
    /// do not expand throw an `Error` naming the row.
    #[wasm_bindgen(constructor)]
    pub fn new(show: Ts<ShowSeats>) -> Result<SeatOrder, JsError> {
        let show = from_js(&show)?;
        let rows = seat_state::parametric::expand(&show.rows).map_err(|error| JsError::new(&error.0))?;
        let listed = show.seats.into_iter().map(|seat| (seat.id, None, seat.access));
        let mut seats: Vec<(String, Option<String>, Option<String>)> =
            listed.chain(rows.into_iter().map(|seat| (seat.seat.id, None, seat.access))).collect();
        // Each channel's seats by position (a stadium has no channel: no second index).
        if !show.channels.is_empty() {
            let positions = seat_state::wire::SeatOrder::new(seats.iter().map(|(id, ..)| (id.clone(), None, None)));
            for channel in show.channels {
                for seat in &channel.seats {
                    if let Some(at) = positions.position(seat) {
                        seats[at as usize].1 = Some(channel.id.clone());
                    }
                }
            }
        }
        let inner = seat_state::wire::SeatOrder::new(seats);
        Ok(Self { inner })
    }

    /// A compact `change` event's data as the JSON `change` event.
    #[wasm_bindgen(js_name = decodeChange)]
    pub fn decode_change(&self, change: Ts<CompactChange>) -> Result<Ts<ChangeEvent>, JsError> {
        let event = from_js(&change)?.decode(&self.inner).map_err(thrown)?;
        to_js(&event)
    }

    /// A compact seat map (`…/seats?format=compact`, or a compact stream's
    /// `snapshot`) as the JSON seat map, every seat listed: a seat the
    /// compact map leaves out is free, with `mine: false`.
    #[wasm_bindgen(js_name = decodeMap)]
    pub fn decode_map(&self, map: Ts<CompactMap>) -> Result<Ts<SeatMap>, JsError> {
        to_js(&from_js(&map)?.decode_every(&self.inner).map_err(thrown)?)
    }

    /// A bit-set seat map (`…/seats?format=bits`) as the JSON seat map,
    /// every seat listed, as `decodeMap` answers the compact one.
    #[wasm_bindgen(js_name = decodeBits)]
    pub fn decode_bits(&self, map: Ts<BitsMap>) -> Result<Ts<SeatMap>, JsError> {
        to_js(&from_js(&map)?.decode_every(&self.inner).map_err(thrown)?)
    }
}

/// A frame that does not fit the show, as the `Error` to throw.
fn thrown(error: CompactError) -> JsError {
    JsError::new(&error.0)
}
