//! An empty admin token would open the admin API to an empty bearer token:
//! the server refuses to start with one.

use std::process::Stdio;
use std::time::Duration;

use anyhow::Context;

#[tokio::test]
async fn an_empty_admin_token_is_refused_at_start() -> anyhow::Result<()> {
    let binary = std::env::var_os("SEATHOLD_BIN")
        .context("SEATHOLD_BIN is not set: run these tests through `cargo xtask test`")?;
    let dir = tempfile::tempdir()?;
    let database = format!("sqlite:{}", dir.path().join("seathold.db").display());
    for empty in ["", "   "] {
        let started = tokio::process::Command::new(&binary)
            .args(["serve", "--addr", "127.0.0.1:0", "--database", &database])
            .env("SEATHOLD_ADMIN_TOKEN", empty)
            .stdin(Stdio::null())
            .kill_on_drop(true)
            .output();
        let exited = tokio::time::timeout(Duration::from_secs(30), started)
            .await
            .context("the server kept running with an empty admin token")??;
        let stderr = String::from_utf8_lossy(&exited.stderr);
        assert!(!exited.status.success(), "it started with {empty:?}: {stderr}");
        assert!(stderr.contains("SEATHOLD_ADMIN_TOKEN is set but empty"), "{stderr}");
        assert!(!String::from_utf8_lossy(&exited.stdout).contains("listening on"));
    }
    Ok(())
}
