//! Group commit across batches: at `synchronous=full` the writer commits
//! without waiting for the disk (SQLite's `NORMAL`), and a batch is
//! acknowledged only once a flush of the WAL that began after its commit has
//! finished. While one flush runs, the writer commits the next batches; the
//! next flush covers all of them at once.
//!
//! Why this is as safe as SQLite's `FULL`: a commit appends its frames to
//! the WAL, and `fdatasync` on the WAL file (any descriptor of it) makes
//! every frame written before the call durable. Recovery replays the WAL up
//! to its last complete commit, so a crash or power cut loses only batches
//! nobody was told about. SQLite flushes the WAL itself before every
//! checkpoint, so frames never reach the database file unflushed. The WAL
//! file lives as long as the store's connections do (SQLite removes it only
//! when the last one closes).

use std::fs::File;
use std::path::PathBuf;
use std::sync::{Condvar, Mutex, MutexGuard};

/// The flusher of one database's WAL.
pub(super) struct WalFlush {
    wal: PathBuf,
    file: Mutex<Option<File>>,
    state: Mutex<Progress>,
    flushed: Condvar,
}

#[derive(Debug, Default)]
struct Progress {
    /// Commits counted so far (each one's ticket is the count after it).
    written: u64,
    /// Every ticket up to this one is on disk.
    durable: u64,
    /// A flush is running; others wait for it rather than start their own.
    flushing: bool,
}

impl WalFlush {
    /// The flusher of the database at `database` (its WAL is `<database>-wal`).
    pub(super) fn new(database: &std::path::Path) -> Self {
        let mut wal = database.as_os_str().to_owned();
        wal.push("-wal");
        Self {
            wal: wal.into(),
            file: Mutex::new(None),
            state: Mutex::new(Progress::default()),
            flushed: Condvar::new(),
        }
    }

    /// Counts a commit that has just returned; call it while still holding
    /// the writer, so tickets follow commit order. Returns its ticket.
    pub(super) fn written(&self) -> u64 {
        let mut progress = lock(&self.state);
        progress.written += 1;
        progress.written
    }

    /// Blocks until the commit with `ticket` is on disk. One caller flushes
    /// for everyone whose commit came before its flush began.
    pub(super) fn wait_durable(&self, ticket: u64) -> std::io::Result<()> {
        let mut progress = lock(&self.state);
        loop {
            if progress.durable >= ticket {
                return Ok(());
            }
            if progress.flushing {
                progress = self.flushed.wait(progress).unwrap_or_else(std::sync::PoisonError::into_inner);
                continue;
            }
            progress.flushing = true;
            let covers = progress.written;
            drop(progress);
            let outcome = self.flush();
            progress = lock(&self.state);
            progress.flushing = false;
            if outcome.is_ok() {
                progress.durable = progress.durable.max(covers);
            }
            self.flushed.notify_all();
            outcome?;
        }
    }

    fn flush(&self) -> std::io::Result<()> {
        let mut file = lock(&self.file);
        if file.is_none() {
            *file = Some(File::open(&self.wal)?);
        }
        file.as_ref().map_or(Ok(()), File::sync_data)
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // The state stays consistent at every unlock: a panic elsewhere leaves
    // nothing half-done here.
    mutex.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_flush_covers_every_commit_before_it() {
        let dir = tempfile::tempdir().unwrap();
        let database = dir.path().join("flush.db");
        std::fs::write(dir.path().join("flush.db-wal"), b"frames").unwrap();
        let flush = WalFlush::new(&database);
        let (first, second) = (flush.written(), flush.written());
        flush.wait_durable(second).unwrap();
        // The first is covered by the flush the second started.
        flush.wait_durable(first).unwrap();
        assert_eq!(lock(&flush.state).durable, 2);
        assert!(!lock(&flush.state).flushing);
    }

    #[test]
    fn a_failed_flush_makes_nothing_durable() {
        let dir = tempfile::tempdir().unwrap();
        // No WAL file: opening it fails, as a broken disk would.
        let flush = WalFlush::new(&dir.path().join("missing.db"));
        let ticket = flush.written();
        assert!(flush.wait_durable(ticket).is_err());
        assert_eq!(lock(&flush.state).durable, 0);
        assert!(!lock(&flush.state).flushing, "a later caller may try again");
    }
}
