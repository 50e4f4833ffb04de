//! The PostgreSQL store, for several `seathold` processes on one database.
//!
//! - A show's batch is a transaction that first takes the show's advisory
//!   lock (`pg_advisory_xact_lock`), then reads the database's clock and
//!   the journal entries the writer has not seen: one writer per show at a
//!   time across every process, deciding at one clock. It commits only if
//!   the show is still at the version it read (a second guard).
//! - Hold ids, holders' holds and sessions are found in the database by
//!   every process; memory is a cache.
//! - Each batch commit that wrote something sends one `NOTIFY` naming the
//!   show; every process `LISTEN`s and wakes that show's writer, which reads
//!   the journal after its version (the journal is the source: a lost
//!   notification delays, never loses, a change).
//! - The outbox is claimed with `FOR UPDATE SKIP LOCKED`, so the sweeps of
//!   several processes take different entries.
//!
//! Driver: tokio-postgres with a deadpool pool (docs/architecture.md says why);
//! TLS by the URL's `sslmode` (see `tls`), the same for every connection.

mod batch;
mod listen;
#[cfg(test)]
mod migration_tests;
mod queue;
mod rows;
#[cfg(any(test, feature = "testkit"))]
pub mod test_database;
mod tls;
mod webhooks;

use std::sync::Arc;

use anyhow::Context;
use async_trait::async_trait;
use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod};
use tokio::sync::broadcast;
use tokio_postgres::NoTls;

use seat_state::wire::{ShowInput, ShowSummary};
use seat_state::{Hold, HoldId, HolderId, ServerMillis, Show};

use self::tls::Tls;
use super::checkpoint::{load_from, missing_holds};
use super::{Batch, Checkpoint, CommitError, CreateShow, DueExpiry, LoadedHolds, SessionSeen, Store, Transition};

/// Migrations, in order; each runs once, under a lock, in its own transaction.
const MIGRATIONS: [&str; 7] = [
    include_str!("../../../migrations/postgres/0001_schema.sql"),
    include_str!("../../../migrations/postgres/0002_blocked_seats.sql"),
    include_str!("../../../migrations/postgres/0003_session_last_seen.sql"),
    include_str!("../../../migrations/postgres/0004_checkpoints.sql"),
    include_str!("../../../migrations/postgres/0005_queue.sql"),
    include_str!("../../../migrations/postgres/0006_webhooks.sql"),
    include_str!("../../../migrations/postgres/0007_journal_conditions.sql"),
];
/// The `NOTIFY` channel batch commits announce their show on.
const CHANNEL: &str = "seathold_changes";
/// Connections per process: a writer per busy show, reads, the sweep.
const POOL_SIZE: usize = 16;
/// Longest pause inside a batch's transaction before the database ends the
/// session (and its show lock): a batch is milliseconds of work.
const IDLE_IN_BATCH_MS: u32 = 5_000;
/// Longest wait for a show's lock before a batch gives up (answered 503).
const LOCK_WAIT_MS: u32 = 3_000;
/// Idle time before TCP keepalives probe a connection to a vanished peer.
const KEEPALIVE_IDLE: std::time::Duration = std::time::Duration::from_secs(10);
/// How long a sweep's claim on an outbox entry lasts.
const CLAIM_MILLIS: i64 = 30_000;

/// The database's clock, as epoch milliseconds.
const NOW_MS: &str = "(extract(epoch from clock_timestamp()) * 1000)::bigint";

/// A pool of connections to one PostgreSQL database.
#[derive(Clone)]
pub struct PostgresStore {
    pool: Pool,
    hints: broadcast::Sender<Arc<str>>,
}

impl PostgresStore {
    /// Connects to `url` (`postgres://USER@HOST:PORT/DB`, TLS by its
    /// `sslmode`: `disable` or `prefer` (the default) without, `require`
    /// with the server's certificate verified against the system's roots or
    /// `sslrootcert=PATH`), migrates, and starts listening for other
    /// processes' changes.
    pub async fn open(url: &str) -> anyhow::Result<Self> {
        let (mut config, tls) = tls::from_url(url)?;
        // A process that stops mid-batch (frozen, partitioned away) must not
        // hold a show's lock for ever: the database ends its session, and
        // others waiting on the lock give up and answer 503.
        let limits = format!(
            "-c idle_in_transaction_session_timeout={IDLE_IN_BATCH_MS} -c lock_timeout={LOCK_WAIT_MS} {}",
            config.get_options().unwrap_or_default()
        );
        config.options(limits.trim()).keepalives(true).keepalives_idle(KEEPALIVE_IDLE);
        let recycling = ManagerConfig { recycling_method: RecyclingMethod::Fast };
        let manager = match &tls {
            Tls::Off(_) => Manager::from_config(config.clone(), NoTls, recycling),
            Tls::On { connector, .. } => Manager::from_config(config.clone(), connector.clone(), recycling),
        };
        let pool = Pool::builder(manager).max_size(POOL_SIZE).build().context("building the connection pool")?;
        let store = Self { pool, hints: broadcast::channel(1024).0 };
        store.migrate().await.with_context(|| format!("migrating the PostgreSQL database, connecting {tls}"))?;
        tracing::info!("PostgreSQL connections {tls}");
        listen::start(config, tls, CHANNEL, store.hints.clone()).await;
        Ok(store)
    }

