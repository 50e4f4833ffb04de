//! The JSON bodies of the HTTP API (API.md), shared by server and browser.
//!
//! These types mirror the wire format exactly: camelCase names and integer
//! epoch milliseconds. They hold unchecked data; `crate::show` parses them
//! into domain types.

mod admin;
mod areas;
mod bits;
mod frame;
mod hold;
mod order;
pub mod pretix;
mod queue;
mod rows;
mod venue;
mod webhook;

use serde::{Deserialize, Serialize};

pub use admin::{
    BlockRequest, BlockedSeats, HoldCounts, OnSaleHistory, OnSaleMinute, OperatorHold, OperatorHoldList, PlaceCounts,
    ShowStats,
};
pub use areas::AreaMap;
pub use bits::{BitsMap, decode_set, is_set};
pub use frame::{CompactChange, CompactError, CompactHold, CompactMap, Conflation, Positions, SeatOrder};
pub use hold::{HoldBody, HoldList, HoldRequestBody, RequestedQuantity, SessionBody};
pub use order::{BestRequestBody, HoldOrder};
pub use queue::{OnSaleDefinition, OnSaleInput, QueuePlace, QueueProgress, QueueSettingsBody, QueueState, QueueStatus};
pub use rows::{RowCompanion, RowDefinition, RowGap, ShowRows};
pub use venue::{
    CategoryDefinition, ChannelDefinition, Focus, SeatPlace, ShowDocument, ShowOffer, VenueSeat, default_label,
};
pub use webhook::{
    Delivery, DeliveryCounts, RedeliverRequest, Redelivery, WebhookBody, WebhookInput, WebhookList, WebhookStatus,
    event_id, parse_event_id,
};

/// A seat in a show definition, as sent by an admin or returned by the server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct SeatDefinition {
    /// The seat's id.
    pub id: String,
    /// Position on the map (map units).
    pub x: f64,
    /// Position on the map (map units).
    pub y: f64,
    /// Human name; the id when omitted on input.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Free-form price category.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
}

/// A general-admission area in a show definition.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct AreaDefinition {
    /// The area's id.
    pub id: String,
    /// Human name.
    pub name: String,
    /// How many places it has.
    pub capacity: i64,
}

/// `POST /api/admin/shows` body. Required fields are optional here so that a
/// missing one is reported as `invalid_show` rather than a parse error.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ShowInput {
    pub id: Option<String>,
    pub name: Option<String>,
    pub hold_seconds: Option<i64>,
    pub extension_seconds: Option<i64>,
    pub max_extensions: Option<i64>,
    pub max_seats_per_hold: Option<i64>,
    pub max_active_holds_per_holder: Option<i64>,
    pub late_policy: Option<String>,
    pub seats: Option<Vec<VenueSeat>>,
    /// Parametric rows (issue 36): their seats follow `seats`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rows: Option<Vec<RowDefinition>>,
    pub areas: Option<Vec<AreaDefinition>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub categories: Option<Vec<CategoryDefinition>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub focus: Option<Focus>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channels: Option<Vec<ChannelDefinition>>,
    /// The waiting room (API.md "Waiting room (v3)").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_sale: Option<OnSaleInput>,
    /// `off` (the default), `lenient` or `strict`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub orphan_rule: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access_release_at: Option<i64>,
}

/// The v1 fields of a complete show definition, as v1 clients read
/// `GET /api/shows/{id}` (the answer is a [`ShowDocument`], a superset).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ShowDefinition {
    pub id: String,
    pub name: String,
    pub hold_seconds: i64,
    pub extension_seconds: i64,
    pub max_extensions: i64,
    pub max_seats_per_hold: i64,
    pub max_active_holds_per_holder: i64,
    pub late_policy: String,
    pub seats: Vec<SeatDefinition>,
    pub areas: Vec<AreaDefinition>,
}

/// `GET /api/shows/{id}` and the answer to creating a show.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ShowBody {
    #[serde(flatten)]
    pub show: ShowDocument,
    pub server_time: i64,
}

/// One line of `GET /api/shows`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ShowSummary {
    pub id: String,
    pub name: String,
    pub seat_count: u64,
    pub area_count: u64,
}

