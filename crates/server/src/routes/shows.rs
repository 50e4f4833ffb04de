//! Shows: list, read, and create (admin).

use axum::Json;
use axum::extract::{FromRequest, FromRequestParts, Path, Request, State};
use axum::http::header::{AUTHORIZATION, CONTENT_TYPE};
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use seat_state::Show;
use seat_state::wire::{ErrorBody, ShowBody, ShowDocument, ShowInput, ShowList};

use crate::error::AppError;
use crate::extract::{ADMIN_BODY_LIMIT, ApiJson, ApiQuery, Now, read_body};
use crate::state::AppState;
use crate::venue_csv::{self, ShowFields};
use seathold_core::store::CreateShow;

pub fn router() -> OpenApiRouter<AppState> {
    let admin =
        OpenApiRouter::new().routes(routes!(create_show)).layer(axum::extract::DefaultBodyLimit::max(ADMIN_BODY_LIMIT));
    OpenApiRouter::new().routes(routes!(list_shows)).routes(routes!(get_show)).merge(admin)
}

/// Every show.
#[utoipa::path(get, path = "/shows", tag = "shows", responses((status = 200, body = ShowList)))]
async fn list_shows(State(state): State<AppState>, Now(now): Now) -> Result<Json<ShowList>, AppError> {
    Ok(Json(ShowList { shows: state.core.shows.list().await?, server_time: now.0 }))
}

/// One show's definition: seats with positions and rows, areas, hold
/// rules, price categories, the stage, channels (without their codes).
/// Immutable (API.md "On-sale (v3)"): no `serverTime`, labels left out
/// where they are the default, an `ETag`, `304` to `If-None-Match`.
#[utoipa::path(get, path = "/shows/{showId}", tag = "shows",
    params(("showId" = String, Path, description = "The show's id"),
           ("If-None-Match" = Option<String>, Header, description = "An ETag this show's definition had")),
    responses((status = 200, body = ShowDocument, description = "the definition (no serverTime)"),
              (status = 304, description = "not modified: the ETag named is current"),
              (status = 404, description = "unknown_show", body = ErrorBody)))]
async fn get_show(
    State(state): State<AppState>,
    Path(show_id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, AppError> {
    let definition = state.definitions.get(&state.core.shows, &show_id).await?.ok_or(AppError::UnknownShow)?;
    Ok(definition.respond(&headers, "application/json", crate::definitions::CACHE_CONTROL))
}

/// Proof that the request carries the admin token.
pub struct Admin;

impl FromRequestParts<AppState> for Admin {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, AppError> {
        let expected = state.admin_token.as_deref().ok_or(AppError::AdminDisabled)?;
        let given = parts
            .headers
            .get(AUTHORIZATION)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.strip_prefix("Bearer "))
            .ok_or(AppError::Unauthorized)?;
        if constant_time_eq::constant_time_eq(given.as_bytes(), expected.as_bytes()) {
            Ok(Admin)
        } else {
            Err(AppError::Unauthorized)
        }
    }
}

/// A show definition as JSON, or a CSV venue with the show's other fields
/// in the query (API.md "CSV import").
pub struct ShowUpload(ShowInput);

impl FromRequest<AppState> for ShowUpload {
    type Rejection = AppError;

    async fn from_request(request: Request, state: &AppState) -> Result<Self, AppError> {
        let csv = request
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .is_some_and(|value| value.trim_start().to_ascii_lowercase().starts_with("text/csv"));
        if !csv {
            // The query carries a CSV venue's fields; beside JSON it would be ignored.
            if request.uri().query().is_some_and(|query| !query.is_empty()) {
                return Err(AppError::BadRequest(
                    "show fields go in the JSON body; the query is for CSV venues".into(),
                ));
            }
            let ApiJson(input) = ApiJson::<ShowInput>::from_request(request, state).await?;
            return Ok(Self(input));
        }
        let (mut parts, body) = request.into_parts();
        let ApiQuery(fields) = ApiQuery::<ShowFields>::from_request_parts(&mut parts, state).await?;
        let bytes = read_body(Request::from_parts(parts, body), state).await?;
        let seats = venue_csv::seats(&bytes).map_err(|invalid| AppError::InvalidShow(invalid.0))?;
        Ok(Self(fields.with_seats(seats)))
    }
}

/// Creates a show, from JSON or from a CSV venue (`Content-Type: text/csv`,
/// header `section,row,number,x,y,category`, optional `id` and `label`,
/// the other fields in the query); the same definition again changes nothing.
#[utoipa::path(post, path = "/admin/shows", tag = "admin", security(("admin" = [])),
    request_body(content(
        (ShowInput = "application/json"),
        (String = "text/csv", example = "section,row,number,x,y,category\nStalls,A,1,10,0,a\n"))),
    params(ShowFields),
    responses(
        (status = 201, description = "created", body = ShowBody),
        (status = 200, description = "the same show already existed", body = ShowBody),
        (status = 400, description = "bad_request (also: a JSON body with show fields in the query)", body = ErrorBody),
        (status = 401, description = "unauthorized", body = ErrorBody),
        (status = 403, description = "admin_disabled", body = ErrorBody),
        (status = 409, description = "show_exists", body = ErrorBody),
        (status = 413, description = "payload_too_large", body = ErrorBody),
        (status = 408, description = "request_timeout: the body did not arrive in time", body = ErrorBody),
        (status = 422, description = "invalid_show (for a CSV venue, naming the line and the column)", body = ErrorBody)))]
async fn create_show(
    _: Admin,
    State(state): State<AppState>,
    Now(now): Now,
    ShowUpload(input): ShowUpload,
) -> Result<(StatusCode, Json<ShowBody>), AppError> {
    let show = Show::parse(&input).map_err(|invalid| AppError::InvalidShow(invalid.0))?;
    let status = match state.core.shows.create(&show, now).await? {
        CreateShow::Created => StatusCode::CREATED,
        CreateShow::AlreadyThere => StatusCode::OK,
        CreateShow::Conflict => return Err(AppError::ShowExists),
    };
    Ok((status, Json(ShowBody { show: show.to_wire(), server_time: now.0 })))
}
