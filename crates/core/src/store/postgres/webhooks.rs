//! Webhooks and their lanes in PostgreSQL (migration 0006). Senders of
//! several processes claim due lanes with `FOR UPDATE SKIP LOCKED` and a
//! lease; every step is conditional on the lease and the cursor, so one
//! process sends each attempt.

use async_trait::async_trait;

use seat_state::ServerMillis;

use super::{PostgresStore, rows};
use crate::store::Transition;
use crate::store::webhooks::{DeliveryTally, EventKind, Lane, LaneStep, Webhook, WebhookStore};

/// A show made after a webhook gets its lane, from version 0.
const ADD_MISSING_LANES: &str = "INSERT INTO webhook_lanes (webhook_id, show_id)
    SELECT w.id, s.id FROM webhooks w CROSS JOIN shows s
    WHERE NOT EXISTS (SELECT 1 FROM webhook_lanes l WHERE l.webhook_id = w.id AND l.show_id = s.id)
    ON CONFLICT DO NOTHING";

const CLAIM: &str = "WITH due AS (
        SELECT l.webhook_id, l.show_id FROM webhook_lanes l JOIN shows s ON s.id = l.show_id
        WHERE l.version < s.version AND l.next_attempt_at <= $2 AND (l.lease_until IS NULL OR l.lease_until <= $2)
        ORDER BY l.next_attempt_at LIMIT $4 FOR UPDATE OF l SKIP LOCKED)
    UPDATE webhook_lanes l SET lease_owner = $1, lease_until = $3 FROM due
    WHERE l.webhook_id = due.webhook_id AND l.show_id = due.show_id
    RETURNING l.webhook_id, l.show_id, l.version, l.attempts, l.failing_since";

/// One step, conditional on the lease and the cursor it started from. The
/// latest attempt's columns change only when there is one ($14).
const STEP: &str = "UPDATE webhook_lanes SET version = $5, attempts = $6, failing_since = $7, next_attempt_at = $8,
        lease_owner = CASE WHEN $9::bigint IS NULL THEN NULL ELSE lease_owner END, lease_until = $9,
        attempts_total = attempts_total + $10, parked_total = parked_total + $11,
        last_status = CASE WHEN $14::bigint IS NULL THEN last_status ELSE $12 END,
        last_error = CASE WHEN $14::bigint IS NULL THEN last_error ELSE $13 END,
        last_attempt_at = coalesce($14, last_attempt_at)
    WHERE webhook_id = $1 AND show_id = $2 AND lease_owner = $3 AND version = $4";

#[async_trait]
impl WebhookStore for PostgresStore {
    async fn create_webhook(&self, webhook: &Webhook) -> anyhow::Result<()> {
        let mut client = self.client().await?;
        let transaction = client.transaction().await?;
        transaction
            .execute(
                "INSERT INTO webhooks (id, url, secret, events, created_at) VALUES ($1, $2, $3, $4, $5)",
                &[
                    &webhook.id,
                    &webhook.url,
                    &webhook.secret,
                    &EventKind::encode(&webhook.events),
                    &webhook.created_at.0,
                ],
            )
            .await?;
        transaction
            .execute(
                "INSERT INTO webhook_lanes (webhook_id, show_id, version) SELECT $1, id, version FROM shows",
                &[&webhook.id],
            )
            .await?;
        transaction.commit().await?;
        Ok(())
    }

    async fn webhooks(&self) -> anyhow::Result<Vec<Webhook>> {
        let client = self.client().await?;
        let statement = client
            .prepare_cached("SELECT id, url, secret, events, created_at FROM webhooks ORDER BY created_at, id")
            .await?;
        client
            .query(&statement, &[])
            .await?
            .iter()
            .map(|row| {
                Ok(Webhook {
                    id: row.get(0),
                    url: row.get(1),
                    secret: row.get(2),
                    events: EventKind::decode(row.get(3))?,
                    created_at: ServerMillis(row.get(4)),
                })
            })
            .collect()
    }

    async fn delete_webhook(&self, id: &str) -> anyhow::Result<bool> {
        let mut client = self.client().await?;
        let transaction = client.transaction().await?;
        transaction.execute("DELETE FROM webhook_lanes WHERE webhook_id = $1", &[&id]).await?;
        let deleted = transaction.execute("DELETE FROM webhooks WHERE id = $1", &[&id]).await?;
        transaction.commit().await?;
        Ok(deleted == 1)
    }

