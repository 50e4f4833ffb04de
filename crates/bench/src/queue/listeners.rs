//! The waiting room's listeners: `…/queue/events` streams opened a few
//! hundred at a time and kept open, every one parsing its `progress`
//! events; then how each event reached them (fan-out).

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize};
use std::time::{Duration, Instant};

use tokio::sync::{Semaphore, watch};
use tokio::task::JoinHandle;

pub use crate::onsale::stream::WallClock;
use crate::onsale::stream::{self, Ask, Seen, Watch};

/// Streams whose answer head may be awaited at once: the server's accept
/// queue (and loopback's SYN backlog) is not the figure being measured.
const OPENING: usize = 256;

/// The open streams.
pub struct Listeners {
    pub tasks: Vec<JoinHandle<Seen>>,
    /// Streams whose `200` head arrived and that are still open.
    pub open: Arc<AtomicUsize>,
    /// Streams that did not open, by why.
    pub refused: BTreeMap<String, u64>,
    pub elapsed: Duration,
}

/// Opens `count` streams, stream `n` to `bases[n % len]` with session `n`'s
/// cookie (as a browser's EventSource sends it), and waits for every head.
pub async fn open(
    bases: &[String],
    show: &str,
    tokens: &[String],
    count: usize,
    stop: &watch::Sender<bool>,
) -> Listeners {
    let open = Arc::new(AtomicUsize::new(0));
    let arrivals = Arc::new(AtomicU64::new(0));
    let storm_over = Arc::new(AtomicBool::new(false));
    let gate = Arc::new(Semaphore::new(OPENING));
    let started = Instant::now();
    let (mut tasks, mut heads) = (Vec::with_capacity(count), Vec::with_capacity(count));
    for n in 0..count {
        let Ok(permit) = Arc::clone(&gate).acquire_owned().await else { break };
        let (head, task) = stream::open(Ask {
            base: bases[n % bases.len()].clone(),
            path: format!("/api/shows/{show}/queue/events"),
            token: tokens[n % tokens.len()].clone(),
            sample: true,
            watch: Watch::Progress,
            stop: stop.subscribe(),
            open: Arc::clone(&open),
            arrivals: Arc::clone(&arrivals),
            storm_over: Arc::clone(&storm_over),
        });
        tasks.push(task);
        heads.push(tokio::spawn(async move {
            let status = head.await;
            drop(permit);
            status
        }));
    }
    let mut refused = BTreeMap::new();
    for head in heads {
        let why = match head.await {
            Ok(Ok(Ok(200))) => continue,
            Ok(Ok(Ok(status))) => format!("status {status}"),
            Ok(Ok(Err(error))) => error.to_string(),
            Ok(Err(_)) => "ended before its head".to_owned(),
            Err(_) => "its task panicked".to_owned(),
        };
        *refused.entry(why).or_default() += 1;
    }
    Listeners { tasks, open, refused, elapsed: started.elapsed() }
}

/// How one class of events reached the streams open when each was made.
#[derive(Debug, Default)]
pub struct Reach {
    /// The event's `serverTime` → its receipt on a stream, ms, sorted.
    pub latency_ms: Vec<f64>,
    /// The event's first receipt on any stream → its receipt on this one, ms, sorted.
    pub spread_ms: Vec<f64>,
    pub events: usize,
}

impl Reach {
    fn add(&mut self, server_time: i64, receipts: &[f64]) {
        let first = receipts.iter().copied().fold(f64::INFINITY, f64::min);
        self.events += 1;
        for at in receipts {
            self.latency_ms.push(at - server_time as f64);
            self.spread_ms.push(at - first);
        }
    }

    fn sort(&mut self) {
        self.latency_ms.sort_by(f64::total_cmp);
        self.spread_ms.sort_by(f64::total_cmp);
    }
}

/// Progress events before `opensAt`, the first at or after it (made by the
/// batch that drew, or the first tick after it), and the rest.
#[derive(Debug, Default)]
pub struct FanOut {
    pub before: Reach,
    pub draw: Reach,
    pub after: Reach,
    /// (event, stream open when it was made) pairs that never arrived: the
    /// stream was still writing an earlier one (the watch keeps the latest).
    pub skipped: usize,
    pub streams: usize,
    /// The highest `admittedThrough` any stream was told.
    pub admitted: u64,
}

/// Reads what the streams saw. Stream `n` listened to process
/// `n % processes`, whose events are its own (each process ticks on its
/// own). Events made after `until_ms − 1.5 s` are left out: the streams
/// were stopped while they went out.
pub fn fan_out(seen: &[Seen], processes: usize, clock: &WallClock, opens_at: i64, until_ms: f64) -> FanOut {
    let mut out = FanOut::default();
    // (process, serverTime) → the receipts; per process, when each stream opened.
    let mut events: BTreeMap<(usize, i64), Vec<f64>> = BTreeMap::new();
    let mut opened: HashMap<usize, Vec<f64>> = HashMap::new();
    for (n, stream) in seen.iter().enumerate() {
        let Some(at) = stream.opened else { continue };
        let (process, opened_ms) = (n % processes.max(1), clock.ms(at));
        out.streams += 1;
        opened.entry(process).or_default().push(opened_ms);
        for progress in &stream.progress {
            out.admitted = out.admitted.max(progress.admitted_through);
            // The first event is the latest progress at the stream's start.
            let made = progress.server_time as f64;
            if made > opened_ms && made < until_ms - 1500.0 {
                events.entry((process, progress.server_time)).or_default().push(clock.ms(progress.at));
            }
        }
    }
    for times in opened.values_mut() {
        times.sort_by(f64::total_cmp);
    }
    let mut drawn: HashMap<usize, bool> = HashMap::new();
    for ((process, server_time), receipts) in &events {
        let reach = if *server_time < opens_at {
            &mut out.before
        } else if !drawn.insert(*process, true).unwrap_or(false) {
            &mut out.draw
        } else {
            &mut out.after
        };
        reach.add(*server_time, receipts);
        let listening = opened.get(process).map_or(0, |times| times.partition_point(|at| *at < *server_time as f64));
        out.skipped += listening.saturating_sub(receipts.len());
    }
    for reach in [&mut out.before, &mut out.draw, &mut out.after] {
        reach.sort();
    }
    out
}
