//! `expandSeats(definition)`: every seat of a show to draw and to hold,
//! its listed seats and then the seats of its parametric `rows` (issue 36,
//! a stadium's), expanded by `seat-state` as the server expands them: the
//! same ids, positions and order (the order the compact and bit-set maps
//! name seats by), each with its label.

use seat_state::wire::{RowDefinition, VenueSeat, default_label};
use serde::{Deserialize, Serialize};
use tsify::{Ts, Tsify};
use wasm_bindgen::prelude::*;

use crate::boundary::{from_js, to_js};

/// What `expandSeats` reads of a show's definition (`GET
/// /api/shows/{showId}`; other fields are ignored).
#[derive(Debug, Clone, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct ShowLayout {
    /// The definition's listed seats.
    pub seats: Vec<ListedSeat>,
    /// Parametric rows: their seats follow `seats`.
    #[serde(default)]
    pub rows: Vec<RowDefinition>,
}

/// A listed seat as the definition gives it (its label left out when it
/// is the default one).
#[derive(Debug, Clone, Deserialize, Tsify)]
#[tsify(missing_as_null)]
#[serde(rename_all = "camelCase")]
pub struct ListedSeat {
    pub id: String,
    pub x: f64,
    pub y: f64,
    #[serde(default)]
    pub label: Option<String>,
    #[serde(default)]
    pub category: Option<String>,
    #[serde(default)]
    pub section: Option<String>,
    #[serde(default)]
    pub row: Option<String>,
    #[serde(default)]
    pub number: Option<i64>,
    #[serde(default)]
    pub access: Option<String>,
    #[serde(default)]
    pub companion_of: Option<String>,
}

/// A seat of the show as `expandSeats` answers it: the definition's seat
/// shape, its label always given; fields a seat lacks are left out.
#[derive(Debug, Clone, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct ShowSeat {
    /// What a hold names the seat by.
    pub id: String,
    /// Its position on the map (map units).
    pub x: f64,
    pub y: f64,
    /// Its own label, else the default one ("Section S, row R, seat N",
    /// or its id when it has no place).
    pub label: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub section: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub row: Option<String>,
    /// Its number in the row.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub number: Option<i64>,
    /// `wheelchair` or `companion`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub access: Option<String>,
    /// A companion seat's wheelchair place (its id).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub companion_of: Option<String>,
}

impl From<ListedSeat> for ShowSeat {
    fn from(seat: ListedSeat) -> Self {
        let (section, row) = (seat.section.as_deref(), seat.row.as_deref());
        let label = seat.label.unwrap_or_else(|| default_label(&seat.id, section, row, seat.number));
        let ListedSeat { id, x, y, category, section, row, number, access, companion_of, .. } = seat;
        Self { id, x, y, label, category, section, row, number, access, companion_of }
    }
}

impl From<VenueSeat> for ShowSeat {
    fn from(seat: VenueSeat) -> Self {
        let VenueSeat { seat, section, row, number, access, companion_of } = seat;
        let (id, x, y, label, category) = (seat.id, seat.x, seat.y, seat.label, seat.category);
        ShowSeat::from(ListedSeat { id, x, y, label, category, section, row, number, access, companion_of })
    }
}

/// Every seat of a show's definition in its order: the listed seats, then
/// the rows' seats; each with its label. Rows that do not expand throw an
/// `Error` naming the row.
#[wasm_bindgen(js_name = expandSeats)]
pub fn expand_seats(definition: Ts<ShowLayout>) -> Result<Vec<Ts<ShowSeat>>, JsError> {
    let show = from_js(&definition)?;
    let rows = seat_state::parametric::expand(&show.rows).map_err(|error| JsError::new(&error.0))?;
    let listed = show.seats.into_iter().map(ShowSeat::from);
    listed.chain(rows.into_iter().map(ShowSeat::from)).map(|seat| to_js(&seat)).collect()
}
