//! `cargo xtask bench onsale`: issue 26's on-sale minute, every figure with
//! its target, on this machine, in one run:
//!
//! 1. the arena's seats live in headless Chromium, cold, unthrottled and on
//!    an emulated 4G link, beside the plain-DOM baseline
//!    (`tests/benches/onsale.rs`);
//! 2. the storm (`flash-sale --workload onsale`) against one release
//!    process on a fresh SQLite file;
//! 3. the same against `--processes` processes (2 by default) on one
//!    throwaway PostgreSQL, printed side by side with the SQLite run.
//!
//! Flags: `--customers N` (10,000; the issue also asks for the same storm
//! at 20,000, without a target), `--seconds N` (60: the arrival window),
//! `--tick MS` (the servers' `--tick`, 250: the change-to-viewer targets are
//! a tick + 250 ms), `--database sqlite|postgres` (only that storm),
//! `--processes N`, `--no-browser`, `--waiting-room` (the storm through the
//! waiting room: a copy of the arena with `onSale`, each customer joining
//! its queue and holding once admitted; `--admit-per-minute N`, 6,000, and
//! `--opens-in S`, 5, go with it); others go to `flash-sale` as they are
//! (`--format json` for the JSON seat maps and streams instead of the web
//! app's compact ones, `--sample-every`, `--probes`, `--alone-seconds`).

use std::path::Path;

use super::{Servers, Stores, flash_sale_json};
use crate::run::{Step, build_web, run_checked, target_dir, tool, web_dist};

/// What the run is asked for.
struct Ask {
    customers: String,
    seconds: String,
    /// The servers' tick, ms.
    tick_ms: String,
    stores: Stores,
    browser: bool,
    /// The storm through the waiting room.
    waiting_room: bool,
    /// Flags passed to `flash-sale` as they are.
    rest: Vec<String>,
}

fn parse(args: &[String]) -> Result<Ask, String> {
    let mut ask = Ask {
        customers: "10000".into(),
        seconds: "60".into(),
        tick_ms: "250".into(),
        stores: Stores::default(),
        browser: true,
        waiting_room: false,
        rest: Vec::new(),
    };
    let mut flags = args.iter();
    while let Some(flag) = flags.next() {
        let mut value = || flags.next().cloned().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--customers" => ask.customers = value()?,
            "--seconds" => ask.seconds = value()?,
            "--tick" => {
                let tick = value()?;
                tick.parse::<u32>().map_err(|_| format!("--tick is a number of milliseconds, not {tick:?}"))?;
                ask.tick_ms = tick;
            }
            "--no-browser" => ask.browser = false,
            "--waiting-room" => ask.waiting_room = true,
            other if ask.stores.take(other, &mut value)? => {}
            _ => ask.rest.push(flag.clone()),
        }
    }
    Ok(ask)
}

/// Runs what `args` ask for; the release server and `flash-sale` are built.
pub fn run(args: &[String]) -> Result<(), String> {
    let ask = parse(args)?;
    crate::install::setup(crate::install::For::Test)?;
    build_web()?;
    println!(
        "==> bench onsale on {}; the generator and browser share these cores with the server",
        super::machine_and_date()
    );
    if ask.browser {
        browser()?;
    }
    let data = std::env::temp_dir().join(format!("seathold-onsale-{}", std::process::id()));
    std::fs::create_dir_all(&data).map_err(|e| format!("{}: {e}", data.display()))?;
    let outcome = storms(&ask, &data);
    let _ = std::fs::remove_dir_all(&data);
    outcome
}

/// The arena in headless Chromium: cold loads, unthrottled and on 4G.
fn browser() -> Result<(), String> {
    let step = Step::start("the arena in headless Chromium, cold, unthrottled and on 4G (tests/benches/onsale.rs)");
    run_checked(
        tool("cargo")
            .args(["bench", "--package", "seathold-system-tests", "--bench", "onsale"])
            .env("SEATHOLD_BIN", target_dir().join("release").join("seathold"))
            .env("SEATHOLD_WEB_DIST", web_dist()),
    )?;
    step.done()
}

fn storms(ask: &Ask, data: &Path) -> Result<(), String> {
    ask.stores.each(data, ["onsale", "alone"], |databases, processes, label, extra| {
        storm(ask, databases, processes, label, extra)
    })
}

/// One storm against `processes` fresh servers on the first database; the
/// measured-alone phases against as many on the second, so that the storm's
/// processes start with no memory of a burst of page loads.
fn storm(ask: &Ask, databases: &[String; 2], processes: usize, label: &str, extra: &[String]) -> Result<(), String> {
    let caps = (ask.customers.parse::<usize>().unwrap_or(10_000) * 2).max(20_000).to_string();
    let web = web_dist().display().to_string();
    let tick = format!("{}ms", ask.tick_ms);
    let mut serve: Vec<&str> =
        vec!["--web", &web, "--demo", "--tick", &tick, "--max-streams", &caps, "--max-streams-per-address", &caps];
    // Every customer comes from 127.0.0.1: the per-address places would measure themselves.
    if ask.waiting_room {
        serve.extend(["--queue-places-per-address", &caps]);
    }
    let alone = Servers::start_with(&databases[1], processes, &serve)?;
    let servers = Servers::start_with(&databases[0], processes, &serve)?;
    let through = if ask.waiting_room { " through the waiting room" } else { "" };
    let step = Step::start(&format!("on-sale storm{through}, {label}, against {}", servers.bases.join(", ")));
    let pids: Vec<String> = servers.pids().iter().map(u32::to_string).collect();
    let mut flags: Vec<String> =
        ["--workload", "onsale", "--customers", &ask.customers, "--seconds", &ask.seconds, "--tick", &ask.tick_ms]
            .map(str::to_owned)
            .to_vec();
    flags.extend(["--pids".into(), pids.join(","), "--label".into(), label.into()]);
    flags.extend(["--alone-bases".into(), alone.bases.join(",")]);
    if ask.waiting_room {
        flags.extend(["--waiting-room".into(), "on".into()]);
    }
    flags.extend(extra.iter().cloned());
    flags.extend(ask.rest.iter().cloned());
    flash_sale_json(&servers, &flags)?;
    drop((servers, alone));
    step.done()
}
