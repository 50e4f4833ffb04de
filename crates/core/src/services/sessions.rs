//! Customer sessions: a random secret token, stored only as its hash, that
//! names a public holder id. A session nobody used for the idle time is
//! gone. Memory in front of this (the edge's cache) is the edge's business.

use std::sync::Arc;

use sha2::{Digest, Sha256};

use seat_state::ServerMillis;

use crate::randomness::{SharedRandomness, fill};
use crate::store::Store;

/// A session just opened: the token goes to the customer, once.
#[derive(Debug, Clone)]
pub struct NewSession {
    pub token: String,
    pub token_hash: String,
    pub holder_id: String,
}

#[derive(Clone)]
pub struct Sessions {
    store: Arc<dyn Store>,
    randomness: SharedRandomness,
    idle_ms: i64,
}

/// What is stored instead of the token.
pub fn token_hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

impl Sessions {
    pub fn new(store: Arc<dyn Store>, randomness: SharedRandomness, idle_ms: i64) -> Self {
        Self { store, randomness, idle_ms }
    }

    /// Opens a session: a secret token (256 random bits) and a public
    /// holder id (64 bits), recorded at `now`.
    pub async fn open(&self, now: ServerMillis) -> anyhow::Result<NewSession> {
        let mut secret = [0u8; 32];
        let mut public = [0u8; 8];
        let no_randomness = || anyhow::anyhow!("no randomness");
        fill(&*self.randomness, &mut secret).ok_or_else(no_randomness)?;
        fill(&*self.randomness, &mut public).ok_or_else(no_randomness)?;
        let token = hex::encode(secret);
        let session =
            NewSession { token_hash: token_hash(&token), token, holder_id: format!("h-{}", hex::encode(public)) };
        self.store.create_session(&session.token_hash, &session.holder_id, now).await?;
        Ok(session)
    }

    /// The holder of a live session and when it was last seen; `None` for
    /// an unknown or idle one. Seen a tenth of the idle time ago or more,
    /// the session is recorded as seen `now` (another process may have seen
    /// it since), so a session in use costs one write per tenth of the
    /// idle time, never one per request.
    pub async fn holder(&self, token_hash: &str, now: ServerMillis) -> anyhow::Result<Option<(String, ServerMillis)>> {
        let idle = self.idle_ms;
        let Some(stored) = self.store.session_holder(token_hash).await?.filter(|s| now.0 - s.last_seen_at.0 < idle)
        else {
            return Ok(None);
        };
        if now.0 - stored.last_seen_at.0 < idle / 10 {
            return Ok(Some((stored.holder, stored.last_seen_at)));
        }
        self.store.touch_session(token_hash, now).await?;
        Ok(Some((stored.holder, now)))
    }
}
