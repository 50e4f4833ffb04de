//! `flash-sale … --workload onsale`: the on-sale minute of issue 26 against
//! running processes serving the demo arena (`seathold serve --demo --web
//! DIST`, rate limits off, stream caps raised). In order:
//!
//! 1. the plain-HTTP ceiling (`GET /api/time`) and cold arena page loads per
//!    second (page + definition + seat map, compressed), each measured
//!    alone for a few seconds;
//! 2. the storm: `--customers` customers arriving evenly over `--seconds`,
//!    each as `customer.rs` says, every live stream kept open; seat maps and
//!    streams in the compact form the web app uses (`--format compact`, the
//!    default) or JSON with only the taken seats (`--format json`);
//! 3. once the streams are quiet, with every stream open: the servers'
//!    resident memory, then a probe (releases one at a time, to time one
//!    change to every open stream);
//! 4. the audits: the final map against what customers were told, and
//!    every sampled viewer's map (snapshot + events) against `GET …/seats`;
//! 5. the figures, each with its target (`figures.rs`).
//!
//! With `--waiting-room on` the storm is through the waiting room
//! (`waiting.rs`): a copy of the arena with `onSale`, each customer joining
//! its queue after opening the stream and holding once admitted; the
//! queue's figures follow the storm's.
//!
//! Server CPU, memory and write bytes come from `/proc/<pid>` of `--pids`.

mod audit;
mod cold;
mod customer;
pub mod edge;
mod edge_figures;
mod fanout;
mod figures;
mod pool;
pub mod process;
mod server_view;
pub mod steps;
pub mod stream;
pub mod viewer;
pub mod waiting;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use pool::Pool;
use seat_state::wire::{SeatOrder, ShowDocument};
use steps::Latencies;
use tokio::sync::{oneshot, watch};
use tokio::task::JoinHandle;
use viewer::Form;

use crate::Plan;

/// The demo's arena: 20,000 seats.
pub const SHOW: &str = "demo-arena";

/// What the on-sale run is asked for, beyond the plan's bases and customers.
#[derive(Debug, Clone)]
pub struct Options {
    /// The server processes, for `/proc/<pid>`.
    pub pids: Vec<u32>,
    /// One stream in this many parses its events (fan-out sample).
    pub sample_every: usize,
    /// Seconds each of the measured-alone phases runs.
    pub alone_seconds: u64,
    /// The customers' seat maps and streams: compact (the web app's) or JSON.
    pub form: Form,
    /// The servers' `--tick`, ms: the change-to-viewer targets are a tick + 250 ms.
    pub tick_ms: f64,
    /// This run's name in the figures, e.g. "SQLite, 1 process".
    pub label: String,
    /// Where to save the figures (JSON), for a later run to print beside.
    pub save: Option<std::path::PathBuf>,
    /// Figures saved by an earlier run, printed beside this run's.
    pub beside: Option<std::path::PathBuf>,
    /// Releases timed after the storm with every stream open.
    pub probes: usize,
    /// Processes of their own for the measured-alone phases (default: the
    /// storm's): an allocator keeps what a burst of page loads used, which
    /// would hide the streams' memory.
    pub alone_bases: Option<Vec<String>>,
    /// The storm through the waiting room, with its settings.
    pub waiting_room: Option<waiting::Room>,
    /// The edge run's settings (`--workload edge`, `edge.rs`).
    pub edge: edge::Edge,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            pids: Vec::new(),
            sample_every: 100,
            alone_seconds: 5,
            form: Form::Compact,
            tick_ms: 250.0,
            label: "this run".to_owned(),
            save: None,
            beside: None,
            probes: 20,
            alone_bases: None,
            waiting_room: None,
            edge: edge::Edge::default(),
        }
    }
}

/// A customer's `201` hold, as it was told.
#[derive(Debug, Clone)]
pub struct Held {
    pub token: String,
    pub hold_id: String,
    pub seats: Vec<String>,
    /// Its `201`.
    pub made: Made,
    /// Streams open when it was sent.
    pub open_streams: usize,
    /// Its confirm's `200`.
    pub confirm: Option<Made>,
    /// Released by the probe after the storm.
    pub released: bool,
}

/// A change a customer made: when its request was sent and answered, and
/// when the server decided it (the answer's `serverTime`, Unix ms: the
/// change's own, which its event carries too; `None` for an answer without
/// a body, a release's `204`).
#[derive(Debug, Clone, Copy)]
pub struct Made {
    pub sent: Instant,
    pub answered: Instant,
    pub decided_ms: Option<i64>,
}

impl Held {
    pub fn confirmed(&self) -> bool {
        self.confirm.is_some()
    }
}

