//! Every HTTP call the browser makes. Nothing else knows a URL.

use serde::de::DeserializeOwned;

use seat_state::wire::{ErrorBody, SeatMap, ShowBody, ShowList, TimeBody};
use seat_state::{ClockSample, LocalMillis, ServerMillis};

/// Why a call failed, in words a customer can read.
#[derive(Debug, Clone, PartialEq)]
pub enum ApiError {
    /// The server answered with an error body.
    Server(ErrorBody),
    /// The server could not be reached or answered nonsense.
    Transport(String),
}

impl ApiError {
    /// One sentence for the page.
    pub fn message(&self) -> String {
        match self {
            Self::Server(body) => body.message.clone(),
            Self::Transport(_) => {
                "The server cannot be reached. Check your connection and reload.".to_owned()
            }
        }
    }
}

/// The browser's own clock, which the rules never trust on its own.
pub fn local_now() -> LocalMillis {
    LocalMillis(js_sys::Date::now() as i64)
}

fn url(path: &str) -> String {
    let origin = web_sys::window()
        .and_then(|window| window.location().origin().ok())
        .unwrap_or_default();
    format!("{origin}{path}")
}

async fn get<T: DeserializeOwned>(path: &str) -> Result<T, ApiError> {
    let response = reqwest::get(url(path))
        .await
        .map_err(|error| ApiError::Transport(error.to_string()))?;
    if response.status().is_success() {
        response
            .json()
            .await
            .map_err(|error| ApiError::Transport(error.to_string()))
    } else {
        let body = response
            .json()
            .await
            .map_err(|error| ApiError::Transport(error.to_string()))?;
        Err(ApiError::Server(body))
    }
}

/// Every show.
pub async fn shows() -> Result<ShowList, ApiError> {
    get("/api/shows").await
}

/// One show's definition: seats, positions, rules.
pub async fn show(show_id: &str) -> Result<ShowBody, ApiError> {
    get(&format!("/api/shows/{show_id}")).await
}

/// The facts every seat's state is derived from.
pub async fn seat_map(show_id: &str) -> Result<SeatMap, ApiError> {
    get(&format!("/api/shows/{show_id}/seats")).await
}

/// One round trip to the server clock.
pub async fn sample_clock() -> Result<ClockSample, ApiError> {
    let sent = local_now();
    let body: TimeBody = get("/api/time").await?;
    Ok(ClockSample {
        sent,
        server: ServerMillis(body.server_time),
        received: local_now(),
    })
}
