//! Holds: create, read, list, extend, confirm, release.

use axum::Json;
use axum::extract::{FromRequest, Path, Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use std::sync::Arc;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use seat_state::wire::{ErrorBody, HoldBody, HoldList, HoldRequestBody};
use seat_state::{HoldId, HolderId, Rejection};

use crate::app::AppState;
use crate::engine::{Action, ShowHandle};
use crate::error::AppError;
use crate::extract::{ApiJson, Now};
use crate::session::Session;

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

/// Holds seats and area places, all or nothing. Checks run in API.md's
/// order: session, show, body, then the rules.
#[utoipa::path(post, path = "/shows/{show_id}/holds", tag = "holds", request_body = HoldRequestBody,
    params(("show_id" = String, Path, description = "The show's id")), security(("session" = []), ("cookie" = [])),
    responses(
        (status = 201, description = "held", body = HoldBody),
        (status = 200, description = "the same request again: the hold as it stands", body = HoldBody),
        (status = 400, description = "bad_request", body = ErrorBody),
        (status = 401, description = "unauthorized", body = ErrorBody),
        (status = 404, description = "unknown_show", body = ErrorBody),
        (status = 409, description = "seats_taken (with seats), not_enough_seats (with area, available), idempotency_mismatch", body = ErrorBody),
        (status = 413, description = "payload_too_large", body = ErrorBody),
        (status = 422, description = "invalid_seats, invalid_quantity, invalid_hold_id", body = ErrorBody),
        (status = 429, description = "hold_limit", body = ErrorBody)))]
async fn create_hold(
    session: Session,
    State(state): State<AppState>,
    Now(now): Now,
    Path(show_id): Path<String>,
    request: Request,
) -> Result<Response, AppError> {
    let show = state.engines.show(&show_id).await?.ok_or(AppError::UnknownShow)?;
    let ApiJson(body) = ApiJson::<HoldRequestBody>::from_request(request, &state).await?;
    let foreign_id = match body.hold_id.as_deref().map(HoldId::parse) {
        Some(Ok(hold)) => state.engines.show_id_of_hold(&hold).await?.is_some_and(|owner| *owner != *show_id),
        _ => false,
    };
    let written = show.create_hold(holder(&session), body, foreign_id, now).await?;
    if written.created
        && let Ok(hold) = HoldId::parse(&written.hold.hold_id)
    {
        state.engines.remember_hold(&hold, &Arc::from(show_id.as_str()), &holder(&session))?;
    }
    let status = if written.created { StatusCode::CREATED } else { StatusCode::OK };
    Ok((status, Json(HoldBody { server_time: now.0, ..written.hold })).into_response())
}

/// The caller's holds, newest first.
#[utoipa::path(get, path = "/holds", tag = "holds", security(("session" = []), ("cookie" = [])),
    responses((status = 200, body = HoldList), (status = 401, description = "unauthorized", body = ErrorBody)))]
async fn list_holds(
    session: Session,
    State(state): State<AppState>,
    Now(now): Now,
) -> Result<Json<HoldList>, AppError> {
    let holder = holder(&session);
    let mut holds = Vec::new();
    for (hold, show) in state.engines.holds_of(&holder).await? {
        holds.push(show.hold(holder.clone(), hold, now).await?);
    }
    Ok(Json(HoldList { holds, server_time: now.0 }))
}

/// The show of a hold named in a path; unknown or malformed → `no_hold`.
async fn show_of(state: &AppState, hold_id: &str) -> Result<(HoldId, ShowHandle), AppError> {
    let hold = HoldId::parse(hold_id).map_err(|_| Rejection::NoHold)?;
    let show = state.engines.show_of_hold(&hold).await?.ok_or(Rejection::NoHold)?;
    Ok((hold, show))
}

/// One of the caller's holds.
#[utoipa::path(get, path = "/holds/{hold_id}", tag = "holds", params(("hold_id" = String, Path)),
    security(("session" = []), ("cookie" = [])),
    responses((status = 200, body = HoldBody), (status = 401, description = "unauthorized", body = ErrorBody),
              (status = 404, description = "no_hold", body = ErrorBody)))]
async fn get_hold(
    session: Session,
    State(state): State<AppState>,
    Now(now): Now,
    Path(hold_id): Path<String>,
) -> Result<Json<HoldBody>, AppError> {
    let (hold, show) = show_of(&state, &hold_id).await?;
    Ok(Json(show.hold(holder(&session), hold, now).await?))
}

async fn act(
    state: &AppState,
    session: &Session,
    hold_id: &str,
    action: Action,
    now: seat_state::ServerMillis,
) -> Result<HoldBody, AppError> {
    let (hold, show) = show_of(state, hold_id).await?;
    let written = show.act(action, holder(session), hold, now).await?;
    Ok(HoldBody { server_time: now.0, ..written.hold })
}

/// Moves the stored deadline by `extensionSeconds`, at most `maxExtensions` times.
#[utoipa::path(post, path = "/holds/{hold_id}/extend", tag = "holds", params(("hold_id" = String, Path)),
    security(("session" = []), ("cookie" = [])),
    responses((status = 200, body = HoldBody), (status = 401, description = "unauthorized", body = ErrorBody),
              (status = 404, description = "no_hold", body = ErrorBody),
              (status = 409, description = "already_confirmed, extension_limit", body = ErrorBody),
              (status = 410, description = "hold_expired, hold_released", body = ErrorBody)))]
async fn extend_hold(
    session: Session,
    State(state): State<AppState>,
    Now(now): Now,
    Path(hold_id): Path<String>,
) -> Result<Json<HoldBody>, AppError> {
    act(&state, &session, &hold_id, Action::Extend, now).await.map(Json)
}

/// Confirms (buys) the hold; again answers the same confirmation.
#[utoipa::path(post, path = "/holds/{hold_id}/confirm", tag = "holds", params(("hold_id" = String, Path)),
    security(("session" = []), ("cookie" = [])),
    responses((status = 200, body = HoldBody), (status = 401, description = "unauthorized", body = ErrorBody),
              (status = 404, description = "no_hold", body = ErrorBody),
              (status = 410, description = "hold_expired, hold_released", body = ErrorBody)))]
async fn confirm_hold(
    session: Session,
    State(state): State<AppState>,
    Now(now): Now,
    Path(hold_id): Path<String>,
) -> Result<Json<HoldBody>, AppError> {
    act(&state, &session, &hold_id, Action::Confirm, now).await.map(Json)
}

/// Releases the hold (also when already released or expired).
#[utoipa::path(delete, path = "/holds/{hold_id}", tag = "holds", params(("hold_id" = String, Path)),
    security(("session" = []), ("cookie" = [])),
    responses((status = 204, description = "released"), (status = 401, description = "unauthorized", body = ErrorBody),
              (status = 404, description = "no_hold", body = ErrorBody),
              (status = 409, description = "already_confirmed", body = ErrorBody)))]
async fn release_hold(
    session: Session,
    State(state): State<AppState>,
    Now(now): Now,
    Path(hold_id): Path<String>,
) -> Result<StatusCode, AppError> {
    act(&state, &session, &hold_id, Action::Release, now).await.map(|_| StatusCode::NO_CONTENT)
}
