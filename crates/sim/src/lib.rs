//! A deterministic simulator for Seathold, in the spirit of FoundationDB's
//! simulation tests and TigerBeetle's VOPR.
//!
//! One seed decides everything: which customer asks what, which request's
//! body arrives late, which connection drops, when the clock jumps or steps
//! back, when a commit or a reload fails, when the server restarts. The real
//! router, engines, sweep and `seat-state` run on a single-threaded tokio
//! runtime with a paused clock, so the same seed replays the same run.
//! Each process's real webhook sender posts to a flaky receiver the
//! simulation owns ([`receiver`]). After every step the invariants are
//! checked (see [`checks`] and [`delivery_check`]); a failure
//! names its seed and the command that replays it.

mod checks;
mod delivery_check;
mod driver;
mod fingerprint;
pub mod oracle;
mod queue_check;
mod receiver;
mod requests;
mod viewers;
mod webhooks;
pub mod world;

use std::time::Duration;

pub use world::StoreKind;

/// Seeds the test command runs, and `cargo xtask sim` by default.
pub const DEFAULT_SEEDS: u64 = 50;
/// Steps per seed, likewise.
pub const DEFAULT_STEPS: usize = 300;

/// One run.
#[derive(Debug, Clone)]
pub struct Config {
    pub seed: u64,
    pub steps: usize,
    pub store: StoreKind,
}

/// What a passing run did.
#[derive(Debug, Clone, Default)]
pub struct Report {
    pub steps: usize,
    /// HTTP requests answered (retries included).
    pub requests: u64,
    /// Journal entries written: the decisions that changed something.
    pub transitions: i64,
    pub dropped: u64,
    pub slow_bodies: u64,
    pub faults: u64,
    pub restarts: u64,
    /// Restarts while the webhook receiver held a POST open.
    pub restarts_mid_delivery: u64,
    pub clock_steps_back: u64,
    /// Settled holds that left a writer's memory, holds recalled from the
    /// store after that, and checkpoints written.
    pub evicted: u64,
    pub recalled: u64,
    pub checkpoints: u64,
    /// Webhook POSTs the receiver took and connections it refused.
    pub webhook_posts: u64,
    pub webhook_refused: u64,
    /// Events acknowledged on the webhook that takes every kind: one per
    /// stored transition.
    pub webhook_events: u64,
    /// Events acknowledged on the settlements webhook.
    pub settlement_events: u64,
    /// Checks that found a live viewer at its process's published version
    /// with exactly the published map.
    pub viewer_checks: u64,
    /// A hash of the stored journals, server-made ids (holders, holds)
    /// included: equal for two runs of one seed.
    pub fingerprint: u64,
}

/// A broken invariant, with what led to it.
#[derive(Debug, Clone)]
pub struct Failure {
    pub config: Config,
    pub step: usize,
    pub message: String,
    /// The last events before the failure, oldest first.
    pub trace: Vec<String>,
}

impl Config {
    /// The one-line command that replays this run.
    pub fn replay_command(&self) -> String {
        let store = match self.store {
            StoreKind::Memory => "memory",
            StoreKind::Sqlite => "sqlite",
            StoreKind::Shared => "shared",
        };
        format!("cargo xtask sim --seed {} --steps {} --store {store}", self.seed, self.steps)
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "seed {} failed at step {}: {}", self.config.seed, self.step, self.message)?;
        writeln!(f, "last events:")?;
        for line in &self.trace {
            writeln!(f, "  {line}")?;
        }
        write!(f, "replay: {}", self.config.replay_command())
    }
}

/// Runs one seed to the end or to its first broken invariant.
pub fn run(config: &Config) -> Result<Report, Box<Failure>> {
    let failure = |message: String| Box::new(Failure { config: config.clone(), step: 0, message, trace: Vec::new() });
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .map_err(|error| failure(format!("no runtime: {error}")))?;
    runtime.block_on(async {
        let mut sim = driver::Sim::new(config.clone()).await.map_err(|error| failure(format!("{error:#}")))?;
        sim.run().await
    })
}

/// How long the paused runtime lets every task run before the driver goes
/// on: the clock only advances once all of them wait.
const SETTLE: Duration = Duration::from_millis(1);
