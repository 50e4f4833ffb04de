//! The on-sale run's figures, each with issue 26's target when it has one
//! (met or MISSED), in the crate's table (`figures.rs`).

use super::Told;
use super::cold::Loads;
use super::fanout::{FanOut, Frames};
use super::steps::{Step, percentile};
use super::stream::Seen;
use super::viewer::Form;
use crate::figures::{Figures, Target};

/// What the storm left, for [`Figures::storm`].
pub struct Storm<'a> {
    pub told: &'a Told,
    pub seen: &'a [Seen],
    pub form: Form,
    /// The servers' tick, ms.
    pub tick_ms: f64,
    pub seconds: f64,
    pub lateness: std::time::Duration,
    pub open_streams: usize,
    pub cpu_seconds: f64,
    pub generator_cpu_seconds: f64,
    /// The servers' `write`-family bytes over the storm (`/proc/<pid>/io`).
    pub written_bytes: Option<u64>,
    /// Server resident bytes: before the storm, with every stream open, after closing them.
    pub rss: [u64; 3],
    pub storm_fan_out: FanOut,
    pub probe_fan_out: FanOut,
    /// The sample streams' frames during the storm.
    pub frames: Frames,
    pub probes: usize,
    /// Request connections the customers opened (kept alive, shared in turn).
    pub request_connections: usize,
    pub sample_every: usize,
    /// What customers were told against every process's map.
    pub audit: Result<String, String>,
    /// Every sampled viewer's map against `GET …/seats`.
    pub viewers: Result<String, String>,
}

impl Figures {
    pub fn ceiling(&mut self, per_second: f64, connections: usize) {
        let name = format!("plain HTTP ceiling: GET /api/time, alone, {connections} connections");
        self.add("timePerSecond", &name, per_second, "/s", None);
    }

    pub fn cold_loads(&mut self, loads: &Loads, time_per_second: f64, connections: usize) {
        let name = format!("cold arena page loads/s, alone, {connections} connections (page + definition + map)");
        self.add("coldLoadsPerSecond", &name, loads.per_second, "/s", Some(Target::AtLeast(1000.0)));
        self.add("coldLoadP50Ms", "  cold page load p50", loads.p50_ms, "ms", None);
        self.add("coldLoadP99Ms", "  cold page load p99", loads.p99_ms, "ms", None);
        self.add("coldLoadBytes", "  bytes per cold page load (on the wire)", loads.bytes_per_load, "B", None);
        // Three requests per load: the share of the plain-HTTP ceiling the loads reach.
        let ratio = 3.0 * loads.per_second / time_per_second.max(f64::MIN_POSITIVE);
        self.add("coldLoadRequestsToCeiling", "  its requests/s ÷ the ceiling's", ratio, "×", None);
        if loads.errors > 0 {
            self.note(format!("cold page loads: {} answers were not 200 (of {} loads)", loads.errors, loads.count));
        }
        self.add("coldLoadErrors", "  cold page load errors", loads.errors as f64, "", Some(Target::AtMost(0.0)));
    }

