//! The edge run's figures (`edge.rs`) in the crate's table: per level, the
//! processes' CPU and memory and the proxies' memory, each beside the
//! level without viewers; then memory per stream, change to viewer and
//! the audits. Keys are the same whatever the viewers count, so a run
//! through Pushpin prints beside the direct run saved before it.

use std::collections::BTreeMap;

use super::Options;
use super::edge::Level;
use super::stream::Seen;
use crate::figures::{Figures, Target};

/// What the run left.
pub struct Run<'a> {
    pub options: &'a Options,
    pub levels: &'a [Level],
    pub seen: &'a [Seen],
    /// Refused viewers and failed customers: error → how many.
    pub errors: &'a BTreeMap<String, u64>,
    /// What customers were told against every process's map.
    pub audit: Result<String, String>,
    /// Every sampled viewer's map against `GET /seats`.
    pub viewers: Result<String, String>,
}

/// Each level's name in the keys: none, half and all of the viewers.
const LEVEL_KEYS: [&str; 3] = ["None", "Half", "All"];

pub fn report(run: &Run<'_>) -> anyhow::Result<()> {
    let options = run.options;
    let viewers = options.edge.viewers;
    let label = format!("{}, {}", options.label, options.form.name());
    let mut figures = Figures::new("edge", &label, "viewers", viewers);
    let [none, .., all] = run.levels else { anyhow::bail!("the edge run measured {} levels", run.levels.len()) };
    let proxies = !options.edge.edge_pids.is_empty();
    for (level, key) in run.levels.iter().zip(LEVEL_KEYS) {
        let open = level.viewers;
        let at_none = ("0 viewers", none.origin_cores);
        let name = format!("origin CPU over the write storm, {open} viewers open (both processes)");
        figures.add_beside(&format!("originCores{key}"), &name, level.origin_cores, "cores", at_none);
        let name = format!("origin resident, {open} viewers open (both processes)");
        let rss_none = ("0 viewers", none.origin_rss as f64 / 1e6);
        figures.add_beside(&format!("originRssMb{key}"), &name, level.origin_rss as f64 / 1e6, "MB", rss_none);
        if proxies {
            let name = format!("Pushpin resident, {open} viewers open (both instances, every process)");
            let total = |level: &Level| level.edge_rss.values().sum::<u64>() as f64 / 1e6;
            figures.add_beside(&format!("edgeRssMb{key}"), &name, total(level), "MB", ("0 viewers", total(none)));
            let name = format!("Pushpin CPU over the write storm, {open} viewers open");
            figures.add(&format!("edgeCores{key}"), &name, level.edge_cores, "cores", None);
        }
        let name = format!("generator CPU over the write storm, {open} viewers open (same cores)");
        figures.add(&format!("generatorCores{key}"), &name, level.generator_cores, "cores", None);
        if open > 0 {
            let fan = &level.fan_out;
            let name = format!(
                "change to every sampled viewer p99, {open} viewers open ({} changes × {} sample streams; \
                 serverTime → the frame showing it)",
                fan.every_ms.len(),
                fan.streams
            );
            figures.add(&format!("everyViewerP99Ms{key}"), &name, fan.every(0.99), "ms", None);
            figures.add(&format!("everyViewerP50Ms{key}"), "  p50", fan.every(0.5), "ms", None);
            figures.add(&format!("everyViewerMaxMs{key}"), "  max", fan.every(1.0), "ms", None);
        }
    }
    let per_viewer_kb = |after: f64, before: f64| (after - before) / 1024.0 / viewers.max(1) as f64;
    let name = "origin resident per viewer (all − none ÷ viewers; 1 KB = 1,024 B)";
    figures.add("originRssPerViewerKb", name, per_viewer_kb(all.origin_rss as f64, none.origin_rss as f64), "KB", None);
    if proxies {
        let total = |level: &Level| level.edge_rss.values().sum::<u64>() as f64;
        let name = "Pushpin resident per stream (all − none ÷ viewers)";
        figures.add("edgeRssPerStreamKb", name, per_viewer_kb(total(all), total(none)), "KB", None);
        for (process, bytes) in &all.edge_rss {
            let before = none.edge_rss.get(process).copied().unwrap_or(0) as f64;
            let name = format!("  of which {process}");
            figures.add(
                &format!("edgeRssPerStreamKb-{process}"),
                &name,
                per_viewer_kb(*bytes as f64, before),
                "KB",
                None,
            );
        }
    }
    let errors: u64 = run.errors.values().sum();
    let lost = run.seen.iter().filter(|seen| seen.lost.is_some()).count();
    let faults: u64 = run.seen.iter().map(|seen| seen.faults).sum();
    let missed: usize = run.levels.iter().map(|level| level.fan_out.missed).sum();
    let open = run.seen.iter().filter(|seen| seen.opened.is_some() && seen.lost.is_none()).count();
    figures.add("openAtEnd", "viewers open at the end", open as f64, "", Some(Target::AtLeast(viewers as f64)));
    let name = "errors (viewers refused + customers' + streams lost + changes missed + events out of order)";
    let total = errors + lost as u64 + faults + missed as u64;
    figures.add("errors", name, total as f64, "", Some(Target::AtMost(0.0)));
    let resnapshots: u32 = run.seen.iter().map(|seen| seen.resnapshots).sum();
    figures.add("resnapshots", "sample streams' fresh snapshots (fell behind)", f64::from(resnapshots), "", None);
    let audited = |outcome: &Result<String, String>| f64::from(u8::from(outcome.is_ok()));
    let name = "audit: every process's map = what customers were told";
    figures.add("audit", name, audited(&run.audit), "", Some(Target::AtLeast(1.0)));
    let name = "audit: every sampled viewer's map (snapshot + frames) = GET /seats";
    figures.add("viewersAudit", name, audited(&run.viewers), "", Some(Target::AtLeast(1.0)));
    notes(&mut figures, run, lost);
    figures.report(options.save.as_deref(), options.beside.as_deref())
}

fn notes(figures: &mut Figures, run: &Run<'_>, lost: usize) {
    let edge = &run.options.edge;
    figures.note(format!(
        "each level: {} holds a second for {} storm seconds (best 2, 60 % confirmed, sent to the processes \
         directly), CPU counted until the sample streams were quiet for 2 s; viewers connected at {} a second",
        edge.holds_per_second,
        run.levels.first().map_or(0.0, |level| level.seconds).round(),
        edge.connects_per_second
    ));
    for (error, count) in run.errors {
        figures.note(format!("error × {count}: {error}"));
    }
    if lost > 0 {
        for seen in run.seen.iter().filter(|seen| seen.lost.is_some()).take(5) {
            figures.note(format!("stream lost: {}", seen.lost.as_deref().unwrap_or_default()));
        }
    }
    for note in run.seen.iter().flat_map(|seen| &seen.fault_notes).take(5) {
        figures.note(format!("stream fault: {note}"));
    }
    for (name, outcome) in [("audit", &run.audit), ("viewers' audit", &run.viewers)] {
        match outcome {
            Ok(summary) => figures.note(format!("{name}: {summary}")),
            Err(failure) => figures.note(format!("{name} FAILED: {failure}")),
        }
    }
}
