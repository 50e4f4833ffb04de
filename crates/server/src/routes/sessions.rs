//! `POST /api/sessions`: a new customer session.

use axum::extract::State;
use axum::http::StatusCode;
use axum::http::header::SET_COOKIE;
use axum::response::{AppendHeaders, IntoResponse};
use axum::routing::post;
use axum::{Json, Router};
use std::sync::Arc;

use seat_state::wire::SessionBody;

use crate::app::AppState;
use crate::error::AppError;
use crate::extract::Now;
use crate::session::{COOKIE_NAME, new_credentials, token_hash};

pub fn router() -> Router<AppState> {
    Router::new().route("/sessions", post(create_session))
}

async fn create_session(State(state): State<AppState>, Now(now): Now) -> Result<impl IntoResponse, AppError> {
    let (token, holder_id) = new_credentials()?;
    let hash = token_hash(&token);
    state.store.create_session(&hash, &holder_id, now).await?;
    state.sessions.remember(hash, Arc::from(holder_id.as_str()));
    let cookie = format!("{COOKIE_NAME}={token}; HttpOnly; SameSite=Strict; Path=/");
    let body = SessionBody { token, holder_id, server_time: now.0 };
    Ok((StatusCode::CREATED, AppendHeaders([(SET_COOKIE, cookie)]), Json(body)))
}
