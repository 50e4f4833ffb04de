//! The contract check: schemathesis (PyPI, pinned, in a venv under
//! `target/`) runs every check against a debug server's
//! `/api/openapi.json`; any failure fails the test command. Exceptions the
//! schema cannot express are in `crates/xtask/schemathesis.toml`, each with
//! its reason.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

use crate::run::{Step, root, run_checked, target_dir};

/// Pinned: a new release may add checks; moving up is a deliberate change.
const SCHEMATHESIS: &str = "4.32.5";
/// Any seed will do; other seeds explore further (`st run … --seed N`).
const SEED: &str = "20261130";

fn venv() -> PathBuf {
    root().join("target").join("schemathesis-venv")
}

/// Installs schemathesis unless the venv already has this version.
fn install() -> Result<PathBuf, String> {
    let st = venv().join("bin").join("st");
    let installed = Command::new(&st).arg("--version").output().ok();
    if installed.is_some_and(|out| String::from_utf8_lossy(&out.stdout).trim().ends_with(SCHEMATHESIS)) {
        return Ok(st);
    }
    run_checked(Command::new("python3").args(["-m", "venv"]).arg(venv()))?;
    run_checked(Command::new(venv().join("bin").join("pip")).args([
        "install",
        "--quiet",
        &format!("schemathesis=={SCHEMATHESIS}"),
    ]))?;
    Ok(st)
}

/// A debug server on a fresh SQLite file, killed on drop.
struct Server {
    child: Child,
    address: String,
    _data: Dir,
}

struct Dir(PathBuf);

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    fn start(admin_token: &str) -> Result<Self, String> {
        let data = Dir(std::env::temp_dir().join(format!("seathold-contract-{}", std::process::id())));
        std::fs::create_dir_all(&data.0).map_err(|e| format!("creating {}: {e}", data.0.display()))?;
        let database = format!("sqlite:{}", data.0.join("contract.db").display());
        let mut child = Command::new(target_dir().join("debug").join("seathold"))
            // One address sends everything; the rate limits have their own tests.
            .args(["serve", "--addr", "127.0.0.1:0", "--demo", "--rate-limits", "off", "--database", &database])
            .env("SEATHOLD_ADMIN_TOKEN", admin_token)
            .env("RUST_LOG", "error")
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| format!("starting seathold: {e}"))?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let address = BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
            .find_map(|line| line.strip_prefix("listening on http://").map(str::to_owned));
        let server = Self { child, address: address.unwrap_or_default(), _data: data };
        if server.address.is_empty() {
            return Err("seathold exited before listening".into());
        }
        Ok(server)
    }

    /// A new session's token (`POST /api/sessions`).
    fn session(&self) -> Result<String, String> {
        let mut stream = TcpStream::connect(&self.address).map_err(|e| format!("connecting: {e}"))?;
        let request = "POST /api/sessions HTTP/1.1\r\nHost: seathold\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
        stream.write_all(request.as_bytes()).map_err(|e| format!("sending: {e}"))?;
        let mut answer = String::new();
        stream.read_to_string(&mut answer).map_err(|e| format!("reading: {e}"))?;
        let token = answer.split("\"token\":\"").nth(1).and_then(|rest| rest.split('"').next());
        token.map(str::to_owned).ok_or_else(|| format!("no token in {answer}"))
    }
}

/// `cargo xtask contract`: builds the debug server, then checks it.
pub fn run() -> Result<(), String> {
    run_checked(&mut crate::run::cargo(&["build", "--package", "seathold-server", "--bin", "seathold"]))?;
    check()
}

/// `cargo xtask test`'s schemathesis step; prints the number of cases.
pub fn check() -> Result<(), String> {
    let step = Step::start(&format!("contract check: schemathesis {SCHEMATHESIS}, --checks all"));
    let st = install()?;
    let admin_token = format!("contract-{}-admin-token", std::process::id());
    let server = Server::start(&admin_token)?;
    let output = Command::new(st)
        .arg("--config-file")
        .arg(root().join("crates").join("xtask").join("schemathesis.toml"))
        .args(["--no-color", "run", &format!("http://{}/api/openapi.json", server.address), "--checks", "all"])
        // DELETE /api/holds/{holdId} releases: the hold stays readable as
        // RELEASED (API.md), which this check takes for a deleted resource.
        .args(["--exclude-checks", "use_after_free"])
        // The same cases every run (for a given document): a failure replays.
        .args(["--seed", SEED])
        .env("SEATHOLD_ST_SESSION", server.session()?)
        .env("SEATHOLD_ST_ADMIN", &admin_token)
        .current_dir(std::env::temp_dir())
        .output()
        .map_err(|e| format!("running schemathesis: {e}"))?;
    drop(server);
    let report = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        return Err(format!("schemathesis found failures:\n{report}{}", String::from_utf8_lossy(&output.stderr)));
    }
    // "Test cases:" then "  N generated, N passed, …"; and "Seed: S" to replay.
    let cases = report.lines().skip_while(|line| !line.starts_with("Test cases:")).nth(1).unwrap_or("?").trim();
    let seed = report.lines().find(|line| line.starts_with("Seed:")).unwrap_or("Seed: ?");
    println!("    schemathesis: {cases}; 0 failures ({seed})");
    step.done()
}
