//! One process per SQLite file: a second `seathold serve` on a file another
//! process serves is refused at start, and the first one never notices.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

use std::process::Stdio;

use anyhow::Context;
use seathold_system_tests::server::database_url;
use seathold_system_tests::{PATIENCE, Server};

async fn healthz(server: &Server) -> anyhow::Result<u16> {
    Ok(reqwest::get(format!("{}/healthz", server.base_url)).await?.status().as_u16())
}

#[tokio::test]
async fn a_second_process_on_one_sqlite_file_is_refused_and_the_first_keeps_serving() -> anyhow::Result<()> {
    let first = Server::start_api_only(&[]).await?;
    assert_eq!(healthz(&first).await?, 200);
    let database = database_url(first.data_dir.path());
    let lock_file = format!("{}.lock", first.data_dir.path().join("seathold.db").display());

    let binary = std::env::var_os("SEATHOLD_BIN")
        .context("SEATHOLD_BIN is not set: run these tests through `cargo xtask test`")?;
    let second = tokio::process::Command::new(binary)
        .args(["serve", "--addr", "127.0.0.1:0", "--database", &database])
        .env_remove("SEATHOLD_ADMIN_TOKEN")
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .output();
    let second = tokio::time::timeout(PATIENCE, second)
        .await
        .context("the second process is still running: it was not refused")??;
    let stderr = String::from_utf8_lossy(&second.stderr);
    assert!(!second.status.success(), "the second process exited with {}; stderr:\n{stderr}", second.status);
    for expected in [
        "is already in use by another seathold process",
        lock_file.as_str(),
        "one process per SQLite file — use postgres:// for several",
    ] {
        assert!(stderr.contains(expected), "stderr lacks {expected:?}:\n{stderr}");
    }
    assert!(
        !String::from_utf8_lossy(&second.stdout).contains("listening on"),
        "the second process listened before it was refused"
    );

    // The refusal touched nothing the first process uses.
    assert_eq!(healthz(&first).await?, 200, "server log:\n{}", first.log());
    let seats = first.seat_facts("demo-theatre").await?;
    assert_eq!(seats["seats"].as_array().map(Vec::len), Some(160));

    // The OS releases the lock when its holder dies, even by `kill -9`:
    // the next process starts on the same file.
    let data_dir = std::sync::Arc::clone(&first.data_dir);
    first.kill_9().await?;
    let web = data_dir.path().join("no-web-ui");
    let next = Server::start_serving(&web, data_dir, &[]).await?;
    assert_eq!(healthz(&next).await?, 200, "server log:\n{}", next.log());
    Ok(())
}
