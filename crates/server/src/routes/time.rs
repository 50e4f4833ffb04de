//! `GET /api/time`: the server clock, for the browser's offset estimate.

use axum::Json;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use seat_state::wire::TimeBody;

use crate::extract::Now;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(server_time))
}

/// The server's clock, for estimating the offset to the browser's.
#[utoipa::path(get, path = "/time", tag = "time", responses((status = 200, body = TimeBody)))]
async fn server_time(Now(now): Now) -> Json<TimeBody> {
    Json(TimeBody { server_time: now.0 })
}
