//! Operations: `GET /healthz` (200 when the store answers) and `GET /metrics`.

use axum::extract::State;
use axum::http::StatusCode;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::error::AppError;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(healthz)).routes(routes!(crate::metrics::metrics))
}

/// 200 when the store answers.
#[utoipa::path(get, path = "/healthz", tag = "operations",
    responses((status = 200, description = "healthy"), (status = 500, description = "the store does not answer")))]
async fn healthz(State(state): State<AppState>) -> Result<StatusCode, AppError> {
    state.core.shows.ping().await?;
    Ok(StatusCode::OK)
}
