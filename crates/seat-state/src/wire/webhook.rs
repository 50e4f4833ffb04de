//! Signed webhooks (API.md "Box office (v3)", Webhooks and A delivery):
//! the admin bodies and the body of one delivery.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// `POST /api/admin/webhooks` body. Every field is optional here so that a
/// missing one is reported as `invalid_webhook`, not as a parse error.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct WebhookInput {
    /// Where deliveries are POSTed: an `http` or `https` URL (loopback allowed).
    pub url: Option<String>,
    /// The HMAC-SHA256 key of the `Seathold-Signature` header (its UTF-8
    /// bytes); never shown again.
    pub secret: Option<String>,
    /// The kinds delivered, at least one: `held`, `extended`, `confirmed`,
    /// `released`, `expired`, `blocked`, `unblocked`.
    pub events: Option<Vec<String>>,
}

/// A webhook as created: `201` to `POST /api/admin/webhooks`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct WebhookBody {
    pub id: String,
    pub url: String,
    pub events: Vec<String>,
    pub server_time: i64,
}

/// What became of a webhook's events so far, over every show.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct DeliveryCounts {
    /// Events of its kinds committed and not yet acknowledged or parked.
    pub pending: u64,
    /// Events parked: not acknowledged within the retry period.
    pub failed: u64,
    /// POSTs made, acknowledged or not.
    pub attempts: u64,
    /// The HTTP status of the latest attempt; `null` before the first, or
    /// when the latest got no answer.
    pub last_status: Option<u16>,
    /// Why the latest attempt failed; `null` when it was acknowledged.
    pub last_error: Option<String>,
}

/// One webhook in `GET /api/admin/webhooks`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct WebhookStatus {
    pub id: String,
    pub url: String,
    pub events: Vec<String>,
    pub deliveries: DeliveryCounts,
}

/// `GET /api/admin/webhooks`: every webhook, oldest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct WebhookList {
    pub webhooks: Vec<WebhookStatus>,
    pub server_time: i64,
}

/// `POST /api/admin/webhooks/{webhookId}/redeliver` body.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct RedeliverRequest {
    /// An event's `id` (`<showId>:<version>`): it and every later event of
    /// its show go out again, in order.
    pub from_event_id: Option<String>,
}

/// `202` to a redelivery: what will go out again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Redelivery {
    /// The webhook's id.
    pub id: String,
    pub from_event_id: String,
    pub server_time: i64,
}

/// The body of one delivery: one committed transition of a show.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Delivery {
    /// `<showId>:<version>`: the same on every retry; ordered by `version`
    /// within a show.
    pub id: String,
    /// `held`, `extended`, `confirmed`, `released`, `expired`, `blocked`
    /// or `unblocked`.
    pub kind: String,
    pub show_id: String,
    /// The show's version once this transition applied.
    pub version: i64,
    /// The instant it was decided at.
    pub at: i64,
    /// The hold it changed; `null` for a block or unblock.
    pub hold_id: Option<String>,
    /// The hold's seats, or the seats blocked or unblocked.
    pub seats: Vec<String>,
    /// The hold's area quantities by area id.
    pub areas: BTreeMap<String, u32>,
}

/// An event's id: `<showId>:<version>`.
pub fn event_id(show_id: &str, version: i64) -> String {
    format!("{show_id}:{version}")
}

/// The show and version an event id names; `None` when it is not of the
/// form `<showId>:<version>` with a version of at least 1.
pub fn parse_event_id(id: &str) -> Option<(&str, i64)> {
    let (show_id, version) = id.rsplit_once(':')?;
    let version: i64 = version.parse().ok().filter(|version| *version >= 1)?;
    (!show_id.is_empty() && version.to_string().len() == id.len() - show_id.len() - 1).then_some((show_id, version))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_id_names_its_show_and_version_and_reads_back() {
        assert_eq!(event_id("impro-1", 42), "impro-1:42");
        assert_eq!(parse_event_id("impro-1:42"), Some(("impro-1", 42)));
        for bad in ["impro-1", ":4", "impro-1:0", "impro-1:-3", "impro-1:+3", "impro-1:03", "impro-1:x", "a:"] {
            assert_eq!(parse_event_id(bad), None, "{bad}");
        }
    }
}
