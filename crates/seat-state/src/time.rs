//! Instants on the two clocks Seathold deals with.
//!
//! Both are integer Unix epoch milliseconds, but they come from different
//! clocks, so they are different types: mixing them up is a compile error.

use serde::{Deserialize, Serialize};

/// An instant on the server's clock, the one clock that decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ServerMillis(pub i64);

/// An instant on the browser's own clock, which may be wrong by any amount.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LocalMillis(pub i64);

impl ServerMillis {
    /// This instant moved by `millis` (negative moves it back).
    pub fn plus_millis(self, millis: i64) -> Self {
        Self(self.0.saturating_add(millis))
    }
}

impl LocalMillis {
    /// This instant moved by `millis` (negative moves it back).
    pub fn plus(self, millis: i64) -> Self {
        Self(self.0.saturating_add(millis))
    }
}
