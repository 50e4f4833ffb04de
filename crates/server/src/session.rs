//! Customer sessions: a random bearer token (or HttpOnly cookie) that maps
//! to a public holder id.

mod cache;

use std::sync::Arc;

use axum::extract::FromRequestParts;
use axum::http::header::{AUTHORIZATION, COOKIE};
use axum::http::request::Parts;
use sha2::{Digest, Sha256};

use crate::error::AppError;
use crate::state::AppState;
use seathold_core::randomness::{Randomness, fill};

pub use cache::{DEFAULT_CAPACITY as DEFAULT_SESSION_CACHE, SessionCache};

/// The cookie that carries the token for browsers.
pub const COOKIE_NAME: &str = "seathold_session";

/// A new secret token (256 random bits) and a public holder id (64 bits).
pub fn new_credentials(randomness: &dyn Randomness) -> anyhow::Result<(String, String)> {
    let mut secret = [0u8; 32];
    let mut public = [0u8; 8];
    let no_randomness = || anyhow::anyhow!("no randomness");
    fill(randomness, &mut secret).ok_or_else(no_randomness)?;
    fill(randomness, &mut public).ok_or_else(no_randomness)?;
    Ok((hex::encode(secret), format!("h-{}", hex::encode(public))))
}

/// What is stored instead of the token.
pub fn token_hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

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
/// within a tenth of that, the cache answers alone; else the store says
/// when it was last seen (another process may have seen it since) and is
/// told it is seen now, so a session in use costs one write per tenth of
/// the idle time, never one per request.
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
    let Some(stored) = state.store.session_holder(&hash).await?.filter(|s| now.0 - s.last_seen_at.0 < idle) else {
        state.sessions.forget(&hash);
        state.sessions.remember_unknown(hash, now);
        return Ok(None);
    };
    let seen = if now.0 - stored.last_seen_at.0 >= idle / 10 {
        state.store.touch_session(&hash, now).await?;
        now
    } else {
        stored.last_seen_at
    };
    let holder = Arc::<str>::from(stored.holder);
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
