//! Command line and environment configuration.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// Seathold: hold seats for a short window while customers pay.
#[derive(Debug, Parser)]
#[command(name = "seathold", version)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the HTTP server.
    Serve(ServeArgs),
    /// Manage shows.
    #[command(subcommand)]
    Show(ShowCommand),
}

#[derive(Debug, Subcommand)]
pub enum ShowCommand {
    /// Create a show from a venue file (the body of `POST /api/admin/shows`).
    Create {
        /// The JSON venue file.
        file: PathBuf,
        #[command(flatten)]
        database: DatabaseArg,
    },
}

#[derive(Debug, Clone, Args)]
pub struct DatabaseArg {
    /// Where the data lives: `sqlite:PATH` (one process; every commit synced
    /// to disk), `sqlite:PATH?synchronous=normal` (safe against process
    /// crashes, faster), or `postgres://USER@HOST:PORT/DB[?sslmode=require]`
    /// (any number of processes on one database).
    #[arg(long = "database", env = "SEATHOLD_DATABASE", default_value = "sqlite:seathold.db")]
    pub url: String,
}

#[derive(Debug, Clone, Args)]
pub struct ServeArgs {
    /// Address to listen on; port 0 picks a free one.
    #[arg(long, env = "SEATHOLD_ADDR", default_value = "127.0.0.1:8080")]
    pub addr: SocketAddr,
    #[command(flatten)]
    pub database: DatabaseArg,
    /// Directory of the built web UI (Trunk's dist), served at `/`.
    #[arg(long, env = "SEATHOLD_WEB")]
    pub web: Option<PathBuf>,
    /// Create the demo show if it does not exist.
    #[arg(long)]
    pub demo: bool,
    /// How often the expiry sweep runs (e.g. `1s`, `500ms`, `1h`); correctness
    /// never depends on it, only cleanup and expiry events do.
    #[arg(long, env = "SEATHOLD_SWEEP_INTERVAL", default_value = "1s")]
    pub sweep_interval: humantime::Duration,
    /// For testing only: shift the server clock by this many milliseconds so
    /// that a browser's clock disagrees with the server's.
    #[arg(long, env = "SEATHOLD_CLOCK_SKEW_MS", default_value_t = 0, allow_hyphen_values = true, hide = true)]
    pub clock_skew_ms: i64,
}

/// The bearer token for admin endpoints, from `SEATHOLD_ADMIN_TOKEN` only:
/// a command-line flag would show the secret in the process list. Without
/// it the admin endpoints answer 403.
pub fn admin_token() -> Option<String> {
    std::env::var("SEATHOLD_ADMIN_TOKEN").ok()
}
