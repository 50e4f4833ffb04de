//! The SQLite connections a store keeps apart so they never wait on each
//! other: one writer (every transaction that writes), a few readers (WAL
//! lets them read the latest commit while the writer writes), and a
//! checkpointer thread that moves the WAL into the database file off the
//! writer's path.
//!
//! SQLite's automatic checkpoint runs inside the commit that crosses its
//! threshold: that commit (and every request in its batch) waits for the
//! copy and, at `synchronous=normal` or `full`, for two more disk flushes.
//! Here the writer never checkpoints; the checkpointer does, as soon as the
//! WAL has grown, without blocking the writer (`PASSIVE`).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

use anyhow::Context;
use rusqlite::Connection;

use super::Durability;

/// Readers per store: one per core here, so a session lookup or a journal
/// read never queues behind another.
const READERS: usize = 2;

/// How often the checkpointer copies the WAL back: often enough that the
/// WAL stays a few MiB under a sale's writes, seldom enough that its two
/// disk flushes per round stay few beside the writer's.
const CHECKPOINT_EVERY: Duration = Duration::from_millis(100);

/// Bytes per database page for new databases.
const PAGE_SIZE: i64 = 1024;

/// Opens one connection with the store's settings.
pub(super) fn open(path: &Path, sync: Durability) -> anyhow::Result<Connection> {
    let connection = Connection::open(path).with_context(|| format!("opening SQLite database {}", path.display()))?;
    // Before the first table exists (a no-op later): small pages, because a
    // commit writes every page it dirtied to the WAL whole, and a batch of
    // holds dirties one leaf per random key (holder index, client ids).
    connection.pragma_update(None, "page_size", PAGE_SIZE)?;
    connection.pragma_update(None, "journal_mode", "WAL")?;
    connection.pragma_update(None, "synchronous", sync.pragma())?;
    connection.pragma_update(None, "foreign_keys", "ON")?;
    // The checkpointer thread checkpoints; no commit ever does.
    connection.pragma_update(None, "wal_autocheckpoint", 0)?;
    // 8 MiB of page cache: the hot index pages stay in memory.
    connection.pragma_update(None, "cache_size", -8192)?;
    connection.busy_timeout(Duration::from_secs(5))?;
    connection.set_prepared_statement_cache_capacity(64);
    Ok(connection)
}

/// The writer's page cache: 2 MiB. SQLite walks a connection's whole page
/// cache at every commit (`pcache1TruncateUnsafe`, measured at 6.4 % of the
/// server's CPU with 8 MiB in a churn sale, 2.6 % with 2 MiB); the pages a
/// commit needs that do not fit stay in the OS's cache.
pub(super) fn shrink_cache_for_commits(writer: &Connection) -> anyhow::Result<()> {
    writer.pragma_update(None, "cache_size", -2048)?;
    Ok(())
}

/// `:memory:` (or an empty path) is private to one connection: the writer
/// must then do everything itself.
pub(super) fn is_private(path: &Path) -> bool {
    path.as_os_str().is_empty() || path.as_os_str() == ":memory:"
}

/// Connections that only read.
pub(super) struct Readers {
    connections: Vec<Mutex<Connection>>,
    next: AtomicUsize,
}

impl Readers {
    pub(super) fn open(path: &Path, sync: Durability) -> anyhow::Result<Self> {
        let connections = (0..READERS).map(|_| open(path, sync).map(Mutex::new)).collect::<anyhow::Result<_>>()?;
        Ok(Self { connections, next: AtomicUsize::new(0) })
    }

    /// A free reader if there is one, else the next in turn.
    pub(super) fn take(&self) -> anyhow::Result<MutexGuard<'_, Connection>> {
        if let Some(free) = self.connections.iter().find_map(|connection| connection.try_lock().ok()) {
            return Ok(free);
        }
        let turn = self.next.fetch_add(1, Ordering::Relaxed) % self.connections.len();
        self.connections[turn].lock().map_err(|_| anyhow::anyhow!("SQLite reader lock poisoned"))
    }
}

/// The checkpointer thread; stopped (and joined) on drop.
pub(super) struct Checkpointer {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Checkpointer {
    pub(super) fn start(path: &Path, sync: Durability) -> anyhow::Result<Self> {
        let connection = open(path, sync)?;
        let stop = Arc::new(AtomicBool::new(false));
        let stopping = Arc::clone(&stop);
        let path: PathBuf = path.to_owned();
        let thread = std::thread::Builder::new()
            .name("sqlite-checkpoint".into())
            .spawn(move || {
                while !stopping.load(Ordering::Relaxed) {
                    if let Err(error) = checkpoint(&connection) {
                        tracing::warn!(database = %path.display(), %error, "WAL checkpoint failed; retrying");
                    }
                    std::thread::sleep(CHECKPOINT_EVERY);
                }
            })
            .context("starting the SQLite checkpointer")?;
        Ok(Self { stop, thread: Some(thread) })
    }
}

impl Drop for Checkpointer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Copies the WAL back into the database. A `PASSIVE` checkpoint never
/// waits for the writer, and with nothing new it returns at once; once
/// everything is copied, the writer's next commit starts the WAL over.
fn checkpoint(connection: &Connection) -> rusqlite::Result<()> {
    connection.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()))
}
