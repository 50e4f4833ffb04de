//! Harness for whole-system tests: starts the real `seathold` binary on a
//! free port with a temporary SQLite file, and headless Chromium through
//! ChromeDriver. Both are killed when their guard drops, also on failure.
//!
//! `cargo xtask test` builds what these need and says where it is:
//! `SEATHOLD_BIN` (the server binary), `SEATHOLD_WEB_DIST` (Trunk's
//! release output), `SEATHOLD_AXE` (axe-core's `axe.min.js`, for the
//! accessibility audit) and `SEATHOLD_TEST_POSTGRES` (a throwaway
//! PostgreSQL, for tests of several processes on one database). nginx
//! (`nginx.rs`) runs from Debian's package, which the test command installs.

pub mod api;
pub mod audit;
pub mod browser;
pub mod cdp;
pub mod customer;
pub mod first_render;
pub mod large_venue;
pub mod nginx;
pub mod postgres;
pub mod profile;
pub mod pushpin;
pub mod server;
pub mod viewer;

use std::path::PathBuf;
use std::time::Duration;

pub use browser::Browser;
pub use customer::Customer;
pub use server::Server;

/// How long any condition may take before a test fails: a wait, not a
/// sleep, so a fast machine never spends it. The 20,000-seat arena took
/// over 20 s to draw in debug-built tests with the 2 cores loaded 3×, and
/// machines here differ up to 3×.
pub const PATIENCE: Duration = Duration::from_secs(60);

/// This machine's clock as epoch milliseconds (a local PostgreSQL's too).
pub fn real_now_ms() -> i64 {
    let since_epoch = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    i64::try_from(since_epoch.as_millis()).unwrap_or(i64::MAX)
}

/// The workspace root (tests/..).
pub fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Where screenshots go: `target/e2e/` under the workspace.
pub fn screenshot_dir() -> PathBuf {
    workspace_root().join("target").join("e2e")
}

/// A configuration template of the repository's (`ops/…`) filled in as
/// `envsubst` with a list fills it: each `${NAME}` given is replaced; a
/// `${…}` left outside comments is a mistake in the file or the list.
pub fn fill(template: &std::path::Path, values: &[(&str, &str)]) -> anyhow::Result<String> {
    let mut text = std::fs::read_to_string(template)
        .map_err(|error| anyhow::anyhow!("reading {}: {error}", template.display()))?;
    for (name, value) in values {
        let placeholder = format!("${{{name}}}");
        anyhow::ensure!(text.contains(&placeholder), "{} has no {placeholder}", template.display());
        text = text.replace(&placeholder, value);
    }
    let unfilled: Vec<&str> =
        text.lines().filter(|line| !line.trim_start().starts_with('#') && line.contains("${")).collect();
    anyhow::ensure!(unfilled.is_empty(), "{}: placeholders left unfilled: {unfilled:?}", template.display());
    Ok(text)
}

/// A path an environment variable names, or a precise failure.
fn required_path(variable: &str) -> anyhow::Result<PathBuf> {
    let path = std::env::var_os(variable)
        .map(PathBuf::from)
        .ok_or_else(|| anyhow::anyhow!("{variable} is not set: run these tests through `cargo xtask test`"))?;
    anyhow::ensure!(path.exists(), "{variable}={} does not exist", path.display());
    Ok(path)
}
