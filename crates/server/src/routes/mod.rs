//! HTTP routes, one file per resource, merged here.

pub mod admin;
pub mod events;
pub mod health;
pub mod holds;
pub mod queue;
pub mod seats;
pub mod sessions;
pub mod shows;
pub mod time;
pub mod venues;
pub mod webhooks;

use utoipa_axum::router::OpenApiRouter;

use crate::state::AppState;

/// Everything under `/api`, each route with its OpenAPI description.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .merge(time::router())
        .merge(shows::router())
        .merge(seats::router())
        .merge(sessions::router())
        .merge(holds::router())
        .merge(events::router())
        .merge(admin::router())
        .merge(queue::router())
        .merge(webhooks::router())
        .merge(venues::router())
}