    pub fn storm(&mut self, storm: &Storm<'_>) {
        let told = storm.told;
        let customers = self.count() as f64;
        let lost: Vec<&Seen> = storm.seen.iter().filter(|seen| seen.lost.is_some()).collect();
        let faults: u64 = storm.seen.iter().map(|seen| seen.faults).sum();
        let customer_errors: u64 = told.errors.values().sum();
        let missed = storm.probe_fan_out.missed as u64 + storm.storm_fan_out.missed as u64;
        let errors = customer_errors + lost.len() as u64 + missed + faults;
        self.add(
            "errors",
            "errors (customers' + streams lost + changes missed + events out of order)",
            errors as f64,
            "",
            Some(Target::AtMost(0.0)),
        );
        for step in Step::ALL {
            let (count, p50, p99, max) = told.latencies.summary(step);
            if count == 0 && step.queued_only() {
                continue;
            }
            let target = match step {
                Step::PageDefinitionMap => Some(Target::Below(1000.0)),
                Step::Hold => Some(Target::Below(100.0)),
                _ => None,
            };
            let name = match step {
                Step::SeatMap => format!("{} {}", step.name(), storm.form.query()),
                _ => step.name().to_owned(),
            };
            self.add(&format!("{}P50Ms", step.key()), &format!("{name} p50 ({count})"), p50, "ms", None);
            self.add(&format!("{}P99Ms", step.key()), &format!("{name} p99"), p99, "ms", target);
            self.add(&format!("{}MaxMs", step.key()), &format!("{name} max"), max, "ms", None);
        }
        self.add("held", "holds answered 201", told.holds.len() as f64, "", None);
        self.add("soldOut", "holds answered 409 not_enough_seats (no pair left)", told.sold_out as f64, "", None);
        let confirmed = told.holds.iter().filter(|held| held.confirmed()).count();
        self.add("confirmed", "confirms answered 200", confirmed as f64, "", None);

        self.change_to_viewer(storm);
        self.egress(storm, customers);

        let per_customer_ms = |seconds: f64| 1000.0 * seconds / customers;
        self.add(
            "serverCpuMsPerCustomer",
            "server CPU per customer (utime + stime over the storm ÷ customers)",
            per_customer_ms(storm.cpu_seconds),
            "ms",
            Some(Target::AtMost(4.0)),
        );
        self.add(
            "serverCpuCores",
            "  server CPU, cores busy over the storm",
            storm.cpu_seconds / storm.seconds,
            "×",
            None,
        );
        let generator = per_customer_ms(storm.generator_cpu_seconds);
        self.add("generatorCpuMsPerCustomer", "generator CPU per customer (same 2 cores)", generator, "ms", None);
        self.add("stormSeconds", "storm: first arrival → sample streams quiet for 2 s", storm.seconds, "s", None);
        self.add(
            "arrivalLatenessMs",
            "latest customer start behind schedule",
            storm.lateness.as_secs_f64() * 1000.0,
            "ms",
            None,
        );

        self.add(
            "openStreams",
            "streams open at the end",
            storm.open_streams as f64,
            "",
            Some(Target::AtLeast(customers)),
        );
        let name = "request connections opened (kept alive, customers take turns)";
        self.add("requestConnections", name, storm.request_connections as f64, "", None);
        let name = "  reopened after the server closed them idle (its header timeout)";
        self.add("reopenedConnections", name, told.latencies.reopened as f64, "", None);
        self.add(
            "lostStreams",
            "streams lost (closed or failed early)",
            lost.len() as f64,
            "",
            Some(Target::AtMost(0.0)),
        );
        let [before, open, closed] = storm.rss.map(|bytes| bytes as f64);
        self.add("rssBeforeMb", "server resident before the storm", before / 1e6, "MB", None);
        self.add("rssOpenMb", "server resident, every stream open", open / 1e6, "MB", None);
        self.add("rssClosedMb", "server resident, streams closed", closed / 1e6, "MB", None);
        let per_stream = (open - before) / 1024.0 / (storm.open_streams.max(1) as f64);
        self.add(
            "rssPerStreamKb",
            "resident per open stream (with its customer's session and hold; 1 KB = 1,024 B)",
            per_stream,
            "KB",
            Some(Target::AtMost(8.0)),
        );
        let freed = (open - closed) / 1024.0 / (storm.open_streams.max(1) as f64);
        let name =
            "  of which closing the streams gave back, per stream (the rest: sessions, holds, the allocator's keep)";
        self.add("rssFreedPerStreamKb", name, freed, "KB", None);
        let resnapshots: u32 = storm.seen.iter().map(|seen| seen.resnapshots).sum();
        self.add(
            "resnapshots",
            "sample streams' fresh snapshots (fell behind the broadcast)",
            f64::from(resnapshots),
            "",
            None,
        );
        self.add("streamFaults", "sample streams' events out of order (a gap, an old id)", faults as f64, "", None);
        self.add(
            "audit",
            "audit: every process's map = what customers were told",
            f64::from(u8::from(storm.audit.is_ok())),
            "",
            Some(Target::AtLeast(1.0)),
        );
        self.add(
            "viewersAudit",
            "audit: every sampled viewer's map (snapshot + events) = GET /seats",
            f64::from(u8::from(storm.viewers.is_ok())),
            "",
            Some(Target::AtLeast(1.0)),
        );
        self.storm_notes(storm, &lost);
    }

