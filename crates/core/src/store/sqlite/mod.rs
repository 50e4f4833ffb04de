//! The embedded SQLite store.
//!
//! One writer connection behind a mutex, used from blocking threads: SQLite
//! runs one writer at a time anyway, and every decision is one transaction.
//! Reads (sessions, journals, the outbox) use reader connections, so they
//! never queue behind a commit; a checkpointer thread keeps WAL checkpoints
//! out of commits (`connections`).

use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};

use anyhow::Context;
use async_trait::async_trait;
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

use seat_state::wire::{ShowInput, ShowSummary};
use seat_state::{ServerMillis, Show};

use super::{
    Checkpoint, CommitError, CreateShow, DueExpiry, Durable, LoadedHolds, SessionSeen, Store, Transition, durable_now,
};
use seat_state::{Hold, HoldId, HolderId};

mod connections;
mod flush;
mod holds;
mod lock;
mod migrations;
mod queue;
mod webhooks;

/// When SQLite waits for the disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// Every commit reaches the disk before it is acknowledged: nothing
    /// acknowledged is lost, even on power loss.
    Full,
    /// Commits reach the OS at once and the disk at checkpoints: nothing is
    /// lost when the process dies (`kill -9`); a power cut may lose the last
    /// commits, never consistency.
    Normal,
}

impl Durability {
    fn pragma(self) -> &'static str {
        match self {
            Self::Full => "FULL",
            Self::Normal => "NORMAL",
        }
    }
}

/// A SQLite database file in WAL mode.
#[derive(Clone)]
pub struct SqliteStore {
    writer: Arc<Mutex<Connection>>,
    /// `None` for a private (`:memory:`) database: the writer reads too.
    readers: Option<Arc<connections::Readers>>,
    _checkpointer: Option<Arc<connections::Checkpointer>>,
    /// At `synchronous=full` on a file: the writer commits without waiting
    /// for the disk and this flushes the WAL for many commits at once.
    flush: Option<Arc<flush::WalFlush>>,
    /// One process per file: held while any clone of the store lives.
    _process_lock: Arc<lock::ProcessLock>,
    /// Store calls run on the calling thread (the simulator's; see
    /// [`SqliteStore::open_for_simulation`]).
    inline: bool,
}

impl SqliteStore {
    /// Opens (creating if needed) and migrates the database at `path`.
    pub async fn open(path: impl AsRef<Path>) -> anyhow::Result<Self> {
        Self::open_with(path, Durability::Full).await
    }

    /// Opens with a chosen durability.
    pub async fn open_with(path: impl AsRef<Path>, sync: Durability) -> anyhow::Result<Self> {
        let path = path.as_ref().to_owned();
        tokio::task::spawn_blocking(move || {
            let process_lock = lock::acquire(&path)?;
            let private = connections::is_private(&path);
            let flush = (sync == Durability::Full && !private).then(|| Arc::new(flush::WalFlush::new(&path)));
            let mut writer = connections::open(&path, if flush.is_some() { Durability::Normal } else { sync })?;
            connections::shrink_cache_for_commits(&writer)?;
            migrations::all().to_latest(&mut writer).context("migrating the SQLite database")?;
            let (readers, checkpointer) = if private {
                (None, None)
            } else {
                (
                    Some(Arc::new(connections::Readers::open(&path, sync)?)),
                    Some(Arc::new(connections::Checkpointer::start(&path, sync)?)),
                )
            };
            Ok(Self {
                writer: Arc::new(Mutex::new(writer)),
                readers,
                _checkpointer: checkpointer,
                flush,
                _process_lock: Arc::new(process_lock),
                inline: false,
            })
        })
        .await?
    }

    /// For the deterministic simulator only: every store call runs on the
    /// calling thread, then yields once, instead of on a blocking thread.
    /// With a blocking thread, whether an answer is ready at a request's
    /// next poll depends on how the threads were scheduled, and the
    /// simulator drops connections after a seeded number of polls: runs of
    /// one seed diverged. Blocks the runtime thread: never for serving.
    pub async fn open_for_simulation(path: impl AsRef<Path>) -> anyhow::Result<Self> {
        Ok(Self { inline: true, ..Self::open(path).await? })
    }

