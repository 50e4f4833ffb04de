//! Storage: the only place that knows SQL.
//!
//! `Store` is what the routes need; each engine implements it, and one
//! conformance suite (`tests/store_conformance/`) runs against every one.

mod checkpoint;
#[cfg(feature = "testkit")]
mod faulty;
mod journal;
#[cfg(test)]
mod journal_before_conditions;
mod memory;
mod postgres;
mod queue_batch;
mod queue_log;
#[cfg(feature = "testkit")]
mod shared_memory;
mod sqlite;
mod webhooks;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use async_trait::async_trait;

use seat_state::wire::ShowSummary;
use seat_state::{Change, Hold, HoldId, HolderId, QueueEntry, Retired, SeatId, ServerMillis, Show};

pub use checkpoint::Checkpoint;
#[cfg(feature = "testkit")]
pub use faulty::{CommitFault, Faults, FaultyStore};
pub use journal::hold_from;
pub use memory::MemoryStore;

pub use postgres::PostgresStore;
#[cfg(any(test, feature = "testkit"))]
pub use postgres::test_database::fresh_test_database;
pub use queue_batch::{LocalQueueBatch, QueueBatch};
#[cfg(feature = "testkit")]
pub use shared_memory::SharedMemoryStore;
pub use sqlite::{Durability, SqliteStore};
pub use webhooks::{Attempt, DeliveryTally, EventKind, Lane, LaneStep, Webhook, WebhookStore};

/// What creating a show did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CreateShow {
    /// The show is new.
    Created,
    /// The very same show already existed; nothing changed.
    AlreadyThere,
    /// A different show has this id; nothing changed.
    Conflict,
}

/// One decided change of a hold, ready to be written with its consequences;
/// once written, an entry of the show's journal (read back as written).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transition {
    pub change: Change,
    /// Whose hold it is (for the audit log).
    pub holder: HolderId,
    /// The server instant it was decided at: the conditions are checked at it.
    pub at: ServerMillis,
    /// The show's version once it is applied.
    pub version: i64,
}

/// An outbox entry whose deadline has come.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DueExpiry {
    /// The entry, for marking it done.
    pub seq: i64,
    pub show_id: String,
    pub hold_id: HoldId,
    pub deadline: ServerMillis,
    /// Names the side effects of this expiry, so each happens at most once downstream.
    pub idempotency_key: String,
}

/// A show's holds as storage has them: what a writer starts (or restarts)
/// from, by [`LoadedHolds::replay`].
#[derive(Debug, Clone, Default)]
pub struct LoadedHolds {
    /// The show's version: how many transitions its journal has.
    pub version: i64,
    /// The holds at `from_checkpoint`, oldest first: the checkpoint's, and
    /// the evicted ones `journal` changes.
    pub holds: Vec<Hold>,
    /// The seats blocked at `from_checkpoint`.
    pub blocked: Vec<SeatId>,
    /// The journal after `from_checkpoint`, oldest first.
    pub journal: Vec<Transition>,
    /// The latest instant any of its transitions was decided at: the show's
    /// writer never decides earlier, even if the clock stepped back.
    pub latest_at: Option<ServerMillis>,
    /// Sales of holds evicted before the checkpoint the load started from:
    /// `holds` has only the holds that can still change (and recent ones).
    pub retired: Retired,
    /// The version of the checkpoint the load started from (0: none).
    pub from_checkpoint: i64,
}

/// A session's holder and when a request last used it, as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionSeen {
    pub holder: String,
    pub last_seen_at: ServerMillis,
}

