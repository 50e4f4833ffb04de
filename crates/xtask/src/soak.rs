//! `cargo xtask soak [--minutes N]`: the crash soak. Customers (the `soak`
//! binary of crates/bench) buy from one debug server on a SQLite file
//! while it is killed with `kill -9` every few seconds and restarted on the
//! same port; then they audit what they were told. Prints the kills and the
//! decisions survived. A one-minute soak runs in `cargo xtask test`.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::run::{Step, cargo, run_checked, target_dir};

/// How long the server lives between kills.
const KILL_EVERY: Duration = Duration::from_secs(3);

pub fn soak(args: &[String]) -> Result<(), String> {
    let minutes = match args {
        [] => 1.0,
        [flag, value] if flag == "--minutes" => value.parse::<f64>().map_err(|e| format!("--minutes: {e}"))?,
        _ => return Err("usage: cargo xtask soak [--minutes N]".into()),
    };
    run(Duration::from_secs_f64(minutes * 60.0))
}

/// Builds what it needs, then soaks for `duration`.
pub fn run(duration: Duration) -> Result<(), String> {
    let step =
        Step::start(&format!("crash soak: kill -9 every {} s for {} s", KILL_EVERY.as_secs(), duration.as_secs()));
    run_checked(&mut cargo(&[
        "build",
        "--package",
        "seathold-server",
        "--bin",
        "seathold",
        "--package",
        "seathold-bench",
        "--bin",
        "soak",
    ]))?;
    let data = std::env::temp_dir().join(format!("seathold-soak-{}", std::process::id()));
    std::fs::create_dir_all(&data).map_err(|e| format!("creating {}: {e}", data.display()))?;
    // Kept when the audit fails: the server's log is in it.
    let (kills, line) = soak_in(&data, duration)?;
    let _ = std::fs::remove_dir_all(&data);
    println!("    {kills} kill -9s survived; {line}");
    step.done()
}

struct Server {
    child: Child,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    /// `seathold serve` on `port`; returns once it listens.
    fn start(data: &std::path::Path, port: u16, admin_token: &str) -> Result<Self, String> {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(data.join("server.log"))
            .map_err(|e| format!("server log: {e}"))?;
        let database = format!("sqlite:{}", data.join("soak.db").display());
        let mut child = Command::new(target_dir().join("debug").join("seathold"))
            .args(["serve", "--addr", &format!("127.0.0.1:{port}"), "--rate-limits", "off", "--database", &database])
            .env("SEATHOLD_ADMIN_TOKEN", admin_token)
            .env("RUST_LOG", "warn")
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .map_err(|e| format!("starting seathold: {e}"))?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let mut lines = BufReader::new(stdout).lines();
        let listening = lines.by_ref().map_while(Result::ok).any(|line| line.starts_with("listening on "));
        // Keep reading, so that the server never writes into a closed pipe.
        std::thread::spawn(move || lines.for_each(drop));
        let server = Self { child };
        if listening { Ok(server) } else { Err(format!("seathold exited before listening; see {}", data.display())) }
    }
}

fn free_port() -> Result<u16, String> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| format!("finding a free port: {e}"))?;
    listener.local_addr().map(|address| address.port()).map_err(|e| e.to_string())
}

/// Runs the customers against a server it kills and restarts; the number
/// of kills and the customers' `soak:` line.
fn soak_in(data: &std::path::Path, duration: Duration) -> Result<(u64, String), String> {
    let port = free_port()?;
    let admin_token = format!("soak-{}-admin-token", std::process::id());
    let mut server = Server::start(data, port, &admin_token)?;
    let mut customers = Command::new(target_dir().join("debug").join("soak"))
        .args([&format!("http://127.0.0.1:{port}"), &admin_token, &duration.as_secs().to_string()])
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("starting the soak's customers: {e}"))?;
    let stdout = customers.stdout.take().ok_or("no stdout")?;
    let (lines_to, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = lines_to.send(line);
        }
    });
    let started = Instant::now();
    let mut kills = 0;
    while started.elapsed() + KILL_EVERY < duration {
        std::thread::sleep(KILL_EVERY);
        // Child::kill is SIGKILL: no shutdown, no flush, mid-commit.
        drop(server);
        kills += 1;
        server = restart(data, port, &admin_token)?;
    }
    let status = customers.wait().map_err(|e| format!("soak customers: {e}"))?;
    drop(server);
    // Ends when the reader thread has seen the customers' stdout close.
    let printed: Vec<String> = lines.iter().collect();
    let line = printed.iter().find(|line| line.starts_with("soak: ")).cloned();
    match (status.success(), line) {
        (true, Some(line)) => Ok((kills, line)),
        _ => Err(format!(
            "the soak's audit failed ({status}):\n{}\nserver log in {}",
            printed.join("\n"),
            log(data).display()
        )),
    }
}

/// The port is free again once the killed process is reaped; a few tries.
fn restart(data: &std::path::Path, port: u16, admin_token: &str) -> Result<Server, String> {
    let mut last = String::new();
    for _ in 0..20 {
        match Server::start(data, port, admin_token) {
            Ok(server) => return Ok(server),
            Err(error) => last = error,
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    Err(last)
}

fn log(data: &std::path::Path) -> PathBuf {
    data.join("server.log")
}
