//! The commands: build, serve, test, tidy; plus small process helpers.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

use crate::install::{self, For};
use crate::package;
use crate::postgres::{self, TestPostgres};
use crate::wasm_imports;
use crate::web_build;

/// The workspace root.
pub fn root() -> PathBuf {
    // `cargo run` names the manifest of the checkout it runs from; the
    // compile-time path may be another clone's when a target dir is shared
    // (cargo can reuse a binary built from another path).
    let manifest = std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_else(|| env!("CARGO_MANIFEST_DIR").into());
    let root = PathBuf::from(manifest).join("..").join("..");
    std::fs::canonicalize(&root).unwrap_or(root)
}

/// Cargo's target directory (honours `CARGO_TARGET_DIR`).
pub fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root().join("target"), PathBuf::from)
}

/// The UI's release dist (`Trunk.toml`'s `dist`: `trunk build --release` writes the same).
pub fn web_dist() -> PathBuf {
    root().join("target").join("web-dist")
}

/// A named step that prints when it starts and how long it took.
pub struct Step {
    name: String,
    started: Instant,
}

impl Step {
    pub fn start(name: &str) -> Self {
        println!("==> {name}");
        Self { name: name.to_owned(), started: Instant::now() }
    }

    pub fn skip(self, why: &str) -> Result<(), String> {
        println!("    {}: {why}", self.name);
        Ok(())
    }

    pub fn done(self) -> Result<(), String> {
        println!("    {}: done in {:.1} s", self.name, self.started.elapsed().as_secs_f64());
        Ok(())
    }
}

/// A command left running, its output in a log, while the next steps run:
/// [`Background::wait`] before using what it makes.
pub struct Background {
    child: std::process::Child,
    log: PathBuf,
    step: Step,
}

impl Background {
    /// Starts `command` as the step `name`, stdout and stderr into `log`.
    pub fn start(name: &str, command: &mut Command, log: PathBuf) -> Result<Self, String> {
        let step = Step::start(name);
        if let Some(dir) = log.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
        }
        let file = std::fs::File::create(&log).map_err(|e| format!("creating {}: {e}", log.display()))?;
        let err = file.try_clone().map_err(|e| format!("{}: {e}", log.display()))?;
        let child = command
            .stdout(file)
            .stderr(err)
            .spawn()
            .map_err(|e| format!("cannot start {:?}: {e}", command.get_program()))?;
        println!("    running in the background, log: {}", log.display());
        Ok(Self { child, log, step })
    }

    /// Waits for it; fails with the end of its log if it failed.
    pub fn wait(mut self) -> Result<(), String> {
        println!("==> waiting for: {}", self.step.name);
        let status = self.child.wait().map_err(|e| format!("waiting for {}: {e}", self.step.name))?;
        if !status.success() {
            let text = std::fs::read_to_string(&self.log).unwrap_or_default();
            let tail: Vec<&str> = text.lines().rev().take(30).collect();
            for line in tail.iter().rev() {
                eprintln!("    {line}");
            }
            return Err(format!("{} failed: {status} (log: {})", self.step.name, self.log.display()));
        }
        self.step.done()
    }
}

/// Trimmed stdout of a command that succeeded, or None.
pub fn output_of(command: &mut Command) -> Option<String> {
    let output = command.output().ok()?;
    output.status.success().then(|| String::from_utf8_lossy(&output.stdout).trim().to_owned())
}

/// Runs a command with inherited output; fails unless it succeeds.
pub fn run_checked(command: &mut Command) -> Result<(), String> {
    let status = command.status().map_err(|e| format!("cannot start {:?}: {e}", command.get_program()))?;
    if status.success() { Ok(()) } else { Err(format!("{command:?} failed: {status}")) }
}

/// A command run at the workspace root with the npm tools and cargo's
/// installed binaries first on PATH (CI shells may lack `~/.cargo/bin`).
pub fn tool(program: impl AsRef<std::ffi::OsStr>) -> Command {
    let mut paths = vec![install::tools_bin(), install::cargo_bin()];
    paths.extend(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()));
    let mut command = Command::new(program);
    command.current_dir(root()).env("PATH", std::env::join_paths(paths).unwrap_or_else(|_| OsString::new()));
    command
}

pub fn cargo(args: &[&str]) -> Command {
    let mut command = tool("cargo");
    command.args(args);
    command
}

/// The UI's release dist, as `trunk build --release` makes it, without
/// Trunk (web_build.rs); then the JS package and its example.
pub fn build_web() -> Result<(), String> {
    web_build::build()?;
    // The dist is made afresh: the JS package's example goes in after it.
    package::build()?;
    package::into_web_dist()?;
    crate::precompress::precompress(&web_dist())
}

