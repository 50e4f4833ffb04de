//! Prometheus metrics of the core: what operators watch (conversion,
//! expiry, conflicts, commits, writer stages, waiting rooms). The HTTP edge
//! adds its own series to the same registry and serves it at `GET /metrics`.

use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::Instant;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

use seat_state::{Change, ShowState};

use crate::store::Transition;

/// The stages of a show writer's batch, timed apart (issue 14's profile).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Stage {
    /// Deciding every request of the batch in memory (`seat-state`).
    Decide,
    /// The store's statements for the batch (SQLite or PostgreSQL), until
    /// the write is visible; at `synchronous=full` on SQLite, no flush.
    Write,
    /// From the write to the batch on disk: the WAL flush, overlapped with
    /// the next batch's decide and write.
    Flush,
    /// Indexing new holds, live events, metrics and the answers.
    Publish,
}

impl Stage {
    fn name(self) -> &'static str {
        match self {
            Self::Decide => "decide",
            Self::Write => "write",
            Self::Flush => "flush",
            Self::Publish => "publish",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
struct StageLabels {
    stage: &'static str,
}

/// Every metric the core keeps, in the registry `/metrics` renders (the
/// HTTP edge registers its own series in it: [`Metrics::new`]).
pub struct Metrics {
    registry: Registry,
    pub holds_created: Counter,
    pub holds_confirmed: Counter,
    pub holds_expired: Counter,
    pub holds_released: Counter,
    pub hold_conflicts: Counter,
    /// Decisions written per group commit, and how long each commit took.
    pub commit_batch: Histogram,
    pub commit_seconds: Histogram,
    /// Journal entries other processes committed, applied here (shared store).
    pub caught_up: Counter,
    /// Shows loaded from storage (once per show and process, at first use).
    pub show_loads: Counter,
    /// Settled holds that left memory, holds read back after that, and
    /// checkpoints written (bounded memory and start-up, issue 15).
    pub holds_evicted: Counter,
    pub holds_recalled: Counter,
    pub checkpoints: Counter,
    /// The box office's view per show (issue 13).
    shows: ShowMetrics,
    /// Seconds show writers spent in each stage of their batches.
    writer_stages: Family<StageLabels, Counter<f64, std::sync::atomic::AtomicU64>>,
    /// The waiting rooms (API.md "Waiting room (v3)").
    pub queue: crate::engine::queue::QueueMetrics,
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new(|_| ()).0
    }
}

impl Metrics {
    /// The core's metrics, with `edge` registering the HTTP edge's series
    /// in the same registry (and answering their handles).
    pub fn new<E>(edge: impl FnOnce(&mut Registry) -> E) -> (Self, E) {
        let mut registry = Registry::default();
        let holds_created = Counter::default();
        let holds_confirmed = Counter::default();
        let holds_expired = Counter::default();
        let holds_released = Counter::default();
        let hold_conflicts = Counter::default();
        let caught_up = Counter::default();
        let show_loads = Counter::default();
        let (holds_evicted, holds_recalled, checkpoints) = (Counter::default(), Counter::default(), Counter::default());
        registry.register("seathold_holds_created", "Holds created", holds_created.clone());
        registry.register("seathold_holds_confirmed", "Holds confirmed (sold)", holds_confirmed.clone());
        registry.register(
            "seathold_holds_expired",
            "Holds that reached their deadline unconfirmed",
            holds_expired.clone(),
        );
        registry.register("seathold_holds_released", "Holds released by their holder", holds_released.clone());
        registry.register(
            "seathold_hold_conflicts",
            "Hold requests refused because places were taken",
            hold_conflicts.clone(),
        );
        registry.register(
            "seathold_journal_caught_up",
            "Journal entries other processes committed, applied by this one",
            caught_up.clone(),
        );
        registry.register("seathold_show_loads", "Shows loaded from storage", show_loads.clone());
        registry.register("seathold_holds_evicted", "Settled holds that left memory", holds_evicted.clone());
        registry.register("seathold_holds_recalled", "Evicted holds read back from storage", holds_recalled.clone());
        registry.register("seathold_checkpoints", "Show checkpoints written", checkpoints.clone());
        let commit_batch = Histogram::new(exponential_buckets(1.0, 2.0, 11));
        let commit_seconds = Histogram::new(exponential_buckets(0.0001, 2.0, 16));
        registry.register(
            "seathold_commit_batch_size",
            "Hold transitions written per group commit",
            commit_batch.clone(),
        );
        registry.register("seathold_commit_duration_seconds", "Duration of one group commit", commit_seconds.clone());
        let writer_stages = Family::default();
        registry.register(
            "seathold_writer_stage_seconds",
            "Seconds show writers spent per stage of their batches (decide, write, flush, publish)",
            writer_stages.clone(),
        );
        let shows = ShowMetrics::register(&mut registry);
        let queue = crate::engine::queue::QueueMetrics::register(&mut registry);
        let edge = edge(&mut registry);
        let core = Self {
            queue,
            shows,
            writer_stages,
            registry,
            holds_created,
            holds_confirmed,
            holds_expired,
            holds_released,
            hold_conflicts,
            commit_batch,
            commit_seconds,
            caught_up,
            show_loads,
            holds_evicted,
            holds_recalled,
            checkpoints,
        };
        (core, edge)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
struct ShowLabels {
    show: Arc<str>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
struct OutcomeLabels {
    show: Arc<str>,
    outcome: &'static str,
}

type Ratio = Gauge<f64, AtomicU64>;

/// Per show: holds by outcome, conversion (confirmed / created) and expiry
/// rate (expired / created) since this process started; and how long
/// confirmed holds took, from creation to confirmation.
struct ShowMetrics {
    outcomes: Family<OutcomeLabels, Counter>,
    conversion: Family<ShowLabels, Ratio>,
    expiry_rate: Family<ShowLabels, Ratio>,
    time_to_confirm: Histogram,
}

impl ShowMetrics {
    fn register(registry: &mut Registry) -> Self {
        let shows = Self {
            outcomes: Family::default(),
            conversion: Family::default(),
            expiry_rate: Family::default(),
            // 1 s … ~4.5 h.
            time_to_confirm: Histogram::new(exponential_buckets(1.0, 2.0, 15)),
        };
        registry.register("seathold_show_holds", "Holds per show by outcome", shows.outcomes.clone());
        registry.register(
            "seathold_show_conversion_ratio",
            "Holds confirmed per hold created, per show",
            shows.conversion.clone(),
        );
        registry.register(
            "seathold_show_expiry_ratio",
            "Holds expired per hold created, per show",
            shows.expiry_rate.clone(),
        );
        registry.register(
            "seathold_time_to_confirm_seconds",
            "From a hold's creation to its confirmation",
            shows.time_to_confirm.clone(),
        );
        shows
    }

    fn count(&self, show: &Arc<str>, outcome: &'static str) -> u64 {
        self.outcomes.get_or_create(&OutcomeLabels { show: Arc::clone(show), outcome }).get()
    }
}

impl Metrics {
    /// Counts a durable transition of `show` (`state` has applied it). The
    /// show's id is shared, not copied, into each series' labels.
    pub fn show_transition(&self, show: &Arc<str>, transition: &Transition, state: &ShowState) {
        let outcome = match &transition.change {
            Change::Created { .. } => "created",
            Change::Confirmed { hold, .. } => {
                if let Some(created) = state.hold(hold).map(|hold| hold.created_at) {
                    self.shows.time_to_confirm.observe((transition.at.0 - created.0).max(0) as f64 / 1000.0);
                }
                "confirmed"
            }
            Change::Released { .. } => "released",
            Change::Expired { .. } => "expired",
            Change::Extended { .. } | Change::Blocked { .. } | Change::Unblocked { .. } => return,
        };
        let shows = &self.shows;
        shows.outcomes.get_or_create(&OutcomeLabels { show: Arc::clone(show), outcome }).inc();
        let created = shows.count(show, "created");
        if created > 0 {
            let labels = ShowLabels { show: Arc::clone(show) };
            shows.conversion.get_or_create(&labels).set(shows.count(show, "confirmed") as f64 / created as f64);
            shows.expiry_rate.get_or_create(&labels).set(shows.count(show, "expired") as f64 / created as f64);
        }
    }

    /// Adds the time a writer spent in one stage of a batch.
    pub fn stage(&self, stage: Stage, since: Instant) {
        self.writer_stages.get_or_create(&StageLabels { stage: stage.name() }).inc_by(since.elapsed().as_secs_f64());
    }

    /// The Prometheus text exposition.
    pub fn render(&self) -> String {
        let mut text = String::new();
        if let Err(error) = prometheus_client::encoding::text::encode(&mut text, &self.registry) {
            tracing::error!(%error, "encoding metrics");
        }
        text
    }
}
