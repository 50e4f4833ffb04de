//! HTTP routes, one file per resource, merged here.

pub mod events;
pub mod health;
pub mod holds;
pub mod seats;
pub mod sessions;
pub mod shows;
pub mod time;

use axum::Router;

use crate::app::AppState;

/// Everything under `/api`.
pub fn router() -> Router<AppState> {
    Router::new()
        .merge(time::router())
        .merge(shows::router())
        .merge(seats::router())
        .merge(sessions::router())
        .merge(holds::router())
        .merge(events::router())
}
