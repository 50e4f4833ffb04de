//! `GET /api/shows/{id}/seats`: the facts clients derive seat states from.

use axum::extract::{Path, State};
use axum::routing::get;
use axum::{Json, Router};

use seat_state::HolderId;
use seat_state::wire::SeatMap;

use crate::app::AppState;
use crate::error::AppError;
use crate::extract::Now;
use crate::session::MaybeSession;

pub fn router() -> Router<AppState> {
    Router::new().route("/shows/{show_id}/seats", get(seat_map))
}

async fn seat_map(
    MaybeSession(viewer): MaybeSession,
    State(state): State<AppState>,
    Now(now): Now,
    Path(show_id): Path<String>,
) -> Result<Json<SeatMap>, AppError> {
    let show = state.engines.show(&show_id).await?.ok_or(AppError::UnknownShow)?;
    Ok(Json(show.seat_map(viewer.map(|holder| HolderId::new(holder.as_ref())), now).await?))
}
