//! The box office's operator answers (API.md "Box office (v2)", Operator).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// One active hold as the operator sees it: with its holder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct OperatorHold {
    pub hold_id: String,
    pub holder: String,
    pub seats: Vec<String>,
    pub areas: BTreeMap<String, i64>,
    pub created_at: i64,
    pub expires_at: i64,
    pub extensions: i64,
}

/// `GET /api/admin/shows/{showId}/holds`: active holds, oldest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct OperatorHoldList {
    pub holds: Vec<OperatorHold>,
    pub server_time: i64,
}

/// Places by state at one instant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct PlaceCounts {
    pub free: u64,
    pub held: u64,
    pub sold: u64,
    pub blocked: u64,
}

/// Holds by what became of them, from the journal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct HoldCounts {
    pub created: u64,
    pub confirmed: u64,
    pub expired: u64,
    pub released: u64,
}

/// `GET /api/admin/shows/{showId}/stats`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ShowStats {
    /// Seats and area places.
    #[serde(flatten)]
    pub places: PlaceCounts,
    /// Seats per category id (seats without a category are left out).
    pub by_category: BTreeMap<String, PlaceCounts>,
    pub holds: HoldCounts,
    /// Confirmed per created; 0 before the first hold.
    pub conversion: f64,
    /// Median from creation to confirmation; `null` before the first sale.
    pub median_seconds_to_confirm: Option<f64>,
    pub server_time: i64,
}

/// `POST` (block) and `DELETE` (unblock) `/api/admin/shows/{showId}/blocked`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct BlockRequest {
    /// Seat ids of the show, at least one.
    #[cfg_attr(feature = "openapi", schema(min_items = 1))]
    pub seats: Vec<String>,
    /// Why (kept in the journal), at most 200 characters.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(max_length = 200))]
    pub reason: Option<String>,
}

/// Every blocked seat of the show, after the request.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct BlockedSeats {
    pub blocked: Vec<String>,
    pub server_time: i64,
}

/// One minute of a show's sale, for the operator's charts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct OnSaleMinute {
    /// The minute's first instant (a whole minute of the server's clock).
    pub at: i64,
    /// Places taken in the waiting room by the minute's end (or now);
    /// `null` for a show without one.
    pub queue_length: Option<u64>,
    /// How far the waiting room was admitted by then; `null` without one.
    pub admitted_through: Option<u64>,
    /// Holds created in the minute.
    pub holds: u64,
    /// Holds confirmed in the minute.
    pub confirms: u64,
    /// Holds that expired in the minute.
    pub expiries: u64,
}

/// `GET /api/admin/shows/{showId}/onsale`: the last hour, minute by minute.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct OnSaleHistory {
    /// 60 minutes, oldest first; the last is the minute under way.
    pub minutes: Vec<OnSaleMinute>,
    pub server_time: i64,
}
