//! `cargo xtask bench queue`: issue 28's waiting room under a sale's
//! opening, each figure beside a same-run baseline, on this machine, in one
//! run (`flash-sale --workload queue`, `crates/bench/src/queue/`):
//!
//! 1. one release process on a fresh SQLite file: `--sessions` sessions
//!    join a show's pre-queue, `--streams` progress streams open before its
//!    `opensAt`, then the draw and admission;
//! 2. the same against `--processes` processes (2 by default) on one
//!    throwaway PostgreSQL database, joins and streams spread over them,
//!    printed side by side with the SQLite run.
//!
//! Flags: `--sessions N` (100,000), `--streams N` (10,000), `--database
//! sqlite|postgres` (only that run), `--processes N`; others go to
//! `flash-sale` as they are (`--concurrency`, `--join-seconds`,
//! `--join-cost`, `--alone-seconds`).

use super::{Servers, Stores, flash_sale_json, machine_and_date};
use crate::run::Step;

/// What the run is asked for.
struct Ask {
    sessions: usize,
    streams: usize,
    stores: Stores,
    /// Flags passed to `flash-sale` as they are.
    rest: Vec<String>,
}

fn parse(args: &[String]) -> Result<Ask, String> {
    let mut ask = Ask { sessions: 100_000, streams: 10_000, stores: Stores::default(), rest: Vec::new() };
    let mut flags = args.iter();
    while let Some(flag) = flags.next() {
        let mut value = || flags.next().cloned().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--sessions" => ask.sessions = value()?.parse().map_err(|_| "--sessions needs a number")?,
            "--streams" => ask.streams = value()?.parse().map_err(|_| "--streams needs a number")?,
            other if ask.stores.take(other, &mut value)? => {}
            _ => ask.rest.push(flag.clone()),
        }
    }
    Ok(ask)
}

/// Runs what `args` ask for; the release server and `flash-sale` are built.
pub fn run(args: &[String]) -> Result<(), String> {
    let ask = parse(args)?;
    if ask.stores.postgres {
        crate::install::postgres()?;
    }
    println!(
        "==> bench queue on {}: {} sessions, {} streams; the generator shares these cores with the server",
        machine_and_date(),
        ask.sessions,
        ask.streams
    );
    let data = std::env::temp_dir().join(format!("seathold-queue-{}", std::process::id()));
    std::fs::create_dir_all(&data).map_err(|e| format!("{}: {e}", data.display()))?;
    let outcome = ask
        .stores
        .each(&data, ["queue"], |[database], processes, label, extra| one(&ask, database, processes, label, extra));
    let _ = std::fs::remove_dir_all(&data);
    outcome
}

/// One run against `processes` fresh servers on `database`.
fn one(ask: &Ask, database: &str, processes: usize, label: &str, extra: &[String]) -> Result<(), String> {
    // Every session comes from 127.0.0.1: the per-address caps would measure themselves.
    let places = ask.sessions.max(1).to_string();
    let streams = (ask.streams * 2).max(20_000).to_string();
    let cache = ask.sessions.max(100_000).to_string();
    let serve = [
        "--queue-places-per-address",
        &places,
        "--max-streams",
        &streams,
        "--max-streams-per-address",
        &streams,
        "--session-cache",
        &cache,
    ];
    // Not a line per failed request or failed queue append: the figures
    // count the answers (a 503 is a batch whose append failed).
    let log = "warn,tower_http=off,seathold_core::engine::queue::actor=error";
    let servers = Servers::start_logging(database, processes, &serve, log)?;
    let step = Step::start(&format!("waiting room, {label}, against {}", servers.bases.join(", ")));
    let pids: Vec<String> = servers.pids().iter().map(u32::to_string).collect();
    let mut flags: Vec<String> = vec!["--workload".into(), "queue".into()];
    flags.extend(["--sessions".into(), ask.sessions.to_string(), "--streams".into(), ask.streams.to_string()]);
    flags.extend(["--pids".into(), pids.join(","), "--label".into(), label.into()]);
    // What a join costs in `GET /api/time`, to leave the joins time before
    // `opensAt`: processes sharing PostgreSQL collide on the queue's log.
    let cost = if database.starts_with("sqlite:") { "6" } else { "40" };
    flags.extend(["--join-cost".into(), cost.into()]);
    flags.extend(extra.iter().cloned());
    flags.extend(ask.rest.iter().cloned());
    flash_sale_json(&servers, &flags)?;
    drop(servers);
    step.done()
}
