//! Large venues on a phone's link and CPU (issue 36), for `cargo xtask
//! bench web`: emulated 4G and 4× CPU slowdown, the map as SVG or canvas
//! (`?map=svg|canvas`). Per map: time to live seats (navigation start →
//! the first frame with the map clickable: every SVG seat element, or the
//! canvas painted; download and parse included, HTTP cache off), frames
//! while zooming with the wheel and panning by drag (CDP input events; the
//! page's `requestAnimationFrame` timestamps), and one remote change until
//! it is drawn (SVG: the seat's `data-state` set; canvas: its rectangle
//! repainted, which waits for the next frame).

use anyhow::Context;
use serde_json::{Value, json};

use crate::first_render::{LOADS, Link, cold_over, summary};
use crate::{Browser, cdp};

/// Remote changes timed per map.
const CHANGES: usize = 10;

/// Records each animation frame's timestamp until stopped.
const FRAME_RECORDER: &str = "(() => { const times = (window.__frames = []); window.__recording = true;
  const tick = (t) => { times.push(t); if (window.__recording) requestAnimationFrame(tick); };
  requestAnimationFrame(tick); return true; })()";

/// The map's box on screen: `[left, top, width, height]`.
const MAP_BOX: &str = "(() => { const r = document.querySelector('canvas.seat-canvas, svg.seat-map')
  .getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; })()";

/// Emulates the phone: 4G and a CPU four times slower; the cache off.
pub async fn as_a_phone(browser: &Browser) -> anyhow::Result<()> {
    cold_over(browser, Link::FourG).await?;
    cdp::command(&browser.client, "Emulation.setCPUThrottlingRate", json!({"rate": 4})).await?;
    Ok(())
}

/// Back to the machine's own CPU and link.
pub async fn unthrottled(browser: &Browser) -> anyhow::Result<()> {
    cdp::command(&browser.client, "Emulation.setCPUThrottlingRate", json!({"rate": 1})).await?;
    cold_over(browser, Link::Unthrottled).await
}

async fn mouse(browser: &Browser, kind: &str, x: f64, y: f64, extra: Value) -> anyhow::Result<()> {
    let mut params = json!({"type": kind, "x": x, "y": y, "button": "left", "pointerType": "mouse"});
    if let (Some(params), Some(extra)) = (params.as_object_mut(), extra.as_object()) {
        params.extend(extra.clone());
    }
    cdp::command(&browser.client, "Input.dispatchMouseEvent", params).await?;
    Ok(())
}

/// Zooms in with 6 wheel notches, drags the map about in 60 steps, zooms
/// out 3 notches: the frame intervals meanwhile (ms).
async fn frames_while_moving(browser: &Browser) -> anyhow::Result<Vec<f64>> {
    let map = browser.eval(MAP_BOX).await?;
    let [left, top, width, height] = [0, 1, 2, 3].map(|at| map[at].as_f64().unwrap_or(0.0));
    let (cx, cy) = (left + width / 2.0, top + height / 2.0);
    browser.eval(FRAME_RECORDER).await?;
    for _ in 0..6 {
        mouse(browser, "mouseWheel", cx, cy, json!({"deltaX": 0, "deltaY": -100, "button": "none"})).await?;
    }
    mouse(browser, "mousePressed", cx, cy, json!({"clickCount": 1, "buttons": 1})).await?;
    for step in 0..60 {
        let angle = f64::from(step) / 60.0 * std::f64::consts::TAU;
        let (x, y) = (cx + angle.cos() * width * 0.25 - width * 0.25, cy + angle.sin() * height * 0.25);
        mouse(browser, "mouseMoved", x, y, json!({"buttons": 1})).await?;
    }
    mouse(browser, "mouseReleased", cx, cy, json!({"clickCount": 1, "buttons": 0})).await?;
    for _ in 0..3 {
        mouse(browser, "mouseWheel", cx, cy, json!({"deltaX": 0, "deltaY": 100, "button": "none"})).await?;
    }
    // Two frames more so the last input's frame is in.
    browser
        .eval("new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done))).then(() => true)")
        .await?;
    let times: Vec<f64> = serde_json::from_value(browser.eval("(window.__recording = false, window.__frames)").await?)?;
    Ok(times.windows(2).map(|pair| pair[1] - pair[0]).collect())
}

