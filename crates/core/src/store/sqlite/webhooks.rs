//! Webhooks and their lanes in SQLite (migration 0010). Creating and
//! deleting a webhook wait for the disk; a sender's claims and steps do
//! not: losing one to a power cut costs a repeated delivery, never a lost
//! one (the cursor only moves after the receiver acknowledged).

use async_trait::async_trait;
use rusqlite::{Connection, OptionalExtension, params};

use seat_state::ServerMillis;

use super::{SqliteStore, holds};
use crate::store::Transition;
use crate::store::webhooks::{DeliveryTally, EventKind, Lane, LaneStep, Webhook, WebhookStore};

#[async_trait]
impl WebhookStore for SqliteStore {
    async fn create_webhook(&self, webhook: &Webhook) -> anyhow::Result<()> {
        let webhook = webhook.clone();
        self.with(move |connection| {
            let transaction = connection.transaction()?;
            transaction.execute(
                "INSERT INTO webhooks (id, url, secret, events, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![
                    webhook.id,
                    webhook.url,
                    webhook.secret,
                    EventKind::encode(&webhook.events),
                    webhook.created_at.0
                ],
            )?;
            // In the same transaction as the commits it is ordered with.
            transaction.execute(
                "INSERT INTO webhook_lanes (webhook_id, show_id, version) SELECT ?1, id, version FROM shows",
                [&webhook.id],
            )?;
            transaction.commit()?;
            Ok(())
        })
        .await
    }

    async fn webhooks(&self) -> anyhow::Result<Vec<Webhook>> {
        self.read(|connection| {
            let mut statement = connection
                .prepare_cached("SELECT id, url, secret, events, created_at FROM webhooks ORDER BY created_at, id")?;
            let rows = statement.query_map([], |row| {
                Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get::<_, String>(3)?, row.get(4)?))
            })?;
            rows.map(|row| {
                let (id, url, secret, events, created_at) = row?;
                Ok(Webhook {
                    id,
                    url,
                    secret,
                    events: EventKind::decode(&events)?,
                    created_at: ServerMillis(created_at),
                })
            })
            .collect()
        })
        .await
    }

    async fn delete_webhook(&self, id: &str) -> anyhow::Result<bool> {
        let id = id.to_owned();
        self.with(move |connection| {
            let transaction = connection.transaction()?;
            transaction.execute("DELETE FROM webhook_lanes WHERE webhook_id = ?1", [&id])?;
            let deleted = transaction.execute("DELETE FROM webhooks WHERE id = ?1", [&id])?;
            transaction.commit()?;
            Ok(deleted == 1)
        })
        .await
    }

    async fn delivery_tally(&self, webhook: &Webhook) -> anyhow::Result<DeliveryTally> {
        let (id, actions) = (webhook.id.clone(), actions(&webhook.events));
        self.read(move |connection| tally(connection, &id, &actions)).await
    }

    async fn rewind_lane(&self, webhook_id: &str, show_id: &str, version: i64) -> anyhow::Result<bool> {
        let (webhook_id, show_id) = (webhook_id.to_owned(), show_id.to_owned());
        self.with(move |connection| {
            let changed = connection.execute(
                "INSERT INTO webhook_lanes (webhook_id, show_id, version) SELECT id, ?2, ?3 FROM webhooks WHERE id = ?1
                 ON CONFLICT (webhook_id, show_id) DO UPDATE SET
                     version = excluded.version, attempts = 0, failing_since = NULL, next_attempt_at = 0",
                params![webhook_id, show_id, version],
            )?;
            Ok(changed == 1)
        })
        .await
    }

    async fn claim_lanes(
        &self,
        owner: &str,
        now: ServerMillis,
        lease_until: ServerMillis,
        limit: usize,
    ) -> anyhow::Result<Vec<Lane>> {
        let owner = owner.to_owned();
        self.with_unflushed(move |connection| {
            let transaction = connection.transaction()?;
            // A show made after a webhook gets its lane here, from version 0.
            transaction
                .prepare_cached(
                    "INSERT INTO webhook_lanes (webhook_id, show_id)
                     SELECT w.id, s.id FROM webhooks w CROSS JOIN shows s WHERE true ON CONFLICT DO NOTHING",
                )?
                .execute([])?;
            let lanes = {
                let mut statement = transaction.prepare_cached(
                    "UPDATE webhook_lanes SET lease_owner = ?1, lease_until = ?3
                     WHERE (webhook_id, show_id) IN (
                         SELECT l.webhook_id, l.show_id FROM webhook_lanes l JOIN shows s ON s.id = l.show_id
                         WHERE l.version < s.version AND l.next_attempt_at <= ?2
                             AND (l.lease_until IS NULL OR l.lease_until <= ?2)
                         ORDER BY l.next_attempt_at LIMIT ?4)
                     RETURNING webhook_id, show_id, version, attempts, failing_since",
                )?;
                let rows = statement.query_map(params![owner, now.0, lease_until.0, limit], |row| {
                    Ok(Lane {
                        webhook_id: row.get(0)?,
                        show_id: row.get(1)?,
                        version: row.get(2)?,
                        attempts: row.get(3)?,
                        failing_since: row.get::<_, Option<i64>>(4)?.map(ServerMillis),
                    })
                })?;
                rows.collect::<Result<Vec<_>, _>>()?
            };
            transaction.commit()?;
            Ok(lanes)
        })
        .await
    }

    async fn step_lane(&self, lane: &Lane, owner: &str, step: &LaneStep) -> anyhow::Result<bool> {
        let (lane, owner, step) = (lane.clone(), owner.to_owned(), step.clone());
        self.with_unflushed(move |connection| {
            let attempt = step.attempt.as_ref();
            let changed = connection.prepare_cached(STEP)?.execute(params![
                lane.webhook_id,
                lane.show_id,
                owner,
                lane.version,
                step.version,
                step.attempts,
                step.failing_since.map(|at| at.0),
                step.next_attempt_at.0,
                step.lease_until.map(|at| at.0),
                i64::from(step.sent),
                i64::from(step.parked),
                attempt.and_then(|attempt| attempt.status),
                attempt.and_then(|attempt| attempt.error.clone()),
                attempt.map(|attempt| attempt.at.0),
            ])?;
            Ok(changed == 1)
        })
        .await
    }

    async fn release_lane(&self, lane: &Lane, owner: &str) -> anyhow::Result<()> {
        let (webhook_id, show_id, owner) = (lane.webhook_id.clone(), lane.show_id.clone(), owner.to_owned());
        self.with_unflushed(move |connection| {
            connection
                .prepare_cached(
                    "UPDATE webhook_lanes SET lease_owner = NULL, lease_until = NULL
                     WHERE webhook_id = ?1 AND show_id = ?2 AND lease_owner = ?3",
                )?
                .execute(params![webhook_id, show_id, owner])?;
            Ok(())
        })
        .await
    }

    async fn release_leases(&self) -> anyhow::Result<()> {
        self.with_unflushed(|connection| {
            connection.execute(
                "UPDATE webhook_lanes SET lease_owner = NULL, lease_until = NULL WHERE lease_owner IS NOT NULL",
                [],
            )?;
            Ok(())
        })
        .await
    }

    async fn journal_page(&self, show_id: &str, after: i64, limit: usize) -> anyhow::Result<Vec<Transition>> {
        let show_id = show_id.to_owned();
        self.read(move |connection| holds::journal_page(connection, &show_id, after, limit)).await
    }
}

