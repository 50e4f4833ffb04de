//! A real nginx (Debian's `nginx`, which `cargo xtask test` installs) in
//! front of a server, configured by the repository's own
//! `ops/nginx/seathold.conf`: its own prefix, pid, temporary and cache
//! folders and access log in a temporary folder, on a free port, in the
//! foreground. Its processes (master, worker, cache helpers) share a
//! process group that drop kills.

use std::net::TcpListener;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::Context;

use crate::{PATIENCE, workspace_root};

/// Where Debian puts the binary; `SEATHOLD_NGINX` names another.
const NGINX: &str = "/usr/sbin/nginx";

/// One nginx, killed with its workers on drop.
pub struct Nginx {
    /// `http://127.0.0.1:PORT`.
    pub base_url: String,
    process: Child,
    dir: tempfile::TempDir,
}

/// One line of the access log (`log_format seathold` in the config).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Logged {
    /// The client's address as nginx saw it.
    pub client: String,
    /// `GET /api/shows/x`, without the protocol.
    pub request: String,
    pub status: u16,
    /// `$upstream_cache_status`: `HIT`, `MISS`, … or `-` (not cached).
    pub cache: String,
    /// `$upstream_status`: the origin's status, `-` when the origin was not asked.
    pub upstream: String,
    /// The normalized encoding the cache keys on (`br`, `gzip` or empty).
    pub encoding: String,
}

impl Logged {
    /// Whether the origin answered this request.
    pub fn reached_origin(&self) -> bool {
        self.upstream != "-"
    }
}

fn free_port() -> anyhow::Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

impl Nginx {
    /// The binary: `SEATHOLD_NGINX`, else Debian's.
    pub fn binary() -> anyhow::Result<PathBuf> {
        let path = std::env::var_os("SEATHOLD_NGINX").map_or_else(|| PathBuf::from(NGINX), PathBuf::from);
        anyhow::ensure!(
            path.is_file(),
            "{} is missing: `cargo xtask test` installs nginx (apt package `nginx`), or set SEATHOLD_NGINX",
            path.display()
        );
        Ok(path)
    }

