//! The box office's hold request: a v1 body, or "the best N seats", with an
//! optional channel code (API.md "Box office (v2)").

use serde::{Deserialize, Serialize};

use super::{HoldRequestBody, RequestedQuantity};

/// `POST /api/shows/{showId}/holds` body: the v1 fields plus `best` (instead
/// of `seats` and `areas`) and `channel`. Kept raw, as [`HoldRequestBody`].
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct HoldOrder {
    #[serde(flatten)]
    pub body: HoldRequestBody,
    /// Let the server pick adjacent seats, instead of naming seats.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub best: Option<BestRequestBody>,
    /// A channel's code: its seats may be held with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel: Option<String>,
    /// `true`: wheelchair places and companion seats may be held
    /// (API.md "Box office (v3)"; before `accessReleaseAt` only so).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access: Option<bool>,
}

impl From<HoldRequestBody> for HoldOrder {
    fn from(body: HoldRequestBody) -> Self {
        Self { body, best: None, channel: None, access: None }
    }
}

/// `"best": {"count": N, "category": "a", "wheelchair": K}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct BestRequestBody {
    /// How many adjacent seats, one row.
    #[cfg_attr(feature = "openapi", schema(value_type = i64))]
    pub count: RequestedQuantity,
    /// Only seats of this category.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    /// Of the `count`, this many wheelchair places, each with a companion
    /// seat of its own (so at most half the count).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<i64>))]
    pub wheelchair: Option<RequestedQuantity>,
}
