//! Holds in SQLite as an append-only journal.
//!
//! A batch of decided changes is one transaction, conditional on the show's
//! version: it commits only if the stored version is still the one the
//! decisions were made at (`UPDATE shows … WHERE version = ?`), so a second
//! writer (another process) can never interleave. Holds are rebuilt by
//! replaying the journal; nothing is updated in place, so a commit writes a
//! few appended pages instead of scattered index pages.

use rusqlite::{Connection, OptionalExtension, Transaction, params};

use seat_state::{Change, Hold, HoldId, ServerMillis};

use crate::store::checkpoint::{load_from, missing_holds};
use crate::store::journal::{Row, StoredRow, hold_from, select_journal};
use crate::store::{Checkpoint, CommitError, LoadedHolds, Transition};

/// Runs a statement through the connection's statement cache (parsed once).
fn exec(tx: &Transaction<'_>, sql: &str, params: impl rusqlite::Params) -> Result<usize, CommitError> {
    tx.prepare_cached(sql).and_then(|mut statement| statement.execute(params)).map_err(failed)
}

fn failed(error: impl Into<anyhow::Error>) -> CommitError {
    CommitError::Failed(error.into())
}

/// Writes every transition or none.
pub fn commit(connection: &mut Connection, show_id: &str, transitions: &[Transition]) -> Result<(), CommitError> {
    let (Some(first), Some(last)) = (transitions.first(), transitions.last()) else { return Ok(()) };
    let expected = first.version - 1;
    if transitions.iter().zip(first.version..).any(|(transition, version)| transition.version != version) {
        return Err(CommitError::Stale("transition versions are not consecutive".into()));
    }
    let transaction = connection.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate).map_err(failed)?;
    let changed = exec(
        &transaction,
        "UPDATE shows SET version = ?3 WHERE id = ?1 AND version = ?2",
        params![show_id, expected, last.version],
    )?;
    if changed != 1 {
        return Err(CommitError::Stale(format!("show {show_id} is no longer at version {expected}")));
    }
    for transition in transitions {
        append(&transaction, show_id, transition)?;
    }
    transaction.commit().map_err(failed)
}

fn append(tx: &Transaction<'_>, show_id: &str, transition: &Transition) -> Result<(), CommitError> {
    match &transition.change {
        Change::Created { hold } => {
            claim_hold_id(tx, show_id, hold)?;
            add_outbox(tx, show_id, &hold.id, hold.expires_at)?;
        }
        Change::Extended { hold, to, .. } => add_outbox(tx, show_id, hold, *to)?,
        Change::Confirmed { .. }
        | Change::Released { .. }
        | Change::Expired { .. }
        | Change::Blocked { .. }
        | Change::Unblocked { .. } => {}
    }
    let row = Row::of(&transition.change);
    exec(
        tx,
        "INSERT INTO journal (show_id, version, at, hold_id, holder_id, action, places, expires_at, extensions, late,
                              checked_deadline, checked_status)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
        params![
            show_id,
            transition.version,
            transition.at.0,
            transition.change.hold_id().map(HoldId::as_str),
            transition.holder.as_str(),
            row.action,
            row.places,
            row.expires_at,
            row.extensions,
            row.late,
            row.checked_deadline,
            row.checked_status
        ],
    )?;
    Ok(())
}

/// Takes a hold id for this show; the primary key refuses one another show has.
fn claim_hold_id(tx: &Transaction<'_>, show_id: &str, hold: &Hold) -> Result<(), CommitError> {
    let claimed = tx
        .prepare_cached(
            "INSERT INTO hold_ids (hold_id, show_id, holder_id, created_at, version) VALUES (?1, ?2, ?3, ?4, ?5)",
        )
        .and_then(|mut statement| {
            statement.execute(params![
                hold.id.as_str(),
                show_id,
                hold.holder.as_str(),
                hold.created_at.0,
                hold.created_version
            ])
        });
    match claimed {
        Ok(_) => Ok(()),
        Err(rusqlite::Error::SqliteFailure(error, _))
            if error.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_PRIMARYKEY =>
        {
            Err(CommitError::HoldIdTaken(hold.id.clone()))
        }
        Err(error) => Err(failed(error)),
    }
}

fn add_outbox(tx: &Transaction<'_>, show_id: &str, hold: &HoldId, deadline: ServerMillis) -> Result<(), CommitError> {
    exec(
        tx,
        "INSERT INTO outbox (show_id, hold_id, deadline) VALUES (?1, ?2, ?3)",
        params![show_id, hold.as_str(), deadline.0],
    )?;
    Ok(())
}

