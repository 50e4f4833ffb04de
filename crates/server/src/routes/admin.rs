//! The box office's operator endpoints (admin token): a show's active
//! holds, releasing one, stats, the last hour by the minute, and the
//! journal.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::header::{ACCEPT, CONTENT_TYPE};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use seat_state::wire::{BlockRequest, BlockedSeats, ErrorBody, HoldBody, OnSaleHistory, OperatorHoldList, ShowStats};
use seat_state::{HolderId, MAX_BLOCK_REASON, Rejection, SeatId};

use super::holds::{decided, show_of};
use super::shows::Admin;
use crate::error::{AppError, DecidedAt};
use crate::extract::{ApiJson, Now};
use crate::state::AppState;
use seathold_core::engine::{Action, Decided, OPERATOR};
use seathold_core::operator;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(show_holds))
        .routes(routes!(release_hold))
        .routes(routes!(show_stats))
        .routes(routes!(show_on_sale))
        .routes(routes!(show_journal))
        .routes(routes!(block_seats, unblock_seats))
}

/// A show's active holds with their holders, oldest first.
#[utoipa::path(get, path = "/admin/shows/{showId}/holds", tag = "admin", security(("admin" = [])),
    params(("showId" = String, Path, description = "The show's id")),
    responses((status = 200, body = OperatorHoldList),
        (status = 401, description = "unauthorized", body = ErrorBody),
        (status = 403, description = "admin_disabled", body = ErrorBody),
        (status = 404, description = "unknown_show", body = ErrorBody)))]
async fn show_holds(
    _: Admin,
    State(state): State<AppState>,
    Now(now): Now,
    Path(show_id): Path<String>,
) -> Result<Json<OperatorHoldList>, AppError> {
    let holds = state.core.operator.holds(&show_id, now).await?.ok_or(AppError::UnknownShow)?;
    Ok(Json(holds))
}

/// Releases anyone's hold (journaled with the holder `operator`; an event
/// goes out); a released one answers as it stands.
#[utoipa::path(post, path = "/admin/holds/{holdId}/release", tag = "admin", security(("admin" = [])),
    params(("holdId" = String, Path, description = "The hold's id")),
    responses((status = 200, description = "the hold, RELEASED", body = HoldBody),
        (status = 401, description = "unauthorized", body = ErrorBody),
        (status = 403, description = "admin_disabled", body = ErrorBody),
        (status = 404, description = "no_hold", body = ErrorBody),
        (status = 409, description = "already_confirmed", body = ErrorBody),
        (status = 503, description = "unavailable: the show's storage is failing (Retry-After)", body = ErrorBody)))]
async fn release_hold(
    _: Admin,
    State(state): State<AppState>,
    Path(hold_id): Path<String>,
) -> Result<Response, AppError> {
    let (hold, show) = show_of(&state, &hold_id).await?;
    let written = show.act(Action::OperatorRelease, HolderId::new(OPERATOR), hold).await?;
    Ok(decided(StatusCode::OK, Decided { at: written.at, value: written.value.hold }))
}

/// Places by state (in all and per category), holds by outcome, conversion
/// and the median time to confirm.
#[utoipa::path(get, path = "/admin/shows/{showId}/stats", tag = "admin", security(("admin" = [])),
    params(("showId" = String, Path, description = "The show's id")),
    responses((status = 200, body = ShowStats),
        (status = 401, description = "unauthorized", body = ErrorBody),
        (status = 403, description = "admin_disabled", body = ErrorBody),
        (status = 404, description = "unknown_show", body = ErrorBody)))]
async fn show_stats(
    _: Admin,
    State(state): State<AppState>,
    Now(now): Now,
    Path(show_id): Path<String>,
) -> Result<Json<ShowStats>, AppError> {
    let stats = state.core.operator.stats(&show_id, now).await?.ok_or(AppError::UnknownShow)?;
    Ok(Json(stats))
}

/// The last hour minute by minute, for the operator's charts: holds
/// created, confirmed and expired in each minute, and the waiting room's
/// length and admissions at each minute's end (`null` without one).
#[utoipa::path(get, path = "/admin/shows/{showId}/onsale", tag = "admin", security(("admin" = [])),
    params(("showId" = String, Path, description = "The show's id")),
    responses((status = 200, body = OnSaleHistory),
        (status = 401, description = "unauthorized", body = ErrorBody),
        (status = 403, description = "admin_disabled", body = ErrorBody),
        (status = 404, description = "unknown_show", body = ErrorBody)))]
async fn show_on_sale(
    _: Admin,
    State(state): State<AppState>,
    Now(now): Now,
    Path(show_id): Path<String>,
) -> Result<Json<OnSaleHistory>, AppError> {
    let history = state.core.operator.on_sale(&show_id, now).await?.ok_or(AppError::UnknownShow)?;
    Ok(Json(history))
}