/// `GET /api/shows`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ShowList {
    pub shows: Vec<ShowSummary>,
    pub server_time: i64,
}

/// Facts about one seat: the client derives its state from them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "js", derive(tsify::Tsify), tsify(missing_as_null))]
#[serde(rename_all = "camelCase")]
pub struct SeatFact {
    pub id: String,
    pub sold: bool,
    /// Deadline of the latest hold; `null` when none. A past value has expired.
    pub hold_expires_at: Option<i64>,
    /// Held or sold to the asking session. Omitted in public event payloads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mine: Option<bool>,
    /// The box office blocked it: nobody may hold it. Omitted when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub blocked: bool,
    /// The channel it is kept for: only that channel's code may hold it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel: Option<String>,
    /// `wheelchair` or `companion`: kept for requests that ask for access
    /// until the show's `accessReleaseAt`. Omitted for other seats.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access: Option<String>,
}

/// One hold's share of an area.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "js", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct AreaHoldFact {
    pub quantity: i64,
    pub expires_at: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mine: Option<bool>,
}

/// Facts about one general-admission area.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "js", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct AreaFact {
    pub id: String,
    pub capacity: i64,
    pub sold: i64,
    pub holds: Vec<AreaHoldFact>,
}

/// `GET /api/shows/{id}/seats`, and the `snapshot` event's data.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "js", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct SeatMap {
    pub show_id: String,
    pub server_time: i64,
    pub version: i64,
    pub seats: Vec<SeatFact>,
    pub areas: Vec<AreaFact>,
}

impl SeatMap {
    /// A compact map (`?only=taken`: API.md "On-sale (v3)") as a full one:
    /// every seat of `seat_ids` (the show's, in definition order) with its
    /// listed fact, or free as of `serverTime` when the map leaves it out.
    /// A full map comes back with the same seats. O(n).
    pub fn with_free_seats<'a>(self, seat_ids: impl IntoIterator<Item = &'a str>) -> Self {
        let mut listed: std::collections::HashMap<String, SeatFact> =
            self.seats.into_iter().map(|fact| (fact.id.clone(), fact)).collect();
        let seats = seat_ids
            .into_iter()
            .map(|id| {
                listed.remove(id).unwrap_or_else(|| SeatFact {
                    id: id.to_owned(),
                    sold: false,
                    hold_expires_at: None,
                    mine: None,
                    blocked: false,
                    channel: None,
                    access: None,
                })
            })
            .collect();
        Self { seats, ..self }
    }
}

/// A `change` event's data: the public facts of every seat and area one
/// change touched (`mine` omitted).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "js", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct ChangeEvent {
    /// The show's version after this change; also the event's `id`.
    pub version: i64,
    pub server_time: i64,
    /// Live changes (v4): the version this event follows when it carries
    /// several changes (every change in `(since, version]`, each seat and
    /// area in its latest state); absent for a single change (`version − 1`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<i64>,
    #[serde(default)]
    pub seats: Vec<SeatFact>,
    #[serde(default)]
    pub areas: Vec<AreaFact>,
}

/// `GET /api/time`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "js", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct TimeBody {
    pub server_time: i64,
}

/// Every error answer: a code, one human sentence, the server time, and the
/// extra fields that some codes name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ErrorBody {
    pub error: String,
    pub message: String,
    pub server_time: i64,
    /// `seats_taken`, `invalid_seats`, `seats_unavailable`, `would_strand`: the seat ids.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seats: Option<Vec<String>>,
    /// `not_enough_seats`: the area without enough places left.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub area: Option<String>,
    /// `not_enough_seats`: how many places that area still has.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub available: Option<i64>,
    /// `not_admitted`: where the session stands (both fields present,
    /// `null` for a session that never joined).
    #[serde(default, flatten, skip_serializing_if = "Option::is_none")]
    pub queue: Option<NotAdmitted>,
}

/// The extra fields of `403 not_admitted`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct NotAdmitted {
    pub position: Option<u64>,
    pub estimated_admit_at: Option<i64>,
}
