//! One show's batch as a PostgreSQL transaction: the show's advisory lock,
//! the database's clock, the entries other processes wrote, then the writes.

use std::sync::Arc;

use async_trait::async_trait;
use deadpool_postgres::Object;

use seat_state::{HoldId, ServerMillis};

use super::rows::{self, columns};
use super::{CHANNEL, NOW_MS};
use crate::store::{Batch, CommitError, JournalEntry, Transition};

/// An open transaction holding one show's lock; rolled back if dropped.
pub struct PgBatch<'a> {
    client: Option<Object>,
    show_id: &'a str,
    now: ServerMillis,
    missed: Vec<JournalEntry>,
}

fn failed(error: impl Into<anyhow::Error>) -> CommitError {
    CommitError::Failed(error.into())
}

impl<'a> PgBatch<'a> {
    /// Begins the transaction and takes the show's lock: from here until
    /// commit, no other process decides for this show.
    pub async fn begin(client: Object, show_id: &'a str, version: i64) -> Result<Self, CommitError> {
        client.batch_execute("BEGIN").await.map_err(failed)?;
        let mut batch = Self { client: Some(client), show_id, now: ServerMillis(0), missed: Vec::new() };
        let client = batch.client()?;
        // hashtextextended: a 64-bit key per show; two shows sharing one only wait on each other.
        let lock =
            client.prepare_cached("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))").await.map_err(failed)?;
        client.execute(&lock, &[&show_id]).await.map_err(failed)?;
        let read = client
            .prepare_cached(&format!("SELECT version, latest_at, {NOW_MS} FROM shows WHERE id = $1"))
            .await
            .map_err(failed)?;
        let row = client.query_one(&read, &[&show_id]).await.map_err(failed)?;
        let (stored, latest, now): (i64, Option<i64>, i64) = (row.get(0), row.get(1), row.get(2));
        // The database's clock, never below the show's latest decision.
        let now = ServerMillis(latest.map_or(now, |latest| latest.max(now)));
        let missed =
            if stored > version { rows::journal(client, show_id, version).await.map_err(failed)? } else { Vec::new() };
        (batch.now, batch.missed) = (now, missed);
        Ok(batch)
    }

    fn client(&self) -> Result<&Object, CommitError> {
        self.client.as_ref().ok_or_else(|| failed(anyhow::anyhow!("the batch is already over")))
    }

    async fn write(&self, transitions: &[Transition]) -> Result<(), CommitError> {
        let (Some(first), Some(last)) = (transitions.first(), transitions.last()) else { return Ok(()) };
        // The show's version counts its journal entries: a gap would leave a hole in it.
        if transitions.iter().zip(first.version..).any(|(transition, version)| transition.version != version) {
            return Err(CommitError::Stale("transition versions are not consecutive".into()));
        }
        // Instants never go back per show; should a batch's, the floor is still its latest.
        let latest = transitions.iter().map(|transition| transition.at.0).max().unwrap_or(last.at.0);
        let client = self.client()?;
        let (journal, claims) = columns(transitions);
        let moved = client
            .execute(
                "UPDATE shows SET version = $3, latest_at = GREATEST(COALESCE(latest_at, $4), $4)
                 WHERE id = $1 AND version = $2",
                &[&self.show_id, &(first.version - 1), &last.version, &latest],
            )
            .await
            .map_err(failed)?;
        if moved != 1 {
            return Err(CommitError::Stale(format!(
                "show {} is no longer at version {}",
                self.show_id,
                first.version - 1
            )));
        }
        if !claims.hold_id.is_empty() {
            let claimed = client
                .query(
                    "INSERT INTO hold_ids (hold_id, show_id, holder_id, created_at, version)
                     SELECT id, $1, holder, at, v FROM UNNEST($2::text[], $3::text[], $4::bigint[], $5::bigint[])
                         AS t (id, holder, at, v)
                     ON CONFLICT (hold_id) DO NOTHING RETURNING hold_id",
                    &[&self.show_id, &claims.hold_id, &claims.holder_id, &claims.created_at, &claims.version],
                )
                .await
                .map_err(failed)?;
            let claimed: Vec<String> = claimed.iter().map(|row| row.get(0)).collect();
            if let Some(taken) = claims.hold_id.iter().find(|id| !claimed.contains(id)) {
                return Err(CommitError::HoldIdTaken(HoldId::parse(taken).map_err(failed)?));
            }
        }
        client
            .execute(
                "INSERT INTO journal (show_id, version, at, hold_id, holder_id, action, places, expires_at, extensions, late)
                 SELECT $1, * FROM UNNEST($2::bigint[], $3::bigint[], $4::text[], $5::text[], $6::text[],
                                          $7::text[], $8::bigint[], $9::bigint[], $10::boolean[])",
                &[
                    &self.show_id,
                    &journal.version,
                    &journal.at,
                    &journal.hold_id,
                    &journal.holder_id,
                    &journal.action,
                    &journal.places,
                    &journal.expires_at,
                    &journal.extensions,
                    &journal.late,
                ],
            )
            .await
            .map_err(failed)?;
        if !claims.outbox_hold.is_empty() {
            client
                .execute(
                    "INSERT INTO outbox (show_id, hold_id, deadline) SELECT $1, * FROM UNNEST($2::text[], $3::bigint[])",
                    &[&self.show_id, &claims.outbox_hold, &claims.outbox_deadline],
                )
                .await
                .map_err(failed)?;
        }
        // One small notification per batch: every NOTIFY serialises commits.
        client.execute("SELECT pg_notify($1, $2)", &[&CHANNEL, &self.show_id]).await.map_err(failed)?;
        Ok(())
    }
}

#[async_trait]
impl Batch for PgBatch<'_> {
    fn now(&self) -> Option<ServerMillis> {
        Some(self.now)
    }

    fn take_missed(&mut self) -> Vec<JournalEntry> {
        std::mem::take(&mut self.missed)
    }

    async fn commit(mut self: Box<Self>, transitions: Arc<[Transition]>) -> Result<(), CommitError> {
        let written = self.write(&transitions).await;
        let client = self.client.take().ok_or_else(|| failed(anyhow::anyhow!("the batch is already over")))?;
        match written {
            Ok(()) => client.batch_execute("COMMIT").await.map_err(failed),
            Err(error) => {
                drop(client.batch_execute("ROLLBACK").await);
                Err(error)
            }
        }
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
