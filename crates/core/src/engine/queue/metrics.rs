//! The waiting rooms' series in `/metrics`: joins, the queue writer's batch
//! times (a draw of the whole pre-queue is one such batch, also timed on its
//! own), and per show the places taken and admitted.

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
pub struct ShowLabel {
    pub show: String,
}

#[derive(Debug, Clone)]
pub struct QueueMetrics {
    pub joins: Counter,
    pub batch_seconds: Histogram,
    /// Batches that drew a pre-queue: the draw's cost apart from every tick.
    pub draw_seconds: Histogram,
    pub places: Family<ShowLabel, Gauge>,
    pub admitted: Family<ShowLabel, Gauge>,
}

impl QueueMetrics {
    pub fn register(registry: &mut Registry) -> Self {
        let metrics = Self {
            joins: Counter::default(),
            // 0.1 ms … ~3 s.
            batch_seconds: Histogram::new(exponential_buckets(0.0001, 2.0, 16)),
            draw_seconds: Histogram::new(exponential_buckets(0.0001, 2.0, 16)),
            places: Family::default(),
            admitted: Family::default(),
        };
        registry.register("seathold_queue_joins", "Places taken in waiting rooms", metrics.joins.clone());
        registry.register(
            "seathold_queue_batch_duration_seconds",
            "Duration of one queue writer batch (decide, append, answer; a draw included)",
            metrics.batch_seconds.clone(),
        );
        registry.register(
            "seathold_queue_draw_duration_seconds",
            "Duration of a queue writer batch that drew the pre-queue (decide, append, answer)",
            metrics.draw_seconds.clone(),
        );
        registry.register("seathold_queue_places", "Places in a show's waiting room", metrics.places.clone());
        registry.register(
            "seathold_queue_admitted",
            "Places a show's waiting room has admitted",
            metrics.admitted.clone(),
        );
        metrics
    }
}