/// Why a batch of transitions was not written. In every case nothing was.
#[derive(Debug, thiserror::Error)]
pub enum CommitError {
    /// The show is no longer at the version the decisions were made at:
    /// another writer committed first.
    #[error("a condition no longer holds: {0}")]
    Stale(String),
    /// A new hold's id already names a hold of another show.
    #[error("hold id {0} is taken by another show")]
    HoldIdTaken(HoldId),
    /// Storage failed (I/O, disk full, a broken connection).
    #[error(transparent)]
    Failed(#[from] anyhow::Error),
}

/// Resolves once a written batch is on disk; until then nothing about it
/// may be acknowledged. An error means the disk may have dropped it.
pub type Durable = Pin<Box<dyn Future<Output = Result<(), CommitError>> + Send>>;

/// A batch that was durable when its write returned.
pub fn durable_now() -> Durable {
    Box::pin(std::future::ready(Ok(())))
}

/// One show's batch in the making: opened before its writer decides,
/// committed after. For a store several processes share, it is a
/// transaction that holds the show's write lock from `begin_batch` to
/// `commit`, so decisions stay single-writer per show across processes.
#[async_trait]
pub trait Batch: Send {
    /// The instant to decide at, from the store's own clock (the database's),
    /// never below the show's latest stored instant; `None`: the process's
    /// clock decides.
    fn now(&self) -> Option<ServerMillis>;
    /// Entries other processes committed after the writer's version, oldest
    /// first: the writer applies them before it decides.
    fn take_missed(&mut self) -> Vec<Transition>;
    /// Writes the transitions as [`Store::commit`] does and ends the batch.
    async fn commit(self: Box<Self>, transitions: Arc<[Transition]>) -> Result<(), CommitError>;
    /// Writes as [`Batch::commit`] does, but may return before the write is
    /// on disk, so the writer can decide its next batch meanwhile.
    async fn commit_written(self: Box<Self>, transitions: Arc<[Transition]>) -> Result<Durable, CommitError> {
        self.commit(transitions).await.map(|()| durable_now())
    }
}

/// The batch of a store only this process writes: nothing to lock, nothing
/// missed, the process's clock decides.
pub struct LocalBatch<'a, S: ?Sized> {
    store: &'a S,
    show_id: &'a str,
}

impl<'a, S: ?Sized> LocalBatch<'a, S> {
    pub fn new(store: &'a S, show_id: &'a str) -> Self {
        Self { store, show_id }
    }
}

#[async_trait]
impl<S: Store + ?Sized> Batch for LocalBatch<'_, S> {
    fn now(&self) -> Option<ServerMillis> {
        None
    }

    fn take_missed(&mut self) -> Vec<Transition> {
        Vec::new()
    }

    async fn commit(self: Box<Self>, transitions: Arc<[Transition]>) -> Result<(), CommitError> {
        if transitions.is_empty() {
            return Ok(());
        }
        self.store.commit(self.show_id, transitions).await
    }

    async fn commit_written(self: Box<Self>, transitions: Arc<[Transition]>) -> Result<Durable, CommitError> {
        if transitions.is_empty() {
            return Ok(durable_now());
        }
        self.store.commit_written(self.show_id, transitions).await
    }
}