    async fn client(&self) -> anyhow::Result<deadpool_postgres::Object> {
        // deadpool's message repeats its cause, which anyhow prints again.
        let error = match self.pool.get().await {
            Ok(client) => return Ok(client),
            Err(deadpool_postgres::PoolError::Backend(cause)) => anyhow::Error::new(cause),
            Err(other) => anyhow::Error::new(other),
        };
        Err(error.context("no PostgreSQL connection"))
    }

    async fn migrate(&self) -> anyhow::Result<()> {
        let mut client = self.client().await?;
        let transaction = client.transaction().await?;
        // One process migrates at a time; the others wait, then find it done.
        transaction.execute("SELECT pg_advisory_xact_lock(7426854127)", &[]).await?;
        transaction.batch_execute("CREATE TABLE IF NOT EXISTS seathold_migrations (version INT PRIMARY KEY)").await?;
        let done: i64 = transaction.query_one("SELECT count(*) FROM seathold_migrations", &[]).await?.get(0);
        for (version, sql) in MIGRATIONS.iter().enumerate().skip(usize::try_from(done)?) {
            transaction.batch_execute(sql).await.with_context(|| format!("migration {}", version + 1))?;
            transaction
                .execute("INSERT INTO seathold_migrations (version) VALUES ($1)", &[&i32::try_from(version + 1)?])
                .await?;
        }
        transaction.commit().await?;
        Ok(())
    }
}

fn parse_show(show_id: &str, json: &str) -> anyhow::Result<Show> {
    let input: ShowInput = serde_json::from_str(json)?;
    Show::parse(&input).with_context(|| format!("stored show {show_id} no longer validates"))
}

#[async_trait]
impl Store for PostgresStore {
    fn shared(&self) -> bool {
        true
    }

    async fn begin_batch<'a>(&'a self, show_id: &'a str, version: i64) -> Result<Box<dyn Batch + 'a>, CommitError> {
        let client = self.client().await?;
        Ok(Box::new(batch::PgBatch::begin(client, show_id, version).await?))
    }

