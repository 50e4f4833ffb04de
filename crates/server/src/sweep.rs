//! The expiry sweep: works through the durable outbox in bounded batches.
//!
//! Correctness never waits for it (every decision treats a past deadline as
//! gone); it records expiries, emits their events and runs what must happen
//! at a deadline, at least once. An entry whose deadline is no longer the
//! hold's stored one (extended, confirmed, released) does nothing.

use std::sync::Arc;
use std::time::Duration;

use crate::clock::Clock;
use crate::engine::Engines;
use crate::store::Store;

/// Outbox entries handled per round; a full round goes again at once.
const BATCH: usize = 500;

/// Runs forever, one round every `interval` (sooner while there is a backlog).
pub async fn run(store: Arc<dyn Store>, engines: Arc<Engines>, clock: Clock, interval: Duration) {
    loop {
        match round(store.as_ref(), &engines, clock).await {
            Ok(handled) if handled == BATCH => continue,
            Ok(_) => {}
            Err(error) => tracing::error!(error = ?error, "expiry sweep failed; retrying next round"),
        }
        tokio::time::sleep(interval).await;
    }
}

/// Handles up to one batch of due outbox entries; returns how many.
pub async fn round(store: &dyn Store, engines: &Engines, clock: Clock) -> anyhow::Result<usize> {
    let now = clock.now();
    let due = store.due_expiries(now, BATCH).await?;
    let mut stale = Vec::new();
    let mut expiring = Vec::with_capacity(due.len());
    for entry in &due {
        match engines.show(&entry.show_id).await? {
            Some(show) => expiring.push(async move { (entry, show.expire(entry.clone(), now).await) }),
            None => stale.push(entry.idempotency_key.clone()),
        }
    }
    // All at once, so each show's writer commits them together.
    for (entry, expired) in futures_util::future::join_all(expiring).await {
        // An applied expiry marks its entry done in the same transaction.
        if !expired? {
            stale.push(entry.idempotency_key.clone());
        }
    }
    if !stale.is_empty() {
        store.finish_expiries(stale, now).await?;
    }
    Ok(due.len())
}
