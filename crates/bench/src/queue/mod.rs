//! `flash-sale … --workload queue`: issue 28's waiting room under a sale's
//! opening, against running processes (rate limits off, the per-address
//! places and stream caps raised, an admin token). In order:
//!
//! 1. setup, outside every figure: `--sessions` sessions;
//! 2. the baseline: `GET /api/time` from as many connections as join;
//! 3. a show whose `opensAt` leaves time for what follows, then every
//!    session joins its pre-queue (`POST …/queue`, `--concurrency` at once);
//! 4. `--streams` progress streams (`…/queue/events`) opened and kept;
//! 5. quiet until `opensAt` (ticks with every place and stream), the
//!    operator's view asked every 50 ms across `opensAt` (the draw), quiet
//!    again while admission runs;
//! 6. the figures (`figures.rs`): join latency beside the baseline's, the
//!    draw's and a tick's cost, each progress event's fan-out to every
//!    stream, the servers' resident memory per place and per stream.
//!
//! Server CPU and memory come from `/proc/<pid>` of `--pids`.

mod figures;
mod listeners;
mod requests;

use std::time::{Duration, Instant};

use serde_json::json;
use tokio::sync::watch;

use crate::Plan;
use crate::metrics::{Counters, scrape};
use crate::onsale::process;

/// The show whose queue is measured.
pub const SHOW: &str = "queue-bench";

/// Admissions a minute once the sale opens: the highest API.md allows, so
/// progress moves on every tick.
const ADMIT_PER_MINUTE: u32 = 60_000;

/// The quiet windows before and after `opensAt` (about one tick a second).
const QUIET: Duration = Duration::from_secs(5);

/// How long the operator's view is asked on each side of `opensAt`.
const AROUND_BEFORE: Duration = Duration::from_millis(1_500);
const AROUND_AFTER: Duration = Duration::from_millis(2_500);

/// What the queue run is asked for, beyond the plan's bases and sessions.
#[derive(Debug, Clone)]
pub struct Options {
    pub streams: usize,
    /// Seconds the joins get before `opensAt`; by default 10 s more than
    /// the sessions take at the baseline's rate ÷ `join_cost`.
    pub join_seconds: Option<f64>,
    /// How many `GET /api/time` one join costs, about (a place looked up,
    /// decided in a batch, appended to the log; on a shared database the
    /// processes' appends also collide): only to leave the joins time.
    pub join_cost: f64,
}

impl Default for Options {
    fn default() -> Self {
        Self { streams: 10_000, join_seconds: None, join_cost: 6.0 }
    }
}

