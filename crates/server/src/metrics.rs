//! Prometheus metrics: what operators watch (conversion, expiry, conflicts,
//! latency), rendered as text at `GET /metrics`.

use std::future::Future;
use std::hash::{Hash, Hasher};
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::task::{Context, Poll, ready};
use std::time::Instant;

use axum::extract::{MatchedPath, Request, State};
use axum::http::Method;
use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};
use prometheus_client::encoding::{EncodeLabelSet, EncodeLabelValue, LabelValueEncoder};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;
use tower::{Layer, Service};

use seat_state::{Change, ShowState};

use crate::state::AppState;
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

/// A request's series. Every field is a borrowed or shared value, so timing
/// a request allocates nothing (issue 14's profile).
#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
struct RouteLabels {
    method: &'static str,
    route: Route,
    status: u16,
}

/// The methods a route answers, by name; any other is `other` (a client
/// picks the method: its name must not make a series of its own).
fn method_label(method: &Method) -> &'static str {
    const KNOWN: [&str; 7] = ["GET", "POST", "PUT", "DELETE", "HEAD", "OPTIONS", "PATCH"];
    KNOWN.into_iter().find(|known| *known == method.as_str()).unwrap_or("other")
}

/// The route pattern a request matched (axum keeps it shared: cloning it
/// copies no text), compared and written as its text.
#[derive(Debug, Clone)]
struct Route(Option<MatchedPath>);

impl Route {
    fn as_str(&self) -> &str {
        self.0.as_ref().map_or("unmatched", MatchedPath::as_str)
    }
}

impl PartialEq for Route {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for Route {}

impl Hash for Route {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl EncodeLabelValue for Route {
    fn encode(&self, encoder: &mut LabelValueEncoder<'_>) -> Result<(), std::fmt::Error> {
        EncodeLabelValue::encode(&self.as_str(), encoder)
    }
}

/// Every metric the server keeps.
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
    /// Webhook deliveries: sent, failed, parked, lag.
    pub webhooks: crate::webhooks::metrics::WebhookMetrics,
    /// The box office's view per show (issue 13).
    shows: ShowMetrics,
    /// Seconds show writers spent in each stage of their batches.
    writer_stages: Family<StageLabels, Counter<f64, std::sync::atomic::AtomicU64>>,
    requests: Family<RouteLabels, Histogram>,
    /// The waiting rooms (API.md "Waiting room (v3)").
    pub queue: crate::engine::queue::QueueMetrics,
}

impl Default for Metrics {
    fn default() -> Self {
        let mut registry = Registry::default();
        let holds_created = Counter::default();
        let holds_confirmed = Counter::default();
        let holds_expired = Counter::default();
        let holds_released = Counter::default();
        let hold_conflicts = Counter::default();
        let caught_up = Counter::default();
        let show_loads = Counter::default();
        let (holds_evicted, holds_recalled, checkpoints) = (Counter::default(), Counter::default(), Counter::default());
        // 0.1 ms … ~3 s.
        let requests = Family::<RouteLabels, Histogram>::new_with_constructor(|| {
            Histogram::new(exponential_buckets(0.0001, 2.0, 16))
        });
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
        registry.register("seathold_http_request_duration_seconds", "HTTP request latency", requests.clone());
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
        let webhooks = crate::webhooks::metrics::WebhookMetrics::register(&mut registry);
        Self {
            queue,
            webhooks,
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
            requests,
        }
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

/// Times every request by its route pattern (not its raw path, which would
/// give one series per show and hold): a route layer (`app.rs`) written as
/// a plain tower service, because `from_fn` boxes its future and clones the
/// route's service stack on every request (issue 14's profile).
#[derive(Clone)]
pub struct TrackLatency(pub Arc<Metrics>);

impl<S> Layer<S> for TrackLatency {
    type Service = Timed<S>;

    fn layer(&self, inner: S) -> Timed<S> {
        Timed { inner, metrics: Arc::clone(&self.0) }
    }
}

/// A route's service, timed.
#[derive(Clone)]
pub struct Timed<S> {
    inner: S,
    metrics: Arc<Metrics>,
}

impl<S: Service<Request, Response = Response, Future: Unpin>> Service<Request> for Timed<S> {
    type Response = Response;
    type Error = S::Error;
    type Future = TimedFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let started = Instant::now();
        let method = method_label(request.method());
        let route = Route(request.extensions().get::<MatchedPath>().cloned());
        TimedFuture {
            inner: self.inner.call(request),
            started,
            labels: Some((method, route)),
            metrics: Arc::clone(&self.metrics),
        }
    }
}

/// A route's answer on its way; observed once it is ready. Axum's route
/// futures are `Unpin`, so this one needs no pin projection.
pub struct TimedFuture<F> {
    inner: F,
    started: Instant,
    labels: Option<(&'static str, Route)>,
    metrics: Arc<Metrics>,
}

impl<F: Future<Output = Result<Response, E>> + Unpin, E> Future for TimedFuture<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let answer = ready!(Pin::new(&mut self.inner).poll(cx));
        if let (Ok(response), Some((method, route))) = (&answer, self.labels.take()) {
            let labels = RouteLabels { method, route, status: response.status().as_u16() };
            self.metrics.requests.get_or_create(&labels).observe(self.started.elapsed().as_secs_f64());
        }
        Poll::Ready(answer)
    }
}

/// Prometheus text: hold counters, commit batches, request latency by route.
#[utoipa::path(get, path = "/metrics", tag = "operations",
    responses((status = 200, content_type = "application/openmetrics-text", body = String)))]
pub async fn metrics(State(state): State<AppState>) -> impl IntoResponse {
    ([(CONTENT_TYPE, "application/openmetrics-text; version=1.0.0; charset=utf-8")], state.metrics.render())
}
