//! One show's batch as a PostgreSQL transaction: the show's advisory lock,
//! the database's clock, the entries other processes wrote, then the writes.
//!
//! A batch costs two round trips: its opening statements go out together
//! (pipelined on one connection), and so do its writes with the `COMMIT`.
//! Every condition of the writes is one that makes its statement fail, so a
//! failed condition aborts the transaction and the pipelined `COMMIT`
//! becomes a rollback: nothing of the batch is written.

use std::sync::Arc;

use async_trait::async_trait;
use deadpool_postgres::Object;
use tokio_postgres::error::SqlState;
use tokio_postgres::types::ToSql;

use seat_state::{HoldId, ServerMillis};

use super::rows::{self, columns};
use super::{CHANNEL, NOW_MS};
use crate::store::{Batch, CommitError, Transition};

/// An open transaction holding one show's lock; rolled back if dropped.
pub struct PgBatch<'a> {
    client: Option<Object>,
    show_id: &'a str,
    now: ServerMillis,
    missed: Vec<Transition>,
}

fn failed(error: impl Into<anyhow::Error>) -> CommitError {
    CommitError::Failed(error.into())
}

/// Moves the show's version on, or fails (division by zero) when the show
/// is no longer at the version the batch was decided at.
const MOVE_VERSION: &str = "WITH moved AS (
        UPDATE shows SET version = $3, latest_at = GREATEST(COALESCE(latest_at, $4), $4)
        WHERE id = $1 AND version = $2 RETURNING 1)
    SELECT 1 / count(*)::int FROM moved";
/// Claims new hold ids; the primary key fails for one another show has.
const CLAIM_HOLD_IDS: &str = "INSERT INTO hold_ids (hold_id, show_id, holder_id, created_at, version)
    SELECT id, $1, holder, at, v FROM UNNEST($2::text[], $3::text[], $4::bigint[], $5::bigint[]) AS t (id, holder, at, v)";
const APPEND_JOURNAL: &str = "INSERT INTO journal
        (show_id, version, at, hold_id, holder_id, action, places, expires_at, extensions, late,
         checked_deadline, checked_status)
    SELECT $1, * FROM UNNEST($2::bigint[], $3::bigint[], $4::text[], $5::text[], $6::text[],
                             $7::text[], $8::bigint[], $9::bigint[], $10::boolean[], $11::bigint[], $12::text[])";
const ADD_OUTBOX: &str =
    "INSERT INTO outbox (show_id, hold_id, deadline) SELECT $1, * FROM UNNEST($2::text[], $3::bigint[])";

/// What a failed statement of the writes means.
fn refusal(show_id: &str, error: tokio_postgres::Error) -> CommitError {
    let Some(database) = error.as_db_error() else { return failed(error) };
    if *database.code() == SqlState::DIVISION_BY_ZERO {
        return CommitError::Stale(format!("show {show_id} is no longer at the batch's version"));
    }
    if *database.code() == SqlState::UNIQUE_VIOLATION && database.constraint() == Some("hold_ids_pkey") {
        // "Key (hold_id)=(ID) already exists."
        let taken = database.detail().and_then(|detail| detail.split_once(")=(")?.1.split_once(')').map(|(id, _)| id));
        if let Some(Ok(hold)) = taken.map(HoldId::parse) {
            return CommitError::HoldIdTaken(hold);
        }
    }
    failed(error)
}

impl<'a> PgBatch<'a> {
    /// Begins the transaction and takes the show's lock: from here until
    /// commit, no other process decides for this show. One round trip.
    pub async fn begin(client: Object, show_id: &'a str, version: i64) -> Result<Self, CommitError> {
        // hashtextextended: a 64-bit key per show; two shows sharing one only wait on each other.
        let lock =
            client.prepare_cached("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))").await.map_err(failed)?;
        let read = client
            .prepare_cached(&format!("SELECT latest_at, {NOW_MS} FROM shows WHERE id = $1"))
            .await
            .map_err(failed)?;
        let show: [&(dyn ToSql + Sync); 1] = [&show_id];
        let (begun, locked, row, missed) = tokio::join!(
            client.batch_execute("BEGIN"),
            client.execute(&lock, &show),
            client.query_one(&read, &show),
            rows::journal(&client, show_id, version),
        );
        // From here a failure drops the batch, which rolls the transaction back.
        let mut batch = Self { client: Some(client), show_id, now: ServerMillis(0), missed: Vec::new() };
        begun.map_err(failed)?;
        locked.map_err(failed)?;
        let row = row.map_err(failed)?;
        let (latest, now): (Option<i64>, i64) = (row.get(0), row.get(1));
        // The database's clock, never below the show's latest decision.
        batch.now = ServerMillis(latest.map_or(now, |latest| latest.max(now)));
        batch.missed = missed.map_err(failed)?;
        Ok(batch)
    }