    /// Runs `work` on the writer connection on a blocking thread; returns
    /// once what it wrote is on disk.
    async fn with<T: Send + 'static>(
        &self,
        work: impl FnOnce(&mut Connection) -> anyhow::Result<T> + Send + 'static,
    ) -> anyhow::Result<T> {
        let (writer, flush) = (Arc::clone(&self.writer), self.flush.clone());
        off_runtime(self.inline, move || {
            let (value, ticket) = write(&writer, flush.as_deref(), work)?;
            if let (Some(flush), Some(ticket)) = (flush, ticket) {
                flush.wait_durable(ticket).context("flushing the SQLite WAL")?;
            }
            Ok(value)
        })
        .await
    }

    /// Runs `work` on the writer connection without waiting for the disk:
    /// for writes whose loss costs nothing but a repeat.
    async fn with_unflushed<T: Send + 'static>(
        &self,
        work: impl FnOnce(&mut Connection) -> anyhow::Result<T> + Send + 'static,
    ) -> anyhow::Result<T> {
        let writer = Arc::clone(&self.writer);
        off_runtime(self.inline, move || work(&mut *lock_writer(&writer)?)).await
    }

    /// Runs `work` in one read transaction (one snapshot) on a reader.
    async fn read<T: Send + 'static>(
        &self,
        work: impl FnOnce(&Connection) -> anyhow::Result<T> + Send + 'static,
    ) -> anyhow::Result<T> {
        let (writer, readers) = (Arc::clone(&self.writer), self.readers.clone());
        off_runtime(self.inline, move || {
            let mut connection = match &readers {
                Some(readers) => readers.take()?,
                None => lock_writer(&writer)?,
            };
            let snapshot = connection.transaction()?;
            let value = work(&snapshot)?;
            snapshot.commit()?;
            Ok(value)
        })
        .await
    }
}

/// Runs `work` on a blocking thread, or, `inline` (the simulator), on this
/// one followed by one yield: the pause where the blocking thread's await was.
async fn off_runtime<T: Send + 'static>(
    inline: bool,
    work: impl FnOnce() -> anyhow::Result<T> + Send + 'static,
) -> anyhow::Result<T> {
    if inline {
        let value = work();
        tokio::task::yield_now().await;
        return value;
    }
    tokio::task::spawn_blocking(work).await?
}

/// Runs `work` holding the writer, and takes its flush ticket before
/// letting go, so tickets follow commit order.
fn write<T, E: From<anyhow::Error>>(
    writer: &Mutex<Connection>,
    flush: Option<&flush::WalFlush>,
    work: impl FnOnce(&mut Connection) -> Result<T, E>,
) -> Result<(T, Option<u64>), E> {
    let mut connection = lock_writer(writer)?;
    let value = work(&mut connection)?;
    Ok((value, flush.map(flush::WalFlush::written)))
}

fn lock_writer(writer: &Mutex<Connection>) -> anyhow::Result<MutexGuard<'_, Connection>> {
    writer.lock().map_err(|_| anyhow::anyhow!("SQLite connection lock poisoned"))
}

fn load_show(connection: &Connection, show_id: &str) -> anyhow::Result<Option<Show>> {
    let definition: Option<String> = connection
        .query_row("SELECT definition FROM show_definitions WHERE show_id = ?1", [show_id], |row| row.get(0))
        .optional()?;
    definition
        .map(|json| {
            let input: ShowInput = serde_json::from_str(&json)?;
            Show::parse(&input).with_context(|| format!("stored show {show_id} no longer validates"))
        })
        .transpose()
}

#[async_trait]
impl Store for SqliteStore {
    async fn ping(&self) -> anyhow::Result<()> {
        self.read(|connection| Ok(connection.query_row("SELECT 1", [], |_| Ok(()))?)).await
    }