    /// Starts nginx with `ops/nginx/seathold.conf` in front of `origin`
    /// (`http://HOST:PORT`, as a server printed it) and waits until it answers.
    pub async fn start(origin: &str) -> anyhow::Result<Self> {
        let binary = Self::binary()?;
        let dir = tempfile::tempdir()?;
        // nginx's workers run as `nobody` when started by root: they must
        // reach the folder (the cache and temporary folders below are
        // created and handed to them by the master).
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755))?;
        let port = free_port()?;
        let origin = origin.strip_prefix("http://").unwrap_or(origin);
        let site = crate::fill(
            &config_path(),
            &[
                ("SEATHOLD_LISTEN", &format!("127.0.0.1:{port}")),
                ("SEATHOLD_ORIGIN", origin),
                ("SEATHOLD_CACHE", &dir.path().join("cache").display().to_string()),
                ("SEATHOLD_ACCESS_LOG", &dir.path().join("access.log").display().to_string()),
            ],
        )?;
        std::fs::write(dir.path().join("seathold.conf"), site)?;
        let d = dir.path().display();
        let main = format!(
            "daemon off;\nworker_processes 1;\npid {d}/nginx.pid;\nerror_log {d}/error.log info;\n\
             events {{ worker_connections 4096; }}\n\
             http {{\n  client_body_temp_path {d}/temp/body;\n  proxy_temp_path {d}/temp/proxy;\n  \
             fastcgi_temp_path {d}/temp/fastcgi;\n  uwsgi_temp_path {d}/temp/uwsgi;\n  scgi_temp_path {d}/temp/scgi;\n  \
             include {d}/seathold.conf;\n}}\n"
        );
        std::fs::create_dir(dir.path().join("temp"))?;
        std::fs::write(dir.path().join("nginx.conf"), main)?;
        let process = Command::new(&binary)
            .arg("-p")
            .arg(dir.path())
            .arg("-c")
            .arg(dir.path().join("nginx.conf"))
            .arg("-e")
            .arg(dir.path().join("error.log"))
            // Its own process group: drop kills the workers with the master.
            .process_group(0)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .with_context(|| format!("starting {}", binary.display()))?;
        let mut nginx = Self { base_url: format!("http://127.0.0.1:{port}"), process, dir };
        nginx.until_answering().await?;
        Ok(nginx)
    }

    async fn until_answering(&mut self) -> anyhow::Result<()> {
        let started = Instant::now();
        loop {
            if let Some(status) = self.process.try_wait()? {
                anyhow::bail!("nginx exited at start ({status}):\n{}", self.error_log());
            }
            if reqwest::get(format!("{}/healthz", self.base_url)).await.is_ok() {
                return Ok(());
            }
            anyhow::ensure!(started.elapsed() < PATIENCE, "nginx did not answer in time:\n{}", self.error_log());
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// The access log so far, one entry per answered request.
    pub fn access_log(&self) -> anyhow::Result<Vec<Logged>> {
        let text = std::fs::read_to_string(self.dir.path().join("access.log")).unwrap_or_default();
        text.lines().map(parse_line).collect()
    }

    /// The access log's entries for requests `request` (e.g. `GET /api/time`), exactly.
    pub fn logged(&self, request: &str) -> anyhow::Result<Vec<Logged>> {
        Ok(self.access_log()?.into_iter().filter(|entry| entry.request == request).collect())
    }

    /// The entries for `request` once at least `count` are there: nginx writes a
    /// request's line after its answer is sent, so a client can be ahead of the log.
    pub async fn logged_at_least(&self, request: &str, count: usize) -> anyhow::Result<Vec<Logged>> {
        let started = Instant::now();
        loop {
            let logged = self.logged(request)?;
            if logged.len() >= count {
                return Ok(logged);
            }
            anyhow::ensure!(
                started.elapsed() < PATIENCE,
                "nginx logged {} of {count} `{request}`: {logged:?}",
                logged.len()
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// nginx's error log, for failure messages.
    pub fn error_log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("error.log")).unwrap_or_default()
    }

    /// The configuration it runs, as filled in.
    pub fn config(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("seathold.conf")).unwrap_or_default()
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let group = format!("-{}", self.process.id());
        let _ = Command::new("kill").args(["-KILL", "--", &group]).status();
        let _ = self.process.wait();
    }
}

/// `ops/nginx/seathold.conf` in the workspace.
pub fn config_path() -> PathBuf {
    workspace_root().join("ops").join("nginx").join("seathold.conf")
}

/// `$remote_addr "$request" $status $bytes cache=… upstream=… encoding=… time=…`.
fn parse_line(line: &str) -> anyhow::Result<Logged> {
    let bad = || anyhow::anyhow!("an access-log line not in the `seathold` format: {line:?}");
    let (client, rest) = line.split_once(" \"").ok_or_else(bad)?;
    let (request, rest) = rest.split_once("\" ").ok_or_else(bad)?;
    let request = request.rsplit_once(' ').map_or(request, |(request, _protocol)| request);
    let mut fields = rest.split(' ');
    let status = fields.next().and_then(|status| status.parse().ok()).ok_or_else(bad)?;
    let mut named = |name: &str| {
        fields
            .find_map(|field| field.strip_prefix(name).map(str::to_owned))
            .ok_or_else(|| anyhow::anyhow!("no {name} in {line:?}"))
    };
    let cache = named("cache=")?;
    let upstream = named("upstream=")?;
    let encoding = named("encoding=")?;
    Ok(Logged { client: client.to_owned(), request: request.to_owned(), status, cache, upstream, encoding })
}

/// The path of a file in `dist` whose name carries a content hash and ends with `suffix`.
pub fn hashed_file(dist: &Path, suffix: &str) -> anyhow::Result<String> {
    std::fs::read_dir(dist)?
        .flatten()
        .filter_map(|entry| entry.file_name().into_string().ok())
        .find(|name| name.ends_with(suffix) && name.starts_with("seathold-web-"))
        .map(|name| format!("/{name}"))
        .with_context(|| format!("no seathold-web-…{suffix} in {}", dist.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_access_log_format_reads_back() {
        let line = "127.0.0.2 \"GET /api/shows/demo-theatre HTTP/1.1\" 200 1053 cache=MISS upstream=200 encoding=br time=0.002";
        let logged = parse_line(line).unwrap();
        assert_eq!(logged.client, "127.0.0.2");
        assert_eq!(logged.request, "GET /api/shows/demo-theatre");
        assert_eq!((logged.status, logged.cache.as_str(), logged.upstream.as_str()), (200, "MISS", "200"));
        assert_eq!(logged.encoding, "br");
        let empty = parse_line("127.0.0.1 \"GET / HTTP/1.1\" 304 0 cache=- upstream=304 encoding= time=0.000").unwrap();
        assert_eq!(empty.encoding, "");
        assert!(empty.reached_origin());
    }

    #[test]
    fn every_placeholder_in_the_config_is_filled() {
        let values =
            [("SEATHOLD_LISTEN", "1"), ("SEATHOLD_ORIGIN", "2"), ("SEATHOLD_CACHE", "3"), ("SEATHOLD_ACCESS_LOG", "4")];
        crate::fill(&config_path(), &values).unwrap();
        assert!(crate::fill(&config_path(), &values[..3]).is_err());
    }
}
