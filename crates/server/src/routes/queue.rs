//! The waiting room (API.md "Waiting room (v3)"): join, look, listen, and
//! the operator's controls.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures_util::stream::{self, Stream};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use seat_state::queue::QueueSettings;
use seat_state::wire::{ErrorBody, QueuePlace, QueueProgress, QueueSettingsBody, QueueState, QueueStatus};
use seat_state::{HolderId, ServerMillis};

use super::shows::Admin;
use crate::error::{AppError, DecidedAt};
use crate::extract::ApiJson;
use crate::limits::{ClientAddress, HoldWrites};
use crate::session::Session;
use crate::state::AppState;
use seathold_core::engine::ShowHandle;
use seathold_core::engine::queue::{QueueError, QueueHandle};

/// Comment lines keep proxies from closing a quiet stream.
const KEEP_ALIVE: Duration = Duration::from_secs(10);

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(join_queue, queue_place))
        .routes(routes!(queue_events))
        .routes(routes!(queue_status, settle_queue))
}

impl From<QueueError> for AppError {
    fn from(error: QueueError) -> Self {
        match error {
            QueueError::Refused(refusal) => Self::Queue(refusal),
            QueueError::Engine(error) => error.into(),
        }
    }
}

/// The show's writer and its queue: `404 unknown_show`, then `404 no_queue`.
async fn queue_of(state: &AppState, show_id: &str) -> Result<(ShowHandle, QueueHandle), AppError> {
    let show = state.engines.show(show_id).await?.ok_or(AppError::UnknownShow)?;
    let queue = state.engines.queue(show_id, &show).await?.ok_or(AppError::NoQueue)?;
    Ok((show, queue))
}

fn answer(status: StatusCode, at: ServerMillis, body: impl serde::Serialize) -> Response {
    let mut response = (status, Json(body)).into_response();
    response.extensions_mut().insert(DecidedAt(at));
    response
}

/// The holder's place, with an admission whose window passed told apart:
/// `lapsed` only if the holder made no hold since it was admitted.
async fn place(
    queue: &QueueHandle,
    show: &ShowHandle,
    holder: &HolderId,
) -> Result<(ServerMillis, Option<QueuePlace>), AppError> {
    let read = queue.place(holder.clone()).await?;
    let Some(mut place) = read.value else { return Ok((read.at, None)) };
    if place.state == QueueState::Lapsed
        && let Some(since) = place.estimated_admit_at
        && show.held_since(holder.clone(), ServerMillis(since)).await?
    {
        place.state = QueueState::Admitted;
    }
    Ok((read.at, Some(place)))
}

/// Takes a place in the show's queue for this session, or answers the one
/// it has. Joins before `opensAt` are drawn into a random order at
/// `opensAt`; later ones go to the back.
#[utoipa::path(post, path = "/shows/{showId}/queue", tag = "queue",
    params(("showId" = String, Path, description = "The show's id")), security(("session" = []), ("cookie" = [])),
    responses(
        (status = 201, description = "a new place", body = QueuePlace),
        (status = 200, description = "the place this session has", body = QueuePlace),
        (status = 401, description = "unauthorized", body = ErrorBody),
        (status = 404, description = "unknown_show, no_queue", body = ErrorBody),
        (status = 409, description = "queue_not_open: before opensAt − preQueueSeconds", body = ErrorBody),
        (status = 429, description = "rate_limited: over the address's rates or places (Retry-After)", body = ErrorBody),
        (status = 503, description = "unavailable (Retry-After)", body = ErrorBody)))]
async fn join_queue(
    _: HoldWrites,
    address: ClientAddress,
    session: Session,
    State(state): State<AppState>,
    Path(show_id): Path<String>,
) -> Result<Response, AppError> {
    let (show, queue) = queue_of(&state, &show_id).await?;
    let holder = HolderId::new(session.0.as_ref());
    let (_, current) = place(&queue, &show, &holder).await?;
    let lapsed = current.is_some_and(|place| place.state == QueueState::Lapsed);
    let cap = state.limits.queue_places_per_address;
    let joined = queue.join(holder, address.0.to_string(), lapsed, cap).await?;
    let status = if joined.value.created { StatusCode::CREATED } else { StatusCode::OK };
    Ok(answer(status, joined.at, joined.value.place))
}

