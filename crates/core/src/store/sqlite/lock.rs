//! One process per SQLite file: the store holds an exclusive OS lock on
//! `<database>.lock` for as long as it lives.
//!
//! Decisions are single-writer per show only because one process owns the
//! file; a second process would decide from its own memory and sell what the
//! first sold. SQLite's own locks cannot say so (they serialise transactions,
//! not processes), so a sidecar file carries an `flock`-style lock
//! (`File::try_lock`). The OS drops it when the process dies, `kill -9`
//! included, so a crash never leaves a stale lock behind; the file itself
//! stays (deleting lock files races with the next process taking them).
//!
//! The lock belongs to one open file: a second `SqliteStore` on the same
//! path is refused within one process too.

use std::ffi::OsString;
use std::fs::{File, OpenOptions, TryLockError};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The held lock; released when the last clone of the store drops (or the
/// process dies).
#[derive(Debug)]
pub(super) struct ProcessLock {
    /// `None` for `:memory:` databases, which no other process can open.
    _file: Option<File>,
}

/// `<database>.lock`, beside the database file.
fn lock_path(database: &Path) -> PathBuf {
    let mut name = OsString::from(database.as_os_str());
    name.push(".lock");
    PathBuf::from(name)
}

/// Takes the lock for `database`, or says which process has it.
pub(super) fn acquire(database: &Path) -> anyhow::Result<ProcessLock> {
    if database.as_os_str().is_empty() || database.as_os_str() == ":memory:" {
        return Ok(ProcessLock { _file: None });
    }
    let path = lock_path(database);
    let mut file = OpenOptions::new().read(true).write(true).create(true).truncate(false).open(&path).map_err(|e| {
        anyhow::anyhow!("opening the lock file {} of SQLite database {}: {e}", path.display(), database.display())
    })?;
    match file.try_lock() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => {
            let holder = std::fs::read_to_string(&path)
                .ok()
                .and_then(|text| text.trim().parse::<u32>().ok())
                .map_or_else(String::new, |pid| format!("pid {pid}, "));
            anyhow::bail!(
                "the SQLite database {} is already in use by another seathold process ({holder}lock file {}); \
                 one process per SQLite file — use postgres:// for several",
                database.display(),
                path.display()
            );
        }
        Err(TryLockError::Error(e)) => {
            anyhow::bail!("locking {} for SQLite database {}: {e}", path.display(), database.display())
        }
    }
    // Who holds it, for the next process's message; the lock does not depend on it.
    let _ = file.set_len(0).and_then(|()| writeln!(file, "{}", std::process::id()));
    Ok(ProcessLock { _file: Some(file) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_on_one_database_is_refused_until_the_first_goes() -> anyhow::Result<()> {
        let dir = tempfile::tempdir()?;
        let database = dir.path().join("one.db");
        let first = acquire(&database)?;
        let error = acquire(&database).expect_err("a second lock on the same file").to_string();
        assert!(error.contains("is already in use by another seathold process"), "{error}");
        assert!(error.contains(&format!("pid {}", std::process::id())), "{error}");
        assert!(error.contains(&format!("{}.lock", database.display())), "{error}");
        drop(first);
        acquire(&database)?;
        acquire(&dir.path().join("other.db"))?;
        Ok(())
    }
}
