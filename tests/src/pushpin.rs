//! A real Pushpin (Debian's `pushpin` 1.36 with `zurl`, which `cargo xtask
//! test` installs) in front of servers, configured by the repository's own
//! `ops/pushpin/pushpin.conf`: its own run, log and routes files in a
//! temporary folder, its HTTP port and publish port free ones. The runner
//! starts condure, zurl, the proxy and the handler each in a process group
//! of its own: [`Pushpin::kill`] and drop find them as the runner's
//! children and kill them with it; a restart starts them again on the same
//! ports.

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::Context;

use crate::{PATIENCE, workspace_root};

/// Where Debian puts the runner; `SEATHOLD_PUSHPIN` names another.
const PUSHPIN: &str = "/usr/bin/pushpin";

/// One Pushpin instance.
pub struct Pushpin {
    /// `http://127.0.0.1:PORT`: where viewers connect.
    pub base_url: String,
    /// `http://127.0.0.1:PORT`: its publish API (`--grip-publish`).
    pub publish_url: String,
    http_port: u16,
    publish_port: u16,
    process: Option<Child>,
    dir: tempfile::TempDir,
}

fn free_port() -> anyhow::Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// `ops/pushpin/pushpin.conf` in the workspace.
pub fn config_path() -> PathBuf {
    workspace_root().join("ops").join("pushpin").join("pushpin.conf")
}

impl Pushpin {
    /// The runner: `SEATHOLD_PUSHPIN`, else Debian's.
    pub fn binary() -> anyhow::Result<PathBuf> {
        let path = std::env::var_os("SEATHOLD_PUSHPIN").map_or_else(|| PathBuf::from(PUSHPIN), PathBuf::from);
        anyhow::ensure!(
            path.is_file(),
            "{} is missing: `cargo xtask test` installs Pushpin (apt package `pushpin`, with zurl), or set SEATHOLD_PUSHPIN",
            path.display()
        );
        Ok(path)
    }

    /// Starts Pushpin routing every request to `origins` (`HOST:PORT`, or
    /// `http://HOST:PORT` as a server printed it), signing them with `key`;
    /// returns once its HTTP and publish ports take connections.
    pub async fn start(origins: &[&str], key: &str) -> anyhow::Result<Self> {
        Self::start_tuned(origins, key, &[]).await
    }

    /// [`Pushpin::start`] with some of the configuration's `name=value`
    /// lines set otherwise (e.g. `message_rate`, sized to a bench's viewers).
    pub async fn start_tuned(origins: &[&str], key: &str, settings: &[(&str, &str)]) -> anyhow::Result<Self> {
        Self::binary()?;
        let dir = tempfile::tempdir()?;
        let (http_port, publish_port) = (free_port()?, free_port()?);
        let config = crate::fill(
            &config_path(),
            &[
                ("PUSHPIN_DIR", &dir.path().display().to_string()),
                ("PUSHPIN_HTTP", &format!("127.0.0.1:{http_port}")),
                ("PUSHPIN_PUBLISH_PORT", &publish_port.to_string()),
                ("GRIP_KEY", key),
            ],
        )?;
        let config = settings.iter().try_fold(config, |config, (name, value)| retune(&config, name, value))?;
        std::fs::write(dir.path().join("pushpin.conf"), config)?;
        let targets: Vec<&str> =
            origins.iter().map(|origin| origin.strip_prefix("http://").unwrap_or(origin)).collect();
        std::fs::write(dir.path().join("routes"), format!("* {}\n", targets.join(",")))?;
        for sub in ["run", "log"] {
            std::fs::create_dir(dir.path().join(sub))?;
        }
        let mut pushpin = Self {
            base_url: format!("http://127.0.0.1:{http_port}"),
            publish_url: format!("http://127.0.0.1:{publish_port}"),
            http_port,
            publish_port,
            process: None,
            dir,
        };
        pushpin.spawn().await?;
        Ok(pushpin)
    }

