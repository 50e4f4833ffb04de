//! Command line and environment configuration.

use std::net::SocketAddr;
use std::num::NonZeroU32;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::limits::{Limits, Quotas, StreamCaps};

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
    /// Create a show from a venue file: JSON (the body of `POST
    /// /api/admin/shows`) or, for a name ending in `.csv`, a spreadsheet
    /// with the columns section,row,number,x,y,category (id, label optional).
    Create {
        /// The JSON or CSV venue file.
        file: PathBuf,
        /// The show's other fields, for a CSV venue (a JSON file has its own).
        #[command(flatten)]
        fields: crate::venue_csv::ShowFields,
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
    /// The longest a change waits to go out to live streams with the other
    /// changes of its tick (API.md "Live changes (v4)": at most 250 ms). A
    /// change after a quiet tick goes at once.
    #[arg(long, env = "SEATHOLD_TICK", default_value = "250ms", value_parser = tick)]
    pub tick: humantime::Duration,
    /// For testing only: shift the server clock by this many milliseconds so
    /// that a browser's clock disagrees with the server's.
    #[arg(long, env = "SEATHOLD_CLOCK_SKEW_MS", default_value_t = 0, allow_hyphen_values = true, hide = true)]
    pub clock_skew_ms: i64,
    #[command(flatten)]
    pub limits: LimitArgs,
    /// The server is behind TLS: the session cookie gets `Secure`.
    #[arg(long, env = "SEATHOLD_BEHIND_TLS")]
    pub behind_tls: bool,
    /// Sessions kept in memory (least recently used go first; the store
    /// still knows them), and as many tokens remembered as unknown.
    #[arg(long, env = "SEATHOLD_SESSION_CACHE", default_value_t = crate::session::DEFAULT_SESSION_CACHE)]
    pub session_cache: usize,
    /// A session no request used for this long expires (401 from then on).
    #[arg(long, env = "SEATHOLD_SESSION_IDLE_TTL", default_value = "24h")]
    pub session_idle_ttl: humantime::Duration,
    /// A confirmed, released or expired hold leaves memory this long after
    /// it settled (storage still has it, and gives it back when asked).
    #[arg(long, env = "SEATHOLD_KEEP_SETTLED", default_value = "10s")]
    pub keep_settled: humantime::Duration,
    /// A show's writer checkpoints its state every this many versions, so a
    /// start replays at most that much journal.
    #[arg(long, env = "SEATHOLD_CHECKPOINT_EVERY", default_value_t = 20_000, value_parser = clap::value_parser!(i64).range(1..))]
    pub checkpoint_every: i64,
    #[command(flatten)]
    pub webhooks: WebhookArgs,
    #[command(flatten)]
    pub grip: GripArgs,
}

/// GRIP proxies in front (Pushpin, Fastly Fanout): they hold the viewers'
/// live streams and the server publishes each tick's frame to them. Needs
/// `SEATHOLD_GRIP_KEY` (environment only, a secret): the key the proxies
/// sign `Grip-Sig` with.
#[derive(Debug, Clone, Args)]
pub struct GripArgs {
    /// Each proxy's publish API, comma-separated (Pushpin:
    /// `http://127.0.0.1:5561`; `/publish/` is added).
    #[arg(long = "grip-publish", env = "SEATHOLD_GRIP_PUBLISH", value_delimiter = ',')]
    pub publish: Vec<String>,
    /// This process's name in its channels (`show-<id>@<name>`): required
    /// when several processes share a database, each its own.
    #[arg(long = "grip-instance", env = "SEATHOLD_GRIP_INSTANCE", value_parser = instance)]
    pub instance: Option<String>,
}

impl GripArgs {
    /// The GRIP settings, `None` without publish URLs; an error when only
    /// one of the URLs and the key is given.
    pub fn settings(&self) -> anyhow::Result<Option<crate::grip::GripSettings>> {
        let key = std::env::var("SEATHOLD_GRIP_KEY").ok();
        let publish: Vec<String> =
            self.publish.iter().map(|url| url.trim().to_owned()).filter(|url| !url.is_empty()).collect();
        match (publish.is_empty(), key) {
            (true, None) => {
                anyhow::ensure!(self.instance.is_none(), "--grip-instance needs --grip-publish");
                Ok(None)
            }
            (true, Some(_)) => {
                anyhow::bail!("SEATHOLD_GRIP_KEY is set but no --grip-publish URL: set both, or neither")
            }
            (false, None) => anyhow::bail!(
                "--grip-publish needs SEATHOLD_GRIP_KEY: the key the proxies sign Grip-Sig with (Pushpin's sig_key)"
            ),
            (false, Some(key)) if key.trim().is_empty() => anyhow::bail!("SEATHOLD_GRIP_KEY is set but empty"),
            (false, Some(key)) => Ok(Some(crate::grip::GripSettings {
                publish,
                key: std::sync::Arc::from(key.into_bytes()),
                instance: self.instance.clone(),
            })),
        }
    }
}

/// An instance name: `[a-z0-9-]`, 1 to 32 characters.
fn instance(text: &str) -> Result<String, String> {
    let valid = (1..=32).contains(&text.len())
        && text.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    if valid { Ok(text.to_owned()) } else { Err("an instance name is 1 to 32 of a-z, 0-9 and -".into()) }
}

