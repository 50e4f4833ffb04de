//! One error type for every HTTP answer that is not a success.
//!
//! Handlers return `AppError`; its response carries a `PendingError` that the
//! server-time middleware renders as API.md's error body, stamped with the
//! same `serverTime` as the `X-Server-Time` header: the request's instant,
//! or the instant a show's writer decided at (`DecidedAt`).

use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use seat_state::ServerMillis;

use seathold_core::engine::EngineError;

/// Seconds before an address over its queue places asks again: places
/// free up only as the queue moves.
const QUEUE_PLACES_RETRY_AFTER_SECONDS: u64 = 60;
/// Seconds a client should wait before retrying a `503 unavailable`.
const RETRY_AFTER_SECONDS: u32 = 1;
/// Streams free up as viewers leave; meanwhile the page polls.
const STREAMS_RETRY_AFTER_SECONDS: u32 = 10;

/// The instant a show's writer decided an answer at. Put on a response, it
/// replaces the request's instant in `X-Server-Time` and `serverTime`.
#[derive(Debug, Clone, Copy)]
pub struct DecidedAt(pub ServerMillis);

/// Everything a request can fail with, one variant per API error code.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    #[error("A valid token is required.")]
    Unauthorized,
    #[error("Admin endpoints are disabled: the server has no SEATHOLD_ADMIN_TOKEN.")]
    AdminDisabled,
    #[error("There is no show with that id.")]
    UnknownShow,
    #[error("There is nothing at this address.")]
    NotFound,
    #[error("This address does not accept that method.")]
    MethodNotAllowed,
    #[error("The request body is larger than this endpoint accepts.")]
    PayloadTooLarge,
    #[error("The request body did not arrive in time.")]
    RequestTimeout,
    #[error("The request body is not valid: {0}.")]
    BadRequest(String),
    #[error("The show definition is invalid: {0}.")]
    InvalidShow(String),
    #[error("A different show with this id already exists.")]
    ShowExists,
    #[error("The webhook is invalid: {0}.")]
    InvalidWebhook(String),
    #[error("There is no webhook with that id.")]
    NoWebhook,
    #[error("{}", .0.message())]
    Rejected(seat_state::Rejection),
    /// The rules refused at a show writer's instant.
    #[error("{}", .rejection.message())]
    RejectedAt { rejection: seat_state::Rejection, at: ServerMillis },
    #[error("The show cannot take requests right now; try again shortly.")]
    Unavailable,
    #[error("Too many requests from this session or address; try again after Retry-After seconds.")]
    RateLimited { retry_after_seconds: u64 },
    #[error("Too many live streams are open; poll the seat map, and try a stream again later.")]
    TooManyStreams,
    #[error("This show has no waiting room.")]
    NoQueue,
    #[error("This session has not joined the show's queue.")]
    NotQueued,
    #[error("{}", .0.message())]
    Queue(seat_state::queue::QueueRefusal),
    #[error("The server failed; the failure was logged.")]
    Internal(#[from] anyhow::Error),
}

impl From<EngineError> for AppError {
    fn from(error: EngineError) -> Self {
        match error {
            EngineError::Rejected { rejection, at } => Self::RejectedAt { rejection, at },
            EngineError::Unavailable => Self::Unavailable,
            EngineError::Storage(cause) => {
                tracing::error!(error = ?cause, "storage failed");
                Self::Unavailable
            }
            EngineError::Internal(cause) => Self::Internal(cause),
        }
    }
}

impl From<seat_state::Rejection> for AppError {
    fn from(rejection: seat_state::Rejection) -> Self {
        Self::Rejected(rejection)
    }
}

