//! Structured logs on stderr (stdout carries the `listening on` line).

use tracing_subscriber::EnvFilter;

/// Logs at `info` unless `RUST_LOG` says otherwise.
pub fn init() {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).init();
}