    async fn spawn(&mut self) -> anyhow::Result<()> {
        let binary = Self::binary()?;
        let output = std::fs::OpenOptions::new().create(true).append(true).open(self.dir.path().join("runner.log"))?;
        let process = Command::new(&binary)
            .arg("--config")
            .arg(self.dir.path().join("pushpin.conf"))
            .stdout(output.try_clone()?)
            .stderr(output)
            .stdin(Stdio::null())
            .spawn()
            .with_context(|| format!("starting {}", binary.display()))?;
        self.process = Some(process);
        let started = Instant::now();
        loop {
            let ready = [self.http_port, self.publish_port]
                .iter()
                .all(|port| std::net::TcpStream::connect(("127.0.0.1", *port)).is_ok());
            if ready {
                return Ok(());
            }
            if let Some(status) = self.process.as_mut().and_then(|process| process.try_wait().ok().flatten()) {
                anyhow::bail!("pushpin exited at start ({status}):\n{}", self.logs());
            }
            anyhow::ensure!(started.elapsed() < PATIENCE, "pushpin did not listen in time:\n{}", self.logs());
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Waits until a `GET path` through it is answered 200 by the server
    /// behind (its proxy takes requests a moment after its port does).
    pub async fn until_proxying(&self, path: &str) -> anyhow::Result<()> {
        let started = Instant::now();
        loop {
            let answer = reqwest::get(format!("{}{path}", self.base_url)).await;
            if answer.is_ok_and(|answer| answer.status() == 200) {
                return Ok(());
            }
            anyhow::ensure!(
                started.elapsed() < PATIENCE,
                "pushpin did not pass GET {path} on in time:\n{}",
                self.logs()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Kills every process of the instance at once, as a crash would.
    pub fn kill(&mut self) {
        // Its children first found, then all killed together.
        let pids = self.pids();
        if let Some(mut process) = self.process.take() {
            let _ = Command::new("kill").arg("-KILL").args(pids.iter().map(u32::to_string)).status();
            let _ = process.wait();
            // A restart starts only once every one of them is gone (zurl
            // holds no port to tell by; under load one outlived the kill).
            let started = Instant::now();
            while started.elapsed() < PATIENCE && pids.iter().any(|pid| alive(*pid)) {
                std::thread::sleep(Duration::from_millis(20));
            }
        }
    }

    /// Kills it and starts it again on the same ports and configuration.
    pub async fn restart(&mut self) -> anyhow::Result<()> {
        self.kill();
        // The ports are free again once the killed processes are gone.
        let started = Instant::now();
        while [self.http_port, self.publish_port].iter().any(|port| TcpListener::bind(("127.0.0.1", *port)).is_err()) {
            anyhow::ensure!(started.elapsed() < PATIENCE, "pushpin's ports stayed taken after it was killed");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        self.spawn().await
    }

    /// The end of each of its logs, for failure messages.
    pub fn logs(&self) -> String {
        let mut text = String::new();
        for name in
            ["runner.log", "log/pushpin-proxy.log", "log/pushpin-handler.log", "log/condure.log", "log/zurl.log"]
        {
            let log = std::fs::read_to_string(self.dir.path().join(name)).unwrap_or_default();
            let tail: Vec<&str> = log.lines().rev().take(40).collect();
            text.push_str(&format!("--- pushpin {name}:\n"));
            for line in tail.iter().rev() {
                text.push_str(line);
                text.push('\n');
            }
        }
        text
    }

    /// Lines of the handler's log that contain `what` (e.g. `subscribe`).
    pub fn handler_log(&self, what: &str) -> Vec<String> {
        let log = std::fs::read_to_string(self.dir.path().join("log/pushpin-handler.log")).unwrap_or_default();
        log.lines().filter(|line| line.contains(what)).map(str::to_owned).collect()
    }

    /// The runner's process id and every one it started (condure, zurl,
    /// the proxy and the handler); none once killed.
    pub fn pids(&self) -> Vec<u32> {
        let Some(process) = &self.process else { return Vec::new() };
        let mut pids = family(process.id());
        pids.push(process.id());
        pids
    }

    /// Its resident memory in KiB, summed over its processes, from `/proc`.
    pub fn resident_kib(&self) -> u64 {
        self.pids()
            .iter()
            .map(|pid| {
                let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
                status
                    .lines()
                    .find_map(|line| line.strip_prefix("VmRSS:"))
                    .and_then(|kib| kib.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
                    .unwrap_or(0)
            })
            .sum()
    }
}

/// `config` with its one `name=…` line set to `name=value`.
fn retune(config: &str, name: &str, value: &str) -> anyhow::Result<String> {
    let prefix = format!("{name}=");
    anyhow::ensure!(config.lines().filter(|line| line.starts_with(&prefix)).count() == 1, "no one {name}= line to set");
    let lines: Vec<String> = config
        .lines()
        .map(|line| if line.starts_with(&prefix) { format!("{prefix}{value}") } else { line.to_owned() })
        .collect();
    Ok(lines.join("\n") + "\n")
}

/// Whether `pid` is still a process that has not exited (a zombie has).
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| stat.rsplit_once(')').and_then(|(_, rest)| rest.split_whitespace().next().map(str::to_owned)))
        .is_some_and(|state| state != "Z" && state != "X")
}

/// Every descendant of `pid`, from `/proc/*/stat` (`pid (comm) state ppid …`).
fn family(pid: u32) -> Vec<u32> {
    let parents: Vec<(u32, u32)> = std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let child: u32 = entry.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(entry.path().join("stat")).ok()?;
            // comm may hold spaces: read after its closing parenthesis.
            let parent = stat.rsplit_once(')')?.1.split_whitespace().nth(1)?.parse().ok()?;
            Some((child, parent))
        })
        .collect();
    let mut found = Vec::new();
    let mut next = vec![pid];
    while let Some(parent) = next.pop() {
        for (child, _) in parents.iter().filter(|(_, of)| *of == parent) {
            found.push(*child);
            next.push(*child);
        }
    }
    found
}

impl Drop for Pushpin {
    fn drop(&mut self) {
        self.kill();
    }
}
