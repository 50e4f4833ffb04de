//! The on-sale run's figures, each with issue 26's target when it has one
//! (met or MISSED), in the crate's table (`figures.rs`).

use super::Told;
use super::cold::Loads;
use super::fanout::FanOut;
use super::steps::Step;
use super::stream::Seen;
use crate::figures::{Figures, Target};

/// What the storm left, for [`Figures::storm`].
pub struct Storm<'a> {
    pub told: &'a Told,
    pub seen: &'a [Seen],
    pub seconds: f64,
    pub lateness: std::time::Duration,
    pub open_streams: usize,
    pub cpu_seconds: f64,
    pub generator_cpu_seconds: f64,
    /// Server resident bytes: before the storm, with every stream open, after closing them.
    pub rss: [u64; 3],
    pub storm_fan_out: FanOut,
    pub probe_fan_out: FanOut,
    pub probes: usize,
    /// Request connections the customers opened (kept alive, shared in turn).
    pub request_connections: usize,
    pub sample_every: usize,
    pub audit: Result<String, String>,
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
        let customer_errors: u64 = told.errors.values().sum();
        let errors =
            customer_errors + lost.len() as u64 + storm.probe_fan_out.missed as u64 + storm.storm_fan_out.missed as u64;
        self.add(
            "errors",
            "errors (customers' + streams lost + changes missed)",
            errors as f64,
            "",
            Some(Target::AtMost(0.0)),
        );
        for step in Step::ALL {
            let (count, p50, p99, max) = told.latencies.summary(step);
            let target = match step {
                Step::PageDefinitionMap => Some(Target::Below(1000.0)),
                Step::Hold => Some(Target::Below(100.0)),
                _ => None,
            };
            self.add(&format!("{}P50Ms", step.key()), &format!("{} p50 ({count})", step.name()), p50, "ms", None);
            self.add(&format!("{}P99Ms", step.key()), &format!("{} p99", step.name()), p99, "ms", target);
            self.add(&format!("{}MaxMs", step.key()), &format!("{} max", step.name()), max, "ms", None);
        }
        self.add("held", "holds answered 201", told.holds.len() as f64, "", None);
        self.add("soldOut", "holds answered 409 not_enough_seats (no pair left)", told.sold_out as f64, "", None);
        let confirmed = told.holds.iter().filter(|held| held.confirmed).count();
        self.add("confirmed", "confirms answered 200", confirmed as f64, "", None);

        let stream_bytes: u64 = storm.seen.iter().map(|seen| seen.bytes).sum();
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
        self.add(
            "streamBytesPerCustomer",
            "bytes per customer: live stream, to the end",
            stream_bytes as f64 / customers,
            "B",
            None,
        );

        let per_customer_ms = |seconds: f64| 1000.0 * seconds / customers;
        self.add("serverCpuMsPerCustomer", "server CPU per customer", per_customer_ms(storm.cpu_seconds), "ms", None);
        self.add(
            "serverCpuCores",
            "  server CPU, cores busy over the storm",
            storm.cpu_seconds / storm.seconds,
            "×",
            None,
        );
        let generator = per_customer_ms(storm.generator_cpu_seconds);
        self.add("generatorCpuMsPerCustomer", "generator CPU per customer (same 2 cores)", generator, "ms", None);
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
            "resident per open stream (with its customer's session and hold)",
            per_stream,
            "KB",
            Some(Target::AtMost(32.0)),
        );

        let sample = |fan: &FanOut| {
            format!("{} (change, stream) pairs: {} changes × {} sample streams", fan.ms.len(), fan.changes, fan.streams)
        };
        let fan = &storm.storm_fan_out;
        self.add("fanOutP50Ms", &format!("fan-out in the storm p50, {}", sample(fan)), fan.p(0.5), "ms", None);
        self.add("fanOutP99Ms", "fan-out in the storm p99", fan.p(0.99), "ms", Some(Target::Below(250.0)));
        self.add("fanOutMaxMs", "fan-out in the storm max", fan.p(1.0), "ms", None);
        let busiest = super::steps::percentile(&fan.busiest_ms, 0.99);
        self.add("fanOutBusiestP99Ms", "  p99 of holds sent with ≥ 90 % of the streams open", busiest, "ms", None);
        let probe = &storm.probe_fan_out;
        let name = format!(
            "fan-out p99 with all {} streams open ({} releases, one every 200 ms)",
            storm.open_streams, storm.probes
        );
        self.add("probeFanOutP99Ms", &name, probe.p(0.99), "ms", Some(Target::Below(250.0)));
        self.add("probeFanOutP50Ms", "  its p50", probe.p(0.5), "ms", None);
        let resnapshots: u32 = storm.seen.iter().map(|seen| seen.resnapshots).sum();
        self.add(
            "resnapshots",
            "sample streams' fresh snapshots (fell behind the replay window)",
            f64::from(resnapshots),
            "",
            None,
        );
        self.add("audit", "audit passed", f64::from(u8::from(storm.audit.is_ok())), "", Some(Target::AtLeast(1.0)));

        self.note(format!(
            "fan-out is timed on a sample: every {}th customer's stream parses its events (read uncompressed to parse); \
             the other streams send Accept-Encoding: br, gzip and only count bytes. {} arrivals came before the \
             hold's 201 did (counted as 0 ms). Missed: {} in the storm, {} in the probe",
            storm.sample_every, fan.before_answer + probe.before_answer, fan.missed, probe.missed
        ));
        for (error, count) in &told.errors {
            self.note(format!("error × {count}: {error}"));
        }
        for seen in lost.iter().take(5) {
            self.note(format!("stream lost: {}", seen.lost.as_deref().unwrap_or_default()));
        }
        match &storm.audit {
            Ok(summary) => self.note(format!("audit: {summary}")),
            Err(failure) => self.note(format!("audit FAILED: {failure}")),
        }
    }
}