/// A durable home for shows, seats and holds (and the webhooks that
/// deliver their journals: [`WebhookStore`]).
#[async_trait]
pub trait Store: WebhookStore + Send + Sync + 'static {
    /// Whether other processes write the same shows. A shared store is the
    /// index of record (holds, holders) and the source of what others did.
    fn shared(&self) -> bool {
        false
    }
    /// Opens a batch of one show for a writer at `version`.
    async fn begin_batch<'a>(&'a self, show_id: &'a str, _version: i64) -> Result<Box<dyn Batch + 'a>, CommitError> {
        Ok(Box::new(LocalBatch::new(self, show_id)))
    }
    /// Hints that shows changed in other processes (their ids), for live
    /// viewers; `None` when nobody else writes. A hint may be lost: the
    /// journal is the source, hints only wake.
    fn changes(&self) -> Option<tokio::sync::broadcast::Receiver<Arc<str>>> {
        None
    }
    /// The store's clock, when it has one that decides (the database's).
    async fn clock(&self) -> anyhow::Result<Option<ServerMillis>> {
        Ok(None)
    }
    /// Fails when the store cannot answer.
    async fn ping(&self) -> anyhow::Result<()>;
    /// Creates a show unless one with its id exists (atomically).
    async fn create_show(&self, show: &Show, now: ServerMillis) -> anyhow::Result<CreateShow>;
    /// Every show, oldest first.
    async fn list_shows(&self) -> anyhow::Result<Vec<ShowSummary>>;
    /// One show's definition.
    async fn show(&self, show_id: &str) -> anyhow::Result<Option<Show>>;
    /// Records a session: the hash of its token and its public holder id.
    async fn create_session(&self, token_sha256: &str, holder_id: &str, now: ServerMillis) -> anyhow::Result<()>;
    /// The holder id of the session whose token has this hash.
    async fn session_holder(&self, token_sha256: &str) -> anyhow::Result<Option<SessionSeen>>;
    /// Records that a session was used at `now` (its last-seen instant
    /// never moves back).
    async fn touch_session(&self, token_sha256: &str, now: ServerMillis) -> anyhow::Result<()>;
    /// A show's version, every hold it has and its latest decision instant.
    async fn load_holds(&self, show_id: &str) -> anyhow::Result<LoadedHolds>;
    /// The show a hold id belongs to: the index of record.
    async fn hold_show(&self, hold: &HoldId) -> anyhow::Result<Option<String>>;
    /// A holder's holds across shows, newest first, as `(show id, hold id)`.
    async fn holder_holds(&self, holder: &HolderId) -> anyhow::Result<Vec<(String, HoldId)>>;
    /// One hold as the show's journal up to `version` makes it: how a writer
    /// gets back a hold it evicted. `None` if the show has no such hold then.
    async fn hold_at(&self, show_id: &str, hold: &HoldId, version: i64) -> anyhow::Result<Option<Hold>>;
    /// [`Store::hold_at`] for several holds; the show's unknown ids are left out.
    async fn holds_at(&self, show_id: &str, holds: &[HoldId], version: i64) -> anyhow::Result<Vec<Hold>> {
        let mut found = Vec::with_capacity(holds.len());
        for hold in holds {
            found.extend(self.hold_at(show_id, hold, version).await?);
        }
        Ok(found)
    }
    /// Keeps `checkpoint` as the show's latest (unless a newer one is kept),
    /// so later loads replay only the journal after it. Its version must be
    /// durable in the journal already.
    async fn save_checkpoint(&self, show_id: &str, checkpoint: &Checkpoint) -> anyhow::Result<()>;
    /// A show's journal entries after `after_version`, oldest first.
    async fn journal(&self, show_id: &str, after_version: i64) -> anyhow::Result<Vec<Transition>>;
    /// Writes consecutive transitions of one show all or nothing, conditional
    /// on the show still being at the version before the first, with their
    /// journal (audit) entries and outbox entries. A new hold's id must be
    /// unique across shows (a constraint, checked in the same transaction).
    /// Shared, not copied: the writer keeps the batch while the store writes it.
    async fn commit(&self, show_id: &str, transitions: Arc<[Transition]>) -> Result<(), CommitError>;
    /// Writes as [`Store::commit`] does, but may return once the write is
    /// visible to every later read and before it is on disk: the
    /// [`Durable`] resolves when it is. Durable writes come in commit order.
    async fn commit_written(&self, show_id: &str, transitions: Arc<[Transition]>) -> Result<Durable, CommitError> {
        self.commit(show_id, transitions).await.map(|()| durable_now())
    }
    /// Outbox entries due at `now`, oldest deadline first, at most `limit`.
    async fn due_expiries(&self, now: ServerMillis, limit: usize) -> anyhow::Result<Vec<DueExpiry>>;
    /// Marks outbox entries done (their expiry happened, or was stale).
    async fn finish_expiries(&self, seqs: Vec<i64>, now: ServerMillis) -> anyhow::Result<()>;
    /// A show's queue log after entry `after_seq`, oldest first.
    async fn queue_log(&self, show_id: &str, after_seq: u64) -> anyhow::Result<Vec<QueueEntry>>;
    /// Opens a batch of one show's queue for a writer that has applied the
    /// log through `after_seq`.
    async fn begin_queue<'a>(
        &'a self,
        show_id: &'a str,
        _after_seq: u64,
    ) -> Result<Box<dyn QueueBatch + 'a>, CommitError> {
        Ok(Box::new(LocalQueueBatch::new(self, show_id)))
    }
    /// Appends entries to a show's queue log, all or nothing, durably. They
    /// must continue the log: `CommitError::Stale` when another writer
    /// appended first (nothing is written then).
    async fn append_queue(&self, show_id: &str, entries: Vec<QueueEntry>) -> Result<(), CommitError>;
}

/// Opens the store a `--database` URL names, migrated to the current schema.
///
/// `postgres://USER@HOST:PORT/DB` is shared by any number of processes.
/// `sqlite:PATH` syncs every commit to disk (safe against power loss);
/// `sqlite:PATH?synchronous=normal` syncs only at checkpoints (safe against
/// a crash of the process, faster).
pub async fn open(url: &str) -> anyhow::Result<std::sync::Arc<dyn Store>> {
    if let Some(rest) = url.strip_prefix("sqlite://").or_else(|| url.strip_prefix("sqlite:")) {
        let (path, sync) = match rest.split_once('?') {
            None => (rest, Durability::Full),
            Some((path, "synchronous=full")) => (path, Durability::Full),
            Some((path, "synchronous=normal")) => (path, Durability::Normal),
            Some((_, query)) => anyhow::bail!("unsupported SQLite option {query:?}: expected synchronous=full|normal"),
        };
        return Ok(std::sync::Arc::new(SqliteStore::open_with(path, sync).await?));
    }
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        return Ok(std::sync::Arc::new(PostgresStore::open(url).await?));
    }
    anyhow::bail!("unsupported --database {url:?}: expected sqlite:PATH or postgres://USER@HOST:PORT/DB")
}
