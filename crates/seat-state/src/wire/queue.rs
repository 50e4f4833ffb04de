//! The waiting room's bodies (API.md "Waiting room (v3)").

use serde::{Deserialize, Serialize};

/// A show's `onSale` as an admin sends it: `opensAt` and `admitPerMinute`
/// are required (checked by `Show::parse`, so a missing one is `422`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct OnSaleInput {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opens_at: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub admit_per_minute: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pre_queue_seconds: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub admission_seconds: Option<i64>,
}

/// A show's `onSale` with every default filled in, as the definition keeps it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct OnSaleDefinition {
    pub opens_at: i64,
    pub admit_per_minute: i64,
    pub pre_queue_seconds: i64,
    pub admission_seconds: i64,
}

/// Where a session stands in the queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub enum QueueState {
    Waiting,
    Admitted,
    /// Admitted, and the window passed without a hold.
    Lapsed,
    Closed,
}

/// `POST`/`GET /api/shows/{showId}/queue`: the session's place.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct QueuePlace {
    pub state: QueueState,
    /// 1-based; `null` in the pre-queue until the draw at `opensAt`.
    pub position: Option<u64>,
    /// Places before this one not yet admitted.
    pub ahead: Option<u64>,
    /// Never earlier than the server would admit it at the current rate;
    /// once admitted, the instant it was.
    pub estimated_admit_at: Option<i64>,
    /// Admitted: the end of the window for a first hold.
    pub admitted_until: Option<i64>,
    pub server_time: i64,
}

/// A `progress` event of `GET /api/shows/{showId}/queue/events`, the same
/// for every listener.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct QueueProgress {
    pub admitted_through: u64,
    pub rate_per_minute: u32,
    pub paused: bool,
    pub server_time: i64,
}

/// `GET`/`POST /api/admin/shows/{showId}/queue`: the operator's view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct QueueStatus {
    pub length: u64,
    pub admitted_through: u64,
    pub rate_per_minute: u32,
    pub paused: bool,
    pub closed: bool,
    /// The lottery's seed (below 2^53), `null` before `opensAt`.
    pub draw_seed: Option<u64>,
    pub server_time: i64,
}

/// `POST /api/admin/shows/{showId}/queue`: what to change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct QueueSettingsBody {
    #[serde(default)]
    pub admit_per_minute: Option<i64>,
    #[serde(default)]
    pub paused: Option<bool>,
    #[serde(default)]
    pub closed: Option<bool>,
}
