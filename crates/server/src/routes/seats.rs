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

/// `?only=taken`: list only the seats that are taken (API.md "On-sale
/// (v3)"); `?format=compact`: the compact form (API.md "Live changes (v4)").
#[derive(Debug, Default, serde::Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct Only {
    /// `taken`: only seats sold, blocked or held; a seat left out is free.
    /// Any other value → 400.
    only: Option<Taken>,
    /// `compact`: a `CompactMap` (only taken seats, by their position in
    /// the definition); `bits`: a `BitsMap` (a bit set per state in the
    /// definition's seat order); `json` (the default): a `SeatMap`. Any
    /// other value → 400.
    format: Option<MapFormat>,
}

/// The wire forms of a seat map: those of live changes, and bit sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum MapFormat {
    #[default]
    Json,
    Compact,
    Bits,
}

/// The one value `only` takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Taken {
    Taken,
}

/// The wire form of seat maps and live changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    #[default]
    Json,
    Compact,
}

/// The seats to list for `?only=` (a bad value was refused as it was read).
pub fn scope(only: Option<Taken>) -> SeatScope {
    match only {
        None => SeatScope::Every,
        Some(Taken::Taken) => SeatScope::Taken,
    }
}

/// Facts of every seat and area (session optional: it sets `mine`); with
/// `?only=taken`, of the taken seats only; with `?format=compact`, in the
/// compact form; with `?format=bits`, as bit sets.
#[utoipa::path(get, path = "/shows/{showId}/seats", tag = "shows",
    params(("showId" = String, Path, description = "The show's id"), Only), security((), ("session" = []), ("cookie" = [])),
    responses((status = 200, body = SeatMap, description = "A `SeatMap`, a `CompactMap` with `?format=compact`, a `BitsMap` with `?format=bits`"),
              (status = 400, description = "bad_request: `only` is not `taken` or `format` not `json`, `compact` or `bits`", body = ErrorBody),
              (status = 404, description = "unknown_show", body = ErrorBody)))]
async fn seat_map(
    MaybeSession(viewer): MaybeSession,
    State(state): State<AppState>,
    Now(now): Now,
    Path(show_id): Path<String>,
    ApiQuery(query): ApiQuery<Only>,
) -> Result<Response, AppError> {
    let show = state.engines.show(&show_id).await?.ok_or(AppError::UnknownShow)?;
    let viewer = viewer.map(|holder| HolderId::new(holder.as_ref()));
    // Never earlier than the show's latest decision: a client reads its own writes.
    let (mut response, at) = match query.format.unwrap_or_default() {
        MapFormat::Json => {
            let map = show.seat_map(scope(query.only), viewer, now).await?;
            (Json(map.value).into_response(), map.at)
        }
        MapFormat::Compact => {
            let map = show.compact_map(viewer, now).await?;
            (Json(map.value).into_response(), map.at)
        }
        MapFormat::Bits => {
            let map = show.bits_map(viewer, now).await?;
            (Json(map.value).into_response(), map.at)
        }
    };
    response.extensions_mut().insert(DecidedAt(at));
    Ok(response)
}
