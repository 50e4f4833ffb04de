//! Holds: create, read, list, extend, confirm, release.

use axum::extract::{FromRequest, Path, Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use std::sync::Arc;

use seat_state::wire::{HoldBody, HoldList, HoldRequestBody};
use seat_state::{HoldId, HolderId, Rejection};

use crate::app::AppState;
use crate::engine::{Action, ShowHandle};
use crate::error::AppError;
use crate::extract::{ApiJson, Now};
use crate::session::Session;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/shows/{show_id}/holds", post(create_hold))
        .route("/holds", get(list_holds))
        .route("/holds/{hold_id}", get(get_hold).delete(release_hold))
        .route("/holds/{hold_id}/extend", post(extend_hold))
        .route("/holds/{hold_id}/confirm", post(confirm_hold))
}

fn holder(session: &Session) -> HolderId {
    HolderId::new(session.0.as_ref())
}

/// Checks run in API.md's order: session, show, body, then the rules.
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

async fn extend_hold(
    session: Session,
    State(state): State<AppState>,
    Now(now): Now,
    Path(hold_id): Path<String>,
) -> Result<Json<HoldBody>, AppError> {
    act(&state, &session, &hold_id, Action::Extend, now).await.map(Json)
}

async fn confirm_hold(
    session: Session,
    State(state): State<AppState>,
    Now(now): Now,
    Path(hold_id): Path<String>,
) -> Result<Json<HoldBody>, AppError> {
    act(&state, &session, &hold_id, Action::Confirm, now).await.map(Json)
}

async fn release_hold(
    session: Session,
    State(state): State<AppState>,
    Now(now): Now,
    Path(hold_id): Path<String>,
) -> Result<StatusCode, AppError> {
    act(&state, &session, &hold_id, Action::Release, now).await.map(|_| StatusCode::NO_CONTENT)
}
