//! What `/metrics` says about GRIP publishes.

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

/// Why publish items were dropped.
#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
pub struct Dropped {
    /// `full`: the proxy's queue was full (the publisher fell behind);
    /// `failed`: every attempt to publish them failed.
    pub reason: &'static str,
}

/// Where a GRIP hold's viewer started from.
#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
pub struct HoldFrom {
    /// `start` (no resume point), `last_event_id` (a viewer reconnecting),
    /// or `grip_last` (the proxy asking after a missed publish, or after
    /// it subscribed, or when the stream was quiet for a while).
    pub from: &'static str,
}

/// Streams held by a proxy, items published (acknowledged by a proxy),
/// items dropped, failed attempts, and how long a publish request takes.
pub struct GripMetrics {
    pub holds: Family<HoldFrom, Counter>,
    pub published: Counter,
    pub dropped: Family<Dropped, Counter>,
    pub failed_attempts: Counter,
    pub duration: Histogram,
}

impl GripMetrics {
    pub fn register(registry: &mut Registry) -> Self {
        // 0.1 ms … ~3 s.
        let metrics = Self {
            holds: Family::default(),
            published: Counter::default(),
            dropped: Family::default(),
            failed_attempts: Counter::default(),
            duration: Histogram::new(exponential_buckets(0.0001, 2.0, 16)),
        };
        registry.register(
            "seathold_grip_holds",
            "Live-stream requests answered with a GRIP hold, by where the viewer started from",
            metrics.holds.clone(),
        );
        registry.register(
            "seathold_grip_items_published",
            "GRIP publish items (one per frame, form and proxy) a proxy acknowledged",
            metrics.published.clone(),
        );
        registry.register(
            "seathold_grip_items_dropped",
            "GRIP publish items dropped: the queue to a proxy was full, or every attempt failed",
            metrics.dropped.clone(),
        );
        registry.register(
            "seathold_grip_publish_failures",
            "GRIP publish requests that failed (each is retried)",
            metrics.failed_attempts.clone(),
        );
        registry.register(
            "seathold_grip_publish_duration_seconds",
            "One GRIP publish request, sent to acknowledged",
            metrics.duration.clone(),
        );
        metrics
    }
}