/// What the customers were told, gathered as they finish.
#[derive(Default)]
pub struct Told {
    pub latencies: Latencies,
    /// Error → how many customers it ended.
    pub errors: BTreeMap<String, u64>,
    pub holds: Vec<Held>,
    pub sold_out: u64,
    pub finished: u64,
    /// Through the waiting room: each admitted customer's way through the queue.
    pub queued: Vec<waiting::Queued>,
}

/// Shared by every customer of one storm.
pub struct Storm {
    pools: Vec<Pool>,
    /// The show the customers buy from: the arena, or its copy with a waiting room.
    show: String,
    opening: Option<waiting::Opening>,
    /// The arena's seats in definition order: compact frames name seats by position.
    order: Arc<SeatOrder>,
    form: Form,
    stop: watch::Sender<bool>,
    /// Set once the storm is over (before the probe): bytes after it are not the storm's.
    storm_over: Arc<AtomicBool>,
    /// The server processes, for their CPU in the progress lines.
    pids: Vec<u32>,
    open: Arc<AtomicUsize>,
    arrivals: Arc<AtomicU64>,
    sample_every: usize,
    told: Mutex<Told>,
    streams: Mutex<Vec<JoinHandle<stream::Seen>>>,
}

impl Storm {
    /// Nothing told yet, no stream open: customers of `show` on the plan's processes.
    fn new(
        plan: &Plan,
        options: &Options,
        show: &str,
        opening: Option<waiting::Opening>,
        order: Arc<SeatOrder>,
    ) -> Self {
        Self {
            pools: plan.bases.iter().map(|base| Pool::new(base)).collect(),
            show: show.to_owned(),
            opening,
            order,
            form: options.form,
            stop: watch::channel(false).0,
            storm_over: Arc::default(),
            pids: options.pids.clone(),
            open: Arc::default(),
            arrivals: Arc::default(),
            sample_every: options.sample_every.max(1),
            told: Mutex::default(),
            streams: Mutex::default(),
        }
    }

    /// Customer `n`'s process: all its requests and its stream go there.
    fn pool(&self, n: usize) -> &Pool {
        &self.pools[n % self.pools.len()]
    }

    /// Opens a live stream of the storm's show on `base` (kept until the
    /// storm stops it); its head's status arrives on the receiver.
    fn open_stream(&self, base: &str, token: String, sample: bool) -> oneshot::Receiver<anyhow::Result<u16>> {
        let (head, task) = stream::open(stream::Ask {
            base: base.to_owned(),
            path: format!("/api/shows/{}/events{}", self.show, self.form.query()),
            token,
            sample,
            watch: stream::Watch::Seats { order: Arc::clone(&self.order), form: self.form },
            stop: self.stop.subscribe(),
            open: Arc::clone(&self.open),
            arrivals: Arc::clone(&self.arrivals),
            storm_over: Arc::clone(&self.storm_over),
        });
        if let Ok(mut streams) = self.streams.lock() {
            streams.push(task);
        }
        head
    }

    /// What the customers were told so far, taken out.
    fn take_told(&self) -> anyhow::Result<Told> {
        Ok(std::mem::take(&mut *self.told.lock().map_err(|_| anyhow::anyhow!("a customer panicked"))?))
    }

    /// Stops every stream; what each saw.
    async fn stop_streams(&self) -> anyhow::Result<Vec<stream::Seen>> {
        self.stop.send_replace(true);
        let tasks = std::mem::take(&mut *self.streams.lock().map_err(|_| anyhow::anyhow!("a stream panicked"))?);
        let mut seen = Vec::with_capacity(tasks.len());
        for task in tasks {
            seen.push(task.await?);
        }
        Ok(seen)
    }

    fn record_queued(&self, queued: waiting::Queued) {
        if let Ok(mut told) = self.told.lock() {
            told.queued.push(queued);
        }
    }

    fn record(&self, latencies: Latencies, outcome: anyhow::Result<customer::Visit>) {
        let Ok(mut told) = self.told.lock() else { return };
        told.latencies.extend(latencies);
        told.finished += 1;
        match outcome {
            Ok(customer::Visit::Held(held)) => told.holds.push(held),
            // Errors leave nothing changed (API.md): the audit expects the hold still held.
            Ok(customer::Visit::HeldThenFailed(held, error)) => {
                told.holds.push(held);
                *told.errors.entry(error.to_string()).or_default() += 1;
            }
            Ok(customer::Visit::SoldOut) => told.sold_out += 1,
            Err(error) => *told.errors.entry(error.to_string()).or_default() += 1,
        }
    }
}

