//! The server clock: where every decision's instant comes from.
//!
//! Code that decides never reads the system clock itself; it asks a
//! [`Clock`]. The server runs on [`SystemClock`]; tests and the simulator
//! move a [`TestClock`] by hand (forwards, backwards, not at all), so tests
//! about time never sleep on wall time.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use seat_state::ServerMillis;

/// A source of server instants. It may step backwards (an NTP correction):
/// show writers never decide earlier than their last instant anyway.
pub trait Clock: Send + Sync + 'static {
    /// Now, on this clock.
    fn now(&self) -> ServerMillis;
}

/// Shared by every part of the server.
pub type SharedClock = Arc<dyn Clock>;

/// The system clock as epoch milliseconds, optionally shifted.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock {
    skew_millis: i64,
}

impl SystemClock {
    /// The system clock shifted by `skew_millis`: for tests of browsers whose
    /// clock disagrees with the server's.
    pub fn skewed(skew_millis: i64) -> Self {
        Self { skew_millis }
    }

    /// The system clock, shared.
    pub fn shared() -> SharedClock {
        Arc::new(Self::default())
    }
}

impl Clock for SystemClock {
    fn now(&self) -> ServerMillis {
        let since_epoch = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
        let millis = i64::try_from(since_epoch.as_millis()).unwrap_or(i64::MAX);
        ServerMillis(millis).plus_millis(self.skew_millis)
    }
}

/// A clock that moves only when told to. Clones share one instant.
#[derive(Debug, Clone)]
pub struct TestClock(Arc<AtomicI64>);

impl TestClock {
    /// A clock standing at `start`.
    pub fn at(start: ServerMillis) -> Self {
        Self(Arc::new(AtomicI64::new(start.0)))
    }

    /// Moves the clock by `millis` (negative steps back).
    pub fn advance(&self, millis: i64) {
        self.0.fetch_add(millis, Ordering::SeqCst);
    }

    /// Sets the clock to `instant`, earlier or later.
    pub fn set(&self, instant: ServerMillis) {
        self.0.store(instant.0, Ordering::SeqCst);
    }

    /// The same clock as a [`SharedClock`].
    pub fn shared(&self) -> SharedClock {
        Arc::new(self.clone())
    }
}

impl Clock for TestClock {
    fn now(&self) -> ServerMillis {
        ServerMillis(self.0.load(Ordering::SeqCst))
    }
}
