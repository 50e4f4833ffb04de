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

/// A clock that moves only when told to. Clones share one instant. A
/// test double: behind `testkit`.
#[cfg(any(test, feature = "testkit"))]
#[derive(Debug, Clone)]
pub struct TestClock(Arc<AtomicI64>);

#[cfg(any(test, feature = "testkit"))]
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

#[cfg(any(test, feature = "testkit"))]
impl Clock for TestClock {
    fn now(&self) -> ServerMillis {
        ServerMillis(self.0.load(Ordering::SeqCst))
    }
}

/// This process's clock corrected towards a store's clock (the database's),
/// so that the instants it stamps on requests agree across processes whose
/// own clocks disagree. Decisions read the database's clock itself; this
/// only serves what decides nothing. The offset is estimated like the
/// browser's (`seat_state::ClockSync`: the round trip with the smallest delay).
#[derive(Debug)]
pub struct FollowingClock {
    local: SystemClock,
    offset_millis: AtomicI64,
}

impl FollowingClock {
    /// A clock that has measured the store's a few times already and goes
    /// on measuring every `every`, for the life of the process.
    pub async fn start(
        local: SystemClock,
        store: Arc<dyn crate::store::Store>,
        every: std::time::Duration,
    ) -> Arc<Self> {
        let clock = Arc::new(Self { local, offset_millis: AtomicI64::new(0) });
        let mut sync = seat_state::ClockSync::new();
        for _ in 0..FIRST_SAMPLES {
            clock.sample(store.as_ref(), &mut sync).await;
        }
        let following = Arc::downgrade(&clock);
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(every).await;
                let Some(clock) = following.upgrade() else { return };
                clock.sample(store.as_ref(), &mut sync).await;
            }
        });
        clock
    }

    async fn sample(&self, store: &dyn crate::store::Store, sync: &mut seat_state::ClockSync) {
        let sent = seat_state::LocalMillis(self.local.now().0);
        match store.clock().await {
            Ok(Some(server)) => {
                let received = seat_state::LocalMillis(self.local.now().0);
                sync.add(seat_state::ClockSample { sent, server, received });
                if let Some(offset) = sync.offset() {
                    self.offset_millis.store(offset.offset_millis, Ordering::SeqCst);
                }
            }
            Ok(None) => {}
            Err(error) => tracing::warn!(%error, "cannot read the store's clock"),
        }
    }
}

/// Round trips measured before a following clock is used.
const FIRST_SAMPLES: usize = 3;

impl Clock for FollowingClock {
    fn now(&self) -> ServerMillis {
        self.local.now().plus_millis(self.offset_millis.load(Ordering::SeqCst))
    }
}
