//! `GET /api/shows/{id}/seats`: the facts clients derive seat states from.

use axum::Json;
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use seat_state::HolderId;
use seat_state::wire::{ErrorBody, SeatMap};

use crate::error::{AppError, DecidedAt};
use crate::extract::Now;
use crate::session::MaybeSession;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(seat_map))
}

/// Facts of every seat and area (session optional: it sets `mine`).
#[utoipa::path(get, path = "/shows/{showId}/seats", tag = "shows",
    params(("showId" = String, Path, description = "The show's id")), security((), ("session" = []), ("cookie" = [])),
    responses((status = 200, body = SeatMap), (status = 404, description = "unknown_show", body = ErrorBody)))]
async fn seat_map(
    MaybeSession(viewer): MaybeSession,
    State(state): State<AppState>,
    Now(now): Now,
    Path(show_id): Path<String>,
) -> Result<Response, AppError> {
    let show = state.engines.show(&show_id).await?.ok_or(AppError::UnknownShow)?;
    let map = show.seat_map(viewer.map(|holder| HolderId::new(holder.as_ref())), now).await?;
    // Never earlier than the show's latest decision: a client reads its own writes.
    let mut response = Json(map.value).into_response();
    response.extensions_mut().insert(DecidedAt(map.at));
    Ok(response)
}
