//! The real `seathold` binary, on a free port with a temporary database.

use std::path::{Path, PathBuf};
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
    pub data_dir: std::sync::Arc<tempfile::TempDir>,
}

/// The `--database` value for a data directory.
pub fn database_url(data_dir: &Path) -> String {
    format!("sqlite:{}", data_dir.join("seathold.db").display())
}

/// Every named server's log, to append to a failure.
pub fn logs(servers: &[(&str, &Server)]) -> String {
    servers.iter().map(|(name, server)| format!("--- log of {name}:\n{}", server.log())).collect::<Vec<_>>().join("\n")
}

/// Runs `seathold ARGS…` to completion and returns its stdout.
pub async fn run_binary(args: &[&str]) -> anyhow::Result<String> {
    let output = Command::new(required_path("SEATHOLD_BIN")?).args(args).output().await?;
    anyhow::ensure!(output.status.success(), "seathold {args:?} failed: {}", String::from_utf8_lossy(&output.stderr));
    Ok(String::from_utf8(output.stdout)?)
}

/// Creates `show` (a venue file's JSON) with `seathold show create` in the
/// database of `data_dir`, before a server starts on it.
pub async fn create_show(data_dir: &Path, show: &serde_json::Value) -> anyhow::Result<()> {
    let venue = data_dir.join("venue.json");
    std::fs::write(&venue, show.to_string())?;
    let venue = venue.to_str().context("a UTF-8 temporary path")?;
    run_binary(&["show", "create", venue, "--database", &database_url(data_dir)]).await?;
    Ok(())
}

impl Server {
    /// Starts `seathold serve --demo` with the release web build and `extra` arguments.
    pub async fn start(extra: &[&str]) -> anyhow::Result<Self> {
        Self::start_in(std::sync::Arc::new(tempfile::tempdir()?), extra).await
    }

    /// The same, on the database in `data_dir` (which may hold earlier runs' data).
    pub async fn start_in(data_dir: std::sync::Arc<tempfile::TempDir>, extra: &[&str]) -> anyhow::Result<Self> {
        Self::start_serving(&required_path("SEATHOLD_WEB_DIST")?, data_dir, extra).await
    }

    /// Starts `seathold serve --demo` with the release web build, `extra`
    /// arguments and `env` set (e.g. `SEATHOLD_ADMIN_TOKEN`).
    pub async fn start_with_env(extra: &[&str], env: &[(&str, &str)]) -> anyhow::Result<Self> {
        let data_dir = std::sync::Arc::new(tempfile::tempdir()?);
        let database = database_url(data_dir.path());
        Self::launch(&required_path("SEATHOLD_WEB_DIST")?, data_dir, &database, extra, env).await
    }

    /// The same, serving the web UI from `web` (e.g. an instrumented copy).
    pub async fn start_serving(
        web: &Path,
        data_dir: std::sync::Arc<tempfile::TempDir>,
        extra: &[&str],
    ) -> anyhow::Result<Self> {
        let database = database_url(data_dir.path());
        Self::launch(web, data_dir, &database, extra, &[]).await
    }

    /// Starts `seathold serve --demo --database DATABASE` (e.g. a
    /// `postgres://` URL shared with other processes) and `extra` arguments
    /// with an empty web directory and `env` set (e.g.
    /// `SEATHOLD_CLOCK_SKEW_MS`); its log goes to a directory of its own.
    pub async fn start_on_database(database: &str, extra: &[&str], env: &[(&str, &str)]) -> anyhow::Result<Self> {
        let data_dir = std::sync::Arc::new(tempfile::tempdir()?);
        let web = data_dir.path().join("no-web-ui");
        std::fs::create_dir(&web)?;
        Self::launch(&web, data_dir, database, extra, env).await
    }

    async fn launch(
        web: &Path,
        data_dir: std::sync::Arc<tempfile::TempDir>,
        database: &str,
        extra: &[&str],
        env: &[(&str, &str)],
    ) -> anyhow::Result<Self> {
        let binary = required_path("SEATHOLD_BIN")?;
        let log = std::fs::OpenOptions::new().create(true).append(true).open(data_dir.path().join("server.log"))?;
        // A free port, unless the caller names the address (a restart on the same one).
        let addr: &[&str] = if extra.contains(&"--addr") { &[] } else { &["--addr", "127.0.0.1:0"] };
        let mut child = Command::new(&binary)
            .arg("serve")
            .args(addr)
            .args(["--demo", "--database", database])
            .arg("--web")
            .arg(web)
            .args(extra)
            .env_remove("SEATHOLD_ADMIN_TOKEN")
            // Tests drive many customers from one address; the limits have
            // their own tests (a test may pass `SEATHOLD_RATE_LIMITS=on`).
            .env("SEATHOLD_RATE_LIMITS", "off")
            .envs(env.iter().copied())
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

    /// Creates `show` (a venue file's JSON) with `seathold show create` in a
    /// fresh data directory, then starts the server on it.
    pub async fn start_with_show(show: &serde_json::Value, extra: &[&str]) -> anyhow::Result<Self> {
        let data_dir = std::sync::Arc::new(tempfile::tempdir()?);
        create_show(data_dir.path(), show).await?;
        Self::start_in(data_dir, extra).await
    }

    /// Starts `seathold serve --demo` on the database in `data_dir` (which
    /// may hold earlier runs' data, e.g. a process restarted) with `extra`
    /// arguments (`--addr` among them names the address), `env` set and an
    /// empty web directory.
    pub async fn start_in_api_only(
        data_dir: std::sync::Arc<tempfile::TempDir>,
        extra: &[&str],
        env: &[(&str, &str)],
    ) -> anyhow::Result<Self> {
        let web = data_dir.path().join("no-web-ui");
        std::fs::create_dir_all(&web)?;
        let database = database_url(data_dir.path());
        Self::launch(&web, data_dir, &database, extra, env).await
    }

    /// Starts `seathold serve --demo` and `extra` arguments with an empty web
    /// directory: for API-only tests, which then need only `SEATHOLD_BIN`.
    pub async fn start_api_only(extra: &[&str]) -> anyhow::Result<Self> {
        let data_dir = std::sync::Arc::new(tempfile::tempdir()?);
        let web = data_dir.path().join("no-web-ui");
        std::fs::create_dir(&web)?;
        Self::start_serving(&web, data_dir, extra).await
    }

    /// `GET /api/shows/{show}/seats` without a session: the facts every viewer gets.
    pub async fn seat_facts(&self, show: &str) -> anyhow::Result<serde_json::Value> {
        let url = format!("{}/api/shows/{show}/seats", self.base_url);
        Ok(reqwest::get(url).await?.error_for_status()?.json().await?)
    }

    /// Sends SIGTERM, as an operator would, and waits (up to `PATIENCE`) for
    /// the process to exit; returns its exit status.
    pub async fn terminate(mut self) -> anyhow::Result<std::process::ExitStatus> {
        let pid = self.child.id().context("the server already exited")?;
        let status = std::process::Command::new("kill").args(["-TERM", &pid.to_string()]).status()?;
        anyhow::ensure!(status.success(), "kill -TERM failed");
        Ok(tokio::time::timeout(PATIENCE, self.child.wait())
            .await
            .context("the server did not stop after SIGTERM")??)
    }

    /// Kills the process with SIGKILL, as a crash would, and waits for it to go.
    pub async fn kill_9(mut self) -> anyhow::Result<()> {
        self.child.start_kill()?;
        self.child.wait().await?;
        Ok(())
    }

    /// The process id, to signal it (stop, continue).
    pub fn pid(&self) -> Option<u32> {
        self.child.id()
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
