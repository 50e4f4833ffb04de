//! Holds: create, read, list, extend, confirm, release.

use axum::Json;
use axum::extract::{FromRequest, Path, Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use seat_state::wire::{ErrorBody, HoldBody, HoldList, HoldOrder};
use seat_state::{Admission, HoldId, HolderId, Rejection};

use crate::error::{AppError, DecidedAt};
use crate::extract::{ApiJson, Now};
use crate::limits::HoldWrites;
use crate::session::Session;
use crate::state::AppState;
use seathold_core::engine::{Action, Decided, ShowHandle};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(create_hold))
        .routes(routes!(list_holds))
        .routes(routes!(get_hold, release_hold))
        .routes(routes!(extend_hold))
        .routes(routes!(confirm_hold))
}

fn holder(session: &Session) -> HolderId {
    HolderId::new(session.0.as_ref())
}

/// A hold as the writer decided it, stamped with the writer's instant.
pub(super) fn decided(status: StatusCode, hold: Decided<HoldBody>) -> Response {
    let mut response = (status, Json(HoldBody { server_time: hold.at.0, ..hold.value })).into_response();
    response.extensions_mut().insert(DecidedAt(hold.at));
    response
}

/// Holds seats and area places, all or nothing, or with `best` the best
/// adjacent seats (picked by the show's writer at the instant it holds
/// them). Checks run in API.md's order: session, show, body, then the rules.
#[utoipa::path(post, path = "/shows/{showId}/holds", tag = "holds", request_body = HoldOrder,
    params(("showId" = String, Path, description = "The show's id")), security(("session" = []), ("cookie" = [])),
    responses(
        (status = 201, description = "held", body = HoldBody),
        (status = 200, description = "the same request again: the hold as it stands", body = HoldBody),
        (status = 400, description = "bad_request", body = ErrorBody),
        (status = 401, description = "unauthorized", body = ErrorBody),
        (status = 403, description = "not_admitted (with position and estimatedAdmitAt): the show's queue has not admitted this session", body = ErrorBody),
        (status = 404, description = "unknown_show", body = ErrorBody),
        (status = 408, description = "request_timeout: the body did not arrive in time", body = ErrorBody),
        (status = 409, description = "seats_unavailable (with seats: blocked, a channel's without its code, or an access seat without access before accessReleaseAt), seats_taken (with seats), not_enough_seats (with area and available; for best, available = the largest block it could offer), would_strand (with seats: the free seats the hold would leave alone, in row order; under the show's orphanRule, checked last), idempotency_mismatch", body = ErrorBody),
        (status = 413, description = "payload_too_large", body = ErrorBody),
        (status = 422, description = "invalid_seats, invalid_quantity, invalid_hold_id", body = ErrorBody),
        (status = 429, description = "hold_limit, rate_limited (Retry-After)", body = ErrorBody),
        (status = 503, description = "unavailable: the show's storage is failing (Retry-After)", body = ErrorBody)))]
async fn create_hold(
    _: HoldWrites,
    session: Session,
    State(state): State<AppState>,
    Path(show_id): Path<String>,
    request: Request,
) -> Result<Response, AppError> {
    let show = state.engines.show(&show_id).await?.ok_or(AppError::UnknownShow)?;
    let ApiJson(body) = ApiJson::<HoldOrder>::from_request(request, &state).await?;
    let holder = holder(&session);
    let admission = match state.engines.queue(&show_id, &show).await? {
        Some(queue) => queue.admission(holder.clone()).await?,
        None => Admission::Open,
    };
    // Decided at the writer's instant, not at `now`: the body may have
    // arrived long after the headers.
    let written = show.create_hold(holder, body, admission).await?;
    let status = if written.value.created { StatusCode::CREATED } else { StatusCode::OK };
    Ok(decided(status, Decided { at: written.at, value: written.value.hold }))
}

/// The caller's holds, newest first.
#[utoipa::path(get, path = "/holds", tag = "holds", security(("session" = []), ("cookie" = [])),
    responses((status = 200, body = HoldList), (status = 401, description = "unauthorized", body = ErrorBody)))]
async fn list_holds(session: Session, State(state): State<AppState>, Now(now): Now) -> Result<Response, AppError> {
    let listed = state.engines.list_holds(&holder(&session), now).await?;
    let mut response = Json(HoldList { holds: listed.value, server_time: listed.at.0 }).into_response();
    response.extensions_mut().insert(DecidedAt(listed.at));
    Ok(response)
}

