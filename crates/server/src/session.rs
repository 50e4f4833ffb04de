//! Customer sessions: a random bearer token (or HttpOnly cookie) that maps
//! to a public holder id.

mod cache;

use std::sync::Arc;

use axum::extract::FromRequestParts;
use axum::http::header::{AUTHORIZATION, COOKIE};
use axum::http::request::Parts;

use crate::error::AppError;
use crate::state::AppState;
pub use seathold_core::services::token_hash;

pub use cache::{DEFAULT_CAPACITY as DEFAULT_SESSION_CACHE, SessionCache};

/// The cookie that carries the token for browsers.
pub const COOKIE_NAME: &str = "seathold_session";

/// The token a request carries: the bearer header first, else the cookie.
pub(crate) fn presented_token(parts: &Parts) -> Option<&str> {
    let bearer = parts
        .headers
        .get(AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "));
    bearer.or_else(|| {
        parts
            .headers
            .get_all(COOKIE)
            .iter()
            .filter_map(|value| value.to_str().ok())
            .flat_map(|header| header.split(';'))
            .find_map(|pair| pair.trim().strip_prefix(COOKIE_NAME)?.strip_prefix('='))
    })
}

/// The holder of the presented token's session. A session idle for
/// `session_idle_ms` (no request used it) is gone: 401 from then on. Seen
/// within a tenth of that, the cache answers alone; else the core's
/// `Sessions::holder` asks the store (and records the use).
async fn resolve(parts: &Parts, state: &AppState) -> Result<Option<Arc<str>>, AppError> {
    let Some(token) = presented_token(parts) else { return Ok(None) };
    let hash = token_hash(token.trim());
    let now = state.clock.now();
    let idle = state.session_idle_ms;
    if let Some((holder, seen)) = state.sessions.get(&hash)
        && now.0 - seen.0 < idle / 10
    {
        return Ok(Some(holder));
    }
    if state.sessions.known_unknown(&hash, now) {
        return Ok(None);
    }
    state.sessions.count_store_lookup();
    let Some((holder, seen)) = state.core.sessions.holder(&hash, now).await? else {
        state.sessions.forget(&hash);
        state.sessions.remember_unknown(hash, now);
        return Ok(None);
    };
    let holder = Arc::<str>::from(holder);
    state.sessions.remember(hash, Arc::clone(&holder), seen);
    Ok(Some(holder))
}

/// The caller's holder id; missing or unknown token → 401.
#[derive(Debug, Clone)]
pub struct Session(pub Arc<str>);

impl FromRequestParts<AppState> for Session {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, AppError> {
        resolve(parts, state).await?.map(Session).ok_or(AppError::Unauthorized)
    }
}

/// The caller's holder id where a session is optional; unknown tokens are ignored.
#[derive(Debug, Clone)]
pub struct MaybeSession(pub Option<Arc<str>>);

impl FromRequestParts<AppState> for MaybeSession {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, AppError> {
        resolve(parts, state).await.map(MaybeSession)
    }
}