/// One step, conditional on the lease and the cursor it started from. The
/// latest attempt's columns change only when there is one (?14).
const STEP: &str = "UPDATE webhook_lanes SET version = ?5, attempts = ?6, failing_since = ?7, next_attempt_at = ?8,
        lease_owner = CASE WHEN ?9 IS NULL THEN NULL ELSE lease_owner END, lease_until = ?9,
        attempts_total = attempts_total + ?10, parked_total = parked_total + ?11,
        last_status = CASE WHEN ?14 IS NULL THEN last_status ELSE ?12 END,
        last_error = CASE WHEN ?14 IS NULL THEN last_error ELSE ?13 END,
        last_attempt_at = coalesce(?14, last_attempt_at)
    WHERE webhook_id = ?1 AND show_id = ?2 AND lease_owner = ?3 AND version = ?4";

/// The journal actions of `kinds`, as a JSON array for `json_each`.
fn actions(kinds: &[EventKind]) -> String {
    serde_json::to_string(&kinds.iter().map(|kind| kind.action()).collect::<Vec<_>>()).unwrap_or_default()
}

fn tally(connection: &Connection, webhook_id: &str, actions: &str) -> anyhow::Result<DeliveryTally> {
    let pending: i64 = connection
        .prepare_cached(
            "SELECT count(*) FROM shows s
         LEFT JOIN webhook_lanes l ON l.webhook_id = ?1 AND l.show_id = s.id
         JOIN journal j ON j.show_id = s.id AND j.version > coalesce(l.version, 0)
         WHERE j.action IN (SELECT value FROM json_each(?2))",
        )?
        .query_row(params![webhook_id, actions], |row| row.get(0))?;
    let (attempts, failed): (i64, i64) = connection
        .prepare_cached(
            "SELECT coalesce(sum(attempts_total), 0), coalesce(sum(parked_total), 0)
             FROM webhook_lanes WHERE webhook_id = ?1",
        )?
        .query_row([webhook_id], |row| Ok((row.get(0)?, row.get(1)?)))?;
    let last: Option<(Option<u16>, Option<String>)> = connection
        .prepare_cached(
            "SELECT last_status, last_error FROM webhook_lanes
             WHERE webhook_id = ?1 AND last_attempt_at IS NOT NULL ORDER BY last_attempt_at DESC LIMIT 1",
        )?
        .query_row([webhook_id], |row| Ok((row.get(0)?, row.get(1)?)))
        .optional()?;
    let (last_status, last_error) = last.unwrap_or_default();
    Ok(DeliveryTally {
        pending: u64::try_from(pending)?,
        failed: u64::try_from(failed)?,
        attempts: u64::try_from(attempts)?,
        last_status,
        last_error,
    })
}