    async fn create_show(&self, show: &Show, now: ServerMillis) -> anyhow::Result<CreateShow> {
        let show = show.clone();
        self.with(move |connection| {
            let transaction = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
            if let Some(existing) = load_show(&transaction, show.id.as_str())? {
                return Ok(if existing == show { CreateShow::AlreadyThere } else { CreateShow::Conflict });
            }
            let definition = serde_json::to_string(&show.to_wire())?;
            transaction.execute(
                "INSERT INTO shows (id, name, seat_count, area_count, version, created_at) VALUES (?1, ?2, ?3, ?4, 0, ?5)",
                params![show.id.as_str(), show.name, show.seats.len(), show.areas.len(), now.0],
            )?;
            transaction.execute(
                "INSERT INTO show_definitions (show_id, definition) VALUES (?1, ?2)",
                params![show.id.as_str(), definition],
            )?;
            transaction.commit()?;
            Ok(CreateShow::Created)
        })
        .await
    }

    async fn list_shows(&self) -> anyhow::Result<Vec<ShowSummary>> {
        self.read(|connection| {
            let mut statement =
                connection.prepare("SELECT id, name, seat_count, area_count FROM shows ORDER BY created_at, id")?;
            let rows = statement.query_map([], |row| {
                Ok(ShowSummary { id: row.get(0)?, name: row.get(1)?, seat_count: row.get(2)?, area_count: row.get(3)? })
            })?;
            Ok(rows.collect::<Result<_, _>>()?)
        })
        .await
    }

    async fn show(&self, show_id: &str) -> anyhow::Result<Option<Show>> {
        let show_id = show_id.to_owned();
        self.read(move |connection| load_show(connection, &show_id)).await
    }

    async fn create_session(&self, token_sha256: &str, holder_id: &str, now: ServerMillis) -> anyhow::Result<()> {
        let (hash, holder) = (token_sha256.to_owned(), holder_id.to_owned());
        self.with(move |connection| {
            connection.execute(
                "INSERT INTO sessions (token_sha256, holder_id, created_at, last_seen_at) VALUES (?1, ?2, ?3, ?3)",
                params![hash, holder, now.0],
            )?;
            Ok(())
        })
        .await
    }

    async fn session_holder(&self, token_sha256: &str) -> anyhow::Result<Option<SessionSeen>> {
        let hash = token_sha256.to_owned();
        self.read(move |connection| {
            Ok(connection
                .query_row("SELECT holder_id, last_seen_at FROM sessions WHERE token_sha256 = ?1", [hash], |row| {
                    Ok(SessionSeen { holder: row.get(0)?, last_seen_at: ServerMillis(row.get(1)?) })
                })
                .optional()?)
        })
        .await
    }

    async fn touch_session(&self, token_sha256: &str, now: ServerMillis) -> anyhow::Result<()> {
        let hash = token_sha256.to_owned();
        self.with(move |connection| {
            connection.execute(
                "UPDATE sessions SET last_seen_at = ?2 WHERE token_sha256 = ?1 AND last_seen_at < ?2",
                params![hash, now.0],
            )?;
            Ok(())
        })
        .await
    }

    async fn load_holds(&self, show_id: &str) -> anyhow::Result<LoadedHolds> {
        let show_id = show_id.to_owned();
        self.read(move |connection| holds::load(connection, &show_id)).await
    }

    async fn hold_at(&self, show_id: &str, hold: &HoldId, version: i64) -> anyhow::Result<Option<Hold>> {
        let (show_id, hold) = (show_id.to_owned(), hold.to_string());
        self.read(move |connection| holds::hold_at(connection, &show_id, &hold, version)).await
    }

    async fn holds_at(&self, show_id: &str, holds: &[HoldId], version: i64) -> anyhow::Result<Vec<Hold>> {
        // One read for the batch's ids: each is an index probe.
        let (show_id, holds) = (show_id.to_owned(), holds.to_vec());
        self.read(move |connection| {
            holds
                .iter()
                .filter_map(|hold| holds::hold_at(connection, &show_id, hold.as_str(), version).transpose())
                .collect()
        })
        .await
    }

    async fn save_checkpoint(&self, show_id: &str, checkpoint: &Checkpoint) -> anyhow::Result<()> {
        // Encoded before the writer is taken: commits never wait for it.
        let (show_id, version, json) = (show_id.to_owned(), checkpoint.version, checkpoint.encode()?);
        self.with(move |connection| holds::save_checkpoint(connection, &show_id, version, &json)).await
    }