/// Another customer holds free seats one at a time; the page draws each.
async fn change_times(browser: &Browser, base: &str, show: &str) -> anyhow::Result<Vec<f64>> {
    let http = reqwest::Client::new();
    let session: Value = http.post(format!("{base}/api/sessions")).send().await?.error_for_status()?.json().await?;
    let token = session["token"].as_str().context("a session token")?.to_owned();
    browser.wait_for("the live stream", "document.querySelector('[data-connection=\"live\"]') !== null").await?;
    let map: Value =
        http.get(format!("{base}/api/shows/{show}/seats")).send().await?.error_for_status()?.json().await?;
    let free: Vec<String> = map["seats"]
        .as_array()
        .context("the seats")?
        .iter()
        .filter(|seat| seat["sold"] == false && seat["holdExpiresAt"].is_null())
        .filter_map(|seat| seat["id"].as_str().map(str::to_owned))
        .step_by(97)
        .take(CHANGES)
        .collect();
    let mut applied = Vec::new();
    for (n, seat) in free.iter().enumerate() {
        browser.eval(&format!("window.__bench.watch({})", json!(seat))).await?;
        let hold = format!("bench-large-{n:04}-{}", crate::real_now_ms());
        let body = json!({ "holdId": hold, "seats": [seat] });
        let url = format!("{base}/api/shows/{show}/holds");
        http.post(url).bearer_auth(&token).json(&body).send().await?.error_for_status()?;
        browser.wait_for("the change drawn", "window.__bench.applied !== null").await?;
        applied.push(browser.eval("window.__bench.applied").await?.as_f64().context("a number")?);
        http.delete(format!("{base}/api/holds/{hold}")).bearer_auth(&token).send().await?.error_for_status()?;
    }
    Ok(applied)
}

/// A map's figures on the phone: prints them, answers the median time to
/// live seats.
pub async fn map_on_a_phone(browser: &Browser, base: &str, show: &str, map: &str) -> anyhow::Result<f64> {
    let path = format!("/shows/{show}?map={map}");
    as_a_phone(browser).await?;
    let mut live = Vec::new();
    let mut frames = Vec::new();
    for _ in 0..LOADS {
        browser.client.goto(&format!("{base}{path}")).await?;
        browser.wait_for("the map live, then two frames", "window.__bench && window.__bench.settled === true").await?;
        live.push(browser.eval("window.__bench.live").await?.as_f64().context("a number")?);
        frames.extend(frames_while_moving(browser).await?);
    }
    let median = summary(&format!("{show} as {map}, phone: seats live (navigation start → map clickable)"), "ms", live);
    let total: f64 = frames.iter().sum();
    let mut sorted = frames.clone();
    sorted.sort_by(f64::total_cmp);
    let p95 = sorted.get(((sorted.len().max(1) - 1) as f64 * 0.95).round() as usize).copied().unwrap_or(0.0);
    println!(
        "{show} as {map}, phone: zoom and pan {:.1} frames/s, p95 frame {p95:.1} ms, worst {:.1} ms ({} frames, {LOADS} runs)",
        frames.len() as f64 * 1000.0 / total.max(1.0),
        sorted.last().copied().unwrap_or(0.0),
        frames.len()
    );
    browser.client.goto(&format!("{base}{path}")).await?;
    browser.wait_for("the map live, then two frames", "window.__bench && window.__bench.settled === true").await?;
    let changes = change_times(browser, base, show).await?;
    summary(&format!("{show} as {map}, phone: one remote change until drawn"), "ms", changes);
    unthrottled(browser).await?;
    Ok(median)
}