/// This session's place: state, position, how many are ahead, the
/// estimated admission and the end of an admission's window.
#[utoipa::path(get, path = "/shows/{showId}/queue", tag = "queue",
    params(("showId" = String, Path, description = "The show's id")), security(("session" = []), ("cookie" = [])),
    responses(
        (status = 200, body = QueuePlace),
        (status = 401, description = "unauthorized", body = ErrorBody),
        (status = 404, description = "unknown_show, no_queue, not_queued", body = ErrorBody)))]
async fn queue_place(
    session: Session,
    State(state): State<AppState>,
    Path(show_id): Path<String>,
) -> Result<Response, AppError> {
    let (show, queue) = queue_of(&state, &show_id).await?;
    let (at, place) = place(&queue, &show, &HolderId::new(session.0.as_ref())).await?;
    Ok(answer(StatusCode::OK, at, place.ok_or(AppError::NotQueued)?))
}

/// The queue's progress as server-sent `progress` events, the same bytes
/// for every listener, at least once a second.
#[utoipa::path(get, path = "/shows/{showId}/queue/events", tag = "queue",
    params(("showId" = String, Path, description = "The show's id")),
    responses((status = 200, content_type = "text/event-stream", body = QueueProgress,
               description = "`progress` events"),
              (status = 404, description = "unknown_show, no_queue", body = ErrorBody),
              (status = 503, description = "unavailable: too many live streams (Retry-After); poll the queue", body = ErrorBody)))]
async fn queue_events(
    address: ClientAddress,
    State(state): State<AppState>,
    Path(show_id): Path<String>,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, AppError> {
    let (_, queue) = queue_of(&state, &show_id).await?;
    let slot = state.streams.take(address)?;
    let mut progress = queue.progress();
    progress.mark_changed();
    let stopping = state.stopping.subscribe();
    let events = stream::unfold((progress, stopping, slot), |(mut progress, mut stopping, slot)| async move {
        let changed = tokio::select! {
            biased;
            _ = stopping.wait_for(|stopping| *stopping) => return None,
            changed = progress.changed() => changed,
        };
        changed.ok()?;
        let json: Arc<str> = Arc::clone(&progress.borrow_and_update());
        Some((Ok(Event::default().event("progress").data(&*json)), (progress, stopping, slot)))
    });
    Ok(Sse::new(events).keep_alive(KeepAlive::new().interval(KEEP_ALIVE)))
}

/// The queue as the operator sees it.
#[utoipa::path(get, path = "/admin/shows/{showId}/queue", tag = "admin",
    params(("showId" = String, Path, description = "The show's id")), security(("admin" = [])),
    responses((status = 200, body = QueueStatus),
              (status = 401, description = "unauthorized", body = ErrorBody),
              (status = 403, description = "admin_disabled", body = ErrorBody),
              (status = 404, description = "unknown_show, no_queue", body = ErrorBody)))]
async fn queue_status(
    _: Admin,
    State(state): State<AppState>,
    Path(show_id): Path<String>,
) -> Result<Response, AppError> {
    let (_, queue) = queue_of(&state, &show_id).await?;
    let status = queue.status().await?;
    Ok(answer(StatusCode::OK, status.at, status.value))
}

/// Changes the rate (from now on), pauses or resumes, closes the queue.
#[utoipa::path(post, path = "/admin/shows/{showId}/queue", tag = "admin", request_body = QueueSettingsBody,
    params(("showId" = String, Path, description = "The show's id")), security(("admin" = [])),
    responses((status = 200, body = QueueStatus),
              (status = 400, description = "bad_request", body = ErrorBody),
              (status = 401, description = "unauthorized", body = ErrorBody),
              (status = 403, description = "admin_disabled", body = ErrorBody),
              (status = 404, description = "unknown_show, no_queue", body = ErrorBody),
              (status = 422, description = "invalid_queue: admitPerMinute out of range", body = ErrorBody)))]
async fn settle_queue(
    _: Admin,
    State(state): State<AppState>,
    Path(show_id): Path<String>,
    ApiJson(body): ApiJson<QueueSettingsBody>,
) -> Result<Response, AppError> {
    let (_, queue) = queue_of(&state, &show_id).await?;
    let settings = QueueSettings { admit_per_minute: body.admit_per_minute, paused: body.paused, closed: body.closed };
    let status = queue.settle(settings).await?;
    Ok(answer(StatusCode::OK, status.at, status.value))
}