/// Runs every phase and prints the figures.
pub async fn run(plan: &Plan, admin_token: &str) -> anyhow::Result<()> {
    let options = &plan.onsale;
    let open_files = process::raise_open_files()?;
    println!(
        "waiting room ({}) on {}: {} sessions, {} streams, {} connections against {}; generator's open-file limit \
         {open_files}",
        options.label,
        process::machine(),
        plan.sessions,
        plan.queue.streams,
        plan.concurrency,
        plan.bases.join(", ")
    );
    let pids = &options.pids;
    let client = reqwest::Client::builder().pool_max_idle_per_host(plan.concurrency).build()?;
    let rss_empty = process::resident_bytes(pids)?;
    let started = Instant::now();
    let tokens = crate::load::sessions(&client, plan).await?;
    let session_seconds = started.elapsed().as_secs_f64();
    println!(
        "    setup: {} sessions in {session_seconds:.1} s ({:.0}/s; not in the figures)",
        tokens.len(),
        tokens.len() as f64 / session_seconds
    );

    let alone = Duration::from_secs(options.alone_seconds);
    let cpu = process::cpu_seconds(pids)?;
    let time = crate::load::ceiling(&Plan { duration: alone, ..plan.clone() }).await?;
    let time = figures::Baseline::of(&time, process::cpu_seconds(pids)? - cpu);

    // The show: joins, then streams, then a quiet window, before `opensAt`.
    let join_window = Duration::from_secs_f64(plan.queue.join_seconds.unwrap_or_else(|| {
        let joins_per_second = time.per_second / plan.queue.join_cost.max(1.0);
        10.0 + tokens.len() as f64 / joins_per_second
    }));
    let stream_window = Duration::from_secs_f64(5.0 + plan.queue.streams as f64 / 2_000.0);
    let window = join_window + stream_window + QUIET + AROUND_BEFORE;
    let server_now = server_time(&client, &plan.bases[0]).await?;
    let created = Instant::now();
    let opens_at = server_now + i64::try_from(window.as_millis())?;
    let opens = created + window;
    let pre_queue_seconds = window.as_secs() + 60;
    let on_sale = json!({"opensAt": opens_at, "admitPerMinute": ADMIT_PER_MINUTE,
                         "preQueueSeconds": pre_queue_seconds, "admissionSeconds": 600});
    requests::create_show(&plan.bases[0], admin_token, SHOW, on_sale).await?;
    println!(
        "    show {SHOW}: opensAt in {:.0} s (joins {:.0} s, streams {:.0} s, quiet {:.0} s), {ADMIT_PER_MINUTE} \
         admitted a minute from then",
        window.as_secs_f64(),
        join_window.as_secs_f64(),
        stream_window.as_secs_f64(),
        QUIET.as_secs_f64()
    );
    let counters_start = scrape(&client, plan).await?;

    let rss_before = process::resident_bytes(pids)?;
    let cpu = process::cpu_seconds(pids)?;
    let joins = requests::join_all(&plan.bases, SHOW, &tokens, plan.concurrency, created + join_window).await?;
    let join_cpu = process::cpu_seconds(pids)? - cpu;
    println!(
        "    {} joins answered in {:.1} s ({} joined, {} not sent: the time before opensAt ran out)",
        joins.ms.len(),
        joins.elapsed.as_secs_f64(),
        joins.joined(),
        joins.unsent
    );
    tokio::time::sleep(Duration::from_secs(1)).await;
    let rss_joined = process::resident_bytes(pids)?;

    let clock = listeners::WallClock::now();
    let (stop, _) = watch::channel(false);
    let listening = listeners::open(&plan.bases, SHOW, &tokens, plan.queue.streams, &stop).await;
    let open_streams = listening.open.load(std::sync::atomic::Ordering::Relaxed);
    println!("    {open_streams} streams open in {:.1} s", listening.elapsed.as_secs_f64());
    tokio::time::sleep(Duration::from_secs(1)).await;
    let rss_streams = process::resident_bytes(pids)?;

    // Ticks with every place and stream, before `opensAt`.
    let quiet_before = quiet_until(&client, plan, opens.checked_sub(AROUND_BEFORE).unwrap_or(opens)).await?;
    let looks = requests::look_between(
        &plan.bases[0],
        admin_token,
        SHOW,
        opens.checked_sub(AROUND_BEFORE).unwrap_or(opens),
        opens + AROUND_AFTER,
        Duration::from_millis(50),
    )
    .await?;
    let quiet_after = quiet_until(&client, plan, Instant::now() + QUIET).await?;
    let counters = scrape(&client, plan).await?.since(&counters_start);

    let until_ms = clock.ms(Instant::now());
    stop.send_replace(true);
    let mut seen = Vec::with_capacity(listening.tasks.len());
    for task in listening.tasks {
        seen.push(task.await?);
    }
    let fan_out = listeners::fan_out(&seen, plan.bases.len(), &clock, opens_at, until_ms);

    let mut figures = crate::figures::Figures::new("queue", &options.label, "sessions", plan.sessions);
    figures.queue(&figures::Run {
        time: &time,
        joins: &joins,
        join_cpu_seconds: join_cpu,
        rss: figures::Resident { empty: rss_empty, before: rss_before, joined: rss_joined, streams: rss_streams },
        open_streams,
        refused: &listening.refused,
        lost: seen.iter().filter_map(|seen| seen.lost.clone()).collect(),
        looks: &looks,
        opens,
        quiet_before: quiet_before.as_ref(),
        quiet_after: quiet_after.as_ref(),
        draws: &counters,
        fan_out: &fan_out,
    });
    figures.report(options.save.as_deref(), options.beside.as_deref())
}

async fn server_time(client: &reqwest::Client, base: &str) -> anyhow::Result<i64> {
    let body: serde_json::Value =
        client.get(format!("{base}/api/time")).send().await?.error_for_status()?.json().await?;
    body["serverTime"].as_i64().ok_or_else(|| anyhow::anyhow!("no serverTime in {body}"))
}

/// The servers' counters over a window with no request but the streams'
/// (`None` when `until` has passed already).
async fn quiet_until(client: &reqwest::Client, plan: &Plan, until: Instant) -> anyhow::Result<Option<Counters>> {
    if until <= Instant::now() + Duration::from_millis(500) {
        return Ok(None);
    }
    let before = scrape(client, plan).await?;
    tokio::time::sleep_until(until.into()).await;
    Ok(Some(scrape(client, plan).await?.since(&before)))
}