    async fn journal(&self, show_id: &str, after_version: i64) -> anyhow::Result<Vec<Transition>> {
        let show_id = show_id.to_owned();
        self.read(move |connection| holds::journal(connection, &show_id, after_version)).await
    }

    async fn hold_show(&self, hold: &HoldId) -> anyhow::Result<Option<String>> {
        let hold = hold.to_string();
        self.read(move |connection| holds::hold_show(connection, &hold)).await
    }

    async fn holder_holds(&self, holder: &HolderId) -> anyhow::Result<Vec<(String, HoldId)>> {
        let holder = holder.to_string();
        self.read(move |connection| holds::holder_holds(connection, &holder)).await
    }

    async fn commit(&self, show_id: &str, transitions: Arc<[Transition]>) -> Result<(), CommitError> {
        self.commit_written(show_id, transitions).await?.await
    }

    async fn commit_written(&self, show_id: &str, transitions: Arc<[Transition]>) -> Result<Durable, CommitError> {
        let show_id = show_id.to_owned();
        let (writer, flush) = (Arc::clone(&self.writer), self.flush.clone());
        let ticket = off_runtime(self.inline, move || {
            Ok(write(&writer, flush.as_deref(), |connection| holds::commit(connection, &show_id, &transitions)))
        })
        .await
        .map_err(CommitError::Failed)??
        .1;
        let (Some(flush), Some(ticket)) = (self.flush.clone(), ticket) else { return Ok(durable_now()) };
        let inline = self.inline;
        Ok(Box::pin(async move {
            off_runtime(inline, move || flush.wait_durable(ticket).context("flushing the SQLite WAL"))
                .await
                .map_err(CommitError::Failed)
        }))
    }

    async fn due_expiries(&self, now: ServerMillis, limit: usize) -> anyhow::Result<Vec<DueExpiry>> {
        self.read(move |connection| {
            let mut statement = connection.prepare_cached(
                "SELECT seq, show_id, hold_id, deadline FROM outbox
                 WHERE done_at IS NULL AND deadline <= ?1 ORDER BY deadline LIMIT ?2",
            )?;
            let rows = statement.query_map(params![now.0, limit], |row| {
                Ok((row.get::<_, i64>(0)?, row.get::<_, String>(1)?, row.get::<_, String>(2)?, row.get::<_, i64>(3)?))
            })?;
            rows.map(|row| {
                let (seq, show_id, hold_id, deadline) = row?;
                Ok(DueExpiry {
                    seq,
                    idempotency_key: format!("expire:{hold_id}:{deadline}"),
                    show_id,
                    hold_id: HoldId::parse(&hold_id)?,
                    deadline: ServerMillis(deadline),
                })
            })
            .collect()
        })
        .await
    }

    async fn finish_expiries(&self, seqs: Vec<i64>, now: ServerMillis) -> anyhow::Result<()> {
        // A lost mark costs only a rerun that finds nothing to do: no flush
        // of its own (the next commit's carries it).
        self.with_unflushed(move |connection| mark_done(connection, &seqs, now)).await
    }

    async fn queue_log(&self, show_id: &str, after_seq: u64) -> anyhow::Result<Vec<seat_state::QueueEntry>> {
        let show_id = show_id.to_owned();
        self.read(move |connection| queue::log(connection, &show_id, after_seq)).await
    }

    async fn append_queue(&self, show_id: &str, entries: Vec<seat_state::QueueEntry>) -> Result<(), CommitError> {
        let show_id = show_id.to_owned();
        let stale = CommitError::Stale(format!("the queue of {show_id} moved on"));
        let appended = self.with(move |connection| queue::append(connection, &show_id, &entries)).await?;
        if appended { Ok(()) } else { Err(stale) }
    }
}

fn mark_done(connection: &mut Connection, seqs: &[i64], now: ServerMillis) -> anyhow::Result<()> {
    let transaction = connection.transaction()?;
    {
        let mut finish =
            transaction.prepare_cached("UPDATE outbox SET done_at = ?2 WHERE seq = ?1 AND done_at IS NULL")?;
        for seq in seqs {
            finish.execute(params![seq, now.0])?;
        }
    }
    transaction.commit()?;
    Ok(())
}
