//! `seathold-sim`: runs the deterministic simulator over many seeds.
//!
//! `seathold-sim [--seeds N] [--first S | --seed S] [--steps M] [--store memory|sqlite|shared]`
//! runs seeds S..S+N (or the one seed S) of M steps each, prints what they
//! did, and on the first failure its trace and the command that replays it.

use std::process::ExitCode;
use std::time::Instant;

use seathold_sim::{Config, DEFAULT_SEEDS, DEFAULT_STEPS, Report, StoreKind};

struct Args {
    first: u64,
    seeds: u64,
    steps: usize,
    store: StoreKind,
}

fn parse() -> Result<Args, String> {
    let mut args = Args { first: 0, seeds: DEFAULT_SEEDS, steps: DEFAULT_STEPS, store: StoreKind::Memory };
    let mut words = std::env::args().skip(1);
    while let Some(flag) = words.next() {
        let mut value = || words.next().ok_or_else(|| format!("{flag} needs a value"));
        let number = |text: String| text.parse::<u64>().map_err(|_| format!("{flag}: not a number: {text}"));
        match flag.as_str() {
            "--seeds" => args.seeds = number(value()?)?,
            "--first" => args.first = number(value()?)?,
            "--seed" => (args.first, args.seeds) = (number(value()?)?, 1),
            "--steps" => args.steps = usize::try_from(number(value()?)?).map_err(|e| e.to_string())?,
            "--store" => {
                args.store = match value()?.as_str() {
                    "memory" => StoreKind::Memory,
                    "sqlite" => StoreKind::Sqlite,
                    "shared" => StoreKind::Shared,
                    other => return Err(format!("--store: memory, sqlite or shared, not {other}")),
                }
            }
            other => return Err(format!("unknown flag {other}")),
        }
    }
    Ok(args)
}

fn main() -> ExitCode {
    let args = match parse() {
        Ok(args) => args,
        Err(error) => {
            eprintln!(
                "seathold-sim: {error}\nusage: seathold-sim [--seeds N] [--first S | --seed S] [--steps M] [--store memory|sqlite|shared]"
            );
            return ExitCode::from(2);
        }
    };
    let started = Instant::now();
    let mut total = Report::default();
    for seed in args.first..args.first + args.seeds {
        let config = Config { seed, steps: args.steps, store: args.store };
        match seathold_sim::run(&config) {
            Ok(report) => add(&mut total, &report),
            Err(failure) => {
                eprintln!("{failure}");
                return ExitCode::FAILURE;
            }
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "{} seeds x {} steps passed in {seconds:.1} s: {} requests ({:.0}/s), {} stored transitions, {} dropped connections, {} slow bodies, {} storage faults, {} restarts ({} with a webhook POST open), {} clock steps back, {} holds evicted, {} recalled, {} checkpoints, {} viewer maps converged, {} webhook events acknowledged (and {} settlements) over {} POSTs taken and {} refused; fingerprint {:016x}",
        args.seeds,
        args.steps,
        total.requests,
        total.requests as f64 / seconds,
        total.transitions,
        total.dropped,
        total.slow_bodies,
        total.faults,
        total.restarts,
        total.restarts_mid_delivery,
        total.clock_steps_back,
        total.evicted,
        total.recalled,
        total.checkpoints,
        total.viewer_checks,
        total.webhook_events,
        total.settlement_events,
        total.webhook_posts,
        total.webhook_refused,
        total.fingerprint,
    );
    ExitCode::SUCCESS
}

fn add(total: &mut Report, run: &Report) {
    total.steps += run.steps;
    total.requests += run.requests;
    total.transitions += run.transitions;
    total.viewer_checks += run.viewer_checks;
    total.dropped += run.dropped;
    total.slow_bodies += run.slow_bodies;
    total.faults += run.faults;
    total.restarts += run.restarts;
    total.restarts_mid_delivery += run.restarts_mid_delivery;
    total.evicted += run.evicted;
    total.recalled += run.recalled;
    total.checkpoints += run.checkpoints;
    total.clock_steps_back += run.clock_steps_back;
    total.webhook_posts += run.webhook_posts;
    total.webhook_refused += run.webhook_refused;
    total.webhook_events += run.webhook_events;
    total.settlement_events += run.settlement_events;
    total.fingerprint = total.fingerprint.rotate_left(5) ^ run.fingerprint;
}
