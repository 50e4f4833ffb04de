//! What a show's engine can fail with. HTTP knows nothing of it here:
//! `crate::error` maps each case onto API.md's answers.

use seat_state::{Rejection, ServerMillis};

/// Why an engine did not do what it was asked.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The rules refused, decided at `at` (the answer carries that instant).
    #[error("{}", .rejection.message())]
    Rejected { rejection: Rejection, at: ServerMillis },
    /// The show's storage is failing: its last commit failed and so did the
    /// reload after it. Nothing is answered from memory until a reload works.
    #[error("the show's storage is failing")]
    Unavailable,
    /// Storage could not answer (loading a show, reading its holds).
    #[error("storage failed: {0:#}")]
    Storage(anyhow::Error),
    /// A broken promise inside the server (a writer that stopped, a poisoned lock).
    #[error("internal error: {0:#}")]
    Internal(anyhow::Error),
}

impl EngineError {
    pub(crate) fn internal(what: &str) -> Self {
        Self::Internal(anyhow::anyhow!("{what}"))
    }
}
