//! What every handler can reach: storage, the clock, the show engines.

use std::sync::Arc;

use crate::limits::{Limits, RateLimits, StreamSlots};
use crate::metrics::{EdgeMetrics, Metrics};
use crate::session::SessionCache;
use seathold_core::clock::SharedClock;
use seathold_core::engine::Engines;
use seathold_core::services::Core;
use seathold_core::store::Store;

/// What every handler can reach. Cloned for every request and extractor,
/// so it is one pointer.
#[derive(Clone)]
pub struct AppState(Arc<Shared>);

/// The parts of [`AppState`].
pub struct Shared {
    /// The core's services by name: what routes ask for besides a show's writer.
    pub core: Core,
    /// The store under them, for the process's own tasks (sweep, deliveries).
    pub store: Arc<dyn Store>,
    pub clock: SharedClock,
    pub admin_token: Option<Arc<str>>,
    pub sessions: SessionCache,
    /// A session no request used for this long is gone.
    pub session_idle_ms: i64,
    /// The core's series (the writers', the queue's, the sweep's).
    pub metrics: Arc<Metrics>,
    /// The edge's series (requests, webhook deliveries), in the same registry.
    pub edge_metrics: Arc<EdgeMetrics>,
    pub engines: Arc<Engines>,
    /// Show definitions as sent, written once per show.
    pub definitions: crate::definitions::Definitions,
    /// Turns true when the server begins to stop: live streams end then, so
    /// that a graceful shutdown does not wait on them forever.
    pub stopping: Arc<tokio::sync::watch::Sender<bool>>,
    pub limits: Limits,
    /// The rate limits' buckets; `None` when they are off.
    pub rates: Option<RateLimits>,
    pub streams: StreamSlots,
    /// Mark the session cookie `Secure` (the server is behind TLS).
    pub secure_cookie: bool,
    /// Where session tokens and holder ids come from (as the engines' choices).
    pub randomness: seathold_core::randomness::SharedRandomness,
    /// GRIP proxies in front: their key, and the publisher every hub feeds.
    pub grip: Option<Arc<crate::grip::Grip>>,
}

/// A day: longer than any sale a customer sits through, short enough that
/// a token left in a shared browser stops working.
pub const DEFAULT_SESSION_IDLE_MS: i64 = 24 * 60 * 60 * 1000;

/// How one server is set up beyond its store and clock.
#[derive(Debug, Clone)]
pub struct Settings {
    pub admin_token: Option<Arc<str>>,
    pub limits: Limits,
    pub secure_cookie: bool,
    /// Sessions (and as many unknown tokens) kept in memory.
    pub session_cache: usize,
    /// A session no request used for this long is gone.
    pub session_idle_ms: i64,
    /// How long settled holds stay in memory; how often checkpoints are written.
    pub retention: seathold_core::engine::Retention,
    /// How live changes are gathered into one frame per tick.
    pub ticks: seathold_core::engine::events::Ticks,
    /// Where random choices come from (sessions, made hold ids, a waiting
    /// room's draw): the OS's, or a seeded sequence in the simulator.
    pub randomness: seathold_core::randomness::SharedRandomness,
    /// GRIP proxies to publish to (`--grip-publish`), if any.
    pub grip: Option<crate::grip::GripSettings>,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            admin_token: None,
            limits: Limits::default(),
            secure_cookie: false,
            session_cache: crate::session::DEFAULT_SESSION_CACHE,
            session_idle_ms: DEFAULT_SESSION_IDLE_MS,
            retention: seathold_core::engine::Retention::default(),
            ticks: seathold_core::engine::events::Ticks::default(),
            randomness: Arc::new(seathold_core::randomness::OsRandomness),
            grip: None,
        }
    }
}

impl std::ops::Deref for AppState {
    type Target = Shared;

    fn deref(&self) -> &Shared {
        &self.0
    }
}

impl AppState {
    /// State over `store` with empty caches, fresh metrics and the default
    /// settings (no rate limits).
    pub fn new(store: Arc<dyn Store>, clock: SharedClock, admin_token: Option<Arc<str>>) -> Self {
        Self::with_settings(store, clock, Settings { admin_token, ..Settings::default() })
    }

    pub fn with_settings(store: Arc<dyn Store>, clock: SharedClock, settings: Settings) -> Self {
        let (metrics, edge_metrics) = EdgeMetrics::with_core();
        let grip = settings.grip.map(|grip| crate::grip::Grip::start(grip, Arc::clone(&edge_metrics.grip)));
        let mut engines = Engines::new(Arc::clone(&store), Arc::clone(&metrics), Arc::clone(&clock))
            .with_retention(settings.retention)
            .with_ticks(settings.ticks)
            .with_randomness(Arc::clone(&settings.randomness));
        if let Some(grip) = &grip {
            engines = engines
                .with_frame_sink(Arc::clone(&grip.publisher) as Arc<dyn seathold_core::engine::events::FrameSink>);
        }
        let engines = Arc::new(engines);
        engines.follow_other_processes();
        let stopping = Arc::new(tokio::sync::watch::Sender::new(false));
        let core = Core::new(
            Arc::clone(&store),
            Arc::clone(&engines),
            Arc::clone(&settings.randomness),
            settings.session_idle_ms,
        );
        Self(Arc::new(Shared {
            core,
            store,
            clock,
            admin_token: settings.admin_token,
            sessions: SessionCache::new(settings.session_cache),
            session_idle_ms: settings.session_idle_ms,
            metrics,
            edge_metrics,
            engines,
            definitions: crate::definitions::Definitions::default(),
            stopping,
            rates: settings.limits.rates.map(RateLimits::new),
            streams: StreamSlots::new(settings.limits.streams),
            limits: settings.limits,
            secure_cookie: settings.secure_cookie,
            randomness: settings.randomness,
            grip,
        }))
    }
}