impl AppError {
    /// The HTTP status and the API error code.
    pub fn status_and_code(&self) -> (StatusCode, &'static str) {
        match self {
            Self::Unauthorized => (StatusCode::UNAUTHORIZED, "unauthorized"),
            Self::AdminDisabled => (StatusCode::FORBIDDEN, "admin_disabled"),
            Self::UnknownShow => (StatusCode::NOT_FOUND, "unknown_show"),
            Self::NotFound => (StatusCode::NOT_FOUND, "not_found"),
            Self::MethodNotAllowed => (StatusCode::METHOD_NOT_ALLOWED, "method_not_allowed"),
            Self::PayloadTooLarge => (StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large"),
            Self::RequestTimeout => (StatusCode::REQUEST_TIMEOUT, "request_timeout"),
            Self::BadRequest(_) => (StatusCode::BAD_REQUEST, "bad_request"),
            Self::InvalidShow(_) => (StatusCode::UNPROCESSABLE_ENTITY, "invalid_show"),
            Self::ShowExists => (StatusCode::CONFLICT, "show_exists"),
            Self::InvalidWebhook(_) => (StatusCode::UNPROCESSABLE_ENTITY, "invalid_webhook"),
            Self::NoWebhook => (StatusCode::NOT_FOUND, "no_webhook"),
            Self::Unavailable | Self::TooManyStreams => (StatusCode::SERVICE_UNAVAILABLE, "unavailable"),
            Self::RateLimited { .. } => (StatusCode::TOO_MANY_REQUESTS, "rate_limited"),
            Self::Rejected(rejection) | Self::RejectedAt { rejection, .. } => {
                (StatusCode::from_u16(rejection.status()).unwrap_or(StatusCode::CONFLICT), rejection.code())
            }
            Self::NoQueue => (StatusCode::NOT_FOUND, "no_queue"),
            Self::NotQueued => (StatusCode::NOT_FOUND, "not_queued"),
            Self::Queue(refusal) => {
                (StatusCode::from_u16(refusal.status()).unwrap_or(StatusCode::CONFLICT), refusal.code())
            }
            Self::Internal(_) => (StatusCode::INTERNAL_SERVER_ERROR, "internal"),
        }
    }
}

/// An error waiting for the middleware to stamp it with the request's time.
#[derive(Debug, Clone)]
pub struct PendingError {
    pub code: &'static str,
    pub message: String,
    pub seats: Option<Vec<String>>,
    pub area: Option<String>,
    pub available: Option<i64>,
    pub queue: Option<seat_state::wire::NotAdmitted>,
}

impl IntoResponse for AppError {
    fn into_response(self) -> Response {
        if let Self::Internal(cause) = &self {
            tracing::error!(error = ?cause, "request failed");
        }
        let (status, code) = self.status_and_code();
        let mut response = status.into_response();
        let mut pending =
            PendingError { code, message: self.to_string(), seats: None, area: None, available: None, queue: None };
        match &self {
            Self::Rejected(rejection) | Self::RejectedAt { rejection, .. } => {
                // The rejection's own extra fields (seats, area, available).
                let body = rejection.to_wire(ServerMillis(0));
                (pending.seats, pending.area, pending.available) = (body.seats, body.area, body.available);
                pending.queue = body.queue;
            }
            Self::Unavailable => {
                response.headers_mut().insert("retry-after", HeaderValue::from(RETRY_AFTER_SECONDS));
            }
            Self::TooManyStreams => {
                response.headers_mut().insert("retry-after", HeaderValue::from(STREAMS_RETRY_AFTER_SECONDS));
            }
            Self::RateLimited { retry_after_seconds } => {
                response.headers_mut().insert("retry-after", HeaderValue::from(*retry_after_seconds));
            }
            Self::Queue(seat_state::queue::QueueRefusal::TooManyPlaces { .. }) => {
                response.headers_mut().insert("retry-after", HeaderValue::from(QUEUE_PLACES_RETRY_AFTER_SECONDS));
            }
            _ => {}
        }
        if let Self::RejectedAt { at, .. } = self {
            response.extensions_mut().insert(DecidedAt(at));
        }
        response.extensions_mut().insert(pending);
        response
    }
}
