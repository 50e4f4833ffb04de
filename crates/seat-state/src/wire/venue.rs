//! The box office's additions to a show definition (API.md "Box office
//! (v2)"): seats in rows, price categories, the stage, sales channels.
//!
//! The v1 types ([`super::SeatDefinition`], [`super::ShowDefinition`]) stay
//! as they were, so clients that read only v1 fields keep compiling; these
//! carry the v1 fields plus the new ones.

use serde::{Deserialize, Serialize};

use super::{AreaDefinition, SeatDefinition};

/// A seat with its place in a row: adjacency is consecutive `number`s in one
/// `section` and `row`. The three come together or not at all.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct VenueSeat {
    #[serde(flatten)]
    pub seat: SeatDefinition,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub section: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub row: Option<String>,
    /// Order within the row.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub number: Option<i64>,
    /// `wheelchair` or `companion` (API.md "Box office (v3)"): kept for
    /// requests that ask for access until `accessReleaseAt`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access: Option<String>,
    /// A companion seat's wheelchair place (its id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub companion_of: Option<String>,
}

/// The label of a seat whose definition gives none on the wire (API.md
/// "On-sale (v3)"): "Section S, row R, seat N" for a seat with a place in a
/// row, else its id. The server leaves such labels out of a show's
/// definition; clients put them back with this.
pub fn default_label(id: &str, section: Option<&str>, row: Option<&str>, number: Option<i64>) -> String {
    match (section, row, number) {
        // Piece by piece, not `format!`: a stadium's browser writes 200,000.
        (Some(section), Some(row), Some(number)) => {
            let mut label = String::with_capacity(section.len() + row.len() + 28);
            for piece in ["Section ", section, ", row ", row, ", seat "] {
                label.push_str(piece);
            }
            if number < 0 {
                label.push('-');
            }
            crate::drawing::decimal::push_uint(&mut label, number.unsigned_abs());
            label
        }
        _ => id.to_owned(),
    }
}

impl VenueSeat {
    /// The label this seat has when its definition leaves it out.
    pub fn default_label(&self) -> String {
        default_label(&self.seat.id, self.section.as_deref(), self.row.as_deref(), self.number)
    }
}

impl From<SeatDefinition> for VenueSeat {
    fn from(seat: SeatDefinition) -> Self {
        Self { seat, section: None, row: None, number: None, access: None, companion_of: None }
    }
}

/// A price category; seats name it by `id` in their `category`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct CategoryDefinition {
    pub id: String,
    pub name: String,
    /// In minor units of `currency` (cents for EUR).
    pub price: i64,
    /// ISO 4217 code, e.g. `EUR`.
    pub currency: String,
    /// `#rrggbb`.
    pub color: String,
}

/// A point on the map: the stage that best available ranks by.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Focus {
    pub x: f64,
    pub y: f64,
}

/// Seats sold only to holders of a code (a presale, a partner).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ChannelDefinition {
    pub id: String,
    /// The secret a hold request carries as `channel`; required on input,
    /// never shown to customers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    pub seats: Vec<String>,
}

/// A complete show definition (v1 fields and the box office's), every
/// default filled in: what `GET /api/shows/{showId}` answers and what the
/// stores keep.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ShowDocument {
    pub id: String,
    pub name: String,
    pub hold_seconds: i64,
    pub extension_seconds: i64,
    pub max_extensions: i64,
    pub max_seats_per_hold: i64,
    pub max_active_holds_per_holder: i64,
    pub late_policy: String,
    pub seats: Vec<VenueSeat>,
    /// Parametric rows, whose seats follow `seats` ([`crate::parametric::expand`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rows: Vec<super::RowDefinition>,
    pub areas: Vec<AreaDefinition>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub categories: Vec<CategoryDefinition>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub focus: Option<Focus>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub channels: Vec<ChannelDefinition>,
    /// The waiting room's settings as created.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_sale: Option<super::OnSaleDefinition>,
    /// `off`, `lenient` or `strict` (API.md "Box office (v3)").
    pub orphan_rule: String,
    /// When access seats go on sale to everyone; absent: never.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access_release_at: Option<i64>,
}

impl ShowDocument {
    /// The definition customers may read: channel codes left out.
    pub fn without_codes(mut self) -> Self {
        for channel in &mut self.channels {
            channel.code = None;
        }
        self
    }

    /// What customers read (API.md "On-sale (v3)"): channel codes left out,
    /// and each seat's label left out when it is the default one
    /// ([`default_label`]), which clients derive.
    pub fn for_customers(self) -> Self {
        let mut show = self.without_codes();
        for seat in &mut show.seats {
            if seat.seat.label.as_deref().is_some_and(|label| label == seat.default_label()) {
                seat.seat.label = None;
            }
        }
        show
    }
}

/// The box office's part of `GET /api/shows/{showId}` that a customer's page
/// reads beside the v1 [`super::ShowDefinition`] from the same answer:
/// categories and channels (codes left out), the orphan rule, when access
/// seats are released, and each seat's place and access. Flat, with no
/// `#[serde(flatten)]`, so the browser never buffers a seat to read it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ShowOffer {
    #[serde(default)]
    pub categories: Vec<CategoryDefinition>,
    #[serde(default)]
    pub channels: Vec<ChannelDefinition>,
    /// `off`, `lenient` or `strict`; absent reads as `off`.
    #[serde(default)]
    pub orphan_rule: Option<String>,
    #[serde(default)]
    pub access_release_at: Option<i64>,
    /// Each seat's place and access, in the definition's order.
    #[serde(default)]
    pub seats: Vec<SeatPlace>,
}

/// The box office's part of one seat of a definition: its place in a row
/// (for default labels and the orphan rule's neighbours) and its access.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SeatPlace {
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

impl SeatPlace {
    /// `(section, row, number)` for [`crate::Rows::new`], when the seat has a place.
    pub fn place(&self) -> Option<(&str, &str, u32)> {
        match (&self.section, &self.row, self.number) {
            (Some(section), Some(row), Some(number)) => {
                Some((section.as_str(), row.as_str(), u32::try_from(number).ok()?))
            }
            _ => None,
        }
    }
}
