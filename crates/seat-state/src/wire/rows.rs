//! Parametric rows (issue 36): a show definition's `rows`, beside `seats`.
//! One entry stands for a whole row of seats along a line or an arc, so a
//! stadium's definition is a few bytes a seat; seat-state expands it to
//! the same seats, with the same ids, on the server and in the browser
//! ([`crate::parametric`]).

use serde::{Deserialize, Serialize};

/// A row of `count` seats, `spacing` map units apart along a line or an
/// arc that starts at the first seat (`x`, `y`) heading `angle` degrees
/// (0 points along +x, 90 along +y). With `radius` the row bends: its
/// centre lies `radius` units to the right of the heading (a negative
/// radius bends it the other way), and `spacing` is measured along the arc.
///
/// Seat `k` (from 0) is numbered `first + k·step`; its id is `idPrefix`
/// followed by its number (`idPrefix` defaults to `"{section}-{row}-"`, the
/// CSV import's ids), its label the default one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "js", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct RowDefinition {
    /// With `row`: the seats' place (API.md "Box office (v2)").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub section: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub row: Option<String>,
    /// What each seat's id starts with; required for a row without a place.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id_prefix: Option<String>,
    /// The first seat's position (map units).
    pub x: f64,
    pub y: f64,
    /// The row's heading at its first seat, in degrees; 0 when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub angle: Option<f64>,
    /// The curve's radius (map units); a straight row when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub radius: Option<f64>,
    /// From one seat to the next, along the row (map units).
    pub spacing: f64,
    /// How many seats.
    pub count: i64,
    /// The first seat's number; 1 when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first: Option<i64>,
    /// From one seat's number to the next (−1: numbered against the
    /// heading); 1 when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    /// Aisles and other breaks: extra space along the row.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gaps: Vec<RowGap>,
    /// The numbers of the row's wheelchair places (API.md "Box office (v3)").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub wheelchair: Vec<i64>,
    /// Companion seats, each beside a wheelchair place of the same row.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub companions: Vec<RowCompanion>,
}

/// `space` more map units after the row's `after`-th seat (counted from
/// its first, 1 ≤ `after` < `count`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "js", derive(tsify::Tsify))]
pub struct RowGap {
    pub after: i64,
    pub space: f64,
}

/// The seat numbered `number` is the companion seat of the wheelchair
/// place numbered `of`, in the same row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "js", derive(tsify::Tsify))]
pub struct RowCompanion {
    pub number: i64,
    pub of: i64,
}

/// The `rows` of `GET /api/shows/{showId}`, read beside the v1
/// [`super::ShowDefinition`] and the [`super::ShowOffer`] from the same
/// answer (a client that knows no rows reads neither, as before).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ShowRows {
    #[serde(default)]
    pub rows: Vec<RowDefinition>,
}

impl ShowRows {
    /// Appends the rows' seats after the definition's own, in the order
    /// the server numbers seats by: their ids, positions and default
    /// labels to `show`, their places and access to `offer` (whose `seats`
    /// must be the definition's own, one a seat).
    pub fn append_to(
        &self,
        show: &mut super::ShowDefinition,
        offer: &mut super::ShowOffer,
    ) -> Result<(), crate::InvalidShow> {
        let seats = crate::parametric::expand(&self.rows)?;
        offer.seats.resize_with(show.seats.len(), super::SeatPlace::default);
        show.seats.reserve(seats.len());
        offer.seats.reserve(seats.len());
        for seat in seats {
            offer.seats.push(super::SeatPlace {
                section: seat.section,
                row: seat.row,
                number: seat.number,
                access: seat.access,
                companion_of: seat.companion_of,
            });
            show.seats.push(seat.seat);
        }
        Ok(())
    }
}
