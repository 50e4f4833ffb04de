//! `GET /api/shows/{id}/seats`: the facts clients derive seat states from.

use axum::extract::{Path, State};
use axum::routing::get;
use axum::{Json, Router};

use seat_state::wire::SeatMap;

use crate::app::AppState;
use crate::error::AppError;
use crate::extract::Now;

pub fn router() -> Router<AppState> {
    Router::new().route("/shows/{show_id}/seats", get(seat_map))
}

async fn seat_map(
    State(state): State<AppState>,
    Now(now): Now,
    Path(show_id): Path<String>,
) -> Result<Json<SeatMap>, AppError> {
    let facts = state.store.seat_map(&show_id).await?.ok_or(AppError::UnknownShow)?;
    Ok(Json(SeatMap { show_id, server_time: now.0, version: facts.version, seats: facts.seats, areas: facts.areas }))
}
