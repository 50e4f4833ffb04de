//! The operator's page as markup: the show picker, the figures and the
//! hold table are each one string, set as a whole (as the seats are): far
//! less wasm than element-by-element views. Ages and deadlines tick by
//! [`tick`], which only rewrites those cells' text.

use std::fmt::Write as _;

use seat_state::wire::{OperatorHold, PlaceCounts, ShowStats, ShowSummary, WebhookStatus};

use crate::admin::{duration, places, time_of_day};
use crate::components::seat::escaped;

/// The sign-in form, read when sent.
pub const SIGN_IN: &str = r#"<form class="sign-in" aria-label="Admin sign-in"><label>Admin token <input type="password" data-field="admin-token" autocomplete="off" spellcheck="false"></label> <button type="submit" class="primary" data-action="sign-in">Sign in</button></form><p class="notice">The server's <code>SEATHOLD_ADMIN_TOKEN</code>. It is kept in this tab until the tab closes.</p>"#;

/// The journal's downloads and the block form (Enter blocks).
pub const TOOLS: &str = r#"<section class="admin-part" aria-labelledby="journal-heading"><h2 id="journal-heading">Journal</h2><div class="actions"><button type="button" data-action="journal-jsonl">Download JSON Lines</button><button type="button" data-action="journal-csv">Download CSV</button></div></section><section class="admin-part" aria-labelledby="block-heading"><h2 id="block-heading">Blocked seats</h2><form class="block" aria-label="Block or unblock seats"><label>Seats <input type="text" data-field="block-seats" placeholder="A1, A2" autocomplete="off" spellcheck="false"></label><label>Reason <input type="text" data-field="block-reason" maxlength="200" autocomplete="off"></label><button type="submit" data-action="block">Block</button><button type="submit" data-action="unblock">Unblock</button></form></section>"#;

