//! The embedded SQLite store.
//!
//! One connection behind a mutex, used from blocking threads: SQLite runs
//! one writer at a time anyway, and every decision is one transaction.

use std::path::Path;
use std::sync::{Arc, Mutex};

use anyhow::Context;
use async_trait::async_trait;
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};
use rusqlite_migration::{M, Migrations};

use seat_state::wire::{ShowInput, ShowSummary};
use seat_state::{ServerMillis, Show};

use super::{CommitError, CreateShow, DueExpiry, JournalEntry, LoadedHolds, Store, Transition};
use seat_state::{HoldId, HolderId};

mod holds;
mod lock;

fn migrations() -> Migrations<'static> {
    Migrations::new(vec![
        M::up(include_str!("../../../migrations/0001_shows.sql")),
        M::up(include_str!("../../../migrations/0002_sessions.sql")),
        M::up(include_str!("../../../migrations/0003_holds.sql")),
        M::up(include_str!("../../../migrations/0004_hold_ids.sql")),
    ])
}

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
    connection: Arc<Mutex<Connection>>,
    /// One process per file: held while any clone of the store lives.
    _process_lock: Arc<lock::ProcessLock>,
}

impl SqliteStore {
    /// Opens (creating if needed) and migrates the database at `path`.
    pub async fn open(path: impl AsRef<Path>) -> anyhow::Result<Self> {
        Self::open_with(path, Durability::Full).await
    }

    /// Opens with a chosen durability.
    pub async fn open_with(path: impl AsRef<Path>, sync: Durability) -> anyhow::Result<Self> {
        // Statements are cached per connection; one writer uses a few dozen.
        let path = path.as_ref().to_owned();
        tokio::task::spawn_blocking(move || {
            let process_lock = lock::acquire(&path)?;
            let mut connection =
                Connection::open(&path).with_context(|| format!("opening SQLite database {}", path.display()))?;
            connection.pragma_update(None, "journal_mode", "WAL")?;
            connection.pragma_update(None, "synchronous", sync.pragma())?;
            connection.pragma_update(None, "foreign_keys", "ON")?;
            // 8 MiB of page cache: the hot index pages stay in memory.
            connection.pragma_update(None, "cache_size", -8192)?;
            connection.busy_timeout(std::time::Duration::from_secs(5))?;
            connection.set_prepared_statement_cache_capacity(64);
            migrations().to_latest(&mut connection).context("migrating the SQLite database")?;
            Ok(Self { connection: Arc::new(Mutex::new(connection)), _process_lock: Arc::new(process_lock) })
        })
        .await?
    }

    /// Runs `work` on the connection on a blocking thread.
    async fn with<T: Send + 'static>(
        &self,
        work: impl FnOnce(&mut Connection) -> anyhow::Result<T> + Send + 'static,
    ) -> anyhow::Result<T> {
        let connection = Arc::clone(&self.connection);
        tokio::task::spawn_blocking(move || {
            let mut guard = connection.lock().map_err(|_| anyhow::anyhow!("SQLite connection lock poisoned"))?;
            work(&mut guard)
        })
        .await?
    }
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
        self.with(|connection| Ok(connection.query_row("SELECT 1", [], |_| Ok(()))?)).await
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
        self.with(|connection| {
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
        self.with(move |connection| load_show(connection, &show_id)).await
    }

    async fn create_session(&self, token_sha256: &str, holder_id: &str, now: ServerMillis) -> anyhow::Result<()> {
        let (hash, holder) = (token_sha256.to_owned(), holder_id.to_owned());
        self.with(move |connection| {
            connection.execute(
                "INSERT INTO sessions (token_sha256, holder_id, created_at) VALUES (?1, ?2, ?3)",
                params![hash, holder, now.0],
            )?;
            Ok(())
        })
        .await
    }

    async fn session_holder(&self, token_sha256: &str) -> anyhow::Result<Option<String>> {
        let hash = token_sha256.to_owned();
        self.with(move |connection| {
            Ok(connection
                .query_row("SELECT holder_id FROM sessions WHERE token_sha256 = ?1", [hash], |row| row.get(0))
                .optional()?)
        })
        .await
    }

    async fn load_holds(&self, show_id: &str) -> anyhow::Result<LoadedHolds> {
        let show_id = show_id.to_owned();
        self.with(move |connection| holds::load(connection, &show_id)).await
    }

    async fn journal(&self, show_id: &str, after_version: i64) -> anyhow::Result<Vec<JournalEntry>> {
        let show_id = show_id.to_owned();
        self.with(move |connection| holds::journal(connection, &show_id, after_version)).await
    }

    async fn hold_show(&self, hold: &HoldId) -> anyhow::Result<Option<String>> {
        let hold = hold.to_string();
        self.with(move |connection| holds::hold_show(connection, &hold)).await
    }

    async fn holder_holds(&self, holder: &HolderId) -> anyhow::Result<Vec<(String, HoldId)>> {
        let holder = holder.to_string();
        self.with(move |connection| holds::holder_holds(connection, &holder)).await
    }

    async fn commit(&self, show_id: &str, transitions: Arc<[Transition]>) -> Result<(), CommitError> {
        let show_id = show_id.to_owned();
        let connection = Arc::clone(&self.connection);
        tokio::task::spawn_blocking(move || {
            let mut guard = connection.lock().map_err(|_| anyhow::anyhow!("SQLite connection lock poisoned"))?;
            holds::commit(&mut guard, &show_id, &transitions)
        })
        .await
        .map_err(|error| CommitError::Failed(error.into()))?
    }

    async fn due_expiries(&self, now: ServerMillis, limit: usize) -> anyhow::Result<Vec<DueExpiry>> {
        self.with(move |connection| {
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
        self.with(move |connection| {
            let transaction = connection.transaction()?;
            {
                let mut finish =
                    transaction.prepare_cached("UPDATE outbox SET done_at = ?2 WHERE seq = ?1 AND done_at IS NULL")?;
                for seq in &seqs {
                    finish.execute(params![seq, now.0])?;
                }
            }
            transaction.commit()?;
            Ok(())
        })
        .await
    }
}
