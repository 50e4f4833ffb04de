//! The server clock: the one clock that decides.

use std::time::{SystemTime, UNIX_EPOCH};

use seat_state::ServerMillis;

/// Reads the system clock as epoch milliseconds.
#[derive(Debug, Clone, Copy, Default)]
pub struct Clock;

impl Clock {
    /// Now, on the server's clock.
    pub fn now(&self) -> ServerMillis {
        let since_epoch = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        ServerMillis(i64::try_from(since_epoch.as_millis()).unwrap_or(i64::MAX))
    }
}
