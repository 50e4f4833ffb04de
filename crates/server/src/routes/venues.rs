//! The venue designer's server side (issue 38), admin token: validate a
//! definition before publishing it, import a pretix seating plan, export
//! a show's venue. Nothing here stores anything: drafts come later.

use axum::Json;
use axum::extract::{Path, State};
use serde::{Deserialize, Serialize};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use seat_state::design::{self, Report};
use seat_state::wire::pretix::{self, PretixPlan};
use seat_state::wire::{ErrorBody, ShowInput};

use super::shows::Admin;
use crate::error::AppError;
use crate::extract::{ADMIN_BODY_LIMIT, ApiJson, ApiQuery, Now};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(validate_venue))
        .routes(routes!(import_venue))
        .routes(routes!(export_venue))
        .layer(axum::extract::DefaultBodyLimit::max(ADMIN_BODY_LIMIT))
}

/// `?minDistance=`: the closest two seat centres may be (map units).
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
struct ValidateQuery {
    /// Default 5 (the demo venues' seats are 10 to 12 apart).
    min_distance: Option<f64>,
}

/// The report, with the server's time.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
struct ReportBody {
    #[serde(flatten)]
    report: Report,
    server_time: i64,
}

/// Checks a definition for publishing without creating anything: every
/// problem found (errors block publishing, warnings do not) and the seats
/// per category. A definition that `POST /api/admin/shows` would refuse
/// gets an `invalid_show` error in the report, still `200`.
#[utoipa::path(post, path = "/admin/venues/validate", tag = "admin", security(("admin" = [])),
    // Any object: a definition `POST /api/admin/shows` would refuse (no id,
    // say) is reported on, not refused, so ShowInput's schema is too strict.
    request_body(content = serde_json::Value, description = "a definition, as `POST /api/admin/shows` takes (ShowInput)"),
    params(ValidateQuery),
    responses((status = 200, body = ReportBody),
        (status = 400, description = "bad_request: not JSON, the wrong shape, or a bad query", body = ErrorBody),
        (status = 401, description = "unauthorized", body = ErrorBody),
        (status = 403, description = "admin_disabled", body = ErrorBody),
        (status = 413, description = "payload_too_large", body = ErrorBody),
        (status = 422, description = "invalid_show: minDistance is not a number of at least 0", body = ErrorBody)))]
async fn validate_venue(
    _: Admin,
    Now(now): Now,
    ApiQuery(query): ApiQuery<ValidateQuery>,
    ApiJson(input): ApiJson<ShowInput>,
) -> Result<Json<ReportBody>, AppError> {
    if query.min_distance.is_some_and(|d| !(d.is_finite() && d >= 0.0)) {
        return Err(AppError::InvalidShow("minDistance must be a number of at least 0".into()));
    }
    // A stadium's 200,000 seats take a few hundred milliseconds: off the async workers.
    let report = tokio::task::spawn_blocking(move || design::validate(&input, query.min_distance))
        .await
        .map_err(|error| AppError::Internal(error.into()))?;
    Ok(Json(ReportBody { report, server_time: now.0 }))
}

/// `?from=pretix&currency=EUR`.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
struct ImportQuery {
    /// The format of the body: `pretix` (its seating-plan JSON).
    from: String,
    /// ISO 4217 code for the imported categories (prices are 0: pretix
    /// keeps them on products); `EUR` when absent.
    currency: Option<String>,
}

/// An imported venue, and what validation says of it.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
struct ImportBody {
    /// A definition without `id` (and hold rules): add them, then create.
    /// (Not `ShowInput` in this document, which requires an id.)
    #[schema(value_type = Object)]
    definition: ShowInput,
    /// The venue's validation, as if the definition had an id.
    report: Report,
    server_time: i64,
}

