//! The waiting room's figures, each beside a same-run baseline where one
//! makes sense, in the crate's table (`figures.rs`).

use std::collections::BTreeMap;
use std::time::Instant;

use super::listeners::{FanOut, Reach};
use super::requests::{Joins, Look};
use crate::figures::{Figures, Target};
use crate::load::Report;
use crate::metrics::Counters;
use crate::onsale::steps::percentile;

/// `GET /api/time` from the joins' connections, measured alone.
pub struct Baseline {
    pub per_second: f64,
    pub p50_ms: f64,
    pub p99_ms: f64,
    pub cpu_micros: f64,
}

impl Baseline {
    pub fn of(report: &Report, cpu_seconds: f64) -> Self {
        let mut ms: Vec<f64> = report.hold_micros.iter().map(|&us| f64::from(us) / 1000.0).collect();
        ms.sort_by(f64::total_cmp);
        let count = ms.len().max(1) as f64;
        Self {
            per_second: ms.len() as f64 / report.elapsed.as_secs_f64().max(f64::MIN_POSITIVE),
            p50_ms: percentile(&ms, 0.5),
            p99_ms: percentile(&ms, 0.99),
            cpu_micros: 1e6 * cpu_seconds / count,
        }
    }
}

/// The servers' resident bytes: with no session, before the joins, after
/// them, with every stream open.
pub struct Resident {
    pub empty: u64,
    pub before: u64,
    pub joined: u64,
    pub streams: u64,
}

/// What the run left, for [`Figures::queue`].
pub struct Run<'a> {
    pub time: &'a Baseline,
    pub joins: &'a Joins,
    pub join_cpu_seconds: f64,
    pub rss: Resident,
    pub open_streams: usize,
    pub refused: &'a BTreeMap<String, u64>,
    pub lost: Vec<String>,
    pub looks: &'a [Look],
    pub opens: Instant,
    /// Counters over the quiet windows before and after `opensAt`.
    pub quiet_before: Option<&'a Counters>,
    pub quiet_after: Option<&'a Counters>,
    /// Counters from the show's creation to the end: its draws.
    pub draws: &'a Counters,
    pub fan_out: &'a FanOut,
}

/// Mean queue batch over a window, ms (0 when there was none).
fn mean_batch_ms(counters: Option<&Counters>) -> f64 {
    counters.filter(|c| c.queue_batches > 0.0).map_or(0.0, |c| 1000.0 * c.queue_batch_seconds / c.queue_batches)
}

impl Figures {
    pub fn queue(&mut self, run: &Run<'_>) {
        self.joins(run);
        self.opening(run);
        self.fan_out(run.fan_out, run.open_streams);
        self.memory(run);
    }

    fn joins(&mut self, run: &Run<'_>) {
        let (time, joins) = (run.time, run.joins);
        let name = format!("join POST …/queue p50 ({} answered, pre-queue)", joins.ms.len());
        self.add_beside("joinP50Ms", &name, joins.p(0.5), "ms", ("GET /api/time p50", time.p50_ms));
        self.add_beside("joinP99Ms", "join p99", joins.p(0.99), "ms", ("GET /api/time p99", time.p99_ms));
        self.add("joinMaxMs", "join max", joins.p(1.0), "ms", None);
        self.add_beside("joinsPerSecond", "joins/s", joins.per_second(), "/s", ("GET /api/time", time.per_second));
        let cpu = 1e6 * run.join_cpu_seconds / joins.ms.len().max(1) as f64;
        self.add_beside("joinCpuMicros", "server CPU per join", cpu, "µs", ("per GET /api/time", time.cpu_micros));
        let sessions = self.count() as f64;
        self.add("joined", "joins answered 201", joins.joined() as f64, "", Some(Target::AtLeast(sessions)));
        let failed = joins.ms.len() as u64 - joins.joined() + joins.errors.values().sum::<u64>();
        self.add("joinErrors", "joins not answered 201 (other status, no answer)", failed as f64, "", None);
        if joins.unsent > 0 {
            self.note(format!("{} sessions never joined: opensAt was near (raise --join-seconds)", joins.unsent));
        }
        for (status, count) in joins.statuses.iter().filter(|(status, _)| **status != 201) {
            let why = if *status == 503 { " (the queue writer's append to the log failed, twice)" } else { "" };
            self.note(format!("joins answered {status}: {count}{why}"));
        }
        for (error, count) in &joins.errors {
            self.note(format!("joins without an answer × {count}: {error}"));
        }
    }

