//! `cargo xtask bench edge`: issue 35's live streams at the edge. Two
//! release `seathold` processes on one fresh PostgreSQL database, and the
//! load generator (`flash-sale --workload edge`, `crates/bench/src/onsale/
//! edge.rs`) connecting `--viewers` arena viewers under a write storm:
//!
//! 1. the baseline: the viewers on the processes directly, half on each;
//! 2. the same viewers through two real Pushpin instances
//!    (`ops/pushpin/pushpin.conf`, each listing both processes, its own
//!    first) in front of two processes in GRIP mode (`--grip-publish` to
//!    both, `--grip-instance a` and `b`), on a database of their own;
//!    printed beside the first.
//!
//! Pushpin's `message_rate` is sized as docs/operating.md says: viewers
//! per instance × frames a second (one per 250 ms tick), twice over.
//!
//! Needs `SEATHOLD_BIN`, `SEATHOLD_TEST_POSTGRES` and `SEATHOLD_FLASH_SALE`
//! (the generator), as `cargo xtask bench edge` sets. Flags after `--`:
//! `--viewers N` (10,000); the rest go to the generator as they are.

use std::path::PathBuf;

use anyhow::Context;
use seathold_system_tests::postgres::Database;
use seathold_system_tests::pushpin::Pushpin;
use seathold_system_tests::server::Server;

const KEY: &str = "edge-bench-grip-key-0123456789abcdef";
const ADMIN_TOKEN: &str = "edge-bench-admin";
/// Frames a second to each viewer while changes come every tick (250 ms).
const FRAMES_PER_SECOND: usize = 4;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    // `cargo bench` adds `--bench`; the rest are ours and the generator's.
    let mut args: Vec<String> = std::env::args().skip(1).filter(|arg| arg != "--bench").collect();
    let viewers: usize = match args.iter().position(|arg| arg == "--viewers") {
        Some(at) => args.get(at + 1).and_then(|value| value.parse().ok()).context("--viewers needs a number")?,
        None => {
            args.extend(["--viewers".to_owned(), "10000".to_owned()]);
            10_000
        }
    };
    let saved = tempfile::tempdir()?;
    let direct = saved.path().join("direct.json").display().to_string();
    let caps = (viewers * 2).max(20_000).to_string();
    let streams = ["--max-streams", caps.as_str(), "--max-streams-per-address", caps.as_str()];

    let database = Database::fresh().await?;
    let servers = [process(&database, &streams, &[]).await?, process(&database, &streams, &[]).await?];
    database.until_listening(2).await?;
    let flags = ["--label", "direct to 2 processes", "--save", &direct];
    generator(&servers, &[], &[], &args, &flags)?;
    drop(servers);

    let database = Database::fresh().await?;
    let addrs = [free_address()?, free_address()?];
    let rate = (viewers / 2 * FRAMES_PER_SECOND * 2).max(2_500).to_string();
    let tuning = [("message_rate", rate.as_str()), ("message_hwm", rate.as_str())];
    let pushpins = [
        Pushpin::start_tuned(&[&addrs[0], &addrs[1]], KEY, &tuning).await?,
        Pushpin::start_tuned(&[&addrs[1], &addrs[0]], KEY, &tuning).await?,
    ];
    let publish = format!("{},{}", pushpins[0].publish_url, pushpins[1].publish_url);
    let mut servers = Vec::new();
    for (instance, addr) in ["a", "b"].into_iter().zip(&addrs) {
        let grip = ["--grip-publish", publish.as_str(), "--grip-instance", instance, "--addr", addr.as_str()];
        servers.push(process(&database, &[&streams[..], &grip[..]].concat(), &[("SEATHOLD_GRIP_KEY", KEY)]).await?);
    }
    database.until_listening(2).await?;
    for pushpin in &pushpins {
        pushpin.until_proxying("/api/time").await?;
    }
    let stream_bases: Vec<&str> = pushpins.iter().map(|pushpin| pushpin.base_url.as_str()).collect();
    let edge_pids: Vec<u32> = pushpins.iter().flat_map(Pushpin::pids).collect();
    let label = format!("through 2 Pushpins (message_rate {rate})");
    let flags = ["--label", &label, "--beside", &direct];
    let outcome = generator(&servers, &stream_bases, &edge_pids, &args, &flags);
    if outcome.is_err() {
        for pushpin in &pushpins {
            eprintln!("{}", pushpin.logs());
        }
    }
    outcome
}

/// A release `seathold serve --demo` on `database` with `flags`, `env`
/// and the admin token set.
async fn process(database: &Database, flags: &[&str], env: &[(&str, &str)]) -> anyhow::Result<Server> {
    let env = [env, &[("SEATHOLD_ADMIN_TOKEN", ADMIN_TOKEN)]].concat();
    Server::start_on_database(&database.url, flags, &env).await
}

/// Runs the generator against `servers`, its viewers on `stream_bases`
/// (none: the servers), its output shown as it comes.
fn generator(
    servers: &[Server],
    stream_bases: &[&str],
    edge_pids: &[u32],
    args: &[String],
    flags: &[&str],
) -> anyhow::Result<()> {
    let binary = PathBuf::from(std::env::var_os("SEATHOLD_FLASH_SALE").context("SEATHOLD_FLASH_SALE is not set")?);
    let bases: Vec<&str> = servers.iter().map(|server| server.base_url.as_str()).collect();
    let pids: Vec<String> = servers.iter().filter_map(Server::pid).map(|pid| pid.to_string()).collect();
    let mut command = std::process::Command::new(&binary);
    command.arg(bases.join(",")).arg(ADMIN_TOKEN).args(["--workload", "edge", "--pids", &pids.join(",")]);
    if !stream_bases.is_empty() {
        let edge_pids: Vec<String> = edge_pids.iter().map(u32::to_string).collect();
        command.args(["--stream-bases", &stream_bases.join(","), "--edge-pids", &edge_pids.join(",")]);
    }
    let status = command.args(args).args(flags).status().with_context(|| format!("starting {}", binary.display()))?;
    anyhow::ensure!(status.success(), "the generator failed: {status}");
    Ok(())
}

/// `127.0.0.1:PORT` of a free port, for a process Pushpin routes to before it starts.
fn free_address() -> anyhow::Result<String> {
    Ok(format!("127.0.0.1:{}", std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port()))
}
