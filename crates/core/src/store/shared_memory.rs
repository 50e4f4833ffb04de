//! The in-memory store as several processes would share a database: each
//! show's batch holds that show's lock (as PostgreSQL's advisory lock),
//! decides at the store's clock (as the database's), and hands the writer
//! the entries other "processes" committed after its version. The simulator
//! runs several engines over one of these to check the multi-process
//! protocol deterministically.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use tokio::sync::{OwnedMutexGuard, broadcast};

use seat_state::wire::ShowSummary;
use seat_state::{Hold, HoldId, HolderId, QueueEntry, ServerMillis, Show};

use super::{
    Batch, Checkpoint, CommitError, CreateShow, DueExpiry, LoadedHolds, MemoryStore, QueueBatch, SessionSeen, Store,
    Transition,
};
use crate::clock::SharedClock;

/// Clones share the data, the locks, the clock and the hints.
#[derive(Clone)]
pub struct SharedMemoryStore {
    data: MemoryStore,
    clock: SharedClock,
    locks: Arc<Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>>,
    hints: broadcast::Sender<Arc<str>>,
}

impl SharedMemoryStore {
    pub fn new(clock: SharedClock) -> Self {
        Self { data: MemoryStore::default(), clock, locks: Arc::default(), hints: broadcast::channel(1024).0 }
    }

    /// `key` is a show id, or [`queue_key`] of one.
    async fn lock_show(&self, key: &str) -> Result<OwnedMutexGuard<()>, CommitError> {
        let lock = {
            let mut locks = self.locks.lock().map_err(|_| anyhow::anyhow!("show locks poisoned"))?;
            Arc::clone(locks.entry(key.to_owned()).or_default())
        };
        Ok(lock.lock_owned().await)
    }
}

/// The lock of a show's queue, apart from its seats' (as PostgreSQL's
/// advisory keys are): a join never waits behind a hold.
fn queue_key(show_id: &str) -> String {
    format!("{show_id}\0queue")
}

/// A queue batch under its show's queue lock.
struct SharedQueueBatch<'a> {
    store: &'a SharedMemoryStore,
    show_id: &'a str,
    _lock: OwnedMutexGuard<()>,
    now: ServerMillis,
    missed: Vec<QueueEntry>,
}

#[async_trait]
impl QueueBatch for SharedQueueBatch<'_> {
    fn now(&self) -> Option<ServerMillis> {
        Some(self.now)
    }

    fn take_missed(&mut self) -> Vec<QueueEntry> {
        std::mem::take(&mut self.missed)
    }

    async fn append(self: Box<Self>, entries: Vec<QueueEntry>) -> Result<(), CommitError> {
        if entries.is_empty() {
            return Ok(());
        }
        self.store.data.append_queue(self.show_id, entries).await
    }
}

/// A batch under its show's lock.
struct SharedBatch<'a> {
    store: &'a SharedMemoryStore,
    show_id: &'a str,
    _lock: OwnedMutexGuard<()>,
    now: ServerMillis,
    missed: Vec<Transition>,
}

#[async_trait]
impl Batch for SharedBatch<'_> {
    fn now(&self) -> Option<ServerMillis> {
        Some(self.now)
    }

    fn take_missed(&mut self) -> Vec<Transition> {
        std::mem::take(&mut self.missed)
    }

    async fn commit(self: Box<Self>, transitions: Arc<[Transition]>) -> Result<(), CommitError> {
        if transitions.is_empty() {
            return Ok(());
        }
        self.store.data.commit(self.show_id, transitions).await?;
        drop(self.store.hints.send(Arc::from(self.show_id)));
        Ok(())
    }
}

#[async_trait]
impl Store for SharedMemoryStore {
    fn shared(&self) -> bool {
        true
    }

    async fn begin_batch<'a>(&'a self, show_id: &'a str, version: i64) -> Result<Box<dyn Batch + 'a>, CommitError> {
        let lock = self.lock_show(show_id).await?;
        let missed = self.data.journal(show_id, version).await?;
        let loaded = self.data.load_holds(show_id).await?;
        let clock = self.clock.now();
        let now = loaded.latest_at.map_or(clock, |latest| latest.max(clock));
        Ok(Box::new(SharedBatch { store: self, show_id, _lock: lock, now, missed }))
    }

