//! A fresh database per test on the throwaway PostgreSQL that `cargo xtask
//! test` starts (its URL in `SEATHOLD_TEST_POSTGRES`): for this crate's
//! tests and, through `testkit`, the server's.

use std::sync::atomic::{AtomicU32, Ordering};

/// The URL of a new, empty database.
pub async fn fresh_test_database() -> String {
    let url = std::env::var("SEATHOLD_TEST_POSTGRES").unwrap_or_else(|_| {
        panic!("SEATHOLD_TEST_POSTGRES is not set: run the tests with `cargo xtask test`, which starts a throwaway PostgreSQL")
    });
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let name = format!("t_{}_{}_{}", std::process::id(), NEXT.fetch_add(1, Ordering::SeqCst), nanos());
    let (client, connection) =
        tokio_postgres::connect(&url, tokio_postgres::NoTls).await.expect("connect to PostgreSQL");
    tokio::spawn(connection);
    client.batch_execute(&format!("CREATE DATABASE {name}")).await.expect("create a test database");
    let (base, _) = url.rsplit_once('/').expect("a URL ending in /DATABASE");
    format!("{base}/{name}")
}

fn nanos() -> u32 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos())
}
