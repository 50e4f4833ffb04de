//! Reproduction: the LISTEN connection's reconnection back-off never resets
//! after a connection that worked (store/postgres/listen.rs doubles it on
//! every loss, up to 5 s, for the life of the process). After a handful of
//! losses spread over any length of time — a PostgreSQL failover, a proxy
//! that recycles idle connections — every later loss leaves the process
//! deaf to other processes' changes for 5 s, and their live events reach
//! its viewers only through the 1 s journal poll (issue 11's target: p99 <
//! 250 ms).

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

use std::time::{Duration, Instant};

use anyhow::ensure;
use seathold_system_tests::Server;
use seathold_system_tests::postgres::Database;

/// A lost LISTEN connection after one that lasted should be back within this.
const BACK_WITHIN: Duration = Duration::from_millis(1000);

#[tokio::test]
async fn a_lost_listen_connection_comes_back_quickly_after_one_that_lasted() -> anyhow::Result<()> {
    let database = Database::fresh().await?;
    let server = Server::start_on_database(&database.url, &[], &[]).await?;
    let sql = database.connect().await?;
    let mut took = Vec::new();
    for _ in 0..7 {
        database.until_listening(1).await?;
        // The connection works for a while, then is lost.
        tokio::time::sleep(Duration::from_secs(2)).await;
        sql.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND query ILIKE 'LISTEN%'",
            &[&database.name],
        )
        .await?;
        let cut = Instant::now();
        // Gone before waiting for it to come back.
        loop {
            let listening: i64 = sql
                .query_one(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND query ILIKE 'LISTEN%'",
                    &[&database.name],
                )
                .await?
                .get(0);
            if listening == 0 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        database.until_listening(1).await?;
        took.push(cut.elapsed());
    }
    eprintln!("listening again after each loss (ms): {:?}", took.iter().map(Duration::as_millis).collect::<Vec<_>>());
    ensure!(
        took.iter().all(|took| *took < BACK_WITHIN),
        "each loss followed 2 s of a working connection, yet coming back took (ms) {:?}\n{}",
        took.iter().map(Duration::as_millis).collect::<Vec<_>>(),
        server.log()
    );
    Ok(())
}
