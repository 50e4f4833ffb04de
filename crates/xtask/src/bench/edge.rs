//! `cargo xtask bench edge [--viewers N] [--seconds N] [FLAGS]`: issue 35's
//! live streams at the edge (`tests/benches/edge.rs`): arena viewers on 2
//! processes on a throwaway PostgreSQL, directly and then through 2 real
//! Pushpin instances, under a write storm at none, half and all of them.
//! Without `--viewers`: 10,000, then 30,000 when this machine has the
//! memory for it. `--seconds` is each level's write storm (20); other
//! flags go to the generator (`--holds-per-second`, `--connects-per-second`,
//! `--sample-every`).

use super::RAISE_OPEN_FILES_AND_EXEC;
use crate::postgres::TestPostgres;
use crate::run::{Step, run_checked, target_dir, tool};

/// Resident memory a viewer may take on this machine, all parts together,
/// as measured here: the generator's socket and task, Pushpin's ~50 KB
/// and, in the direct run, the process's ~36 KB; with room to spare.
const BYTES_PER_VIEWER: u64 = 256 * 1024;

pub fn run(args: &[String]) -> Result<(), String> {
    let mut rest: Vec<String> = Vec::new();
    let mut counts = Vec::new();
    let mut seconds = "20".to_owned();
    let mut flags = args.iter();
    while let Some(flag) = flags.next() {
        let mut value = || flags.next().cloned().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--viewers" => counts.push(value()?.parse::<u64>().map_err(|_| "--viewers needs a number")?),
            "--seconds" => seconds = value()?,
            _ => rest.push(flag.clone()),
        }
    }
    if counts.is_empty() {
        counts = vec![10_000, 30_000];
    }
    crate::install::postgres()?;
    crate::install::pushpin()?;
    println!(
        "==> bench edge on {}; the generator and Pushpin share these cores with the servers",
        super::machine_and_date()
    );
    let postgres = TestPostgres::start()?;
    for viewers in counts {
        if let Some(why) = too_big(viewers) {
            println!("==> {viewers} viewers: not run, {why}");
            continue;
        }
        let step = Step::start(&format!("{viewers} viewers, directly and through 2 Pushpins (tests/benches/edge.rs)"));
        // The open-file limit raised for the bench, its servers, Pushpin and the generator alike.
        run_checked(
            tool("sh")
                .args(["-c", RAISE_OPEN_FILES_AND_EXEC, "cargo", "bench", "--package", "seathold-system-tests"])
                .args(["--bench", "edge", "--", "--viewers", &viewers.to_string(), "--seconds", &seconds])
                .args(&rest)
                .env("SEATHOLD_BIN", target_dir().join("release").join("seathold"))
                .env("SEATHOLD_FLASH_SALE", target_dir().join("release").join("flash-sale"))
                .env(crate::postgres::URL_VARIABLE, &postgres.url),
        )?;
        step.done()?;
    }
    Ok(())
}

/// Why `viewers` would not fit this machine (the open-file limit the
/// generator, one process, can raise itself to; memory available now), or `None`.
fn too_big(viewers: u64) -> Option<String> {
    let raised = crate::run::output_of(tool("sh").args(["-c", "ulimit -Hn 65536 2>/dev/null; ulimit -Hn"]));
    if let Some(limit) = raised.and_then(|limit| limit.parse::<u64>().ok())
        && viewers + 1_000 > limit
    {
        return Some(format!(
            "the generator (one process) holds a socket per viewer and may open {limit} files here (its hard \
             limit, which setrlimit may not raise in this container, even as root); at most {} viewers fit",
            limit.saturating_sub(1_000)
        ));
    }
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let available_kib: u64 = meminfo
        .lines()
        .find_map(|line| line.strip_prefix("MemAvailable:"))
        .and_then(|value| value.split_whitespace().next()?.parse().ok())?;
    let needed = viewers * BYTES_PER_VIEWER;
    (available_kib * 1024 < needed).then(|| {
        format!(
            "{} MB available, {} MB wanted ({} KB a viewer)",
            available_kib / 1024,
            needed >> 20,
            BYTES_PER_VIEWER >> 10
        )
    })
}
