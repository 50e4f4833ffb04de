//! The operator's calls: each carries the admin token (API.md "Box office
//! (v2)", Operator; `401 unauthorized` when the token is wrong).

use serde::Serialize;

use seat_state::wire::{
    HoldBody, HoldCounts, OnSaleHistory, OperatorHoldList, PlaceCounts, QueueSettingsBody, QueueStatus, ShowStats,
    WebhookList,
};

use super::*;
/// A request to an admin path with the operator's token.
fn as_operator(method: reqwest::Method, path: &str, token: &str) -> reqwest::RequestBuilder {
    request(method, path).header(reqwest::header::AUTHORIZATION, format!("Bearer {token}"))
}

/// `GET …/stats` read flat: [`ShowStats`]'s `#[serde(flatten)]` would make
/// serde buffer the answer through its generic content in the wasm.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct StatsBody {
    free: u64,
    held: u64,
    sold: u64,
    blocked: u64,
    by_category: std::collections::BTreeMap<String, PlaceCounts>,
    holds: HoldCounts,
    conversion: f64,
    median_seconds_to_confirm: Option<f64>,
    server_time: i64,
}

/// A show's places by state and category, holds by outcome, conversion.
pub async fn show_stats(show_id: &str, token: &str) -> Result<ShowStats, ApiError> {
    let path = format!("/api/admin/shows/{show_id}/stats");
    let body: StatsBody = decode(exchange(as_operator(reqwest::Method::GET, &path, token)).await?)?;
    Ok(ShowStats {
        places: PlaceCounts { free: body.free, held: body.held, sold: body.sold, blocked: body.blocked },
        by_category: body.by_category,
        holds: body.holds,
        conversion: body.conversion,
        median_seconds_to_confirm: body.median_seconds_to_confirm,
        server_time: body.server_time,
    })
}

/// A show's active holds with their holders, oldest first.
pub async fn active_holds(show_id: &str, token: &str) -> Result<OperatorHoldList, ApiError> {
    let path = format!("/api/admin/shows/{show_id}/holds");
    decode(exchange(as_operator(reqwest::Method::GET, &path, token)).await?)
}

/// The last hour by the minute: the waiting room, holds, confirms, expiries.
pub async fn on_sale_history(show_id: &str, token: &str) -> Result<OnSaleHistory, ApiError> {
    let path = format!("/api/admin/shows/{show_id}/onsale");
    decode(exchange(as_operator(reqwest::Method::GET, &path, token)).await?)
}

/// The show's waiting room as the operator sees it; `None`: it has none.
pub async fn queue_status(show_id: &str, token: &str) -> Result<Option<QueueStatus>, ApiError> {
    let path = format!("/api/admin/shows/{show_id}/queue");
    match exchange(as_operator(reqwest::Method::GET, &path, token)).await {
        Err(error) if error.code() == Some("no_queue") => Ok(None),
        answer => decode(answer?).map(Some),
    }
}

/// Changes the waiting room's rate, pauses or resumes it, closes or reopens it.
pub async fn settle_queue(show_id: &str, token: &str, settings: &QueueSettingsBody) -> Result<QueueStatus, ApiError> {
    let path = format!("/api/admin/shows/{show_id}/queue");
    let request = as_operator(reqwest::Method::POST, &path, token)
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .body(to_json(settings)?);
    decode(exchange(request).await?)
}

/// Every webhook with what became of its deliveries (the webhook log).
pub async fn webhooks(token: &str) -> Result<WebhookList, ApiError> {
    decode(exchange(as_operator(reqwest::Method::GET, "/api/admin/webhooks", token)).await?)
}

/// Releases anyone's hold, as the operator (journaled as such).
pub async fn force_release(hold_id: &str, token: &str) -> Result<HoldBody, ApiError> {
    let path = format!("/api/admin/holds/{hold_id}/release");
    decode(exchange(as_operator(reqwest::Method::POST, &path, token)).await?)
}

/// The journal's two export formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JournalFormat {
    JsonLines,
    Csv,
}

impl JournalFormat {
    /// The media type asked for (`Accept`) and saved.
    pub fn media_type(self) -> &'static str {
        match self {
            Self::JsonLines => "application/jsonl",
            Self::Csv => "text/csv",
        }
    }
}

/// A show's whole journal, oldest first, as text in `format`.
pub async fn journal(show_id: &str, token: &str, format: JournalFormat) -> Result<String, ApiError> {
    let path = format!("/api/admin/shows/{show_id}/journal");
    let request = as_operator(reqwest::Method::GET, &path, token).header(reqwest::header::ACCEPT, format.media_type());
    Ok(exchange(request).await?.unwrap_or_default())
}

/// `{"seats": [...], "reason": "..."}`: seats to block or unblock.
#[derive(Debug, Clone, Serialize)]
struct BlockBody<'a> {
    seats: &'a [String],
    reason: &'a str,
}

/// `{"blocked": [...]}`: every seat blocked now.
#[derive(Debug, Clone, serde::Deserialize)]
pub struct Blocked {
    pub blocked: Vec<String>,
}

/// Blocks `seats` (`block`) or unblocks them; every seat blocked afterwards.
pub async fn set_blocked(
    show_id: &str,
    token: &str,
    seats: &[String],
    reason: &str,
    block: bool,
) -> Result<Blocked, ApiError> {
    let path = format!("/api/admin/shows/{show_id}/blocked");
    let method = if block { reqwest::Method::POST } else { reqwest::Method::DELETE };
    let request = as_operator(method, &path, token)
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .body(to_json(&BlockBody { seats, reason })?);
    decode(exchange(request).await?)
}