    /// Change to every viewer, in the storm and after it.
    fn change_to_viewer(&mut self, storm: &Storm<'_>) {
        let target = Some(Target::AtMost(storm.tick_ms + 250.0));
        let fan = &storm.storm_fan_out;
        let name = format!(
            "change to every sampled viewer in the storm p50 ({} changes: holds and confirms × {} sample streams)",
            fan.every_ms.len(),
            fan.streams
        );
        self.add("everyViewerP50Ms", &name, fan.every(0.5), "ms", None);
        let name = format!("change to every sampled viewer in the storm p99 (≤ tick {:.0} ms + 250 ms)", storm.tick_ms);
        self.add("everyViewerP99Ms", &name, fan.every(0.99), "ms", target);
        self.add("everyViewerMaxMs", "change to every sampled viewer in the storm max", fan.every(1.0), "ms", None);
        let busiest = percentile(&fan.busiest_ms, 0.99);
        self.add(
            "everyViewerBusiestP99Ms",
            "  p99 of changes sent with ≥ 90 % of the streams open",
            busiest,
            "ms",
            None,
        );
        let name = format!("  per (seat change, viewer) p50 ({} pairs)", fan.pairs_ms.len());
        self.add("fanOutP50Ms", &name, fan.pairs(0.5), "ms", None);
        self.add("fanOutP99Ms", "  per (seat change, viewer) p99", fan.pairs(0.99), "ms", None);
        let frames = &storm.frames;
        let name = format!(
            "  frame delivery p50: its serverTime (newest change) → arrival ({} frames)",
            frames.delivery_ms.len()
        );
        self.add("deliveryP50Ms", &name, percentile(&frames.delivery_ms, 0.5), "ms", None);
        self.add("deliveryP99Ms", "  frame delivery p99", percentile(&frames.delivery_ms, 0.99), "ms", None);
        self.add("framesPerViewer", "  change events per sampled viewer in the storm", frames.per_stream, "", None);
        self.add(
            "seatsPerFrame",
            "  seats per change event (a tick's changes conflated)",
            frames.seats_per_frame,
            "",
            None,
        );
        let probe = &storm.probe_fan_out;
        let name = format!(
            "change to every sampled viewer p99 with all {} streams open (after the storm: {} releases, one every 200 ms)",
            storm.open_streams, storm.probes
        );
        self.add("probeEveryViewerP99Ms", &name, probe.every(0.99), "ms", target);
        self.add("probeFanOutP50Ms", "  per (seat change, viewer) p50", probe.pairs(0.5), "ms", None);
    }

