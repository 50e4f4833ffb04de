//! The simulated world: the real server (router, engines, sweep) over a
//! store that fails on command, a clock only the simulation moves,
//! restarts that throw away everything in memory, and each process's
//! webhook sender posting to the simulation's flaky receiver.

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::{HeaderMap, Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::Value;
use tower::ServiceExt;

use seat_state::wire::ShowInput;
use seat_state::{ServerMillis, Show};
use seathold_core::clock::TestClock;
use seathold_core::engine::Retention;
use seathold_core::randomness::{Randomness, SeededRandomness};
use seathold_core::store::{FaultyStore, MemoryStore, SharedMemoryStore, SqliteStore, Store};
use seathold_core::webhooks::{Deliveries, WebhookSettings};
use seathold_server::app::router;
use seathold_server::state::{AppState, Settings};

use crate::receiver::Receiver;

/// Where the simulated server keeps its data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoreKind {
    Memory,
    Sqlite,
    /// Two server processes over one in-memory store shared the way
    /// PostgreSQL is (per-show locks, the store's clock, catching up).
    Shared,
}

/// The instant every run starts at.
pub const T0: ServerMillis = ServerMillis(1_800_000_000_000);

/// An HTTP answer, read whole.
#[derive(Debug, Clone)]
pub struct Answer {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Value,
}

impl Answer {
    pub fn code(&self) -> &str {
        self.body["error"].as_str().unwrap_or("")
    }
}

/// One server process: its state, router and webhook sender (stopped
/// when the process is dropped).
pub struct App {
    pub state: AppState,
    pub router: Router,
    _deliveries: Deliveries,
}

/// The senders' settings: API.md's retry schedule on the simulated clock.
/// The timeout and the poll are on the runtime's paused clock, which moves
/// a millisecond a settle: a hung POST is cut off a few steps later.
const WEBHOOKS: WebhookSettings = WebhookSettings {
    timeout: Duration::from_millis(5),
    first_retry: Duration::from_secs(1),
    give_up: Duration::from_secs(24 * 3600),
    poll: Duration::from_millis(1),
};

pub struct World {
    pub clock: TestClock,
    /// The store as the servers see it (faults included).
    pub faulty: FaultyStore,
    /// The same data without faults, for the checks.
    pub truth: Arc<dyn Store>,
    /// One process, or two sharing the store.
    pub apps: Vec<App>,
    pub shows: Vec<Show>,
    /// Where every process's webhook deliveries go.
    pub receiver: Arc<Receiver>,
    /// Seeds for the processes' randomness, drawn from the run's seed: a
    /// restarted process does not replay its predecessor's tokens and ids.
    seeds: SeededRandomness,
    _dir: Option<tempfile::TempDir>,
}

/// The box office's token: it blocks and unblocks seats.
pub const ADMIN_TOKEN: &str = "sim-admin-token-that-is-long-enough";

/// The queued show's id: its sale opens 15 s into the run.
pub const QUEUED: &str = "sim-q";

/// Three small shows: one that rejects late payment, one that honours it,
/// and one behind a waiting room (20 admitted a minute, 6 s for a first hold).
fn shows() -> anyhow::Result<Vec<Show>> {
    let show = |id: &str, seats: usize, policy: &str| -> anyhow::Result<Show> {
        let seats: Vec<Value> =
            (1..=seats)
                .map(|n| serde_json::json!({"id": format!("S{n}"), "x": n * 30, "y": 0, "section": "Main", "row": "A", "number": n}))
                .collect();
        let input: ShowInput = serde_json::from_value(serde_json::json!({
            "id": id, "name": id, "holdSeconds": 3, "extensionSeconds": 2, "maxExtensions": 2,
            "maxSeatsPerHold": 3, "maxActiveHoldsPerHolder": 2, "latePolicy": policy,
            "seats": seats, "areas": [{"id": "floor", "name": "Floor", "capacity": 4}],
        }))?;
        let mut input = input;
        if id == QUEUED {
            input.on_sale = Some(seat_state::wire::OnSaleInput {
                opens_at: Some(T0.0 + 15_000),
                admit_per_minute: Some(20),
                pre_queue_seconds: Some(30),
                admission_seconds: Some(6),
            });
        }
        Ok(Show::parse(&input)?)
    };
    Ok(vec![show("sim-a", 8, "reject")?, show("sim-b", 6, "honorIfFree")?, show(QUEUED, 6, "reject")?])
}

impl World {
    pub async fn new(kind: StoreKind, seed: u64) -> anyhow::Result<Self> {
        let clock = TestClock::at(T0);
        let (truth, dir): (Arc<dyn Store>, _) = match kind {
            StoreKind::Memory => (Arc::new(MemoryStore::default()), None),
            StoreKind::Shared => (Arc::new(SharedMemoryStore::new(clock.shared())), None),
            StoreKind::Sqlite => {
                let dir = tempfile::tempdir()?;
                (Arc::new(SqliteStore::open_for_simulation(dir.path().join("sim.db")).await?), Some(dir))
            }
        };
        let shows = shows()?;
        for show in &shows {
            truth.create_show(show, T0).await?;
        }
        let faulty = FaultyStore::new(Arc::clone(&truth));
        let processes = if kind == StoreKind::Shared { 2 } else { 1 };
        let seeds = SeededRandomness::new(seed);
        let receiver = Receiver::new(seed, WEBHOOKS.timeout);
        let mut world = Self { clock, faulty, truth, apps: Vec::new(), shows, receiver, seeds, _dir: dir };
        world.apps = (0..processes).map(|_| world.start()).collect::<anyhow::Result<_>>()?;
        Ok(world)
    }

    fn start(&self) -> anyhow::Result<App> {
        let admin = Some(Arc::from(ADMIN_TOKEN));
        // Settled holds leave memory after seconds and checkpoints come every
        // few dozen versions, so runs recall holds and load from checkpoints.
        let retention = Retention { keep_settled_ms: 3_000, checkpoint_every: 25 };
        // Sessions, made hold ids and the waiting room's draw come from the
        // run's seed, so a seed replays them.
        let seed = self.seeds.next_u64().unwrap_or_default();
        let randomness = Arc::new(SeededRandomness::new(seed));
        let settings = Settings { admin_token: admin, retention, randomness, ..Settings::default() };
        let state = AppState::with_settings(Arc::new(self.faulty.clone()), self.clock.shared(), settings);
        // Retries' jitter from the same seed, apart from the ids' sequence.
        let jitter = Arc::new(SeededRandomness::new(seed ^ 0x0717_7e55));
        let deliveries =
            seathold_server::webhooks::start_with(&state, WEBHOOKS, Arc::clone(&self.receiver) as _, jitter)?;
        Ok(App { router: router(state.clone(), None), state, _deliveries: deliveries })
    }

    /// Process `at` dies and starts again: its memory is gone (deliveries
    /// under way are cut off), the store stays.
    pub fn restart(&mut self, at: usize) -> anyhow::Result<()> {
        self.apps[at] = self.start()?;
        Ok(())
    }

    /// Sends a request and reads the whole answer.
    pub async fn send(router: Router, request: Request<Body>) -> Answer {
        let response = match router.oneshot(request).await {
            Ok(response) => response,
            Err(never) => match never {},
        };
        let status = response.status();
        let headers = response.headers().clone();
        let bytes = response.into_body().collect().await.map(|body| body.to_bytes()).unwrap_or_default();
        let body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        Answer { status, headers, body }
    }
}