/// Runs every phase and prints the figures.
pub async fn run(plan: &Plan, options: &Options, admin_token: &str) -> anyhow::Result<()> {
    let open_files = process::raise_open_files()?;
    println!(
        "on-sale storm ({}) on {}: {} customers over {} s against {}, {} seat maps and streams, tick {} ms; \
         generator's open-file limit {open_files}",
        options.label,
        process::machine(),
        plan.sessions,
        plan.duration.as_secs(),
        plan.bases.join(", "),
        options.form.name(),
        options.tick_ms
    );
    let label = match options.waiting_room {
        Some(room) => format!(
            "{}, {}, through the waiting room ({} a minute, opensAt {} s after the first arrival)",
            options.label,
            options.form.name(),
            room.admit_per_minute,
            room.opens_in.as_secs()
        ),
        None => format!("{}, {}", options.label, options.form.name()),
    };
    let mut figures = crate::figures::Figures::new("onsale", &label, "customers", plan.sessions);
    // A stream is a socket, beside the request connections and the rest.
    if (open_files as usize) < plan.sessions + 1_000 {
        let note = format!(
            "this generator may open {open_files} files (its hard limit, which only a privileged process may \
             raise): {} customers' streams and their request connections do not all fit, and a server process \
             under the same limit holds as many sockets",
            plan.sessions
        );
        println!("    warning: {note}");
        figures.note(note);
    }
    let alone = Duration::from_secs(options.alone_seconds);
    let alone_bases = options.alone_bases.clone().unwrap_or_else(|| plan.bases.clone());
    let ceiling = crate::load::ceiling(&Plan { duration: alone, bases: alone_bases.clone(), ..plan.clone() }).await?;
    let time_per_second = ceiling.hold_micros.len() as f64 / ceiling.elapsed.as_secs_f64();
    figures.ceiling(time_per_second, plan.concurrency);
    let loads = cold::page_loads(&alone_bases, plan.concurrency, alone, options.form.query()).await?;
    figures.cold_loads(&loads, time_per_second, plan.concurrency);
    let (show, opening, first_arrival) = match options.waiting_room {
        Some(room) => {
            let (opening, first_arrival) = waiting::create(&plan.bases[0], admin_token, room).await?;
            (waiting::QUEUED_SHOW, Some(opening), Some(first_arrival))
        }
        None => (SHOW, None, None),
    };
    warm_up(&plan.bases, show, options.form.query()).await?;
    let order = Arc::new(seat_order(&plan.bases[0], show).await?);

    let storm = Arc::new(Storm::new(plan, options, show, opening, order));
    let pids = &options.pids;
    let (rss_before, cpu_before, own_before, written_before) = (
        process::resident_bytes(pids)?,
        process::cpu_seconds(pids)?,
        process::own_cpu_seconds()?,
        process::written_bytes(pids),
    );
    let server_before = server_view::read(&plan.bases).await?;
    if let Some(first_arrival) = first_arrival {
        tokio::time::sleep_until(first_arrival.into()).await;
    }
    println!("    the storm starts: {} customers arriving over {} s", plan.sessions, plan.duration.as_secs());
    let clock = stream::WallClock::now();
    let storm_started = Instant::now();
    let lateness = arrive(&storm, plan.sessions, plan.duration).await;
    quiet(&storm).await;
    storm.storm_over.store(true, Ordering::Relaxed);
    let storm_ended = Instant::now();
    let storm_seconds = storm_started.elapsed().as_secs_f64();
    let (rss_open, cpu_after, own_after, written_after) = (
        process::resident_bytes(pids)?,
        process::cpu_seconds(pids)?,
        process::own_cpu_seconds()?,
        process::written_bytes(pids),
    );
    let server_after = server_view::read(&plan.bases).await?;
    let open_streams = storm.open.load(Ordering::Relaxed);
    println!("    storm over after {storm_seconds:.1} s; probing with every stream open");
    let probes = fanout::probe(&storm, options.probes).await;
    quiet(&storm).await;

    let mut told = storm.take_told()?;
    for probe in &probes {
        if let Some(held) = told.holds.iter_mut().find(|held| held.hold_id == probe.hold_id) {
            held.released = true;
        }
    }
    let audit = audit::check(&plan.bases, show, &told.holds).await;
    let seen = storm.stop_streams().await?;
    let viewers = audit::viewers(&seen, &storm.order, show).await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    let rss_closed = process::resident_bytes(pids)?;

    figures.storm(&figures::Storm {
        told: &told,
        seen: &seen,
        form: options.form,
        tick_ms: options.tick_ms,
        seconds: storm_seconds,
        lateness,
        open_streams,
        cpu_seconds: cpu_after - cpu_before,
        generator_cpu_seconds: own_after - own_before,
        written_bytes: written_after.zip(written_before).map(|(after, before)| after.saturating_sub(before)),
        rss: [rss_before, rss_open, rss_closed],
        storm_fan_out: fanout::of_storm(&told.holds, &seen, &storm.order, &clock),
        probe_fan_out: fanout::of_probes(&probes, &seen, &storm.order, &clock),
        frames: fanout::frames(&seen, &clock, storm_ended),
        probes: probes.len(),
        request_connections: storm.pools.iter().map(Pool::idle).sum(),
        sample_every: storm.sample_every,
        audit,
        viewers,
    });
    server_view::add(&mut figures, &server_before, &server_after);
    if let Some(opening) = &storm.opening {
        figures.waiting_room(opening, &told.queued);
    }
    figures.report(options.save.as_deref(), options.beside.as_deref())
}