    /// Bytes: per request, per viewer's stream over the storm, the servers' total.
    fn egress(&mut self, storm: &Storm<'_>, customers: f64) {
        let told = storm.told;
        for step in [Step::Page, Step::Definition, Step::SeatMap] {
            let (count, ..) = told.latencies.summary(step);
            let each = told.latencies.bytes(step) as f64 / (count.max(1) as f64);
            self.add(&format!("{}Bytes", step.key()), &format!("bytes per {}", step.name()), each, "B", None);
        }
        let request_bytes: u64 = Step::ALL.iter().map(|step| told.latencies.bytes(*step)).sum();
        self.add(
            "requestBytesPerCustomer",
            "bytes per customer: requests",
            request_bytes as f64 / customers,
            "B",
            None,
        );
        let opened: Vec<&Seen> = storm.seen.iter().filter(|seen| seen.opened.is_some()).collect();
        let storm_bytes: u64 = opened.iter().map(|seen| seen.storm_bytes).sum();
        let mean = storm_bytes as f64 / opened.len().max(1) as f64;
        let max = opened.iter().map(|seen| seen.storm_bytes).max().unwrap_or(0) as f64;
        let name = format!("egress per viewer over the storm, mean of all {} streams (1 KB = 1,000 B)", opened.len());
        self.add("egressPerViewerKb", &name, mean / 1000.0, "KB", None);
        let name = "egress per viewer over the storm, max (the earliest viewers: the whole storm)";
        self.add("egressPerViewerMaxKb", name, max / 1000.0, "KB", Some(Target::AtMost(150.0)));
        let samples: Vec<&&Seen> = opened.iter().filter(|seen| seen.sample && seen.map.is_some()).collect();
        let snapshot =
            samples.iter().map(|seen| seen.snapshot_bytes).sum::<usize>() as f64 / samples.len().max(1) as f64;
        self.add("snapshotBytes", "  of which the first snapshot (sample streams, mean)", snapshot, "B", None);
        let after: u64 = storm.seen.iter().map(|seen| seen.bytes - seen.storm_bytes).sum();
        let name = "server egress over the storm: every stream + every request answer (counted by the generator)";
        self.add("egressTotalMb", name, (storm_bytes + request_bytes) as f64 / 1e6, "MB", None);
        if let Some(written) = storm.written_bytes {
            let name =
                "  the servers' write/writev bytes over the storm (/proc/<pid>/io wchar: sockets and database files)";
            self.add("serverWcharMb", name, written as f64 / 1e6, "MB", None);
        }
        self.add(
            "streamBytesAfterStormKb",
            "  stream bytes after the storm (probe), all streams",
            after as f64 / 1e3,
            "KB",
            None,
        );
    }

    fn storm_notes(&mut self, storm: &Storm<'_>, lost: &[&Seen]) {
        let (fan, probe) = (&storm.storm_fan_out, &storm.probe_fan_out);
        self.note(format!(
            "change to viewer is timed on a sample: every {}th customer's stream parses its events as the web app does \
             ({}: a map kept from the snapshot, each change applied when its since ≤ the map's version), from the \
             instant the change was decided (the serverTime of its hold's 201 or confirm's 200; a release, whose 204 \
             has none, from its answer) to the arrival of the frame that shows its seats in their new state. The \
             other streams only count their bytes. {} (seat change, viewer) arrivals came before the answer to the \
             request that made the change. Missed: {} in the storm, {} in the probe",
            storm.sample_every,
            storm.form.name(),
            fan.before_answer + probe.before_answer,
            fan.missed,
            probe.missed
        ));
        if self.count() != 10_000 {
            self.note(format!(
                "the targets are the 10,000-customer storm's: at {} customers they are for reference",
                self.count()
            ));
        }
        for (error, count) in &storm.told.errors {
            self.note(format!("error × {count}: {error}"));
        }
        for seen in lost.iter().take(5) {
            self.note(format!("stream lost: {}", seen.lost.as_deref().unwrap_or_default()));
        }
        for note in storm.seen.iter().flat_map(|seen| &seen.fault_notes).take(5) {
            self.note(format!("stream fault: {note}"));
        }
        match &storm.audit {
            Ok(summary) => self.note(format!("audit: {summary}")),
            Err(failure) => self.note(format!("audit FAILED: {failure}")),
        }
        match &storm.viewers {
            Ok(summary) => self.note(format!("viewers' audit: {summary}")),
            Err(failure) => self.note(format!("viewers' audit FAILED: {failure}")),
        }
    }
}