/// Reads a venue in another format as a Seathold definition (nothing is
/// created). pretix: its seating-plan JSON; what cannot carry over is
/// listed in docs/operating.md ("Designing a venue").
#[utoipa::path(post, path = "/admin/venues/import", tag = "admin", security(("admin" = [])),
    request_body(content = PretixPlan, description = "a pretix seating plan (`layout`)"), params(ImportQuery),
    responses((status = 200, body = ImportBody),
        (status = 400, description = "bad_request: not JSON, or `from` is not `pretix`", body = ErrorBody),
        (status = 401, description = "unauthorized", body = ErrorBody),
        (status = 403, description = "admin_disabled", body = ErrorBody),
        (status = 413, description = "payload_too_large", body = ErrorBody),
        (status = 422, description = "invalid_show: not a pretix seating plan, or a seat or category it cannot \
            take, named by its place in the plan (`zones[0].rows[2].seats[5]: …`)", body = ErrorBody)))]
async fn import_venue(
    _: Admin,
    Now(now): Now,
    ApiQuery(query): ApiQuery<ImportQuery>,
    ApiJson(body): ApiJson<serde_json::Value>,
) -> Result<Json<ImportBody>, AppError> {
    if query.from != "pretix" {
        return Err(AppError::BadRequest(format!("from must be \"pretix\", not {:?}", query.from)));
    }
    let currency = query.currency.unwrap_or_else(|| "EUR".into());
    if !(currency.len() == 3 && currency.bytes().all(|b| b.is_ascii_uppercase())) {
        return Err(AppError::InvalidShow(format!("currency must be 3 capital letters (ISO 4217), not {currency:?}")));
    }
    let plan: PretixPlan = serde_json::from_value(body)
        .map_err(|error| AppError::InvalidShow(format!("not a pretix seating plan: {error}")))?;
    let definition = pretix::to_show(&plan, &currency).map_err(|invalid| AppError::InvalidShow(invalid.0))?;
    let named = ShowInput { id: Some("imported".into()), ..definition.clone() };
    let report = tokio::task::spawn_blocking(move || design::validate(&named, None))
        .await
        .map_err(|error| AppError::Internal(error.into()))?;
    Ok(Json(ImportBody { definition, report, server_time: now.0 }))
}

/// `?format=pretix`.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
struct ExportQuery {
    /// `json` (the definition, channel codes included; the default) or
    /// `pretix` (its seating-plan JSON, importable into pretix as is, so
    /// without `serverTime`: the header has it).
    format: Option<String>,
}

/// A show's venue in another format.
#[utoipa::path(get, path = "/admin/shows/{showId}/venue", tag = "admin", security(("admin" = [])),
    params(("showId" = String, Path, description = "The show's id"), ExportQuery),
    responses((status = 200, description = "the venue: a ShowDocument, or a PretixPlan for format=pretix",
            body = serde_json::Value),
        (status = 400, description = "bad_request: another format", body = ErrorBody),
        (status = 401, description = "unauthorized", body = ErrorBody),
        (status = 403, description = "admin_disabled", body = ErrorBody),
        (status = 404, description = "unknown_show", body = ErrorBody)))]
async fn export_venue(
    _: Admin,
    State(state): State<AppState>,
    Path(show_id): Path<String>,
    ApiQuery(query): ApiQuery<ExportQuery>,
) -> Result<Json<serde_json::Value>, AppError> {
    let show = state.core.shows.definition(&show_id).await?.ok_or(AppError::UnknownShow)?;
    let document = show.to_wire();
    let value = match query.format.as_deref() {
        None | Some("json") => serde_json::to_value(document),
        Some("pretix") => {
            let rows =
                seat_state::parametric::expand(&document.rows).map_err(|invalid| AppError::Internal(invalid.into()))?;
            let seats: Vec<_> = document.seats.iter().cloned().chain(rows).collect();
            serde_json::to_value(pretix::from_seats(&document.name, &seats, &document.categories))
        }
        Some(other) => {
            return Err(AppError::BadRequest(format!("format must be \"json\" or \"pretix\", not {other:?}")));
        }
    };
    Ok(Json(value.map_err(|error| AppError::Internal(error.into()))?))
}