/// The show picker; `picked` (or the first show) is selected.
pub fn picker(shows: &[ShowSummary], picked: Option<&str>) -> String {
    if shows.is_empty() {
        return r#"<p class="notice">No shows yet.</p>"#.to_owned();
    }
    let mut out = r#"<label class="picker">Show <select data-field="admin-show">"#.to_owned();
    for show in shows {
        let selected = if picked == Some(show.id.as_str()) { " selected" } else { "" };
        let _ = write!(out, r#"<option value="{}"{selected}>{}</option>"#, escaped(&show.id), escaped(&show.name));
    }
    out.push_str("</select></label>");
    out
}

fn places_row(out: &mut String, name: &str, counts: PlaceCounts, total: bool) {
    let stat = |key: &str| if total { format!(r#" data-stat="{key}""#) } else { String::new() };
    let _ = write!(
        out,
        r#"<tr><th scope="row">{}</th><td{}>{}</td><td{}>{}</td><td{}>{}</td><td{}>{}</td></tr>"#,
        escaped(name),
        stat("free"),
        counts.free,
        stat("held"),
        counts.held,
        stat("sold"),
        counts.sold,
        stat("blocked"),
        counts.blocked
    );
}

/// Places by state (all, then per price category), holds by outcome,
/// conversion and the median time to confirm.
pub fn figures(stats: &ShowStats) -> String {
    let mut out = r#"<div class="table-scroll"><table class="figures"><caption>Places now</caption><thead><tr><th scope="col">Category</th><th scope="col">Free</th><th scope="col">Held</th><th scope="col">Sold</th><th scope="col">Blocked</th></tr></thead><tbody>"#.to_owned();
    places_row(&mut out, "All places", stats.places, true);
    for (category, counts) in &stats.by_category {
        places_row(&mut out, category, *counts, false);
    }
    out.push_str(r#"</tbody></table></div><dl class="figures">"#);
    let holds = stats.holds;
    // Whole percents by integer arithmetic: formatting an f64 would link
    // the float printer into the wasm.
    let conversion = format!("{} %", (stats.conversion * 100.0).round() as i64);
    let median = stats
        .median_seconds_to_confirm
        .map_or_else(|| "no sale yet".to_owned(), |seconds| duration((seconds * 1000.0).round() as i64));
    let figures = [
        ("created", "Holds created", holds.created.to_string()),
        ("confirmed", "Confirmed", holds.confirmed.to_string()),
        ("expired", "Expired", holds.expired.to_string()),
        ("released", "Released", holds.released.to_string()),
        ("conversion", "Conversion", conversion),
        ("median", "Median time to confirm", median),
    ];
    for (key, name, value) in figures {
        let _ = write!(out, r#"<div><dt>{name}</dt><dd data-stat="{key}">{value}</dd></div>"#);
    }
    out.push_str("</dl>");
    out
}

/// A deadline in words at `now`: "12:04:33 (4:12 left)" or "expired".
fn deadline(expires: i64, now: i64) -> String {
    let left = expires - now;
    if left > 0 { format!("{} ({} left)", time_of_day(expires), duration(left)) } else { "expired".to_owned() }
}

/// The active holds, oldest first, each with a button that releases it
/// (`disabled` while an action is under way).
pub fn holds(holds: &[OperatorHold], now: i64, disabled: bool) -> String {
    if holds.is_empty() {
        return r#"<p class="notice" data-empty="holds">No active holds.</p>"#.to_owned();
    }
    let mut out = r#"<div class="table-scroll"><table class="holds"><thead><tr><th scope="col">Holder</th><th scope="col">Places</th><th scope="col">Age</th><th scope="col">Deadline</th><th scope="col"><span class="visually-hidden">Action</span></th></tr></thead><tbody>"#.to_owned();
    let disabled = if disabled { " disabled" } else { "" };
    for hold in holds {
        let (id, holder, places) = (escaped(&hold.hold_id), escaped(&hold.holder), escaped(&places(hold)));
        let _ = write!(
            out,
            r#"<tr data-hold-id="{id}"><td class="holder">{holder}</td><td>{places}</td><td data-since="{}">{}</td><td data-until="{}">{}</td><td><button type="button" data-action="force-release" data-hold-id="{id}" data-what="the hold of {holder} on {places}" aria-label="Release the hold of {holder} on {places}"{disabled}>Release</button></td></tr>"#,
            hold.created_at,
            duration(now - hold.created_at),
            hold.expires_at,
            deadline(hold.expires_at, now),
        );
    }
    out.push_str("</tbody></table></div>");
    out
}

/// The webhook log: per webhook its URL and kinds, events pending, events
/// parked (failed), attempts, and the latest attempt's status and error.
pub fn webhooks(webhooks: &[WebhookStatus]) -> String {
    if webhooks.is_empty() {
        return r#"<p class="notice" data-empty="webhooks">No webhooks. An operator adds one through the admin API (docs/operating.md, Webhooks).</p>"#.to_owned();
    }
    let mut out = r#"<div class="table-scroll"><table class="webhooks"><thead><tr><th scope="col">URL</th><th scope="col">Events</th><th scope="col">Pending</th><th scope="col">Failed</th><th scope="col">Attempts</th><th scope="col">Last status</th><th scope="col">Last error</th></tr></thead><tbody>"#.to_owned();
    for webhook in webhooks {
        let counts = &webhook.deliveries;
        let status = counts.last_status.map_or_else(|| "—".to_owned(), |status| status.to_string());
        let error = counts.last_error.as_deref().map_or_else(|| "—".to_owned(), escaped);
        let _ = write!(
            out,
            r#"<tr data-webhook-id="{}"><td class="url">{}</td><td>{}</td><td data-delivery="pending">{}</td><td data-delivery="failed">{}</td><td data-delivery="attempts">{}</td><td data-delivery="last-status">{status}</td><td data-delivery="last-error">{error}</td></tr>"#,
            escaped(&webhook.id),
            escaped(&webhook.url),
            escaped(&webhook.events.join(", ")),
            counts.pending,
            counts.failed,
            counts.attempts,
        );
    }
    out.push_str("</tbody></table></div>");
    out
}

/// Rewrites the ages and deadlines below `root` for `now`.
pub fn tick(root: &web_sys::Element, now: i64) {
    let rewrite = |selector: &str, attribute: &str, text: &dyn Fn(i64) -> String| {
        let Ok(cells) = root.query_selector_all(selector) else { return };
        for at in 0..cells.length() {
            let Some(cell) =
                cells.item(at).and_then(|node| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(node).ok())
            else {
                continue;
            };
            if let Some(instant) = cell.get_attribute(attribute).and_then(|value| value.parse::<i64>().ok()) {
                cell.set_text_content(Some(&text(instant)));
            }
        }
    };
    rewrite("[data-since]", "data-since", &|since| duration(now - since));
    rewrite("[data-until]", "data-until", &|until| deadline(until, now));
}
