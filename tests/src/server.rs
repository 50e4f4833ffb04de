//! The real `seathold` binary, on a free port with a temporary database.

use std::path::PathBuf;
use std::process::Stdio;

use anyhow::Context;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

use crate::{PATIENCE, required_path};

/// A running server; killed on drop.
pub struct Server {
    /// `http://127.0.0.1:PORT`, as the server printed it.
    pub base_url: String,
    child: Child,
    /// Holds the database file and the server's log.
    pub data_dir: tempfile::TempDir,
}

impl Server {
    /// Starts `seathold serve --demo` with the release web build and `extra` arguments.
    pub async fn start(extra: &[&str]) -> anyhow::Result<Self> {
        let binary = required_path("SEATHOLD_BIN")?;
        let web = required_path("SEATHOLD_WEB_DIST")?;
        let data_dir = tempfile::tempdir()?;
        let database = format!("sqlite:{}", data_dir.path().join("seathold.db").display());
        let log = std::fs::File::create(data_dir.path().join("server.log"))?;
        let mut child = Command::new(&binary)
            .args(["serve", "--addr", "127.0.0.1:0", "--demo", "--database", &database])
            .arg("--web")
            .arg(&web)
            .args(extra)
            .env_remove("SEATHOLD_ADMIN_TOKEN")
            .stdout(Stdio::piped())
            .stderr(log)
            .kill_on_drop(true)
            .spawn()
            .with_context(|| format!("starting {}", binary.display()))?;
        let stdout = child.stdout.take().context("no stdout")?;
        let mut lines = BufReader::new(stdout).lines();
        let base_url = tokio::time::timeout(PATIENCE, async {
            while let Some(line) = lines.next_line().await? {
                if let Some(url) = line.strip_prefix("listening on ") {
                    return Ok(url.to_owned());
                }
            }
            anyhow::bail!("the server exited before listening")
        })
        .await
        .context("the server did not print `listening on` in time")??;
        Ok(Self { base_url, child, data_dir })
    }

    /// The server's log so far, for failure messages.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.log_path()).unwrap_or_default()
    }

    fn log_path(&self) -> PathBuf {
        self.data_dir.path().join("server.log")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.start_kill();
    }
}
