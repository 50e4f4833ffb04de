//! The on-sale panel as markup: the last hour's charts, the waiting room's
//! figures and controls, and the seat map's legend. Each chart is a
//! small SVG of one bar a minute, written as one string (no chart library:
//! 60 bars and a caption are all a glance needs). The figures are also
//! each chart's accessible name and its `data-values`.

use std::fmt::Write as _;

use seat_state::wire::{OnSaleMinute, QueueStatus};

use crate::admin::{StateCounts, time_of_day};

/// The chart's drawing box: a bar of `BAR` units per minute.
const BAR: u64 = 10;
const HEIGHT: u64 = 60;

/// The bars' heights for `values` against `highest`, in drawing units:
/// any value above zero at least one unit, so a quiet minute still shows.
fn heights(values: &[u64], highest: u64) -> Vec<u64> {
    values
        .iter()
        .map(
            |&value| {
                if highest == 0 || value == 0 { 0 } else { (value.min(highest) * HEIGHT).div_ceil(highest).max(1) }
            },
        )
        .collect()
}

/// One path of bars, a bar per value, standing on the chart's floor.
fn bars(class: &str, values: &[u64], highest: u64) -> String {
    let mut path = String::new();
    for (at, height) in heights(values, highest).into_iter().enumerate() {
        if height > 0 {
            let _ = write!(path, "M{},{}v-{height}h{}v{height}z", at as u64 * BAR + 1, HEIGHT, BAR - 2);
        }
    }
    format!(r#"<path class="{class}" d="{path}"></path>"#)
}

fn listed(values: &[u64]) -> String {
    values.iter().map(u64::to_string).collect::<Vec<_>>().join(",")
}

/// `HH:MM` of a server instant.
fn minute_of(at: i64) -> String {
    time_of_day(at).chars().take(5).collect()
}

/// The highest value and the minute it was in, in words.
fn peak(values: &[u64], starts: &[i64]) -> String {
    let Some((at, most)) = values.iter().enumerate().max_by_key(|&(at, value)| (*value, at)) else {
        return String::new();
    };
    if *most == 0 {
        return "none in the last hour".to_owned();
    }
    let when = starts.get(at).map_or_else(String::new, |&start| format!(" at {}", minute_of(start)));
    format!("at most {most}{when}")
}

/// A figure with a caption (title, the latest value), the chart, and the
/// hour's two ends under it. `behind`: a larger series drawn behind
/// `values`, on its scale (the queue's length behind its admissions).
fn chart(key: &str, title: &str, latest: &str, values: &[u64], behind: Option<&[u64]>, starts: &[i64]) -> String {
    let highest = behind.unwrap_or(values).iter().chain(values).copied().max().unwrap_or(0);
    let behind = behind.map_or_else(String::new, |behind| bars("bars behind", behind, highest));
    let label = format!("{title}, last hour: {latest} now, {}.", peak(values, starts));
    let width = BAR * values.len() as u64;
    format!(
        r#"<figure class="chart" data-chart="{key}" data-values="{}"><figcaption><span>{title}</span> <strong data-latest>{latest}</strong></figcaption><svg viewBox="0 0 {width} {HEIGHT}" preserveAspectRatio="none" role="img" aria-label="{label}">{behind}{}<path class="floor" d="M0,{HEIGHT}H{width}"></path></svg><div class="chart-ends" aria-hidden="true"><span>{}</span><span>now</span></div></figure>"#,
        listed(values),
        bars("bars", values, highest),
        starts.first().map_or_else(String::new, |&start| minute_of(start)),
    )
}

/// The last hour's charts: the waiting room (when the show has one), then
/// holds, confirms and expiries per minute.
pub fn charts(minutes: &[OnSaleMinute]) -> String {
    let starts: Vec<i64> = minutes.iter().map(|minute| minute.at).collect();
    let pick = |read: fn(&OnSaleMinute) -> u64| minutes.iter().map(read).collect::<Vec<u64>>();
    let latest = |values: &[u64]| values.last().copied().unwrap_or(0).to_string();
    let mut out = String::from(r#"<div class="charts">"#);
    if minutes.iter().any(|minute| minute.queue_length.is_some()) {
        let length = pick(|minute| minute.queue_length.unwrap_or(0));
        let through = pick(|minute| minute.admitted_through.unwrap_or(0));
        let waiting: Vec<u64> =
            length.iter().zip(&through).map(|(length, through)| length - through.min(length)).collect();
        let summary = format!("{} waiting, {} admitted", latest(&waiting), latest(&through));
        out.push_str(&chart("queue", "Waiting room", &summary, &through, Some(&length), &starts));
        let admitted: Vec<u64> =
            std::iter::once(0).chain(through.windows(2).map(|pair| pair[1].saturating_sub(pair[0]))).collect();
        out.push_str(&chart("admitted", "Admitted a minute", &latest(&admitted), &admitted, None, &starts));
    }
    for (key, title, read) in [
        ("holds", "Holds a minute", (|minute: &OnSaleMinute| minute.holds) as fn(&OnSaleMinute) -> u64),
        ("confirms", "Confirms a minute", |minute| minute.confirms),
        ("expiries", "Expiries a minute", |minute| minute.expiries),
    ] {
        let values = pick(read);
        out.push_str(&chart(key, title, &latest(&values), &values, None, &starts));
    }
    out.push_str("</div>");
    out
}

/// What the waiting room's state is in words.
fn state_of(status: &QueueStatus) -> &'static str {
    if status.closed {
        "closed"
    } else if status.paused {
        "paused"
    } else {
        "admitting"
    }
}

/// The waiting room's figures: state, length, admitted, rate, the draw's seed.
pub fn queue_figures(status: Option<&QueueStatus>) -> String {
    let Some(status) = status else {
        return r#"<p class="notice" data-empty="queue">This show has no waiting room: customers hold as soon as they arrive.</p>"#.to_owned();
    };
    let seed = status.draw_seed.map_or_else(|| "not drawn yet".to_owned(), |seed| seed.to_string());
    format!(
        r#"<dl class="figures"><div><dt>Waiting room</dt><dd data-queue="state">{}</dd></div><div><dt>In the queue</dt><dd data-queue="length">{}</dd></div><div><dt>Admitted</dt><dd data-queue="admitted">{}</dd></div><div><dt>Rate</dt><dd data-queue="rate">{} a minute</dd></div><div><dt>Draw seed</dt><dd data-queue="seed">{seed}</dd></div></dl>"#,
        state_of(status),
        status.length,
        status.admitted_through,
        status.rate_per_minute,
    )
}

/// The operator's controls: the rate (Enter sets it), pause or resume,
/// close (asked twice) or reopen.
pub fn queue_controls(status: Option<&QueueStatus>, closing: bool, disabled: bool) -> String {
    let Some(status) = status else { return String::new() };
    let disabled = if disabled { " disabled" } else { "" };
    let mut out = format!(
        r#"<form class="block" aria-label="Admission rate"><label>Admit a minute <input type="text" inputmode="numeric" data-field="queue-rate" value="{}" autocomplete="off" size="6"></label><button type="submit" data-action="queue-rate"{disabled}>Set the rate</button></form><div class="actions">"#,
        status.rate_per_minute,
    );
    if status.closed {
        let _ = write!(
            out,
            r#"<button type="button" data-action="queue-reopen"{disabled}>Reopen the waiting room</button>"#
        );
    } else {
        let (action, words) =
            if status.paused { ("queue-resume", "Resume admissions") } else { ("queue-pause", "Pause admissions") };
        let _ = write!(out, r#"<button type="button" data-action="{action}"{disabled}>{words}</button>"#);
        if closing {
            let _ = write!(
                out,
                r#"<button type="button" class="danger" data-action="queue-close-confirm"{disabled}>Yes, close the waiting room</button><button type="button" data-action="queue-close-cancel">Keep it open</button>"#
            );
        } else {
            let _ = write!(
                out,
                r#"<button type="button" data-action="queue-close"{disabled}>Close the waiting room…</button>"#
            );
        }
    }
    out.push_str("</div>");
    if closing {
        out.push_str(
            r#"<p class="notice" data-closing>Closing lets everyone hold at once, without waiting their turn.</p>"#,
        );
    }
    out
}

/// The seat map's legend: each state's swatch and how many seats it has.
pub fn legend(counts: StateCounts) -> String {
    let mut out = String::from(r#"<ul class="admin-legend">"#);
    for (state, name, count) in [
        ("free", "Free", counts.free),
        ("held", "Held", counts.held),
        ("sold", "Sold", counts.sold),
        ("blocked", "Blocked", counts.blocked),
    ] {
        let _ = write!(
            out,
            r#"<li data-legend="{state}"><span class="swatch {state}" aria-hidden="true"></span>{name} <strong>{count}</strong></li>"#
        );
    }
    out.push_str("</ul>");
    out
}
