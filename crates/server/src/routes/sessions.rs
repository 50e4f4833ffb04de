//! `POST /api/sessions`: a new customer session.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::http::header::SET_COOKIE;
use axum::response::{AppendHeaders, IntoResponse};
use std::sync::Arc;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use seat_state::wire::{ErrorBody, SessionBody};

use crate::error::AppError;
use crate::extract::Now;
use crate::limits::NewSessions;
use crate::session::COOKIE_NAME;
use crate::state::AppState;
use seathold_core::services::NewSession;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(create_session))
}

/// A new customer session: a bearer token, also set as an HttpOnly cookie
/// (also `Secure` when the server is told it is behind TLS).
#[utoipa::path(post, path = "/sessions", tag = "sessions", responses((status = 201, body = SessionBody,
    headers(("set-cookie" = String, description = "seathold_session=TOKEN; HttpOnly; SameSite=Strict; Path=/"))),
    (status = 429, description = "rate_limited (Retry-After)", body = ErrorBody)))]
async fn create_session(
    _: NewSessions,
    State(state): State<AppState>,
    Now(now): Now,
) -> Result<impl IntoResponse, AppError> {
    let NewSession { token, token_hash, holder_id } = state.core.sessions.open(now).await?;
    state.sessions.remember(token_hash, Arc::from(holder_id.as_str()), now);
    let secure = if state.secure_cookie { "; Secure" } else { "" };
    let cookie = format!("{COOKIE_NAME}={token}; HttpOnly; SameSite=Strict; Path=/{secure}");
    let body = SessionBody { token, holder_id, server_time: now.0 };
    Ok((StatusCode::CREATED, AppendHeaders([(SET_COOKIE, cookie)]), Json(body)))
}
