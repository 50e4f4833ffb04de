//! The queue log in SQLite (see `store/queue_log.rs`).

use rusqlite::{Connection, TransactionBehavior, params};

use seat_state::QueueEntry;

use crate::store::queue_log::{QueueRow, continues};

pub fn log(connection: &Connection, show_id: &str, after_seq: u64) -> anyhow::Result<Vec<QueueEntry>> {
    let mut statement = connection.prepare_cached(
        "SELECT seq, at, kind, holder, data FROM queue_entries WHERE show_id = ?1 AND seq > ?2 ORDER BY seq",
    )?;
    let rows = statement.query_map(params![show_id, i64::try_from(after_seq)?], |row| {
        Ok((
            row.get::<_, i64>(0)?,
            row.get::<_, i64>(1)?,
            row.get::<_, String>(2)?,
            row.get(3)?,
            row.get::<_, String>(4)?,
        ))
    })?;
    rows.map(|row| {
        let (seq, at, kind, holder, data) = row?;
        QueueRow::entry(seq, at, &kind, holder, &data)
    })
    .collect()
}

/// Appends `entries` if they continue the log; `false` (nothing written) if not.
pub fn append(connection: &mut Connection, show_id: &str, entries: &[QueueEntry]) -> anyhow::Result<bool> {
    let transaction = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let last: i64 = transaction.query_row(
        "SELECT COALESCE(MAX(seq), 0) FROM queue_entries WHERE show_id = ?1",
        [show_id],
        |row| row.get(0),
    )?;
    if !continues(u64::try_from(last)?, entries) {
        return Ok(false);
    }
    {
        let mut insert = transaction.prepare_cached(
            "INSERT INTO queue_entries (show_id, seq, at, kind, holder, data) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )?;
        for entry in entries {
            let row = QueueRow::of(&entry.event);
            insert.execute(params![show_id, i64::try_from(entry.seq)?, entry.at.0, row.kind, row.holder, row.data])?;
        }
    }
    transaction.commit()?;
    Ok(true)
}
