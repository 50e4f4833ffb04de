//! Extractors that turn bad input into `AppError`s in API.md's format.

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::StatusCode;
use axum::http::request::Parts;
use serde::de::DeserializeOwned;

use seat_state::ServerMillis;

use crate::error::AppError;

/// Request bodies above this are refused, except on admin endpoints.
pub const BODY_LIMIT: usize = 64 * 1024;
/// Admin endpoints take whole venues.
pub const ADMIN_BODY_LIMIT: usize = 16 * 1024 * 1024;

/// The instant a request arrived at (set by the middleware): it answers
/// what decides nothing; show writers decide at their own instant.
#[derive(Debug, Clone, Copy)]
pub struct Now(pub ServerMillis);

impl<S: Send + Sync> FromRequestParts<S> for Now {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, AppError> {
        parts
            .extensions
            .get::<Now>()
            .copied()
            .ok_or_else(|| AppError::Internal(anyhow::anyhow!("server-time middleware is not installed")))
    }
}

/// Longest a request body may take to arrive, whole: a client that sends
/// it slowly (or never) gets 408 instead of holding the request open.
pub const BODY_DEADLINE: std::time::Duration = std::time::Duration::from_secs(15);

/// A JSON body: too large → 413, too slow → 408, not JSON or the wrong shape → 400.
#[derive(Debug)]
pub struct ApiJson<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for ApiJson<T> {
    type Rejection = AppError;

    async fn from_request(request: Request, state: &S) -> Result<Self, AppError> {
        let read = tokio::time::timeout(BODY_DEADLINE, Bytes::from_request(request, state));
        let bytes = read.await.map_err(|_| AppError::RequestTimeout)?.map_err(|rejection| {
            if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
                AppError::PayloadTooLarge
            } else {
                AppError::BadRequest("the body could not be read".into())
            }
        })?;
        // serde would take an array for a struct's fields in order; API bodies are objects.
        if bytes.iter().find(|byte| !byte.is_ascii_whitespace()) != Some(&b'{') {
            return Err(AppError::BadRequest("expected a JSON object".into()));
        }
        serde_json::from_slice(&bytes)
            .map(ApiJson)
            .map_err(|error| AppError::BadRequest(format!("expected JSON of the documented shape ({error})")))
    }
}