    async fn delivery_tally(&self, webhook: &Webhook) -> anyhow::Result<DeliveryTally> {
        let client = self.client().await?;
        let actions: Vec<&str> = webhook.events.iter().map(|kind| kind.action()).collect();
        let pending: i64 = client
            .query_one(
                "SELECT count(*) FROM shows s
                 LEFT JOIN webhook_lanes l ON l.webhook_id = $1 AND l.show_id = s.id
                 JOIN journal j ON j.show_id = s.id AND j.version > coalesce(l.version, 0)
                 WHERE j.action = ANY($2)",
                &[&webhook.id, &actions],
            )
            .await?
            .get(0);
        let totals = client
            .query_one(
                "SELECT coalesce(sum(attempts_total), 0)::bigint, coalesce(sum(parked_total), 0)::bigint
                 FROM webhook_lanes WHERE webhook_id = $1",
                &[&webhook.id],
            )
            .await?;
        let last = client
            .query_opt(
                "SELECT last_status, last_error FROM webhook_lanes
                 WHERE webhook_id = $1 AND last_attempt_at IS NOT NULL ORDER BY last_attempt_at DESC LIMIT 1",
                &[&webhook.id],
            )
            .await?;
        Ok(DeliveryTally {
            pending: u64::try_from(pending)?,
            failed: u64::try_from(totals.get::<_, i64>(1))?,
            attempts: u64::try_from(totals.get::<_, i64>(0))?,
            last_status: last.as_ref().and_then(|row| row.get::<_, Option<i32>>(0)).map(u16::try_from).transpose()?,
            last_error: last.and_then(|row| row.get(1)),
        })
    }

    async fn rewind_lane(&self, webhook_id: &str, show_id: &str, version: i64) -> anyhow::Result<bool> {
        let client = self.client().await?;
        let changed = client
            .execute(
                "INSERT INTO webhook_lanes (webhook_id, show_id, version) SELECT id, $2, $3 FROM webhooks WHERE id = $1
                 ON CONFLICT (webhook_id, show_id) DO UPDATE SET
                     version = excluded.version, attempts = 0, failing_since = NULL, next_attempt_at = 0",
                &[&webhook_id, &show_id, &version],
            )
            .await?;
        Ok(changed == 1)
    }

    async fn claim_lanes(
        &self,
        owner: &str,
        now: ServerMillis,
        lease_until: ServerMillis,
        limit: usize,
    ) -> anyhow::Result<Vec<Lane>> {
        let client = self.client().await?;
        client.execute(&client.prepare_cached(ADD_MISSING_LANES).await?, &[]).await?;
        let rows = client
            .query(&client.prepare_cached(CLAIM).await?, &[&owner, &now.0, &lease_until.0, &i64::try_from(limit)?])
            .await?;
        rows.iter()
            .map(|row| {
                Ok(Lane {
                    webhook_id: row.get(0),
                    show_id: row.get(1),
                    version: row.get(2),
                    attempts: u32::try_from(row.get::<_, i32>(3))?,
                    failing_since: row.get::<_, Option<i64>>(4).map(ServerMillis),
                })
            })
            .collect()
    }

    async fn step_lane(&self, lane: &Lane, owner: &str, step: &LaneStep) -> anyhow::Result<bool> {
        let client = self.client().await?;
        let attempt = step.attempt.as_ref();
        let changed = client
            .execute(
                &client.prepare_cached(STEP).await?,
                &[
                    &lane.webhook_id,
                    &lane.show_id,
                    &owner,
                    &lane.version,
                    &step.version,
                    &i32::try_from(step.attempts)?,
                    &step.failing_since.map(|at| at.0),
                    &step.next_attempt_at.0,
                    &step.lease_until.map(|at| at.0),
                    &i64::from(step.sent),
                    &i64::from(step.parked),
                    &attempt.and_then(|attempt| attempt.status).map(i32::from),
                    &attempt.and_then(|attempt| attempt.error.as_deref()),
                    &attempt.map(|attempt| attempt.at.0),
                ],
            )
            .await?;
        Ok(changed == 1)
    }

    async fn release_lane(&self, lane: &Lane, owner: &str) -> anyhow::Result<()> {
        let client = self.client().await?;
        client
            .execute(
                "UPDATE webhook_lanes SET lease_owner = NULL, lease_until = NULL
                 WHERE webhook_id = $1 AND show_id = $2 AND lease_owner = $3",
                &[&lane.webhook_id, &lane.show_id, &owner],
            )
            .await?;
        Ok(())
    }

    /// Nothing: on a shared database other processes' leases stand, and
    /// end by themselves.
    async fn release_leases(&self) -> anyhow::Result<()> {
        Ok(())
    }

    async fn journal_page(&self, show_id: &str, after: i64, limit: usize) -> anyhow::Result<Vec<Transition>> {
        let client = self.client().await?;
        rows::journal_page(&client, show_id, after, Some(i64::try_from(limit)?)).await
    }
}
