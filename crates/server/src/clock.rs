//! The server clock: the one clock that decides.

use std::time::{SystemTime, UNIX_EPOCH};

use seat_state::ServerMillis;

/// Reads the system clock as epoch milliseconds, optionally shifted.
#[derive(Debug, Clone, Copy, Default)]
pub struct Clock {
    skew_millis: i64,
}

impl Clock {
    /// The system clock as it is.
    pub const SYSTEM: Self = Self { skew_millis: 0 };

    /// The system clock shifted by `skew_millis`: for tests of browsers whose
    /// clock disagrees with the server's.
    pub fn skewed(skew_millis: i64) -> Self {
        Self { skew_millis }
    }

    /// Now, on the server's clock.
    pub fn now(&self) -> ServerMillis {
        let since_epoch = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
        let millis = i64::try_from(since_epoch.as_millis()).unwrap_or(i64::MAX);
        ServerMillis(millis).plus_millis(self.skew_millis)
    }
}
