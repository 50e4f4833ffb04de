//! PostgreSQL for multi-process tests: a fresh database per test, created
//! next to the one `cargo xtask test` starts (its URL in
//! `SEATHOLD_TEST_POSTGRES`), and a client to audit it directly.

use std::sync::atomic::{AtomicU32, Ordering};

use anyhow::Context;

/// The variable `cargo xtask test` puts the throwaway PostgreSQL's URL in.
pub const URL_VARIABLE: &str = "SEATHOLD_TEST_POSTGRES";

/// A database of its own for one test.
#[derive(Debug, Clone)]
pub struct Database {
    /// `postgres://USER@HOST:PORT/t_…`: the `--database` of every process.
    pub url: String,
    /// Its name, e.g. to find its connections in `pg_stat_activity`.
    pub name: String,
}

impl Database {
    /// A new, empty database (the first `seathold serve` migrates it).
    pub async fn fresh() -> anyhow::Result<Self> {
        let base = std::env::var(URL_VARIABLE).map_err(|_| {
            anyhow::anyhow!(
                "{URL_VARIABLE} is not set: run these tests through `cargo xtask test`, which starts a \
                 throwaway PostgreSQL, or set it to postgres://USER@HOST:PORT/DB of one you started \
                 (`cargo xtask postgres`)"
            )
        })?;
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
        let name = format!("t_sys_{}_{}_{nanos}", std::process::id(), NEXT.fetch_add(1, Ordering::SeqCst));
        let admin = connect(&base).await?;
        admin
            .batch_execute(&format!("CREATE DATABASE {name}"))
            .await
            .with_context(|| format!("CREATE DATABASE {name}"))?;
        let (prefix, _) = base.rsplit_once('/').with_context(|| format!("{URL_VARIABLE}={base} has no /DATABASE"))?;
        Ok(Self { url: format!("{prefix}/{name}"), name })
    }

    /// Waits (up to `PATIENCE`) until `processes` connections to this
    /// database `LISTEN` (one per `seathold` process): a process starts
    /// listening just after it starts answering.
    pub async fn until_listening(&self, processes: i64) -> anyhow::Result<()> {
        let client = self.connect().await?;
        let started = std::time::Instant::now();
        loop {
            let listening: i64 = client
                .query_one(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND query ILIKE 'LISTEN%'",
                    &[&self.name],
                )
                .await?
                .get(0);
            if listening >= processes {
                return Ok(());
            }
            anyhow::ensure!(
                started.elapsed() < crate::PATIENCE,
                "{listening} of {processes} processes LISTEN on {} after {:?}",
                self.name,
                crate::PATIENCE
            );
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    }

    /// A connection to this database, for audits and the database's clock.
    pub async fn connect(&self) -> anyhow::Result<tokio_postgres::Client> {
        connect(&self.url).await
    }
}

/// Connects to `url`; the connection runs on a task of its own.
pub async fn connect(url: &str) -> anyhow::Result<tokio_postgres::Client> {
    let (client, connection) =
        tokio_postgres::connect(url, tokio_postgres::NoTls).await.with_context(|| format!("connecting to {url}"))?;
    tokio::spawn(connection);
    Ok(client)
}

/// The database's clock as epoch milliseconds (what decisions are made at).
pub async fn database_now(client: &tokio_postgres::Client) -> anyhow::Result<i64> {
    Ok(client.query_one("SELECT (extract(epoch from clock_timestamp()) * 1000)::bigint", &[]).await?.get(0))
}
