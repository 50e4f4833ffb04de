//! The queue log in PostgreSQL (see `store/queue_log.rs`). A writer's batch
//! holds the show's queue lock (an advisory key of its own, so a join never
//! waits behind a seat batch) from its catch-up to its commit; the primary
//! key (show, seq) still makes every append conditional.

use async_trait::async_trait;
use deadpool_postgres::{GenericClient, Object};
use tokio_postgres::Statement;
use tokio_postgres::error::SqlState;
use tokio_postgres::types::ToSql;

use seat_state::{QueueEntry, ServerMillis};

use super::NOW_MS;
use crate::store::queue_log::{QueueRow, continues};
use crate::store::{CommitError, QueueBatch};

const LOCK: &str = "SELECT pg_advisory_xact_lock(hashtextextended($1, 1))";
const LOG: &str = "SELECT seq, at, kind, holder, data FROM queue_entries WHERE show_id = $1 AND seq > $2 ORDER BY seq";
const APPEND: &str = "INSERT INTO queue_entries (show_id, seq, at, kind, holder, data)
    SELECT $1, * FROM UNNEST($2::bigint[], $3::bigint[], $4::text[], $5::text[], $6::text[])";

fn failed(error: impl Into<anyhow::Error>) -> CommitError {
    CommitError::Failed(error.into())
}

pub async fn log(client: &impl GenericClient, show_id: &str, after_seq: u64) -> anyhow::Result<Vec<QueueEntry>> {
    let rows = client.query(LOG, &[&show_id, &i64::try_from(after_seq)?]).await?;
    rows.iter()
        .map(|row| QueueRow::entry(row.get(0), row.get(1), row.get::<_, &str>(2), row.get(3), row.get::<_, &str>(4)))
        .collect()
}

/// Inserts the entries in one prepared statement ([`APPEND`]), sent at the
/// first poll; another process's entry at one of their seqs fails it as stale.
async fn insert(
    client: &impl GenericClient,
    append: &Statement,
    show_id: &str,
    entries: &[QueueEntry],
) -> Result<(), CommitError> {
    let mut seqs = Vec::with_capacity(entries.len());
    let (mut ats, mut kinds, mut holders, mut data) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for entry in entries {
        let row = QueueRow::of(&entry.event);
        seqs.push(i64::try_from(entry.seq).map_err(failed)?);
        ats.push(entry.at.0);
        kinds.push(row.kind);
        holders.push(row.holder);
        data.push(row.data);
    }
    let params: [&(dyn ToSql + Sync); 6] = [&show_id, &seqs, &ats, &kinds, &holders, &data];
    match client.execute(append, &params).await {
        Ok(_) => Ok(()),
        Err(error) if error.code() == Some(&SqlState::UNIQUE_VIOLATION) => {
            Err(CommitError::Stale(format!("the queue of {show_id} moved on")))
        }
        Err(error) => Err(failed(error)),
    }
}

/// An append outside a writer's batch: conditional on the log's length.
pub async fn append(client: &mut Object, show_id: &str, entries: &[QueueEntry]) -> Result<(), CommitError> {
    let transaction = client.transaction().await.map_err(failed)?;
    let last: i64 = transaction
        .query_one("SELECT COALESCE(MAX(seq), 0) FROM queue_entries WHERE show_id = $1", &[&show_id])
        .await
        .map_err(failed)?
        .get(0);
    if !continues(u64::try_from(last).map_err(failed)?, entries) {
        return Err(CommitError::Stale(format!("the queue of {show_id} moved on")));
    }
    let statement = transaction.prepare_cached(APPEND).await.map_err(failed)?;
    insert(&transaction, &statement, show_id, entries).await?;
    transaction.commit().await.map_err(failed)
}

/// An open transaction holding one show's queue lock; rolled back if dropped.
pub struct PgQueueBatch<'a> {
    client: Option<Object>,
    show_id: &'a str,
    now: ServerMillis,
    missed: Vec<QueueEntry>,
}

impl<'a> PgQueueBatch<'a> {
    /// Begins the transaction, takes the lock, reads the database's clock
    /// and the entries after `after_seq`: one round trip, pipelined.
    pub async fn begin(client: Object, show_id: &'a str, after_seq: u64) -> Result<Self, CommitError> {
        let lock = client.prepare_cached(LOCK).await.map_err(failed)?;
        let clock = client.prepare_cached(&format!("SELECT {NOW_MS}")).await.map_err(failed)?;
        let after = i64::try_from(after_seq).map_err(failed)?;
        let log = client.prepare_cached(LOG).await.map_err(failed)?;
        let show: [&(dyn ToSql + Sync); 1] = [&show_id];
        let since: [&(dyn ToSql + Sync); 2] = [&show_id, &after];
        let (begun, locked, now, rows) = tokio::join!(
            client.batch_execute("BEGIN"),
            client.execute(&lock, &show),
            client.query_one(&clock, &[]),
            client.query(&log, &since),
        );
        // From here a failure drops the batch, which rolls the transaction back.
        let mut batch = Self { client: Some(client), show_id, now: ServerMillis(0), missed: Vec::new() };
        begun.map_err(failed)?;
        locked.map_err(failed)?;
        batch.now = ServerMillis(now.map_err(failed)?.get(0));
        batch.missed = rows
            .map_err(failed)?
            .iter()
            .map(|row| {
                QueueRow::entry(row.get(0), row.get(1), row.get::<_, &str>(2), row.get(3), row.get::<_, &str>(4))
            })
            .collect::<anyhow::Result<_>>()
            .map_err(failed)?;
        Ok(batch)
    }
}

#[async_trait]
impl QueueBatch for PgQueueBatch<'_> {
    fn now(&self) -> Option<ServerMillis> {
        Some(self.now)
    }

    fn take_missed(&mut self) -> Vec<QueueEntry> {
        std::mem::take(&mut self.missed)
    }

    /// The insert and the `COMMIT` go out together: a failed insert aborts
    /// the transaction, and the `COMMIT` then rolls it back.
    async fn append(mut self: Box<Self>, entries: Vec<QueueEntry>) -> Result<(), CommitError> {
        let client = self.client.take().ok_or_else(|| failed(anyhow::anyhow!("the batch is already over")))?;
        if entries.is_empty() {
            return client.batch_execute("COMMIT").await.map_err(failed);
        }
        let statement = client.prepare_cached(APPEND).await.map_err(failed)?;
        let inserted = insert(&client, &statement, self.show_id, &entries);
        let (inserted, committed) = tokio::join!(inserted, client.batch_execute("COMMIT"));
        inserted?;
        committed.map_err(failed)
    }
}

impl Drop for PgQueueBatch<'_> {
    /// A batch dropped before its commit must not go back to the pool
    /// inside a transaction.
    fn drop(&mut self) {
        if let Some(client) = self.client.take() {
            tokio::spawn(async move { drop(client.batch_execute("ROLLBACK").await) });
        }
    }
}
