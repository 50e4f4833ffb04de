//! The expiry sweep: works through the durable outbox in bounded batches.
//!
//! Correctness never waits for it (every decision treats a past deadline as
//! gone); it records expiries, emits their events and runs what must happen
//! at a deadline, at least once. An entry whose deadline is no longer the
//! hold's stored one (extended, confirmed, released) does nothing.

use std::sync::Arc;
use std::time::Duration;

use crate::clock::{Clock, SharedClock};
use crate::engine::{Engines, Expiry};
use crate::store::Store;

/// Outbox entries handled per round; a full round goes again at once. Small
/// rounds let customers' requests in between, so a wave of expiries does not
/// stall holds.
const BATCH: usize = 100;

/// Runs forever, one round every `interval` (sooner while there is a backlog).
pub async fn run(store: Arc<dyn Store>, engines: Arc<Engines>, clock: SharedClock, interval: Duration) {
    loop {
        match round(store.as_ref(), &engines, clock.as_ref()).await {
            Ok(handled) if handled == BATCH => continue,
            Ok(_) => {}
            Err(error) => tracing::error!(error = ?error, "expiry sweep failed; retrying next round"),
        }
        tokio::time::sleep(interval).await;
    }
}

/// Handles up to one batch of due outbox entries; returns how many.
pub async fn round(store: &dyn Store, engines: &Engines, clock: &dyn Clock) -> anyhow::Result<usize> {
    let now = clock.now();
    let due = store.due_expiries(now, BATCH).await?;
    let mut expiring = Vec::with_capacity(due.len());
    for entry in &due {
        if let Some(show) = engines.show(&entry.show_id).await? {
            expiring.push(async move { (entry.seq, show.expire(entry.clone()).await) });
        }
    }
    // All at once, so each show's writer decides and commits them together.
    let mut finished = Vec::with_capacity(due.len());
    for (seq, expired) in futures_util::future::join_all(expiring).await {
        // A writer whose instant is behind this clock keeps its entry for later.
        if expired?.value != Expiry::NotYetDue {
            finished.push(seq);
        }
    }
    // Only now, after every expiry is durable: a crash before this line runs
    // the entries again, and they find nothing left to do.
    if !finished.is_empty() {
        store.finish_expiries(finished, now).await?;
    }
    Ok(due.len())
}
