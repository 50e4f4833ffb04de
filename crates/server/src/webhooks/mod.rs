//! The edge's side of signed webhooks: the admin body's checks
//! (`input.rs`) and reqwest's transport (`transport.rs`). The delivery
//! worker is the core's (`seathold_core::webhooks`).

pub mod input;
pub mod transport;

use std::sync::Arc;

use anyhow::Context;

use crate::state::AppState;
use seathold_core::randomness::SharedRandomness;
use seathold_core::webhooks::transport::Transport;
use seathold_core::webhooks::{Deliveries, WebhookSettings};

/// Starts sending the deliveries of `state`'s store over HTTP.
pub fn start(state: &AppState, settings: WebhookSettings) -> anyhow::Result<Deliveries> {
    let http = transport::Http::new().context("building the webhook client")?;
    start_with(state, settings, Arc::new(http), Arc::clone(&state.randomness))
}

/// Starts sending them over `transport`, with retries' jitter from
/// `randomness` (the simulator's receiver and seed).
pub fn start_with(
    state: &AppState,
    settings: WebhookSettings,
    transport: Arc<dyn Transport>,
    randomness: SharedRandomness,
) -> anyhow::Result<Deliveries> {
    Deliveries::start(
        Arc::clone(&state.store),
        Arc::clone(&state.clock),
        Arc::clone(&state.edge_metrics.webhooks),
        settings,
        transport,
        randomness,
    )
}
