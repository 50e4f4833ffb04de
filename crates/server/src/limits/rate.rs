//! Rate limits: GCRA buckets (`governor`) per session and per client
//! address, checked by extractors placed first in the handlers they guard.

use std::hash::Hash;
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, Ordering};

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota};

use super::{ClientAddress, Quotas};
use crate::error::AppError;
use crate::session::{presented_token, token_hash};
use crate::state::AppState;

/// Forgetting full buckets costs a pass over all keys: done once per this
/// many checks, so that memory follows the keys in use, not all ever seen.
const PRUNE_EVERY: u64 = 4096;

/// The buckets of one server.
pub struct RateLimits {
    hold_writes_per_session: DefaultKeyedRateLimiter<String>,
    hold_writes_per_address: DefaultKeyedRateLimiter<IpAddr>,
    sessions_per_address: DefaultKeyedRateLimiter<IpAddr>,
    checks: AtomicU64,
}

impl RateLimits {
    pub fn new(quotas: Quotas) -> Self {
        Self {
            hold_writes_per_session: DefaultKeyedRateLimiter::keyed(Quota::per_minute(quotas.hold_writes_per_session)),
            hold_writes_per_address: DefaultKeyedRateLimiter::keyed(Quota::per_minute(quotas.hold_writes_per_address)),
            sessions_per_address: DefaultKeyedRateLimiter::keyed(Quota::per_minute(quotas.sessions_per_address)),
            checks: AtomicU64::new(0),
        }
    }

    fn check<K: Hash + Eq + Clone>(&self, limiter: &DefaultKeyedRateLimiter<K>, key: &K) -> Result<(), AppError> {
        if self.checks.fetch_add(1, Ordering::Relaxed) % PRUNE_EVERY == PRUNE_EVERY - 1 {
            self.prune();
        }
        limiter.check_key(key).map_err(|not_until| {
            let wait = not_until.wait_time_from(DefaultClock::default().now());
            // Whole seconds, rounded up: retrying sooner would be refused again.
            AppError::RateLimited { retry_after_seconds: wait.as_secs() + u64::from(wait.subsec_nanos() > 0) }
        })
    }

    fn prune(&self) {
        self.hold_writes_per_session.retain_recent();
        self.hold_writes_per_address.retain_recent();
        self.sessions_per_address.retain_recent();
    }
}

/// Proof that a hold write (create, extend, confirm, release) is within the
/// caller's address and session rates.
pub struct HoldWrites;

impl FromRequestParts<AppState> for HoldWrites {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, AppError> {
        let Some(rates) = &state.rates else { return Ok(Self) };
        let ClientAddress(address) = ClientAddress::of(parts, state.limits.trust_forwarded_for);
        rates.check(&rates.hold_writes_per_address, &address)?;
        // Keyed by the token as presented: checked before the (costlier)
        // session lookup; made-up tokens only spend their address's rate.
        if let Some(token) = presented_token(parts) {
            rates.check(&rates.hold_writes_per_session, &token_hash(token.trim()))?;
        }
        Ok(Self)
    }
}

/// Proof that creating a session is within the caller's address rate.
pub struct NewSessions;

impl FromRequestParts<AppState> for NewSessions {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, AppError> {
        let Some(rates) = &state.rates else { return Ok(Self) };
        let ClientAddress(address) = ClientAddress::of(parts, state.limits.trust_forwarded_for);
        rates.check(&rates.sessions_per_address, &address)?;
        Ok(Self)
    }
}
