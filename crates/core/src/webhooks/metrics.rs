//! What `/metrics` says about webhook deliveries.

use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

/// Deliveries acknowledged, attempts that failed, events parked, and how
/// far acknowledgements trail the commits they report.
pub struct WebhookMetrics {
    pub sent: Counter,
    pub failed: Counter,
    pub parked: Counter,
    pub lag: Histogram,
}

impl WebhookMetrics {
    pub fn register(registry: &mut Registry) -> Self {
        // 1 ms … ~9 min.
        let lag = Histogram::new(exponential_buckets(0.001, 2.0, 20));
        let metrics = Self { sent: Counter::default(), failed: Counter::default(), parked: Counter::default(), lag };
        for (name, help, counter) in [
            ("seathold_webhook_deliveries_sent", "Webhook deliveries acknowledged (a 2xx answer)", &metrics.sent),
            (
                "seathold_webhook_deliveries_failed",
                "Webhook delivery attempts not acknowledged (another status, no answer in time, no connection)",
                &metrics.failed,
            ),
            (
                "seathold_webhook_deliveries_parked",
                "Webhook events given up on after the retry period",
                &metrics.parked,
            ),
        ] {
            registry.register(name, help, counter.clone());
        }
        registry.register(
            "seathold_webhook_lag_seconds",
            "From a transition's decision to its delivery's acknowledgement",
            metrics.lag.clone(),
        );
        metrics
    }
}
