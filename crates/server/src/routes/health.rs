//! Operations: `GET /healthz` (200 when the store answers) and `GET /metrics`.

use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::get;

use crate::app::AppState;
use crate::error::AppError;

pub fn router() -> Router<AppState> {
    Router::new().route("/healthz", get(healthz)).route("/metrics", get(crate::metrics::metrics))
}

async fn healthz(State(state): State<AppState>) -> Result<StatusCode, AppError> {
    state.store.ping().await?;
    Ok(StatusCode::OK)
}