/// A show's version and its holds: its latest checkpoint with the journal
/// after it (and the evicted holds that journal changes).
pub fn load(connection: &Connection, show_id: &str) -> anyhow::Result<LoadedHolds> {
    let version = connection.query_row("SELECT version FROM shows WHERE id = ?1", [show_id], |row| row.get(0))?;
    let checkpoint: Option<String> = connection
        .query_row("SELECT state FROM checkpoints WHERE show_id = ?1", [show_id], |row| row.get(0))
        .optional()?;
    let checkpoint = checkpoint.as_deref().map(Checkpoint::decode).transpose()?;
    let after = checkpoint.as_ref().map_or(0, |checkpoint| checkpoint.version);
    let tail = journal(connection, show_id, after)?;
    let recalled = match &checkpoint {
        Some(checkpoint) => missing_holds(checkpoint, &tail)
            .iter()
            .filter_map(|hold| hold_at(connection, show_id, hold.as_str(), after).transpose())
            .collect::<anyhow::Result<_>>()?,
        None => Vec::new(),
    };
    Ok(load_from(version, checkpoint, recalled, tail))
}

/// Keeps a checkpoint unless a newer one is kept; refuses one ahead of the journal.
pub fn save_checkpoint(connection: &Connection, show_id: &str, version: i64, json: &str) -> anyhow::Result<()> {
    let saved = connection.execute(
        "INSERT INTO checkpoints (show_id, version, state)
         SELECT id, ?2, ?3 FROM shows WHERE id = ?1 AND version >= ?2
         ON CONFLICT (show_id) DO UPDATE SET version = excluded.version, state = excluded.state
         WHERE excluded.version > checkpoints.version",
        params![show_id, version, json],
    )?;
    let ahead: bool =
        connection
            .query_row("SELECT version < ?2 FROM shows WHERE id = ?1", params![show_id, version], |row| row.get(0))?;
    anyhow::ensure!(saved == 1 || !ahead, "checkpoint {version} of {show_id} is ahead of its journal");
    Ok(())
}

/// One hold as the show's journal up to `version` makes it.
pub fn hold_at(connection: &Connection, show_id: &str, hold: &str, version: i64) -> anyhow::Result<Option<Hold>> {
    let mut statement = connection
        .prepare_cached(select_journal!("WHERE hold_id = ?2 AND show_id = ?1 AND version <= ?3 ORDER BY version"))?;
    hold_from(&entries(statement.query(params![show_id, hold, version])?)?)
}

/// A show's journal entries after `after`, oldest first.
pub fn journal(connection: &Connection, show_id: &str, after: i64) -> anyhow::Result<Vec<Transition>> {
    // SQLite reads a negative LIMIT as none.
    journal_limited(connection, show_id, after, -1)
}

/// Up to `limit` of a show's journal entries after `after`, oldest first.
pub fn journal_page(
    connection: &Connection,
    show_id: &str,
    after: i64,
    limit: usize,
) -> anyhow::Result<Vec<Transition>> {
    journal_limited(connection, show_id, after, i64::try_from(limit).unwrap_or(-1))
}

fn journal_limited(connection: &Connection, show_id: &str, after: i64, limit: i64) -> anyhow::Result<Vec<Transition>> {
    let mut statement =
        connection.prepare_cached(select_journal!("WHERE show_id = ?1 AND version > ?2 ORDER BY version LIMIT ?3"))?;
    entries(statement.query(params![show_id, after, limit])?)
}

/// Journal rows (selected by `select_journal!`) as entries.
fn entries(mut rows: rusqlite::Rows<'_>) -> anyhow::Result<Vec<Transition>> {
    let mut entries = Vec::new();
    while let Some(row) = rows.next()? {
        let stored = StoredRow {
            version: row.get(0)?,
            at: row.get(1)?,
            hold_id: row.get(2)?,
            holder_id: row.get(3)?,
            action: row.get(4)?,
            places: row.get(5)?,
            expires_at: row.get(6)?,
            extensions: row.get(7)?,
            late: row.get(8)?,
            checked_deadline: row.get(9)?,
            checked_status: row.get(10)?,
        };
        entries.push(stored.transition()?);
    }
    Ok(entries)
}

/// The show a hold id belongs to.
pub fn hold_show(connection: &Connection, hold: &str) -> anyhow::Result<Option<String>> {
    let mut statement = connection.prepare_cached("SELECT show_id FROM hold_ids WHERE hold_id = ?1")?;
    Ok(statement.query_row([hold], |row| row.get(0)).optional()?)
}

/// A holder's holds across shows, newest first.
pub fn holder_holds(connection: &Connection, holder: &str) -> anyhow::Result<Vec<(String, HoldId)>> {
    let mut statement = connection.prepare_cached(
        "SELECT show_id, hold_id FROM hold_ids WHERE holder_id = ?1 ORDER BY created_at DESC, show_id DESC, version DESC",
    )?;
    let rows = statement.query_map([holder], |row| Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?)))?;
    rows.map(|row| {
        let (show, hold) = row?;
        Ok((show, HoldId::parse(&hold)?))
    })
    .collect()
}
