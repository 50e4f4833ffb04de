//! `flash-sale … --workload edge`: issue 35's bench of the live streams
//! at the edge. Viewers of the arena's live stream connect through
//! `--stream-bases` (Pushpin instances in front of the processes, or the
//! processes themselves: the same-run baseline) while the same steady
//! write storm (customers holding best 2 and confirming 60 %, sent
//! straight to the processes) runs with none, half and all of `--viewers`
//! viewers open. At each level: the processes' CPU over the storm and
//! their resident memory, the proxies' (`--edge-pids`) resident memory by
//! process name, and change to viewer on the sample streams. At the end,
//! every sampled viewer's map against `GET /seats`, and every process's
//! map against what the customers were told (`audit.rs`).

use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::fanout::{self, FanOut};
use super::steps::Latencies;
use super::stream::WallClock;
use super::{Options, SHOW, Storm, audit, customer, process};
use crate::Plan;

/// What the edge run is asked for, beyond the plan's bases (the processes).
#[derive(Debug, Clone)]
pub struct Edge {
    /// Viewers at the last level (the first has none, the middle half).
    pub viewers: usize,
    /// Where viewers connect, in turn; none: the processes themselves.
    pub stream_bases: Vec<String>,
    /// The proxies' processes, for their resident memory and CPU.
    pub edge_pids: Vec<u32>,
    /// Holds started a second in each level's storm (60 % confirmed).
    pub holds_per_second: f64,
    /// Viewers connected a second, over all stream bases: Pushpin answered
    /// about half of the connections `500`/`502` above ~250 a second here.
    pub connects_per_second: f64,
}

impl Default for Edge {
    fn default() -> Self {
        Self {
            viewers: 10_000,
            stream_bases: Vec::new(),
            edge_pids: Vec::new(),
            holds_per_second: 40.0,
            connects_per_second: 400.0,
        }
    }
}

/// What one level measured over its storm.
pub struct Level {
    /// Streams open when its storm started.
    pub viewers: usize,
    pub seconds: f64,
    pub origin_cores: f64,
    /// The processes' resident bytes at the end of its storm.
    pub origin_rss: u64,
    pub edge_cores: f64,
    /// The proxies' resident bytes by process name, at the end of its storm.
    pub edge_rss: BTreeMap<String, u64>,
    pub generator_cores: f64,
    /// Its storm's holds (`201`), as indices into what the customers were told.
    pub holds: Range<usize>,
    /// Its holds and confirms to every sample stream open when they were sent.
    pub fan_out: FanOut,
}

/// Runs the levels, the audits, and prints the figures.
pub async fn run(plan: &Plan, options: &Options) -> anyhow::Result<()> {
    let edge = &options.edge;
    let open_files = process::raise_open_files()?;
    let stream_bases = if edge.stream_bases.is_empty() { plan.bases.clone() } else { edge.stream_bases.clone() };
    println!(
        "edge ({}) on {}: {} viewers through {}, to processes {}; at 0, {} and {} viewers a storm of {} holds a \
         second for {} s; generator's open-file limit {open_files}",
        options.label,
        process::machine(),
        edge.viewers,
        stream_bases.join(", "),
        plan.bases.join(", "),
        edge.viewers / 2,
        edge.viewers,
        edge.holds_per_second,
        plan.duration.as_secs()
    );
    // The arena loaded on every process before any figure (no page: the processes serve no UI here).
    for base in &plan.bases {
        let url = format!("{base}/api/shows/{SHOW}/seats{}", options.form.query());
        reqwest::get(url).await?.error_for_status()?.bytes().await?;
    }
    let order = Arc::new(super::seat_order(&plan.bases[0], SHOW).await?);
    let storm = Arc::new(Storm::new(plan, options, SHOW, None, order));
    settle(&options.pids).await?;
    let clock = WallClock::now();
    let mut levels = Vec::new();
    let mut connected = 0;
    let mut holds_before = 0;
    for viewers in [0, edge.viewers / 2, edge.viewers] {
        let started = Instant::now();
        connect(&storm, &stream_bases, connected..viewers, edge.connects_per_second).await;
        if viewers > connected {
            println!(
                "    {} viewers open ({} asked) after {:.1} s of connecting",
                storm.open.load(Ordering::Relaxed),
                viewers,
                started.elapsed().as_secs_f64()
            );
        }
        connected = viewers;
        // The snapshots' work done before the storm's CPU is counted.
        super::quiet(&storm).await;
        tokio::time::sleep(Duration::from_secs(2)).await;
        let mut level = write_storm(&storm, plan, options).await?;
        let held = storm.told.lock().map_or(holds_before, |told| told.holds.len());
        level.holds = holds_before..held;
        holds_before = held;
        println!(
            "    level {viewers}: {} holds; origin {:.2} cores, {:.1} MB; proxies {:.2} cores, {:.1} MB",
            level.holds.len(),
            level.origin_cores,
            level.origin_rss as f64 / 1e6,
            level.edge_cores,
            level.edge_rss.values().sum::<u64>() as f64 / 1e6,
        );
        levels.push(level);
    }
    storm.storm_over.store(true, Ordering::Relaxed);
    let mut told = storm.take_told()?;
    let audit = audit::check(&plan.bases, SHOW, &told.holds).await;
    let seen = storm.stop_streams().await?;
    let viewers = audit::viewers(&seen, &storm.order, SHOW).await;
    // Each level's changes to the sample streams open when each was sent.
    for level in &mut levels {
        let holds = told.holds.get(level.holds.clone()).unwrap_or_default();
        level.fan_out = fanout::of_storm(holds, &seen, &storm.order, &clock);
    }
    let errors = std::mem::take(&mut told.errors);
    super::edge_figures::report(&super::edge_figures::Run {
        options,
        levels: &levels,
        seen: &seen,
        errors: &errors,
        audit,
        viewers,
    })
}