    fn opening(&mut self, run: &Run<'_>) {
        let draws = run.draws;
        let draw_ms = if draws.draws > 0.0 { 1000.0 * draws.draw_seconds / draws.draws } else { 0.0 };
        let tick_before = mean_batch_ms(run.quiet_before);
        let name = "the draw of every pre-queue place (seathold_queue_draw_duration_seconds, mean)";
        self.add_beside("drawMs", name, draw_ms, "ms", ("a tick before opensAt", tick_before));
        self.note(format!(
            "the draw: {} places; batches that took it: {} (with processes sharing a database, each process's queue \
             takes it once: drawn, or caught up from the other)",
            run.joins.joined(),
            draws.draws
        ));
        let name = "a queue batch after the draw (admission running; mean over a quiet window)";
        self.add_beside("tickAfterMs", name, mean_batch_ms(run.quiet_after), "ms", ("before opensAt", tick_before));
        let mut before: Vec<f64> = run.looks.iter().filter(|look| look.sent < run.opens).map(|look| look.ms).collect();
        before.sort_by(f64::total_cmp);
        let baseline = ("the same GET before opensAt, p50", percentile(&before, 0.5));
        let first_drawn = run.looks.iter().find(|look| look.drawn).map_or(0.0, |look| look.ms);
        let name = "GET /api/admin/…/queue, first answer with drawSeed (every 50 ms across opensAt)";
        self.add_beside("firstDrawnLookMs", name, first_drawn, "ms", baseline);
        let after = run.looks.iter().filter(|look| look.sent >= run.opens).map(|look| look.ms);
        let slowest = after.fold(0.0, f64::max);
        self.add_beside("slowestLookMs", "  the slowest of those GETs from opensAt on", slowest, "ms", baseline);
        if run.quiet_before.is_none() {
            self.note("no quiet window before opensAt: the joins or streams took its time".to_owned());
        }
    }

    fn fan_out(&mut self, fan: &FanOut, open_streams: usize) {
        let before = percentile(&fan.before.latency_ms, 0.99);
        let name = "progress fan-out before opensAt p50, serverTime → receipt on every open stream";
        self.add("fanOutBeforeP50Ms", name, percentile(&fan.before.latency_ms, 0.5), "ms", None);
        self.add("fanOutBeforeP99Ms", "  its p99", before, "ms", None);
        let name = "fan-out p99 of the first event from opensAt on (after the draw)";
        let draw = percentile(&fan.draw.latency_ms, 0.99);
        self.add_beside("fanOutDrawP99Ms", name, draw, "ms", ("before opensAt", before));
        let name = "fan-out p99 while admission runs";
        let after = percentile(&fan.after.latency_ms, 0.99);
        self.add_beside("fanOutAfterP99Ms", name, after, "ms", ("before opensAt", before));
        self.add("fanOutAfterMaxMs", "  its max", percentile(&fan.after.latency_ms, 1.0), "ms", None);
        let spread = percentile(&fan.after.spread_ms, 0.99);
        let baseline = ("before opensAt", percentile(&fan.before.spread_ms, 0.99));
        let name = "  spread p99: an event's first receipt → its receipt on each stream";
        self.add_beside("fanOutSpreadP99Ms", name, spread, "ms", baseline);
        let name = "(event, stream) pairs skipped (the stream was still sending the one before)";
        self.add("skipped", name, fan.skipped as f64, "", None);
        self.add("admitted", "admittedThrough, the highest the streams were told", fan.admitted as f64, "", None);
        let events = |reach: &Reach| format!("{} events, {} receipts", reach.events, reach.latency_ms.len());
        self.note(format!(
            "fan-out over {} of {open_streams} streams (each parses every event, on the same cores as the server): \
             before opensAt {}; the first from opensAt on {}; while admission runs {}. serverTime is the writer's \
             instant (ms), read on this machine's clock as the receipts are",
            fan.streams,
            events(&fan.before),
            events(&fan.draw),
            events(&fan.after)
        ));
    }

    fn memory(&mut self, run: &Run<'_>) {
        let rss = &run.rss;
        let mb = |bytes: u64| bytes as f64 / 1e6;
        let grew = |after: u64, before: u64, count: f64| (after as f64 - before as f64) / count.max(1.0);
        self.add("rssEmptyMb", "server resident, before the sessions", mb(rss.empty), "MB", None);
        self.add("rssBeforeMb", "  with the sessions, before the joins", mb(rss.before), "MB", None);
        self.add("rssJoinedMb", "  every session queued", mb(rss.joined), "MB", None);
        self.add("rssStreamsMb", "  every stream open", mb(rss.streams), "MB", None);
        let per_session = grew(rss.before, rss.empty, self.count() as f64);
        self.add("rssPerSessionB", "resident per session (setup)", per_session, "B", None);
        let per_place = grew(rss.joined, rss.before, run.joins.joined() as f64);
        let name = "resident per queued session (after joins − before) ÷ joined";
        self.add_beside("rssPerPlaceB", name, per_place, "B", ("per session", per_session));
        let per_stream = grew(rss.streams, rss.joined, run.open_streams as f64) / 1024.0;
        let name = "resident per open progress stream (with streams − before) ÷ streams";
        self.add("rssPerStreamKb", name, per_stream, "KB", None);
        self.add("openStreams", "streams open", run.open_streams as f64, "", None);
        self.add(
            "lostStreams",
            "streams lost (closed or failed early)",
            run.lost.len() as f64,
            "",
            Some(Target::AtMost(0.0)),
        );
        for (why, count) in run.refused {
            self.note(format!("streams that did not open × {count}: {why}"));
        }
        for lost in run.lost.iter().take(5) {
            self.note(format!("stream lost: {lost}"));
        }
    }
}
