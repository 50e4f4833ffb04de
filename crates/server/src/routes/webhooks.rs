//! Webhooks (admin token): add, list with their deliveries, remove, and
//! send again from an event (API.md "Box office (v3)"). The sending is
//! `crate::webhooks`'; these only change what the store keeps.

use axum::Json;
use axum::extract::{FromRequest, Path, Request, State};
use axum::http::StatusCode;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use seat_state::wire::{
    DeliveryCounts, ErrorBody, RedeliverRequest, Redelivery, WebhookBody, WebhookInput, WebhookList, WebhookStatus,
    parse_event_id,
};

use super::shows::Admin;
use crate::error::AppError;
use crate::extract::{ADMIN_BODY_LIMIT, ApiJson, Now};
use crate::state::AppState;
use crate::webhooks::input;
use seathold_core::services::Redeliver;
use seathold_core::store::EventKind;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(create_webhook, list_webhooks))
        .routes(routes!(delete_webhook))
        .routes(routes!(redeliver))
        // API.md: admin endpoints take bodies up to 16 MiB (then 422s name what is too long).
        .layer(axum::extract::DefaultBodyLimit::max(ADMIN_BODY_LIMIT))
}

fn names(events: &[EventKind]) -> Vec<String> {
    events.iter().map(|kind| kind.name().to_owned()).collect()
}

/// Adds a webhook: from now on every committed transition of its kinds is
/// POSTed to `url`, signed with `secret` (`Seathold-Signature`), in version
/// order per show. It gets the events committed after its creation.
#[utoipa::path(post, path = "/admin/webhooks", tag = "admin", security(("admin" = [])),
    request_body = WebhookInput,
    responses((status = 201, description = "created", body = WebhookBody),
        (status = 401, description = "unauthorized", body = ErrorBody),
        (status = 403, description = "admin_disabled", body = ErrorBody),
        (status = 422, description = "invalid_webhook: a URL that is not http or https, an empty secret, no or an \
            unknown kind (the message names it)", body = ErrorBody)))]
async fn create_webhook(
    _: Admin,
    State(state): State<AppState>,
    Now(now): Now,
    ApiJson(body): ApiJson<WebhookInput>,
) -> Result<(StatusCode, Json<WebhookBody>), AppError> {
    let checked = input::parse(&body).map_err(AppError::InvalidWebhook)?;
    let webhook = state.core.webhooks.create(checked.url, checked.secret, checked.events, now).await?;
    tracing::info!(webhook = %webhook.id, url = %webhook.url, "webhook added");
    let answer = WebhookBody { id: webhook.id, url: webhook.url, events: names(&webhook.events), server_time: now.0 };
    Ok((StatusCode::CREATED, Json(answer)))
}

/// Every webhook, oldest first, with what became of its deliveries.
#[utoipa::path(get, path = "/admin/webhooks", tag = "admin", security(("admin" = [])),
    responses((status = 200, body = WebhookList),
        (status = 401, description = "unauthorized", body = ErrorBody),
        (status = 403, description = "admin_disabled", body = ErrorBody)))]
async fn list_webhooks(_: Admin, State(state): State<AppState>, Now(now): Now) -> Result<Json<WebhookList>, AppError> {
    let mut webhooks = Vec::new();
    for (webhook, tally) in state.core.webhooks.list().await? {
        webhooks.push(WebhookStatus {
            events: names(&webhook.events),
            id: webhook.id,
            url: webhook.url,
            deliveries: DeliveryCounts {
                pending: tally.pending,
                failed: tally.failed,
                attempts: tally.attempts,
                last_status: tally.last_status,
                last_error: tally.last_error,
            },
        });
    }
    Ok(Json(WebhookList { webhooks, server_time: now.0 }))
}

/// Removes a webhook: nothing more is sent to it (an attempt under way ends).
#[utoipa::path(delete, path = "/admin/webhooks/{webhookId}", tag = "admin", security(("admin" = [])),
    params(("webhookId" = String, Path, description = "The webhook's id")),
    responses((status = 204, description = "removed"),
        (status = 401, description = "unauthorized", body = ErrorBody),
        (status = 403, description = "admin_disabled", body = ErrorBody),
        (status = 404, description = "no_webhook", body = ErrorBody)))]
async fn delete_webhook(
    _: Admin,
    State(state): State<AppState>,
    Path(webhook_id): Path<String>,
) -> Result<StatusCode, AppError> {
    if !state.core.webhooks.delete(&webhook_id).await? {
        return Err(AppError::NoWebhook);
    }
    tracing::info!(webhook = %webhook_id, "webhook removed");
    Ok(StatusCode::NO_CONTENT)
}

/// Sends an event again, and every later event of its show, in order (of
/// the webhook's kinds; those it already got go again too).
#[utoipa::path(post, path = "/admin/webhooks/{webhookId}/redeliver", tag = "admin", security(("admin" = [])),
    params(("webhookId" = String, Path, description = "The webhook's id")),
    request_body = RedeliverRequest,
    responses((status = 202, description = "the event and the later ones will go again", body = Redelivery),
        (status = 401, description = "unauthorized", body = ErrorBody),
        (status = 403, description = "admin_disabled", body = ErrorBody),
        (status = 404, description = "no_webhook", body = ErrorBody),
        (status = 422, description = "invalid_webhook: fromEventId missing, not `<showId>:<version>`, or naming \
            no event", body = ErrorBody)))]
async fn redeliver(
    _: Admin,
    State(state): State<AppState>,
    Now(now): Now,
    Path(webhook_id): Path<String>,
    request: Request,
) -> Result<(StatusCode, Json<Redelivery>), AppError> {
    // The webhook first (404), then the body (413, 400, 422).
    if !state.core.webhooks.exists(&webhook_id).await? {
        return Err(AppError::NoWebhook);
    }
    let ApiJson(body) = ApiJson::<RedeliverRequest>::from_request(request, &state).await?;
    let invalid = |message: String| AppError::InvalidWebhook(message);
    let from = body.from_event_id.ok_or_else(|| invalid("fromEventId is required".to_owned()))?;
    let (show_id, version) = parse_event_id(&from)
        .ok_or_else(|| invalid(format!("fromEventId {from:?} is not <showId>:<version> (a version from 1)")))?;
    match state.core.webhooks.redeliver(&webhook_id, show_id, version).await? {
        Redeliver::Scheduled => {}
        Redeliver::NoShow => {
            return Err(invalid(format!("fromEventId {from:?} names show {show_id:?}, which does not exist")));
        }
        Redeliver::NoEvent => {
            return Err(invalid(format!("fromEventId {from:?}: show {show_id} has no event {version} yet")));
        }
        Redeliver::NoWebhook => return Err(AppError::NoWebhook),
    }
    tracing::info!(webhook = %webhook_id, from = %from, "webhook redelivery");
    Ok((StatusCode::ACCEPTED, Json(Redelivery { id: webhook_id, from_event_id: from, server_time: now.0 })))
}