/// Waits (at most 60 s) until the processes are nearly idle: each
/// compresses the arena's definition at start-up (seconds of CPU), which
/// would otherwise land in the first level's figures.
async fn settle(pids: &[u32]) -> anyhow::Result<()> {
    let started = Instant::now();
    loop {
        let before = process::cpu_seconds(pids)?;
        tokio::time::sleep(Duration::from_secs(1)).await;
        if process::cpu_seconds(pids)? - before < 0.05 || started.elapsed() > Duration::from_secs(60) {
            return Ok(());
        }
    }
}

/// Opens viewers `range` at `per_second`, each on the next stream base in
/// turn; once all are sent, waits for their heads (a refusal is counted).
async fn connect(storm: &Arc<Storm>, bases: &[String], range: Range<usize>, per_second: f64) {
    let started = Instant::now();
    let mut heads = Vec::with_capacity(range.len());
    for (i, n) in range.enumerate() {
        let at = started + Duration::from_secs_f64(i as f64 / per_second.max(1.0));
        tokio::time::sleep_until(at.into()).await;
        // Each base's every `sample_every`-th viewer: samples on every proxy.
        let sample = (n / bases.len()).is_multiple_of(storm.sample_every);
        let head = storm.open_stream(&bases[n % bases.len()], String::new(), sample);
        heads.push(head);
    }
    for head in heads {
        let refused = match tokio::time::timeout(Duration::from_secs(60), head).await {
            Ok(Ok(Ok(200))) => continue,
            Ok(Ok(Ok(status))) => format!("viewer: status {status}"),
            Ok(Ok(Err(error))) => format!("viewer: {error}"),
            Ok(Err(_)) => "viewer: ended before its head".to_owned(),
            Err(_) => "viewer: no head in 60 s".to_owned(),
        };
        if let Ok(mut told) = storm.told.lock() {
            *told.errors.entry(refused).or_default() += 1;
        }
    }
}

/// `--seconds` of customers at `holds_per_second`, each a session, a hold
/// of best 2 and (60 %) its confirm, straight to the processes in turn;
/// then until the sample streams are quiet. The CPU and memory over it.
async fn write_storm(storm: &Arc<Storm>, plan: &Plan, options: &Options) -> anyhow::Result<Level> {
    let edge = &options.edge;
    let (pids, edge_pids) = (&options.pids, &edge.edge_pids);
    let (origin_before, edge_before, own_before) =
        (process::cpu_seconds(pids)?, process::cpu_seconds(edge_pids)?, process::own_cpu_seconds()?);
    let viewers = storm.open.load(Ordering::Relaxed);
    let started = Instant::now();
    let count = (plan.duration.as_secs_f64() * edge.holds_per_second).round() as usize;
    let first = storm.told.lock().map_or(0, |told| told.finished as usize);
    let mut customers = Vec::with_capacity(count);
    for i in 0..count {
        let at = started + Duration::from_secs_f64(i as f64 / edge.holds_per_second.max(0.001));
        tokio::time::sleep_until(at.into()).await;
        customers.push(tokio::spawn(write(Arc::clone(storm), first + i)));
    }
    for customer in customers {
        drop(customer.await);
    }
    super::quiet(storm).await;
    let seconds = started.elapsed().as_secs_f64();
    let cores = |after: f64, before: f64| (after - before) / seconds;
    Ok(Level {
        viewers,
        seconds,
        origin_cores: cores(process::cpu_seconds(pids)?, origin_before),
        origin_rss: process::resident_bytes(pids)?,
        edge_cores: cores(process::cpu_seconds(edge_pids)?, edge_before),
        edge_rss: resident_by_name(edge_pids),
        generator_cores: cores(process::own_cpu_seconds()?, own_before),
        holds: 0..0,
        fan_out: FanOut::default(),
    })
}

/// One customer: a session, a hold of best 2, 60 % confirmed; recorded as the storm's customers are.
async fn write(storm: Arc<Storm>, n: usize) {
    let mut latencies = Latencies::default();
    let pool = storm.pool(n);
    let outcome = async {
        let mut connection = pool.take().await?;
        let bought = match customer::session(&mut connection, &mut latencies).await {
            Ok(token) => customer::buy(&storm, n, &mut connection, &mut latencies, token).await,
            Err(error) => Err(error),
        };
        pool.give(connection);
        bought
    }
    .await;
    storm.record(latencies, outcome);
}

/// Resident bytes of each process, summed by its name (`/proc/<pid>/comm`).
fn resident_by_name(pids: &[u32]) -> BTreeMap<String, u64> {
    let mut by_name = BTreeMap::new();
    for pid in pids {
        let name = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default().trim().to_owned();
        *by_name.entry(name).or_default() += process::resident_bytes(&[*pid]).unwrap_or(0);
    }
    by_name
}
