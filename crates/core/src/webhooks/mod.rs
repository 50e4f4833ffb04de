//! Signed webhooks (API.md "Box office (v3)"): every committed transition
//! of a kind a webhook subscribes to is POSTed to it, signed, in version
//! order per show, retried until acknowledged, or parked once the retry
//! period (24 hours by default) is up.
//!
//! The show's journal is the record of what to send: a commit writes
//! nothing for webhooks, and a receiver that is down, slow or failing
//! costs the sale nothing. The sender (`sender.rs`) reads the journal
//! after each lane's cursor (`store::webhooks`), which only moves once the
//! receiver acknowledged (or the event was parked), so a restart resumes
//! where deliveries stood. A webhook gets the events committed after its
//! creation.

pub mod metrics;
mod payload;
pub mod retry;
mod sender;
pub mod sign;
pub mod transport;

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;

use crate::clock::SharedClock;
use crate::randomness::{Randomness, SharedRandomness};
use crate::store::Store;
use metrics::WebhookMetrics;
use transport::Transport;

/// How deliveries are made; API.md's schedule by default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WebhookSettings {
    /// The longest one POST may take, connecting included.
    pub timeout: Duration,
    /// The wait before the first retry (then doubled): 1 s (API.md: at most 2 s).
    pub first_retry: Duration,
    /// How long an event is retried before it is parked: 24 hours.
    pub give_up: Duration,
    /// How often the sender looks for due deliveries.
    pub poll: Duration,
}

impl Default for WebhookSettings {
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(10),
            first_retry: Duration::from_secs(1),
            give_up: Duration::from_secs(24 * 3600),
            poll: Duration::from_millis(100),
        }
    }
}

/// The running sender; it stops when this is dropped.
pub struct Deliveries {
    task: Option<tokio::task::JoinHandle<()>>,
}

impl Drop for Deliveries {
    fn drop(&mut self) {
        if let Some(task) = &self.task {
            task.abort();
        }
    }
}

impl Deliveries {
    /// Starts sending the deliveries `store` keeps over `transport`, with
    /// retries' jitter and the sender's name from `randomness`.
    pub fn start(
        store: Arc<dyn Store>,
        clock: SharedClock,
        metrics: Arc<WebhookMetrics>,
        settings: WebhookSettings,
        transport: Arc<dyn Transport>,
        randomness: SharedRandomness,
    ) -> anyhow::Result<Self> {
        let sender = sender::Sender {
            store,
            clock,
            metrics,
            settings,
            transport,
            owner: owner_name(&*randomness)?,
            randomness,
            places: payload::PlacesCache::default(),
        };
        Ok(Self { task: Some(tokio::spawn(Arc::new(sender).run())) })
    }

    /// Stops the sender and waits until it has (an attempt under way is
    /// dropped; its event goes again).
    pub async fn stop(mut self) {
        if let Some(task) = self.task.take() {
            task.abort();
            let _ = task.await;
        }
    }
}

/// A sender's name on its leases: 64 random bits from the injected source,
/// so two processes never share one, after the process id, which tells an
/// operator whose lease a lane is (so a seed does not replay the name).
fn owner_name(randomness: &dyn Randomness) -> anyhow::Result<String> {
    let mut bytes = [0u8; 8];
    crate::randomness::fill(randomness, &mut bytes).context("no randomness for the sender's name")?;
    Ok(format!("sender-{}-{}", std::process::id(), hex::encode(bytes)))
}