/// Webhook deliveries (API.md "Box office (v3)"). The retry schedule is
/// API.md's; two flags shorten it, for tests only.
#[derive(Debug, Clone, Args)]
pub struct WebhookArgs {
    /// Longest one delivery may take (connecting included) before it
    /// counts as failed and is retried.
    #[arg(long = "webhook-timeout", env = "SEATHOLD_WEBHOOK_TIMEOUT", default_value = "10s")]
    pub timeout: humantime::Duration,
    /// For testing only: the wait before a failed delivery's first retry,
    /// doubled for each next one (API.md: at most 2 s).
    #[arg(long = "webhook-first-retry", env = "SEATHOLD_WEBHOOK_FIRST_RETRY", default_value = "1s")]
    pub first_retry: humantime::Duration,
    /// For testing only: how long a failing event is retried before it is
    /// parked and the next one goes (API.md: 24 hours).
    #[arg(long = "webhook-give-up", env = "SEATHOLD_WEBHOOK_GIVE_UP", default_value = "24h")]
    pub give_up: humantime::Duration,
}

impl WebhookArgs {
    pub fn settings(&self) -> seathold_core::webhooks::WebhookSettings {
        seathold_core::webhooks::WebhookSettings {
            timeout: self.timeout.into(),
            first_retry: self.first_retry.into(),
            give_up: self.give_up.into(),
            ..seathold_core::webhooks::WebhookSettings::default()
        }
    }
}

/// Limits on use (API.md "Limits (v2)"); rates are per minute, each also
/// the burst allowed at once.
#[derive(Debug, Clone, Args)]
pub struct LimitArgs {
    /// `off` for load tests, or behind a proxy that already limits.
    #[arg(long, env = "SEATHOLD_RATE_LIMITS", value_enum, default_value_t = OnOff::On)]
    pub rate_limits: OnOff,
    /// Hold writes (create, extend, confirm, release) per session per minute.
    #[arg(long, env = "SEATHOLD_HOLD_WRITES_PER_SESSION", default_value = "120")]
    pub hold_writes_per_session: NonZeroU32,
    /// Hold writes per client address per minute (many customers share a NAT).
    #[arg(long, env = "SEATHOLD_HOLD_WRITES_PER_ADDRESS", default_value = "3000")]
    pub hold_writes_per_address: NonZeroU32,
    /// New sessions per client address per minute.
    #[arg(long, env = "SEATHOLD_SESSIONS_PER_ADDRESS", default_value = "600")]
    pub sessions_per_address: NonZeroU32,
    /// Take the client address from the last `X-Forwarded-For` entry: only
    /// behind a proxy that appends it, or clients choose their address.
    #[arg(long, env = "SEATHOLD_TRUST_FORWARDED_FOR")]
    pub trust_forwarded_for: bool,
    /// Live-event streams open at once, in total.
    #[arg(long, env = "SEATHOLD_MAX_STREAMS", default_value_t = StreamCaps::default().total)]
    pub max_streams: usize,
    /// Live-event streams open at once from one client address.
    #[arg(long, env = "SEATHOLD_MAX_STREAMS_PER_ADDRESS", default_value_t = StreamCaps::default().per_address)]
    pub max_streams_per_address: usize,
    /// Places one client address may take in a show's waiting room.
    #[arg(long, env = "SEATHOLD_QUEUE_PLACES_PER_ADDRESS", default_value_t = crate::limits::QUEUE_PLACES_PER_ADDRESS)]
    pub queue_places_per_address: u32,
    /// Longest a client may take to send a request's headers before the
    /// connection is closed (slow clients cost nothing).
    #[arg(long, env = "SEATHOLD_HEADER_TIMEOUT", default_value = "10s")]
    pub header_timeout: humantime::Duration,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OnOff {
    On,
    Off,
}

impl LimitArgs {
    pub fn limits(&self) -> Limits {
        let rates = (self.rate_limits == OnOff::On).then_some(Quotas {
            hold_writes_per_session: self.hold_writes_per_session,
            hold_writes_per_address: self.hold_writes_per_address,
            sessions_per_address: self.sessions_per_address,
        });
        let streams = StreamCaps { total: self.max_streams, per_address: self.max_streams_per_address };
        Limits {
            rates,
            streams,
            trust_forwarded_for: self.trust_forwarded_for,
            queue_places_per_address: self.queue_places_per_address,
        }
    }
}

/// The bearer token for admin endpoints, from `SEATHOLD_ADMIN_TOKEN` only:
/// a command-line flag would show the secret in the process list. Without
/// it the admin endpoints answer 403.
pub fn admin_token() -> Option<String> {
    std::env::var("SEATHOLD_ADMIN_TOKEN").ok()
}

/// A tick of at most 250 ms (API.md "Live changes (v4)").
fn tick(text: &str) -> Result<humantime::Duration, String> {
    let tick: humantime::Duration = text.parse().map_err(|e| format!("{e}"))?;
    if std::time::Duration::from(tick) > std::time::Duration::from_millis(250) {
        return Err("the tick is at most 250ms".into());
    }
    Ok(tick)
}