    async fn begin_queue<'a>(
        &'a self,
        show_id: &'a str,
        after_seq: u64,
    ) -> Result<Box<dyn QueueBatch + 'a>, CommitError> {
        let lock = self.lock_show(&queue_key(show_id)).await?;
        let missed = self.data.queue_log(show_id, after_seq).await?;
        Ok(Box::new(SharedQueueBatch { store: self, show_id, _lock: lock, now: self.clock.now(), missed }))
    }

    fn changes(&self) -> Option<broadcast::Receiver<Arc<str>>> {
        Some(self.hints.subscribe())
    }

    async fn clock(&self) -> anyhow::Result<Option<ServerMillis>> {
        Ok(Some(self.clock.now()))
    }

    async fn ping(&self) -> anyhow::Result<()> {
        self.data.ping().await
    }

    async fn create_show(&self, show: &Show, now: ServerMillis) -> anyhow::Result<CreateShow> {
        self.data.create_show(show, now).await
    }

    async fn list_shows(&self) -> anyhow::Result<Vec<ShowSummary>> {
        self.data.list_shows().await
    }

    async fn show(&self, show_id: &str) -> anyhow::Result<Option<Show>> {
        self.data.show(show_id).await
    }

    async fn create_session(&self, token_sha256: &str, holder_id: &str, now: ServerMillis) -> anyhow::Result<()> {
        self.data.create_session(token_sha256, holder_id, now).await
    }

    async fn session_holder(&self, token_sha256: &str) -> anyhow::Result<Option<SessionSeen>> {
        self.data.session_holder(token_sha256).await
    }

    async fn touch_session(&self, token_sha256: &str, now: ServerMillis) -> anyhow::Result<()> {
        self.data.touch_session(token_sha256, now).await
    }

    async fn load_holds(&self, show_id: &str) -> anyhow::Result<LoadedHolds> {
        self.data.load_holds(show_id).await
    }

    async fn hold_at(&self, show_id: &str, hold: &HoldId, version: i64) -> anyhow::Result<Option<Hold>> {
        self.data.hold_at(show_id, hold, version).await
    }

    async fn save_checkpoint(&self, show_id: &str, checkpoint: &Checkpoint) -> anyhow::Result<()> {
        self.data.save_checkpoint(show_id, checkpoint).await
    }

    async fn journal(&self, show_id: &str, after_version: i64) -> anyhow::Result<Vec<Transition>> {
        self.data.journal(show_id, after_version).await
    }

    async fn hold_show(&self, hold: &HoldId) -> anyhow::Result<Option<String>> {
        self.data.hold_show(hold).await
    }

    async fn holder_holds(&self, holder: &HolderId) -> anyhow::Result<Vec<(String, HoldId)>> {
        self.data.holder_holds(holder).await
    }

    async fn commit(&self, show_id: &str, transitions: Arc<[Transition]>) -> Result<(), CommitError> {
        let Some(first) = transitions.first() else { return Ok(()) };
        self.begin_batch(show_id, first.version - 1).await?.commit(transitions).await
    }

    async fn due_expiries(&self, now: ServerMillis, limit: usize) -> anyhow::Result<Vec<DueExpiry>> {
        self.data.due_expiries(now, limit).await
    }

    async fn finish_expiries(&self, seqs: Vec<i64>, now: ServerMillis) -> anyhow::Result<()> {
        self.data.finish_expiries(seqs, now).await
    }

    async fn queue_log(&self, show_id: &str, after_seq: u64) -> anyhow::Result<Vec<seat_state::QueueEntry>> {
        self.data.queue_log(show_id, after_seq).await
    }

    async fn append_queue(&self, show_id: &str, entries: Vec<seat_state::QueueEntry>) -> Result<(), CommitError> {
        self.data.append_queue(show_id, entries).await
    }
}

super::webhooks::delegate_webhook_store!(SharedMemoryStore, data);
