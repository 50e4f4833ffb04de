//! `GET /api/time`: the server clock, for the browser's offset estimate.

use axum::routing::get;
use axum::{Json, Router};

use seat_state::wire::TimeBody;

use crate::app::AppState;
use crate::extract::Now;

pub fn router() -> Router<AppState> {
    Router::new().route("/time", get(server_time))
}

async fn server_time(Now(now): Now) -> Json<TimeBody> {
    Json(TimeBody { server_time: now.0 })
}
