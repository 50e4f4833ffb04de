//! The core's front door: what the edge asks of it, by name. Holds go to a
//! show's writer (`crate::engine::Engines`, then `ShowHandle`); everything
//! else an edge asks for is one of these, so no route reads the `Store`.

mod operator;
mod sessions;
mod shows;
mod webhooks;

use std::sync::Arc;

use crate::engine::Engines;
use crate::randomness::SharedRandomness;
use crate::store::Store;

pub use operator::Operator;
pub use sessions::{NewSession, Sessions, token_hash};
pub use shows::Shows;
pub use webhooks::{Redeliver, Webhooks};

/// The services over one store and its writers.
#[derive(Clone)]
pub struct Core {
    pub shows: Shows,
    pub operator: Operator,
    pub sessions: Sessions,
    pub webhooks: Webhooks,
}

impl Core {
    /// `randomness` makes session tokens, holder ids and webhook ids;
    /// a session nobody used for `session_idle_ms` is gone.
    pub fn new(
        store: Arc<dyn Store>,
        engines: Arc<Engines>,
        randomness: SharedRandomness,
        session_idle_ms: i64,
    ) -> Self {
        Self {
            shows: Shows::new(Arc::clone(&store)),
            operator: Operator::new(Arc::clone(&store), engines),
            sessions: Sessions::new(Arc::clone(&store), Arc::clone(&randomness), session_idle_ms),
            webhooks: Webhooks::new(store, randomness),
        }
    }
}