    async fn begin_queue<'a>(
        &'a self,
        show_id: &'a str,
        after_seq: u64,
    ) -> Result<Box<dyn crate::store::QueueBatch + 'a>, CommitError> {
        let client = self.client().await?;
        Ok(Box::new(queue::PgQueueBatch::begin(client, show_id, after_seq).await?))
    }

    fn changes(&self) -> Option<broadcast::Receiver<Arc<str>>> {
        Some(self.hints.subscribe())
    }

    async fn clock(&self) -> anyhow::Result<Option<ServerMillis>> {
        let client = self.client().await?;
        let now: i64 = client.query_one(&format!("SELECT {NOW_MS}"), &[]).await?.get(0);
        Ok(Some(ServerMillis(now)))
    }

    async fn ping(&self) -> anyhow::Result<()> {
        self.client().await?.execute("SELECT 1", &[]).await?;
        Ok(())
    }

    async fn create_show(&self, show: &Show, now: ServerMillis) -> anyhow::Result<CreateShow> {
        let mut client = self.client().await?;
        let transaction = client.transaction().await?;
        let definition = serde_json::to_string(&show.to_wire())?;
        let inserted = transaction
            .execute(
                "INSERT INTO shows (id, name, seat_count, area_count, version, created_at)
                 VALUES ($1, $2, $3, $4, 0, $5) ON CONFLICT (id) DO NOTHING",
                &[&show.id.as_str(), &show.name, &(show.seats.len() as i64), &(show.areas.len() as i64), &now.0],
            )
            .await?;
        if inserted == 0 {
            let row = transaction
                .query_one("SELECT definition FROM show_definitions WHERE show_id = $1", &[&show.id.as_str()])
                .await?;
            let existing = parse_show(show.id.as_str(), row.get(0))?;
            return Ok(if existing == *show { CreateShow::AlreadyThere } else { CreateShow::Conflict });
        }
        transaction
            .execute(
                "INSERT INTO show_definitions (show_id, definition) VALUES ($1, $2)",
                &[&show.id.as_str(), &definition],
            )
            .await?;
        transaction.commit().await?;
        Ok(CreateShow::Created)
    }

    async fn list_shows(&self) -> anyhow::Result<Vec<ShowSummary>> {
        let client = self.client().await?;
        let rows =
            client.query("SELECT id, name, seat_count, area_count FROM shows ORDER BY created_at, id", &[]).await?;
        rows.iter()
            .map(|row| {
                Ok(ShowSummary {
                    id: row.get(0),
                    name: row.get(1),
                    seat_count: u64::try_from(row.get::<_, i64>(2))?,
                    area_count: u64::try_from(row.get::<_, i64>(3))?,
                })
            })
            .collect()
    }

    async fn show(&self, show_id: &str) -> anyhow::Result<Option<Show>> {
        let client = self.client().await?;
        let row = client.query_opt("SELECT definition FROM show_definitions WHERE show_id = $1", &[&show_id]).await?;
        row.map(|row| parse_show(show_id, row.get(0))).transpose()
    }

    async fn create_session(&self, token_sha256: &str, holder_id: &str, now: ServerMillis) -> anyhow::Result<()> {
        let client = self.client().await?;
        client
            .execute(
                "INSERT INTO sessions (token_sha256, holder_id, created_at, last_seen_at) VALUES ($1, $2, $3, $3)",
                &[&token_sha256, &holder_id, &now.0],
            )
            .await?;
        Ok(())
    }

    async fn session_holder(&self, token_sha256: &str) -> anyhow::Result<Option<SessionSeen>> {
        let client = self.client().await?;
        let statement =
            client.prepare_cached("SELECT holder_id, last_seen_at FROM sessions WHERE token_sha256 = $1").await?;
        let row = client.query_opt(&statement, &[&token_sha256]).await?;
        Ok(row.map(|row| SessionSeen { holder: row.get(0), last_seen_at: ServerMillis(row.get(1)) }))
    }

    async fn touch_session(&self, token_sha256: &str, now: ServerMillis) -> anyhow::Result<()> {
        let client = self.client().await?;
        client
            .execute(
                "UPDATE sessions SET last_seen_at = $2 WHERE token_sha256 = $1 AND last_seen_at < $2",
                &[&token_sha256, &now.0],
            )
            .await?;
        Ok(())
    }

    async fn load_holds(&self, show_id: &str) -> anyhow::Result<LoadedHolds> {
        let mut client = self.client().await?;
        // One snapshot: the version and the journal agree.
        let transaction = client
            .build_transaction()
            .read_only(true)
            .isolation_level(tokio_postgres::IsolationLevel::RepeatableRead)
            .start()
            .await?;
        let version: i64 = transaction.query_one("SELECT version FROM shows WHERE id = $1", &[&show_id]).await?.get(0);
        let checkpoint = transaction
            .query_opt("SELECT state FROM checkpoints WHERE show_id = $1", &[&show_id])
            .await?
            .map(|row| Checkpoint::decode(row.get(0)))
            .transpose()?;
        let after = checkpoint.as_ref().map_or(0, |checkpoint| checkpoint.version);
        let tail = rows::journal(&transaction, show_id, after).await?;
        let mut recalled = Vec::new();
        if let Some(checkpoint) = &checkpoint {
            for hold in missing_holds(checkpoint, &tail) {
                recalled.extend(rows::hold_at(&transaction, show_id, &hold, after).await?);
            }
        }
        transaction.commit().await?;
        Ok(load_from(version, checkpoint, recalled, tail))
    }

    async fn hold_at(&self, show_id: &str, hold: &HoldId, version: i64) -> anyhow::Result<Option<Hold>> {
        let client = self.client().await?;
        rows::hold_at(&client, show_id, hold, version).await
    }

    async fn holds_at(&self, show_id: &str, holds: &[HoldId], version: i64) -> anyhow::Result<Vec<Hold>> {
        let client = self.client().await?;
        rows::holds_at(&client, show_id, holds, version).await
    }

    async fn save_checkpoint(&self, show_id: &str, checkpoint: &Checkpoint) -> anyhow::Result<()> {
        let client = self.client().await?;
        let json = checkpoint.encode()?;
        let saved = client
            .execute(
                "INSERT INTO checkpoints (show_id, version, state)
                 SELECT id, $2, $3 FROM shows WHERE id = $1 AND version >= $2
                 ON CONFLICT (show_id) DO UPDATE SET version = excluded.version, state = excluded.state
                 WHERE excluded.version > checkpoints.version",
                &[&show_id, &checkpoint.version, &json],
            )
            .await?;
        let ahead: bool = client
            .query_one("SELECT version < $2 FROM shows WHERE id = $1", &[&show_id, &checkpoint.version])
            .await?
            .get(0);
        anyhow::ensure!(saved == 1 || !ahead, "checkpoint {} of {show_id} is ahead of its journal", checkpoint.version);
        Ok(())
    }

    async fn journal(&self, show_id: &str, after_version: i64) -> anyhow::Result<Vec<Transition>> {
        let client = self.client().await?;
        rows::journal(&client, show_id, after_version).await
    }

    async fn hold_show(&self, hold: &HoldId) -> anyhow::Result<Option<String>> {
        let client = self.client().await?;
        let statement = client.prepare_cached("SELECT show_id FROM hold_ids WHERE hold_id = $1").await?;
        Ok(client.query_opt(&statement, &[&hold.as_str()]).await?.map(|row| row.get(0)))
    }

    async fn holder_holds(&self, holder: &HolderId) -> anyhow::Result<Vec<(String, HoldId)>> {
        let client = self.client().await?;
        let rows = client
            .query(
                "SELECT show_id, hold_id FROM hold_ids WHERE holder_id = $1
                 ORDER BY created_at DESC, show_id DESC, version DESC",
                &[&holder.as_str()],
            )
            .await?;
        rows.iter().map(|row| Ok((row.get(0), HoldId::parse(row.get(1))?))).collect()
    }

    /// Outside a batch (tests): one batch that writes exactly these.
    async fn commit(&self, show_id: &str, transitions: Arc<[Transition]>) -> Result<(), CommitError> {
        let Some(first) = transitions.first() else { return Ok(()) };
        let batch = self.begin_batch(show_id, first.version - 1).await?;
        batch.commit(transitions).await
    }

    /// Due at `now` (a process sharing the database follows its clock), and
    /// claimed for a while, so other processes' sweeps take other entries.
    async fn due_expiries(&self, now: ServerMillis, limit: usize) -> anyhow::Result<Vec<DueExpiry>> {
        let client = self.client().await?;
        let rows = client
            .query(
                "WITH due AS (SELECT seq FROM outbox
                              WHERE done_at IS NULL AND deadline <= $1 AND (claimed_until IS NULL OR claimed_until <= $1)
                              ORDER BY deadline LIMIT $2 FOR UPDATE SKIP LOCKED)
                 UPDATE outbox SET claimed_until = $1 + $3 WHERE seq IN (SELECT seq FROM due)
                 RETURNING seq, show_id, hold_id, deadline",
                &[&now.0, &i64::try_from(limit)?, &CLAIM_MILLIS],
            )
            .await?;
        let mut due: Vec<DueExpiry> = rows
            .iter()
            .map(|row| {
                let (hold_id, deadline): (String, i64) = (row.get(2), row.get(3));
                Ok(DueExpiry {
                    seq: row.get(0),
                    idempotency_key: format!("expire:{hold_id}:{deadline}"),
                    show_id: row.get(1),
                    hold_id: HoldId::parse(&hold_id)?,
                    deadline: ServerMillis(deadline),
                })
            })
            .collect::<anyhow::Result<_>>()?;
        due.sort_by_key(|entry| (entry.deadline, entry.seq));
        Ok(due)
    }

    async fn finish_expiries(&self, seqs: Vec<i64>, now: ServerMillis) -> anyhow::Result<()> {
        let client = self.client().await?;
        client
            .execute("UPDATE outbox SET done_at = $2 WHERE seq = ANY($1) AND done_at IS NULL", &[&seqs, &now.0])
            .await?;
        Ok(())
    }

    async fn queue_log(&self, show_id: &str, after_seq: u64) -> anyhow::Result<Vec<seat_state::QueueEntry>> {
        queue::log(&self.client().await?, show_id, after_seq).await
    }

    async fn append_queue(&self, show_id: &str, entries: Vec<seat_state::QueueEntry>) -> Result<(), CommitError> {
        let mut client = self.client().await?;
        queue::append(&mut client, show_id, &entries).await
    }
}