    /// Writes the batch and commits, in one round trip.
    async fn write_and_commit(client: &Object, show_id: &str, transitions: &[Transition]) -> Result<(), CommitError> {
        let (Some(first), Some(last)) = (transitions.first(), transitions.last()) else {
            return client.batch_execute("COMMIT").await.map_err(failed);
        };
        // The show's version counts its journal entries: a gap would leave a hole in it.
        if transitions.iter().zip(first.version..).any(|(transition, version)| transition.version != version) {
            drop(client.batch_execute("ROLLBACK").await);
            return Err(CommitError::Stale("transition versions are not consecutive".into()));
        }
        // Instants never go back per show; should a batch's, the floor is still its latest.
        let latest = transitions.iter().map(|transition| transition.at.0).max().unwrap_or(last.at.0);
        let (journal, claims) = columns(transitions);
        let statements = async {
            let move_version = client.prepare_cached(MOVE_VERSION).await?;
            let claim = client.prepare_cached(CLAIM_HOLD_IDS).await?;
            let append = client.prepare_cached(APPEND_JOURNAL).await?;
            let outbox = client.prepare_cached(ADD_OUTBOX).await?;
            Ok::<_, tokio_postgres::Error>((move_version, claim, append, outbox))
        };
        let (move_version, claim, append, outbox) = statements.await.map_err(failed)?;
        let previous = first.version - 1;
        let move_params: [&(dyn ToSql + Sync); 4] = [&show_id, &previous, &last.version, &latest];
        let claim_params: [&(dyn ToSql + Sync); 5] =
            [&show_id, &claims.hold_id, &claims.holder_id, &claims.created_at, &claims.version];
        let journal_params: [&(dyn ToSql + Sync); 12] = [
            &show_id,
            &journal.version,
            &journal.at,
            &journal.hold_id,
            &journal.holder_id,
            &journal.action,
            &journal.places,
            &journal.expires_at,
            &journal.extensions,
            &journal.late,
            &journal.checked_deadline,
            &journal.checked_status,
        ];
        let outbox_params: [&(dyn ToSql + Sync); 3] = [&show_id, &claims.outbox_hold, &claims.outbox_deadline];
        let notify_params: [&(dyn ToSql + Sync); 2] = [&CHANNEL, &show_id];
        let moved = client.query_one(&move_version, &move_params);
        let claimed = client.execute(&claim, &claim_params);
        let appended = client.execute(&append, &journal_params);
        let queued = client.execute(&outbox, &outbox_params);
        // One small notification per batch: every NOTIFY serialises commits.
        let notified = client.execute("SELECT pg_notify($1, $2)", &notify_params);
        let committed = client.batch_execute("COMMIT");
        let (moved, claimed, appended, queued, notified, committed) =
            tokio::join!(moved, claimed, appended, queued, notified, committed);
        // The first failure is the reason; the ones after it only say the
        // transaction was aborted, and the COMMIT rolled it back.
        moved.map_err(|error| refusal(show_id, error))?;
        claimed.map_err(|error| refusal(show_id, error))?;
        appended.map_err(|error| refusal(show_id, error))?;
        queued.map_err(|error| refusal(show_id, error))?;
        notified.map_err(|error| refusal(show_id, error))?;
        committed.map_err(failed)
    }
}

#[async_trait]
impl Batch for PgBatch<'_> {
    fn now(&self) -> Option<ServerMillis> {
        Some(self.now)
    }

    fn take_missed(&mut self) -> Vec<Transition> {
        std::mem::take(&mut self.missed)
    }

    async fn commit(mut self: Box<Self>, transitions: Arc<[Transition]>) -> Result<(), CommitError> {
        let client = self.client.take().ok_or_else(|| failed(anyhow::anyhow!("the batch is already over")))?;
        Self::write_and_commit(&client, self.show_id, &transitions).await
    }
}

impl Drop for PgBatch<'_> {
    /// A batch dropped before its commit (its writer stopped mid-way) must
    /// not go back to the pool inside a transaction.
    fn drop(&mut self) {
        if let Some(client) = self.client.take() {
            tokio::spawn(async move { drop(client.batch_execute("ROLLBACK").await) });
        }
    }
}
