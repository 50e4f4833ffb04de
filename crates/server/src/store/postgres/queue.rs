//! The queue log in PostgreSQL (see `store/queue_log.rs`). The primary key
//! (show, seq) makes an append conditional across processes.

use deadpool_postgres::GenericClient;
use seat_state::QueueEntry;

use crate::store::CommitError;
use crate::store::queue_log::{QueueRow, continues};

pub async fn log(client: &impl GenericClient, show_id: &str, after_seq: u64) -> anyhow::Result<Vec<QueueEntry>> {
    let rows = client
        .query(
            "SELECT seq, at, kind, holder, data FROM queue_entries WHERE show_id = $1 AND seq > $2 ORDER BY seq",
            &[&show_id, &i64::try_from(after_seq)?],
        )
        .await?;
    rows.iter()
        .map(|row| QueueRow::entry(row.get(0), row.get(1), row.get::<_, &str>(2), row.get(3), row.get::<_, &str>(4)))
        .collect()
}

pub async fn append(
    client: &mut deadpool_postgres::Object,
    show_id: &str,
    entries: &[QueueEntry],
) -> Result<(), CommitError> {
    let stale = || CommitError::Stale(format!("the queue of {show_id} moved on"));
    let transaction = client.transaction().await.map_err(anyhow::Error::from)?;
    let last: i64 = transaction
        .query_one("SELECT COALESCE(MAX(seq), 0) FROM queue_entries WHERE show_id = $1", &[&show_id])
        .await
        .map_err(anyhow::Error::from)?
        .get(0);
    if !continues(u64::try_from(last).map_err(anyhow::Error::from)?, entries) {
        return Err(stale());
    }
    let insert = transaction
        .prepare("INSERT INTO queue_entries (show_id, seq, at, kind, holder, data) VALUES ($1, $2, $3, $4, $5, $6)")
        .await
        .map_err(anyhow::Error::from)?;
    for entry in entries {
        let row = QueueRow::of(&entry.event);
        let seq = i64::try_from(entry.seq).map_err(anyhow::Error::from)?;
        let written =
            transaction.execute(&insert, &[&show_id, &seq, &entry.at.0, &row.kind, &row.holder, &row.data]).await;
        match written {
            Ok(_) => {}
            // Another process appended this seq meanwhile.
            Err(error) if error.code() == Some(&tokio_postgres::error::SqlState::UNIQUE_VIOLATION) => {
                return Err(stale());
            }
            Err(error) => return Err(CommitError::Failed(error.into())),
        }
    }
    match transaction.commit().await {
        Ok(()) => Ok(()),
        Err(error) if error.code() == Some(&tokio_postgres::error::SqlState::UNIQUE_VIOLATION) => Err(stale()),
        Err(error) => Err(CommitError::Failed(error.into())),
    }
}