/// The audit journal, oldest first: JSON Lines, or CSV for `Accept: text/csv`.
#[utoipa::path(get, path = "/admin/shows/{showId}/journal", tag = "admin", security(("admin" = [])),
    params(("showId" = String, Path, description = "The show's id")),
    responses((status = 200, description = "one entry per line: version, at, holdId, holder (`operator` for the box \
        office's releases), action, and seats, areas, expiresAt, extensions, late where they apply",
        content((String = "application/jsonl"), (String = "text/csv"))),
        (status = 401, description = "unauthorized", body = ErrorBody),
        (status = 403, description = "admin_disabled", body = ErrorBody),
        (status = 404, description = "unknown_show", body = ErrorBody)))]
async fn show_journal(
    _: Admin,
    State(state): State<AppState>,
    headers: HeaderMap,
    Path(show_id): Path<String>,
) -> Result<Response, AppError> {
    let journal = state.core.operator.journal(&show_id).await?.ok_or(AppError::UnknownShow)?;
    let wants_csv =
        headers.get(ACCEPT).and_then(|value| value.to_str().ok()).is_some_and(|value| value.contains("text/csv"));
    Ok(if wants_csv {
        ([(CONTENT_TYPE, "text/csv; charset=utf-8")], operator::csv(&journal)?).into_response()
    } else {
        ([(CONTENT_TYPE, "application/jsonl; charset=utf-8")], operator::json_lines(&journal)?).into_response()
    })
}

/// Takes seats off sale: nobody may hold them from now on (holds and sales
/// made before stand). Blocking a blocked seat again changes nothing.
#[utoipa::path(post, path = "/admin/shows/{showId}/blocked", tag = "admin", security(("admin" = [])),
    params(("showId" = String, Path, description = "The show's id")),
    request_body = BlockRequest,
    responses((status = 200, description = "every blocked seat of the show", body = BlockedSeats),
        (status = 400, description = "bad_request: not JSON of this shape, or a reason over 200 characters", body = ErrorBody),
        (status = 401, description = "unauthorized", body = ErrorBody),
        (status = 403, description = "admin_disabled", body = ErrorBody),
        (status = 404, description = "unknown_show", body = ErrorBody),
        (status = 413, description = "payload_too_large", body = ErrorBody),
        (status = 422, description = "invalid_seats: none, or unknown ones (named in seats)", body = ErrorBody),
        (status = 503, description = "unavailable: the show's storage is failing (Retry-After)", body = ErrorBody)))]
async fn block_seats(
    _: Admin,
    State(state): State<AppState>,
    Path(show_id): Path<String>,
    request: axum::extract::Request,
) -> Result<Response, AppError> {
    block_or_unblock(&state, &show_id, request, true).await
}

/// Puts blocked seats back on sale; the same body as blocking.
#[utoipa::path(delete, path = "/admin/shows/{showId}/blocked", tag = "admin", security(("admin" = [])),
    params(("showId" = String, Path, description = "The show's id")),
    request_body = BlockRequest,
    responses((status = 200, description = "every seat still blocked", body = BlockedSeats),
        (status = 400, description = "bad_request: not JSON of this shape, or a reason over 200 characters", body = ErrorBody),
        (status = 401, description = "unauthorized", body = ErrorBody),
        (status = 403, description = "admin_disabled", body = ErrorBody),
        (status = 404, description = "unknown_show", body = ErrorBody),
        (status = 413, description = "payload_too_large", body = ErrorBody),
        (status = 422, description = "invalid_seats: none, or unknown ones (named in seats)", body = ErrorBody),
        (status = 503, description = "unavailable: the show's storage is failing (Retry-After)", body = ErrorBody)))]
async fn unblock_seats(
    _: Admin,
    State(state): State<AppState>,
    Path(show_id): Path<String>,
    request: axum::extract::Request,
) -> Result<Response, AppError> {
    block_or_unblock(&state, &show_id, request, false).await
}

/// The show first (404), then the body (413, 400, 422), then the decision
/// at the show's writer.
async fn block_or_unblock(
    state: &AppState,
    show_id: &str,
    request: axum::extract::Request,
    block: bool,
) -> Result<Response, AppError> {
    use axum::extract::FromRequest;
    let show = state.engines.show(show_id).await?.ok_or(AppError::UnknownShow)?;
    let ApiJson(body) = ApiJson::<BlockRequest>::from_request(request, state).await?;
    let reason = body.reason.unwrap_or_default();
    if reason.chars().count() > MAX_BLOCK_REASON {
        return Err(AppError::BadRequest(format!("reason is longer than {MAX_BLOCK_REASON} characters")));
    }
    let invalid: Vec<String> = body.seats.iter().filter(|seat| SeatId::parse(seat).is_err()).cloned().collect();
    if !invalid.is_empty() {
        return Err(Rejection::InvalidSeats { seats: invalid }.into());
    }
    let seats = body.seats.iter().filter_map(|seat| SeatId::parse(seat).ok()).collect();
    let blocked = show.block(seats, block.then_some(reason)).await?;
    let answer = BlockedSeats { blocked: blocked.value, server_time: blocked.at.0 };
    let mut response = (StatusCode::OK, Json(answer)).into_response();
    response.extensions_mut().insert(DecidedAt(blocked.at));
    Ok(response)
}
