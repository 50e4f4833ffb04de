//! What a show's writer keeps: settled holds leave memory a while after they
//! settle, a checkpoint is written every so many versions, and a hold that
//! left is recalled from storage when a request or another process's entry
//! names it. Memory and start-up then follow the holds that can still hold
//! places, not the show's history.

use std::collections::{HashSet, VecDeque};

use seat_state::{Change, HoldId, ServerMillis};

use crate::store::{Checkpoint, Transition};

use super::actor::ShowActor;
use super::commands::{Read, Write};

/// How long settled holds stay and how often checkpoints are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retention {
    /// A confirmed, released or expired hold stays in memory this long
    /// after it settled (answers to retries and reads need no storage).
    pub keep_settled_ms: i64,
    /// A checkpoint is written once the show moved this many versions on.
    pub checkpoint_every: i64,
}

impl Default for Retention {
    fn default() -> Self {
        Self { keep_settled_ms: 10_000, checkpoint_every: 20_000 }
    }
}

/// Settled holds in the order they settled (instants never go back per show).
#[derive(Debug, Default)]
pub struct Settled {
    queue: VecDeque<(ServerMillis, HoldId)>,
    /// The version of the latest checkpoint written (or loaded from).
    pub checkpointed: i64,
}

impl Settled {
    pub fn push(&mut self, at: ServerMillis, hold: HoldId) {
        self.queue.push_back((at, hold));
    }

    /// Holds settled at or before `before`, taken off the queue.
    fn due(&mut self, before: ServerMillis) -> Vec<HoldId> {
        let mut due = Vec::new();
        while self.queue.front().is_some_and(|(at, _)| *at <= before) {
            due.extend(self.queue.pop_front().map(|(_, hold)| hold));
        }
        due
    }
}

/// The hold a change settles, if it settles one.
pub fn settles(change: &Change) -> Option<&HoldId> {
    match change {
        Change::Confirmed { hold, .. } | Change::Released { hold, .. } | Change::Expired { hold, .. } => Some(hold),
        Change::Created { .. } | Change::Extended { .. } | Change::Blocked { .. } | Change::Unblocked { .. } => None,
    }
}

/// Hold ids a batch of writes names, a create's own id included: a late
/// retry of a hold that left memory must be answered as a replay, not
/// decided as a new hold (which could be refused for its seats). Stores
/// read them in one go (`Store::holds_at`).
pub fn named_by_writes(writes: &[Write]) -> Vec<HoldId> {
    writes
        .iter()
        .filter_map(|write| match write {
            Write::Create { body, .. } => body.body.hold_id.as_deref().and_then(|raw| HoldId::parse(raw).ok()),
            Write::Act { hold, .. } => Some(hold.clone()),
            Write::Expire { due, .. } => Some(due.hold_id.clone()),
            Write::Block { .. } => None,
        })
        .collect()
}

/// Hold ids reads name.
pub fn named_by_reads(reads: &[Read]) -> Vec<HoldId> {
    reads
        .iter()
        .filter_map(|read| match read {
            Read::Hold { hold, .. } => Some(hold.clone()),
            Read::HeldSince { .. } | Read::SoldOut { .. } | Read::Version { .. } | Read::Operator { .. } => None,
        })
        .collect()
}

/// Hold ids entries change without creating them.
pub fn named_by_entries(entries: &[Transition]) -> Vec<HoldId> {
    let created: HashSet<&HoldId> = entries
        .iter()
        .filter_map(|entry| match &entry.change {
            Change::Created { hold } => Some(&hold.id),
            _ => None,
        })
        .collect();
    entries.iter().filter_map(|entry| entry.change.hold_id().cloned()).filter(|id| !created.contains(id)).collect()
}

impl ShowActor {
    /// Brings back holds that left memory, as storage has them at the
    /// writer's version. Ids the show never had stay unknown.
    pub(super) async fn recall(&mut self, ids: Vec<HoldId>) -> anyhow::Result<()> {
        let mut missing: Vec<HoldId> = ids.into_iter().filter(|id| self.state.hold(id).is_none()).collect();
        missing.sort();
        missing.dedup();
        if missing.is_empty() {
            return Ok(());
        }
        let holds = self.store.holds_at(&self.show_id, &missing, self.state.version()).await?;
        self.metrics.holds_recalled.inc_by(holds.len() as u64);
        for hold in holds {
            self.settled.push(self.latest, hold.id.clone());
            self.state.recall(hold);
        }
        Ok(())
    }

    /// After a durable batch: its settled holds queue up, and those settled
    /// longer ago than the retention leave memory (and the index).
    pub(super) fn retire(&mut self, changes: impl Iterator<Item = (ServerMillis, HoldId)>) {
        for (at, hold) in changes {
            self.settled.push(at, hold);
        }
        // The clock, not only the latest decision: after a restart the
        // journal's latest instant can be long ago.
        let now = self.clock_now().max(self.latest);
        let before = ServerMillis(now.0.saturating_sub(self.retention.keep_settled_ms));
        let evicted: Vec<HoldId> = self.settled.due(before).into_iter().filter(|hold| self.state.evict(hold)).collect();
        if evicted.is_empty() {
            return;
        }
        self.metrics.holds_evicted.inc_by(evicted.len() as u64);
        if let Err(error) = self.index.forget(&self.show_id, &evicted) {
            tracing::error!(show = %self.show_id, %error, "cannot drop evicted holds from the index");
        }
    }

    /// Right after a load (the state is what storage has): settled holds
    /// long gone leave at once, and a load that replayed a long journal
    /// writes a checkpoint, so the next one does not.
    pub(super) fn after_load(&mut self) {
        self.retire(std::iter::empty());
        if let Some(checkpoint) = self.due_checkpoint() {
            self.save_checkpoint(checkpoint);
        }
    }

    /// A checkpoint of the state as decided now, when one is due; it may be
    /// saved only once this version is durable.
    pub(super) fn due_checkpoint(&mut self) -> Option<Checkpoint> {
        let version = self.state.version();
        if version - self.settled.checkpointed < self.retention.checkpoint_every {
            return None;
        }
        self.settled.checkpointed = version;
        Some(Checkpoint {
            version,
            latest_at: Some(self.latest),
            holds: self.state.checkpoint_holds(),
            blocked: self.state.blocked_seats().cloned().collect(),
            retired: self.state.sales(),
        })
    }

    /// Saves a checkpoint whose version is durable, off the writer's path.
    pub(super) fn save_checkpoint(&self, checkpoint: Checkpoint) {
        let (store, show_id, metrics) = (self.store.clone(), self.show_id.clone(), self.metrics.clone());
        tokio::spawn(async move {
            match store.save_checkpoint(&show_id, &checkpoint).await {
                Ok(()) => drop(metrics.checkpoints.inc()),
                Err(error) => tracing::warn!(show = %show_id, %error, "saving a checkpoint failed"),
            }
        });
    }
}
