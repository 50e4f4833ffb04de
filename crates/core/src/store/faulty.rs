//! A store that fails when told to: for tests and the simulator, which must
//! see how the engine behaves when storage breaks mid-sale.

use std::sync::{Arc, Mutex};

use async_trait::async_trait;

use seat_state::wire::ShowSummary;
use seat_state::{Hold, HoldId, HolderId, ServerMillis, Show};

mod webhooks;

use super::{
    Batch, Checkpoint, CommitError, CreateShow, DueExpiry, Durable, LoadedHolds, LocalBatch, SessionSeen, Store,
    Transition,
};

/// Polls a written batch takes to become durable: long enough for the
/// writer to take, decide and write its next batch meanwhile.
const FLUSH_POLLS: usize = 3;

/// How the next commit goes wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommitFault {
    /// Nothing is written and the commit reports a failure.
    Lost,
    /// Everything is written, yet the commit reports a failure (the answer
    /// was lost on the way back): the caller cannot tell from the error.
    Ambiguous,
}

/// Faults waiting to happen, each used up by the call it breaks.
#[derive(Debug, Default, Clone)]
pub struct Faults {
    pub commits: Vec<CommitFault>,
    /// How many of the next `load_holds` calls fail.
    pub loads: usize,
    /// How the next webhook lane steps go wrong.
    pub lane_steps: Vec<CommitFault>,
    /// How many of the next journal pages read for webhooks fail.
    pub journal_pages: usize,
}

/// Wraps a store; clones share the faults.
#[derive(Clone)]
pub struct FaultyStore {
    inner: Arc<dyn Store>,
    faults: Arc<Mutex<Faults>>,
}

impl FaultyStore {
    pub fn new(inner: Arc<dyn Store>) -> Self {
        Self { inner, faults: Arc::default() }
    }

    /// Makes the next commit fail this way (after any already planned).
    pub fn fail_commit(&self, fault: CommitFault) {
        if let Ok(mut faults) = self.faults.lock() {
            faults.commits.push(fault);
        }
    }

    /// Makes the next `count` loads of a show's holds fail.
    pub fn fail_loads(&self, count: usize) {
        if let Ok(mut faults) = self.faults.lock() {
            faults.loads += count;
        }
    }

    /// Makes the next webhook lane step fail this way (after any already planned).
    pub fn fail_lane_step(&self, fault: CommitFault) {
        if let Ok(mut faults) = self.faults.lock() {
            faults.lane_steps.push(fault);
        }
    }

    /// Makes the next `count` journal pages read for webhooks fail.
    pub fn fail_journal_pages(&self, count: usize) {
        if let Ok(mut faults) = self.faults.lock() {
            faults.journal_pages += count;
        }
    }

    /// Forgets every planned fault.
    pub fn heal(&self) {
        if let Ok(mut faults) = self.faults.lock() {
            *faults = Faults::default();
        }
    }

    fn next_commit_fault(&self) -> Option<CommitFault> {
        let mut faults = self.faults.lock().ok()?;
        (!faults.commits.is_empty()).then(|| faults.commits.remove(0))
    }

    fn next_load_fails(&self) -> bool {
        self.faults.lock().is_ok_and(|mut faults| {
            let fail = faults.loads > 0;
            faults.loads = faults.loads.saturating_sub(1);
            fail
        })
    }
}

/// A shared store's batch whose commit may fail as planned.
struct FaultyBatch<'a> {
    inner: Box<dyn Batch + 'a>,
    faults: &'a FaultyStore,
}

#[async_trait]
impl Batch for FaultyBatch<'_> {
    fn now(&self) -> Option<ServerMillis> {
        self.inner.now()
    }

    fn take_missed(&mut self) -> Vec<super::Transition> {
        self.inner.take_missed()
    }

    async fn commit(self: Box<Self>, transitions: Arc<[Transition]>) -> Result<(), CommitError> {
        if transitions.is_empty() {
            return self.inner.commit(transitions).await;
        }
        match self.faults.next_commit_fault() {
            None => self.inner.commit(transitions).await,
            // Dropped uncommitted: nothing is written.
            Some(CommitFault::Lost) => Err(anyhow::anyhow!("injected fault: commit lost").into()),
            Some(CommitFault::Ambiguous) => {
                self.inner.commit(transitions).await?;
                Err(anyhow::anyhow!("injected fault: commit written, answer lost").into())
            }
        }
    }
}

#[async_trait]
impl Store for FaultyStore {
    fn shared(&self) -> bool {
        self.inner.shared()
    }

    /// A local store's batches go through [`Store::commit`] here; a shared
    /// store's are its own, with the planned fault applied at their commit.
    async fn begin_batch<'a>(&'a self, show_id: &'a str, version: i64) -> Result<Box<dyn Batch + 'a>, CommitError> {
        if !self.inner.shared() {
            return Ok(Box::new(LocalBatch::new(self, show_id)));
        }
        let inner = self.inner.begin_batch(show_id, version).await?;
        Ok(Box::new(FaultyBatch { inner, faults: self }))
    }