/// The show of a hold named in a path; unknown or malformed → `no_hold`.
pub(super) async fn show_of(state: &AppState, hold_id: &str) -> Result<(HoldId, ShowHandle), AppError> {
    let hold = HoldId::parse(hold_id).map_err(|_| Rejection::NoHold)?;
    let show = state.engines.show_of_hold(&hold).await?.ok_or(Rejection::NoHold)?;
    Ok((hold, show))
}

/// One of the caller's holds.
#[utoipa::path(get, path = "/holds/{holdId}", tag = "holds", params(("holdId" = String, Path)),
    security(("session" = []), ("cookie" = [])),
    responses((status = 200, body = HoldBody), (status = 401, description = "unauthorized", body = ErrorBody),
              (status = 404, description = "no_hold", body = ErrorBody)))]
async fn get_hold(
    session: Session,
    State(state): State<AppState>,
    Now(now): Now,
    Path(hold_id): Path<String>,
) -> Result<Response, AppError> {
    let (hold, show) = show_of(&state, &hold_id).await?;
    Ok(decided(StatusCode::OK, show.hold(holder(&session), hold, now).await?))
}

/// Extends, confirms or releases, at the writer's instant.
async fn act(state: &AppState, session: &Session, hold_id: &str, action: Action) -> Result<Response, AppError> {
    let (hold, show) = show_of(state, hold_id).await?;
    let written = show.act(action, holder(session), hold).await?;
    let status = if action == Action::Release { StatusCode::NO_CONTENT } else { StatusCode::OK };
    let mut response = decided(status, Decided { at: written.at, value: written.value.hold });
    if status == StatusCode::NO_CONTENT {
        *response.body_mut() = axum::body::Body::empty();
    }
    Ok(response)
}

/// Moves the stored deadline by `extensionSeconds`, at most `maxExtensions` times.
#[utoipa::path(post, path = "/holds/{holdId}/extend", tag = "holds", params(("holdId" = String, Path)),
    security(("session" = []), ("cookie" = [])),
    responses((status = 200, body = HoldBody), (status = 401, description = "unauthorized", body = ErrorBody),
              (status = 404, description = "no_hold", body = ErrorBody),
              (status = 409, description = "already_confirmed, extension_limit", body = ErrorBody),
              (status = 429, description = "rate_limited (Retry-After)", body = ErrorBody),
              (status = 410, description = "hold_expired, hold_released", body = ErrorBody)))]
async fn extend_hold(
    _: HoldWrites,
    session: Session,
    State(state): State<AppState>,
    Path(hold_id): Path<String>,
) -> Result<Response, AppError> {
    act(&state, &session, &hold_id, Action::Extend).await
}

/// Confirms (buys) the hold; again answers the same confirmation.
#[utoipa::path(post, path = "/holds/{holdId}/confirm", tag = "holds", params(("holdId" = String, Path)),
    security(("session" = []), ("cookie" = [])),
    responses((status = 200, body = HoldBody), (status = 401, description = "unauthorized", body = ErrorBody),
              (status = 404, description = "no_hold", body = ErrorBody),
              (status = 410, description = "hold_expired, hold_released", body = ErrorBody),
              (status = 429, description = "rate_limited (Retry-After)", body = ErrorBody)))]
async fn confirm_hold(
    _: HoldWrites,
    session: Session,
    State(state): State<AppState>,
    Path(hold_id): Path<String>,
) -> Result<Response, AppError> {
    act(&state, &session, &hold_id, Action::Confirm).await
}

/// Releases the hold (also when already released or expired).
#[utoipa::path(delete, path = "/holds/{holdId}", tag = "holds", params(("holdId" = String, Path)),
    security(("session" = []), ("cookie" = [])),
    responses((status = 204, description = "released"), (status = 401, description = "unauthorized", body = ErrorBody),
              (status = 404, description = "no_hold", body = ErrorBody),
              (status = 409, description = "already_confirmed", body = ErrorBody),
              (status = 429, description = "rate_limited (Retry-After)", body = ErrorBody)))]
async fn release_hold(
    _: HoldWrites,
    session: Session,
    State(state): State<AppState>,
    Path(hold_id): Path<String>,
) -> Result<Response, AppError> {
    act(&state, &session, &hold_id, Action::Release).await
}