/// One page load on every storm process before its memory is read: the
/// arena is loaded and its page rendered, as before any sale.
async fn warm_up(bases: &[String], show: &str, query: &str) -> anyhow::Result<()> {
    for base in bases {
        for path in [format!("/shows/{show}"), format!("/api/shows/{show}"), format!("/api/shows/{show}/seats{query}")]
        {
            reqwest::get(format!("{base}{path}")).await?.error_for_status()?.bytes().await?;
        }
    }
    Ok(())
}

/// The arena's seats in definition order, from its definition as customers
/// read it (`GET /api/shows/{id}`): what compact frames and maps name by position.
async fn seat_order(base: &str, show: &str) -> anyhow::Result<SeatOrder> {
    let show: ShowDocument = reqwest::get(format!("{base}/api/shows/{show}")).await?.error_for_status()?.json().await?;
    Ok(SeatOrder::of_document(&show))
}

/// Starts customer `n` at `n / customers` of `window`, prints progress every
/// 10 s, and waits for every visit; the latest any customer started after
/// its time (the generator falling behind).
async fn arrive(storm: &Arc<Storm>, customers: usize, window: Duration) -> Duration {
    let started = Instant::now();
    let mut visits = Vec::with_capacity(customers);
    let mut lateness = Duration::ZERO;
    let mut next_report = started + Duration::from_secs(10);
    let mut cpu = Cpu::now(&storm.pids);
    for n in 0..customers {
        let at = started + window.mul_f64(n as f64 / customers as f64);
        tokio::time::sleep_until(at.into()).await;
        lateness = lateness.max(at.elapsed());
        visits.push(tokio::spawn(customer::visit(Arc::clone(storm), n)));
        if Instant::now() >= next_report {
            next_report += Duration::from_secs(10);
            progress(storm, started, n + 1, &mut cpu);
        }
    }
    for visit in visits {
        drop(visit.await);
    }
    progress(storm, started, customers, &mut cpu);
    lateness
}

/// The servers' and this generator's CPU seconds at an instant.
struct Cpu {
    at: Instant,
    servers: f64,
    generator: f64,
}

impl Cpu {
    fn now(pids: &[u32]) -> Self {
        let servers = process::cpu_seconds(pids).unwrap_or_default();
        Self { at: Instant::now(), servers, generator: process::own_cpu_seconds().unwrap_or_default() }
    }
}

/// A progress line, with the cores the servers and the generator kept busy since the last.
fn progress(storm: &Storm, started: Instant, arrived: usize, cpu: &mut Cpu) {
    let (finished, errors) = storm.told.lock().map_or((0, 0), |told| (told.finished, told.errors.values().sum()));
    let now = Cpu::now(&storm.pids);
    let seconds = now.at.duration_since(cpu.at).as_secs_f64().max(f64::MIN_POSITIVE);
    println!(
        "    {:>5.1} s: {arrived} customers arrived, {finished} finished, {} streams open, {errors} errors; \
         cores busy since the last line: servers {:.2}, generator {:.2}, machine load {}",
        started.elapsed().as_secs_f64(),
        storm.open.load(Ordering::Relaxed),
        (now.servers - cpu.servers) / seconds,
        (now.generator - cpu.generator) / seconds,
        std::fs::read_to_string("/proc/loadavg")
            .ok()
            .and_then(|load| load.split(' ').next().map(str::to_owned))
            .unwrap_or_default()
    );
    *cpu = now;
}

/// Waits until the sample streams have noted nothing new for 2 s (at most
/// 60 s): every change has reached them.
async fn quiet(storm: &Storm) {
    let started = Instant::now();
    let mut last = storm.arrivals.load(Ordering::Relaxed);
    let mut still_since = Instant::now();
    while still_since.elapsed() < Duration::from_secs(2) && started.elapsed() < Duration::from_secs(60) {
        tokio::time::sleep(Duration::from_millis(200)).await;
        let now = storm.arrivals.load(Ordering::Relaxed);
        if now != last {
            (last, still_since) = (now, Instant::now());
        }
    }
}