    /// The queue's writes are not faulted: its batch is the inner store's.
    async fn begin_queue<'a>(
        &'a self,
        show_id: &'a str,
        after_seq: u64,
    ) -> Result<Box<dyn super::QueueBatch + 'a>, CommitError> {
        self.inner.begin_queue(show_id, after_seq).await
    }

    fn changes(&self) -> Option<tokio::sync::broadcast::Receiver<Arc<str>>> {
        self.inner.changes()
    }

    async fn clock(&self) -> anyhow::Result<Option<ServerMillis>> {
        self.inner.clock().await
    }

    async fn ping(&self) -> anyhow::Result<()> {
        self.inner.ping().await
    }

    async fn create_show(&self, show: &Show, now: ServerMillis) -> anyhow::Result<CreateShow> {
        self.inner.create_show(show, now).await
    }

    async fn list_shows(&self) -> anyhow::Result<Vec<ShowSummary>> {
        self.inner.list_shows().await
    }

    async fn show(&self, show_id: &str) -> anyhow::Result<Option<Show>> {
        self.inner.show(show_id).await
    }

    async fn create_session(&self, token_sha256: &str, holder_id: &str, now: ServerMillis) -> anyhow::Result<()> {
        self.inner.create_session(token_sha256, holder_id, now).await
    }

    async fn session_holder(&self, token_sha256: &str) -> anyhow::Result<Option<SessionSeen>> {
        self.inner.session_holder(token_sha256).await
    }

    async fn touch_session(&self, token_sha256: &str, now: ServerMillis) -> anyhow::Result<()> {
        self.inner.touch_session(token_sha256, now).await
    }

    async fn load_holds(&self, show_id: &str) -> anyhow::Result<LoadedHolds> {
        if self.next_load_fails() {
            anyhow::bail!("injected fault: loading {show_id} failed");
        }
        self.inner.load_holds(show_id).await
    }

    async fn hold_at(&self, show_id: &str, hold: &HoldId, version: i64) -> anyhow::Result<Option<Hold>> {
        self.inner.hold_at(show_id, hold, version).await
    }

    async fn save_checkpoint(&self, show_id: &str, checkpoint: &Checkpoint) -> anyhow::Result<()> {
        self.inner.save_checkpoint(show_id, checkpoint).await
    }

    async fn journal(&self, show_id: &str, after_version: i64) -> anyhow::Result<Vec<Transition>> {
        self.inner.journal(show_id, after_version).await
    }

    async fn hold_show(&self, hold: &HoldId) -> anyhow::Result<Option<String>> {
        self.inner.hold_show(hold).await
    }

    async fn holder_holds(&self, holder: &HolderId) -> anyhow::Result<Vec<(String, HoldId)>> {
        self.inner.holder_holds(holder).await
    }

    async fn commit(&self, show_id: &str, transitions: Arc<[Transition]>) -> Result<(), CommitError> {
        match self.next_commit_fault() {
            None => self.inner.commit(show_id, transitions).await,
            Some(CommitFault::Lost) => Err(anyhow::anyhow!("injected fault: commit lost").into()),
            Some(CommitFault::Ambiguous) => {
                self.inner.commit(show_id, transitions).await?;
                Err(anyhow::anyhow!("injected fault: commit written, answer lost").into())
            }
        }
    }

    /// The inner store's early answer, with its flush a few polls later, so
    /// the writer's next batch is decided while this one is still in flight.
    async fn commit_written(&self, show_id: &str, transitions: Arc<[Transition]>) -> Result<Durable, CommitError> {
        match self.next_commit_fault() {
            None => {
                let durable = self.inner.commit_written(show_id, transitions).await?;
                Ok(Box::pin(async move {
                    for _ in 0..FLUSH_POLLS {
                        tokio::task::yield_now().await;
                    }
                    durable.await
                }))
            }
            Some(CommitFault::Lost) => Err(anyhow::anyhow!("injected fault: commit lost").into()),
            Some(CommitFault::Ambiguous) => {
                self.inner.commit(show_id, transitions).await?;
                Err(anyhow::anyhow!("injected fault: commit written, answer lost").into())
            }
        }
    }

    async fn due_expiries(&self, now: ServerMillis, limit: usize) -> anyhow::Result<Vec<DueExpiry>> {
        self.inner.due_expiries(now, limit).await
    }

    async fn finish_expiries(&self, seqs: Vec<i64>, now: ServerMillis) -> anyhow::Result<()> {
        self.inner.finish_expiries(seqs, now).await
    }

    async fn queue_log(&self, show_id: &str, after_seq: u64) -> anyhow::Result<Vec<seat_state::QueueEntry>> {
        self.inner.queue_log(show_id, after_seq).await
    }

    async fn append_queue(&self, show_id: &str, entries: Vec<seat_state::QueueEntry>) -> Result<(), CommitError> {
        self.inner.append_queue(show_id, entries).await
    }
}
