//! `GET /api/shows/{id}/seats`: the facts clients derive seat states from.

use axum::Json;
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use seat_state::wire::{ErrorBody, SeatMap};
use seat_state::{HolderId, SeatScope};

use crate::error::{AppError, DecidedAt};
use crate::extract::{ApiQuery, Now};
use crate::session::MaybeSession;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(seat_map))
}

/// `?only=taken`: list only the seats that are taken (API.md "On-sale (v3)").
#[derive(Debug, Default, serde::Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct Only {
    /// `taken`: only seats sold, blocked or held; a seat left out is free.
    /// Any other value → 400.
    only: Option<Taken>,
}

/// The one value `only` takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Taken {
    Taken,
}

/// The seats to list for `?only=` (a bad value was refused as it was read).
pub fn scope(only: Option<Taken>) -> SeatScope {
    match only {
        None => SeatScope::Every,
        Some(Taken::Taken) => SeatScope::Taken,
    }
}

/// Facts of every seat and area (session optional: it sets `mine`); with
/// `?only=taken`, of the taken seats only.
#[utoipa::path(get, path = "/shows/{showId}/seats", tag = "shows",
    params(("showId" = String, Path, description = "The show's id"), Only), security((), ("session" = []), ("cookie" = [])),
    responses((status = 200, body = SeatMap),
              (status = 400, description = "bad_request: `only` is not `taken`", body = ErrorBody),
              (status = 404, description = "unknown_show", body = ErrorBody)))]
async fn seat_map(
    MaybeSession(viewer): MaybeSession,
    State(state): State<AppState>,
    Now(now): Now,
    Path(show_id): Path<String>,
    ApiQuery(only): ApiQuery<Only>,
) -> Result<Response, AppError> {
    let show = state.engines.show(&show_id).await?.ok_or(AppError::UnknownShow)?;
    let scope = scope(only.only);
    let map = show.seat_map(scope, viewer.map(|holder| HolderId::new(holder.as_ref())), now).await?;
    // Never earlier than the show's latest decision: a client reads its own writes.
    let mut response = Json(map.value).into_response();
    response.extensions_mut().insert(DecidedAt(map.at));
    Ok(response)
}
