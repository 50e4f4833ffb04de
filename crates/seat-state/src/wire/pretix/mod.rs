//! pretix's seating-plan JSON, as its schema defines it
//! (`src/pretix/static/seating/seating-plan.schema.json` in pretix's
//! repository, read for this; draft-07, `additionalProperties: false`
//! everywhere, hence `deny_unknown_fields`), and the conversion to and
//! from a Seathold definition ([`to_show`], [`from_show`]).
//!
//! A plan is `zones` of `rows` of `seats`, plus `areas` (shapes: polygon,
//! rectangle, ellipse, circle, text) and `categories` (a name and a
//! colour). Positions nest: a seat's place on the plan is its zone's
//! `position` plus its row's plus its own (pretix's editor places a row's
//! seats at `x = k·spacing, y = 0` from the row).

mod convert;

pub use convert::{from_seats, from_show, to_show};

use serde::{Deserialize, Serialize};

/// A whole seating plan (`layout` in pretix's API).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct PretixPlan {
    pub name: String,
    pub zones: Vec<PretixZone>,
    pub categories: Vec<PretixCategory>,
    /// The plan's size in pixels (required by the schema's newest version).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<PretixSize>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct PretixSize {
    pub width: i64,
    pub height: i64,
}

/// `{x, y}`: numbers, written as integers when whole (the schema's first
/// versions allow only integers).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct PretixPosition {
    #[serde(serialize_with = "whole_as_integer")]
    pub x: f64,
    #[serde(serialize_with = "whole_as_integer")]
    pub y: f64,
}

fn whole_as_integer<S: serde::Serializer>(value: &f64, serializer: S) -> Result<S::Ok, S::Error> {
    // Exactly representable as i64 within ±2^53, so nothing is rounded.
    if value.fract() == 0.0 && value.abs() < 9_007_199_254_740_992.0 {
        serializer.serialize_i64(*value as i64)
    } else {
        serializer.serialize_f64(*value)
    }
}

/// A part of the venue ("main area", "balcony").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct PretixZone {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zone_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
    /// In the schema's first versions only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub displayed: Option<bool>,
    pub position: PretixPosition,
    pub rows: Vec<PretixRow>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub areas: Vec<PretixArea>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct PretixRow {
    pub row_number: String,
    /// A text for the row, `%s` standing for `row_number`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub row_label: Option<String>,
    /// A text for each seat, `%s` standing for its `seat_number`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seat_label: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
    pub seats: Vec<PretixSeat>,
    /// `start`, `end`, `both` or null.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub row_number_position: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<PretixPosition>,
    /// In the schema's first versions only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub number_of_seats: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seats_spacing: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct PretixSeat {
    /// Unique in the plan; never shown to customers.
    pub seat_guid: String,
    /// What customers read.
    pub seat_number: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
    /// `<`, `>` or `<>`: where ordered booking in the row starts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_direction: Option<String>,
    /// Drawn radius; 10 when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub radius: Option<i64>,
    pub position: PretixPosition,
    /// A category's `name`, or empty.
    pub category: String,
}

/// A shape on the plan: a stage, a bar, a standing area's outline, a text.
/// It has no capacity and sells nothing.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct PretixArea {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub border_color: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotation: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<PretixPosition>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shape: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub polygon: Option<PretixPolygon>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rectangle: Option<PretixRectangle>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ellipse: Option<PretixEllipse>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub circle: Option<PretixCircle>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<PretixText>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct PretixPolygon {
    pub points: Vec<PretixPosition>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct PretixRectangle {
    pub width: i64,
    pub height: i64,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct PretixEllipse {
    pub radius: PretixPosition,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct PretixCircle {
    pub radius: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct PretixText {
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<i64>,
    pub position: PretixPosition,
}

/// A category of seats: `name` is the key seats name it by (pretix maps
/// it to a product, which carries the price).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct PretixCategory {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color: Option<String>,
}