/// `cargo xtask serve`: everything set up, then the server with the demo show.
pub fn serve(server_args: &[String]) -> Result<(), String> {
    install::setup(For::Serve)?;
    // The server compiles while the UI does: another profile, which cargo
    // locks apart, and on a cold machine two cores are rarely both busy in
    // one build's last minutes.
    let server = Background::start(
        "seathold server: cargo build --profile serve",
        &mut cargo(&["build", "--profile", "serve", "--package", "seathold-server", "--bin", "seathold"]),
        target_dir().join("xtask-serve-build.log"),
    )?;
    let web = build_web();
    server.wait()?;
    web?;
    let step = Step::start("seathold serve (Ctrl-C stops it)");
    let mut command = cargo(&[
        "run",
        "--profile",
        "serve",
        "--package",
        "seathold-server",
        "--bin",
        "seathold",
        "--",
        "serve",
        "--demo",
    ]);
    command.arg("--web").arg(web_dist());
    let names_database =
        server_args.iter().any(|a| a.starts_with("--database")) || std::env::var_os("SEATHOLD_DATABASE").is_some();
    if !names_database {
        command.arg("--database").arg(format!("sqlite:{}", root().join("seathold.db").display()));
    }
    run_checked(command.args(server_args))?;
    step.done()
}

/// `cargo xtask test`: every test (native, wasm in Chromium, whole-system) and the lints.
pub fn test() -> Result<(), String> {
    let started = Instant::now();
    install::setup(For::Test)?;
    build_web()?;

    let step = Step::start("seathold binary for whole-system tests");
    run_checked(&mut cargo(&["build", "--package", "seathold-server", "--bin", "seathold"]))?;
    step.done()?;

    // Stopped and removed when dropped, right after the native tests, also when they fail.
    let postgres = TestPostgres::start()?;
    let step = Step::start("native tests (seat-state, server, whole-system)");
    let mut native = cargo(&["test"]);
    native
        .env("SEATHOLD_BIN", target_dir().join("debug").join("seathold"))
        .env("SEATHOLD_WEB_DIST", web_dist())
        .env("SEATHOLD_AXE", install::axe_script())
        .env(postgres::URL_VARIABLE, &postgres.url)
        .env(postgres::CA_VARIABLE, &postgres.ca)
        .env("RUST_BACKTRACE", "1");
    let outcome = run_checked(&mut native);
    drop(postgres);
    outcome?;
    step.done()?;

    crate::contract::check()?;
    crate::soak::run(std::time::Duration::from_secs(60))?;

    package::test_js()?;

    let step = Step::start("wasm tests in headless Chromium (seat-state, seat-state-js, js-value, web)");
    run_checked(cargo(&["test"]).args(WASM_CRATES))?;
    step.done()?;

    let step = Step::start("wasm imports nothing from \"env\"");
    wasm_imports::check_no_env_imports(&web_dist())?;
    wasm_imports::check_no_env_imports(&package::web_dir())?;
    step.done()?;

    let screenshots = root().join("target").join("e2e");
    if let Ok(entries) = std::fs::read_dir(&screenshots) {
        println!("==> screenshots");
        for entry in entries.flatten() {
            println!("    {}", entry.path().display());
        }
    }
    tidy()?;
    println!("==> all tests passed in {:.0} s", started.elapsed().as_secs_f64());
    Ok(())
}

/// The crates that build for the browser, as cargo arguments.
const WASM_CRATES: [&str; 10] = [
    "--target",
    "wasm32-unknown-unknown",
    "--package",
    "seat-state",
    "--package",
    "seat-state-js",
    "--package",
    "seathold-js-value",
    "--package",
    "seathold-web",
];

/// `cargo xtask tidy`: formatting and clippy, natively and for wasm32.
pub fn tidy() -> Result<(), String> {
    let step = Step::start("cargo fmt --check");
    run_checked(&mut cargo(&["fmt", "--all", "--check"]))?;
    step.done()?;
    let step = Step::start("clippy (native and wasm32)");
    run_checked(&mut cargo(&["clippy", "--all-targets", "--", "-D", "warnings"]))?;
    run_checked(cargo(&["clippy"]).args(WASM_CRATES).args(["--all-targets", "--", "-D", "warnings"]))?;
    // The web app's js-value, without the JS package's `paths` feature.
    let lean = ["--target", "wasm32-unknown-unknown", "--package", "seathold-js-value", "--", "-D", "warnings"];
    run_checked(cargo(&["clippy"]).args(lean))?;
    step.done()
}
