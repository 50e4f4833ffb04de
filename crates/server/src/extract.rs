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

/// Query parameters of a documented shape; anything else → 400 in API.md's format.
#[derive(Debug)]
pub struct ApiQuery<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequestParts<S> for ApiQuery<T> {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, AppError> {
        axum::extract::Query::try_from_uri(&parts.uri)
            .map(|query| ApiQuery(query.0))
            .map_err(|error| AppError::BadRequest(format!("the query does not have the documented shape ({error})")))
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
        let bytes = read_body(request, state).await?;
        // serde would take an array for a struct's fields in order; API bodies are objects.
        if bytes.iter().find(|byte| !byte.is_ascii_whitespace()) != Some(&b'{') {
            return Err(AppError::BadRequest("expected a JSON object".into()));
        }
        let first = serde_json::from_slice(&bytes);
        // JSON does not tell 3 from 3.0 (nor does JSON Schema's "integer"):
        // a whole number written as a float is tried again as an integer.
        let retried = first.or_else(|error| {
            let mut value: serde_json::Value = serde_json::from_slice(&bytes).map_err(|_| error)?;
            whole_floats_as_integers(&mut value);
            serde_json::from_value(value)
        });
        retried
            .map(ApiJson)
            .map_err(|error| AppError::BadRequest(format!("expected JSON of the documented shape ({error})")))
    }
}

/// A whole body: too large → 413, too slow → 408, unreadable → 400.
pub async fn read_body<S: Send + Sync>(request: Request, state: &S) -> Result<Bytes, AppError> {
    let read = tokio::time::timeout(BODY_DEADLINE, Bytes::from_request(request, state));
    read.await.map_err(|_| AppError::RequestTimeout)?.map_err(|rejection| {
        if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
            AppError::PayloadTooLarge
        } else {
            AppError::BadRequest("the body could not be read".into())
        }
    })
}

/// Exactly representable whole floats (|n| < 2^53) become integers.
fn whole_floats_as_integers(value: &mut serde_json::Value) {
    const EXACT: f64 = 9_007_199_254_740_992.0;
    match value {
        serde_json::Value::Number(number) => {
            if let Some(float) = number.as_f64().filter(|f| number.is_f64() && f.fract() == 0.0 && f.abs() < EXACT) {
                // In range by the filter: the cast is exact.
                #[allow(clippy::cast_possible_truncation)]
                let whole = float as i64;
                *number = whole.into();
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(whole_floats_as_integers),
        serde_json::Value::Object(fields) => fields.values_mut().for_each(whole_floats_as_integers),
        _ => {}
    }
}
