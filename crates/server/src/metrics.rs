//! The HTTP edge's metrics: request latency by route and webhook
//! deliveries, registered beside the core's (`seathold_core::metrics`) in
//! one registry, and the `GET /metrics` handler that renders it.

use std::future::Future;
use std::hash::{Hash, Hasher};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};
use std::time::Instant;

use axum::extract::{MatchedPath, Request, State};
use axum::http::Method;
use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};
use prometheus_client::encoding::{EncodeLabelSet, EncodeLabelValue, LabelValueEncoder};
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;
use tower::{Layer, Service};

pub use seathold_core::metrics::{Metrics, Stage};

use crate::state::AppState;
use seathold_core::webhooks::metrics::WebhookMetrics;

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

/// The edge's series.
pub struct EdgeMetrics {
    requests: Family<RouteLabels, Histogram>,
    /// Webhook deliveries: sent, failed, parked, lag.
    pub webhooks: Arc<WebhookMetrics>,
    /// GRIP publishes: items published and dropped, failed requests.
    pub grip: Arc<crate::grip::GripMetrics>,
}

impl EdgeMetrics {
    fn register(registry: &mut Registry) -> Self {
        // 0.1 ms … ~3 s.
        let requests = Family::<RouteLabels, Histogram>::new_with_constructor(|| {
            Histogram::new(exponential_buckets(0.0001, 2.0, 16))
        });
        registry.register("seathold_http_request_duration_seconds", "HTTP request latency", requests.clone());
        Self {
            requests,
            webhooks: Arc::new(WebhookMetrics::register(registry)),
            grip: Arc::new(crate::grip::GripMetrics::register(registry)),
        }
    }

    /// The core's metrics and the edge's, in one registry.
    pub fn with_core() -> (Arc<Metrics>, Arc<EdgeMetrics>) {
        let (core, edge) = Metrics::new(Self::register);
        (Arc::new(core), Arc::new(edge))
    }
}

/// Times every request by its route pattern (not its raw path, which would
/// give one series per show and hold): a route layer (`app.rs`) written as
/// a plain tower service, because `from_fn` boxes its future and clones the
/// route's service stack on every request (issue 14's profile).
#[derive(Clone)]
pub struct TrackLatency(pub Arc<EdgeMetrics>);

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
    metrics: Arc<EdgeMetrics>,
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
    metrics: Arc<EdgeMetrics>,
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
