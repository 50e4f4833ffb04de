//! First renders of the arena in headless Chromium, timed by a script that
//! runs before the page's own code, beside a plain-DOM page that draws the
//! same seats without a framework: shared by `cargo xtask bench web`
//! (`benches/web.rs`) and `bench onsale` (`benches/onsale.rs`).

use std::collections::HashSet;
use std::path::Path;

use anyhow::Context;
use serde_json::Value;

use crate::{Browser, Server, cdp};

/// A link the page loads over.
#[derive(Debug, Clone, Copy)]
pub enum Link {
    /// Loopback as it is.
    Unthrottled,
    /// Issue 26's phone: 9 Mbit/s down, 1.5 up, 60 ms latency.
    FourG,
}

impl Link {
    pub fn name(self) -> &'static str {
        match self {
            Link::Unthrottled => "unthrottled",
            Link::FourG => "4G (9 Mbit/s down, 1.5 up, 60 ms)",
        }
    }
}

/// Emulates `link` from now on, with the HTTP cache off: every load is a
/// first visit's.
pub async fn cold_over(browser: &Browser, link: Link) -> anyhow::Result<()> {
    let client = &browser.client;
    cdp::command(client, "Network.enable", serde_json::json!({})).await?;
    cdp::command(client, "Network.setCacheDisabled", serde_json::json!({"cacheDisabled": true})).await?;
    cdp::command(client, "Network.clearBrowserCache", serde_json::json!({})).await?;
    // Bytes per second; -1 lifts a limit.
    let (latency, down, up) = match link {
        Link::Unthrottled => (0, -1, -1),
        Link::FourG => (60, 1_125_000, 187_500),
    };
    let conditions =
        serde_json::json!({"offline": false, "latency": latency, "downloadThroughput": down, "uploadThroughput": up});
    cdp::command(client, "Network.emulateNetworkConditions", conditions).await?;
    Ok(())
}

/// A fresh server (`--demo`) on an instrumented copy of the release web
/// build (`SEATHOLD_WEB_DIST`); the copy lives as long as the folder returned.
pub async fn instrumented_server() -> anyhow::Result<(Server, tempfile::TempDir)> {
    let dist = std::path::PathBuf::from(std::env::var_os("SEATHOLD_WEB_DIST").context("SEATHOLD_WEB_DIST")?);
    let web = tempfile::tempdir()?;
    instrumented_copy(&dist, web.path())?;
    let server = Server::start_serving(web.path(), std::sync::Arc::new(tempfile::tempdir()?), &[]).await?;
    Ok((server, web))
}

/// The demo arena: its id and its seats.
pub const ARENA: &str = "demo-arena";
pub const ARENA_SEATS: usize = 20_000;
/// Loads per page and condition; the figures are their medians.
pub const LOADS: usize = 5;

/// Runs before the page's own code (a same-origin file, so a strict
/// Content-Security-Policy allows it): records the first frame with every
/// seat painted (the server's picture once the HTML is parsed whole, or the
/// live seats) and the first with every seat live, as each frame starts
/// (`requestAnimationFrame`, for every page alike), keeps the picture for
/// checking, and times each `change` handler until the watched seat's state
/// attribute moves.
const TIMING_SCRIPT: &str = r#"(() => {
  const bench = (window.__bench = { painted: null, live: null, settled: false, picture: null, changeStarted: null, applied: null });
  const add = EventSource.prototype.addEventListener;
  EventSource.prototype.addEventListener = function (type, listener, options) {
    if (type === "change") {
      const inner = listener;
      listener = function (event) {
        bench.changeStarted = performance.now();
        return inner.call(this, event);
      };
    }
    return add.call(this, type, listener, options);
  };
  const seats = document.getElementsByClassName("seat");
  const frame = () => {
    const now = performance.now();
    if (bench.painted === null && document.readyState !== "loading") {
      const picture = document.querySelector('#prepaint svg');
      if (picture) [bench.painted, bench.picture] = [now, picture];
    }
    // Live: the app's map drawn, and the server's picture (#prepaint) gone.
    // A large venue's canvas is live once painted (its seats are found by a grid, not elements).
    const canvas = document.querySelector("canvas.seat-canvas[data-seats-drawn]");
    const live = canvas || (seats.length >= __SEATS__ && document.querySelectorAll("[data-seat-id]").length >= __SEATS__);
    if (live && !document.getElementById("prepaint")) {
      bench.live = now;
      if (bench.painted === null) bench.painted = now;
      // Two frames on, the page's rendering work is done: the next load starts on an idle page.
      requestAnimationFrame(() => requestAnimationFrame(() => { bench.settled = true; }));
    } else requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
  bench.watch = (id) => {
    bench.applied = null;
    // On a canvas, the change is applied when the canvas repaints its rectangle.
    const canvas = document.querySelector("canvas.seat-canvas");
    if (canvas) {
      const repainted = new MutationObserver(() => {
        bench.applied = performance.now() - bench.changeStarted;
        repainted.disconnect();
      });
      repainted.observe(canvas, { attributes: true, attributeFilter: ["data-repaints"] });
      return;
    }
    const seat = document.querySelector(`[data-seat-id="${id}"]`);
    const observer = new MutationObserver(() => {
      if (seat.getAttribute("data-state") !== "free") {
        bench.applied = performance.now() - bench.changeStarted;
        observer.disconnect();
      }
    });
    observer.observe(seat, { attributes: true, attributeFilter: ["data-state"] });
  };
})();
"#;

/// The baseline: the same seats drawn with plain DOM calls, no framework.
/// It reads the show and its facts (as the app does, minus session and
/// clock), then makes one SVG `path` per seat with `createElementNS` and
/// `setAttribute` (the app's attributes: shape, class, role, test hooks,
/// spoken name, `aria-disabled` on seats that cannot be picked, the roving
/// tab index), in a fragment appended once.
const PLAIN_DOM_SCRIPT: &str = r#"(async () => {
  const get = async (path) => (await fetch(path, { credentials: "same-origin" })).json();
  const show = await get("/api/shows/__SHOW__");
  const facts = await get("/api/shows/__SHOW__/seats");
  const known = new Map(facts.seats.map((seat) => [seat.id, seat]));
  const stateOf = (id) => {
    const fact = known.get(id);
    if (!fact) return "free";
    if (fact.sold) return "sold";
    return fact.holdExpiresAt !== null && fact.holdExpiresAt > facts.serverTime ? "held" : "free";
  };
  const xs = show.seats.map((seat) => seat.x), ys = show.seats.map((seat) => seat.y);
  const gaps = [];
  for (let i = 1; i < show.seats.length; i++) {
    const [a, b] = [show.seats[i - 1], show.seats[i]];
    if (a.y === b.y && b.x > a.x) gaps.push(b.x - a.x);
  }
  gaps.sort((a, b) => a - b);
  const r = Math.min(14, Math.max(2, (gaps[gaps.length >> 1] || 30) * 0.4));
  const [minX, maxX, minY, maxY] = [Math.min(...xs) - 2 * r, Math.max(...xs) + 2 * r, Math.min(...ys) - 2 * r, Math.max(...ys) + 2 * r];
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("class", "seat-map");
  svg.setAttribute("role", "group");
  svg.setAttribute("viewBox", `${minX} ${minY} ${maxX - minX} ${maxY - minY}`);
  svg.setAttribute("style", `aspect-ratio: ${maxX - minX} / ${maxY - minY}`);
  const spoken = { free: "available", held: "held by someone else", sold: "sold" };
  const fragment = document.createDocumentFragment();
  show.seats.forEach((seat, index) => {
    const state = stateOf(seat.id);
    const path = document.createElementNS(ns, "path");
    const [x, y] = [seat.x.toFixed(1), seat.y.toFixed(1)];
    path.setAttribute("class", "seat");
    path.setAttribute("role", "button");
    path.setAttribute("data-seat-id", seat.id);
    path.setAttribute("d", `M${x},${y}m${-r},0a${r},${r} 0 1,0 ${2 * r},0a${r},${r} 0 1,0 ${-2 * r},0z`);
    path.setAttribute("data-state", state);
    path.setAttribute("aria-label", `${seat.label || seat.id}, ${spoken[state]}`);
    path.setAttribute("aria-pressed", "false");
    if (state !== "free") path.setAttribute("aria-disabled", "true");
    path.setAttribute("tabindex", index === 0 ? "0" : "-1");
    fragment.appendChild(path);
  });
  svg.appendChild(fragment);
  const map = document.createElement("div");
  map.className = "map";
  map.appendChild(svg);
  const main = document.createElement("main");
  main.appendChild(map);
  document.body.appendChild(main);
})();
"#;

/// A copy of the web build whose `index.html` runs [`TIMING_SCRIPT`] first,
/// plus `plain-dom.html`, the baseline page with the same style sheet.
fn instrumented_copy(dist: &Path, into: &Path) -> anyhow::Result<()> {
    for entry in std::fs::read_dir(dist)? {
        let entry = entry?;
        // Only the build's own files (other tools may add folders).
        if entry.file_type()?.is_file() {
            std::fs::copy(entry.path(), into.join(entry.file_name()))?;
        }
    }
    std::fs::write(into.join("bench-timing.js"), TIMING_SCRIPT.replace("__SEATS__", &ARENA_SEATS.to_string()))?;
    std::fs::write(into.join("plain-dom.js"), PLAIN_DOM_SCRIPT.replace("__SHOW__", ARENA))?;
    let timing = r#"<script src="/bench-timing.js"></script>"#;
    let index = into.join("index.html");
    let html = std::fs::read_to_string(&index)?;
    let instrumented = html.replacen("<head>", &format!("<head>{timing}"), 1);
    anyhow::ensure!(instrumented != html, "no <head> in {}", index.display());
    std::fs::write(index, instrumented)?;
    let style = html
        .lines()
        .find(|line| line.contains("rel=\"stylesheet\""))
        .with_context(|| format!("no style sheet in {}", dist.join("index.html").display()))?;
    let plain = format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">{timing}{}\
         <script src=\"/plain-dom.js\" defer></script></head><body></body></html>",
        style.trim()
    );
    std::fs::write(into.join("plain-dom.html"), plain)?;
    Ok(())
}

/// Prints a line with the median and spread; returns the median.
pub fn summary(name: &str, unit: &str, mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    let at = |q: f64| values[((values.len() - 1) as f64 * q).round() as usize];
    println!(
        "{name}: median {:.1} {unit}, min {:.1}, p90 {:.1}, max {:.1} ({} runs)",
        at(0.5),
        at(0.0),
        at(0.9),
        at(1.0),
        values.len()
    );
    at(0.5)
}

/// What `LOADS` loads of one page took, each from navigation start.
#[derive(Default)]
pub struct Loads {
    /// To the first frame with every seat on screen.
    pub painted: Vec<f64>,
    /// To the first frame with every seat live (`data-seat-id`).
    pub live: Vec<f64>,
    /// To the last API answer that arrived before the seats were painted.
    pub data_in: Vec<f64>,
    /// Loads whose seats were first painted by the server's picture.
    pub pictures: usize,
    /// Bytes each load moved until two frames after its seats were live (Resource
    /// Timing's `transferSize`: 0 for what came from the HTTP cache; an open
    /// live stream is not in it).
    pub transferred: Vec<f64>,
}

/// The centres the picture's shapes start at, in tenths of a map unit
/// (`null` when the page had no picture).
const PICTURE_CENTRES: &str = "(() => {
  const picture = window.__bench.picture;
  if (!picture) return null;
  const centres = new Set();
  // Each dot is a step from the one before in its path: `m dx,dy h0`
  // (no comma before a negative dy); the path's first is from the origin.
  for (const path of picture.querySelectorAll('path')) {
    let x = 0, y = 0;
    for (const m of path.getAttribute('d').matchAll(/m(-?[0-9]*\\.?[0-9]+),?(-?[0-9]*\\.?[0-9]+)h0/g)) {
      x += Math.round(m[1] * 10); y += Math.round(m[2] * 10);
      centres.add(x + ',' + y);
    }
  }
  return [...centres];
})()";

/// Checks that the page's picture drew a shape at every one of `seats`'
/// places and nowhere else; `false` when the page had no picture.
async fn check_picture(browser: &Browser, seats: &[(f64, f64)]) -> anyhow::Result<bool> {
    let Some(centres) = serde_json::from_value::<Option<Vec<String>>>(browser.eval(PICTURE_CENTRES).await?)? else {
        return Ok(false);
    };
    let centres: HashSet<String> = centres.into_iter().collect();
    // The server writes one decimal, rounded: either neighbour of the exact tenth.
    let near = |value: f64| [(value * 10.0).floor() as i64, (value * 10.0).ceil() as i64];
    let drawn = seats
        .iter()
        .filter(|(x, y)| near(*x).iter().any(|x| near(*y).iter().any(|y| centres.contains(&format!("{x},{y}")))))
        .count();
    anyhow::ensure!(
        drawn == seats.len() && centres.len() == seats.len(),
        "the picture drew {drawn} of {} seats at their places, {} shapes in all",
        seats.len(),
        centres.len()
    );
    Ok(true)
}

/// `LOADS` loads of `path`; with `seats`, each picture is checked against them.
pub async fn first_renders(
    browser: &Browser,
    base: &str,
    path: &str,
    seats: Option<&[(f64, f64)]>,
) -> anyhow::Result<Loads> {
    let mut loads = Loads::default();
    for _ in 0..LOADS {
        browser.client.goto(&format!("{base}{path}")).await?;
        browser
            .wait_for("every seat live, then two frames", "window.__bench && window.__bench.settled === true")
            .await?;
        let time = |name: &str| format!("window.__bench.{name}");
        loads.painted.push(browser.eval(&time("painted")).await?.as_f64().context("a number")?);
        loads.live.push(browser.eval(&time("live")).await?.as_f64().context("a number")?);
        let last_answer = "Math.max(0, ...performance.getEntriesByType('resource')\
            .filter(e => e.name.includes('/api/') && e.responseEnd > 0 && e.responseEnd <= window.__bench.painted)\
            .map(e => e.responseEnd))";
        loads.data_in.push(browser.eval(last_answer).await?.as_f64().context("a number")?);
        let transferred = "performance.getEntriesByType('navigation').concat(performance.getEntriesByType('resource'))\
            .reduce((sum, e) => sum + (e.transferSize || 0), 0)";
        loads.transferred.push(browser.eval(transferred).await?.as_f64().context("a number")?);
        if let Some(seats) = seats
            && check_picture(browser, seats).await?
        {
            loads.pictures += 1;
        }
    }
    Ok(loads)
}

/// The arena's seat positions, from its definition (all `ARENA_SEATS` of them).
pub async fn seat_places(base: &str) -> anyhow::Result<Vec<(f64, f64)>> {
    let show: Value = reqwest::get(format!("{base}/api/shows/{ARENA}")).await?.error_for_status()?.json().await?;
    let seats = show["seats"].as_array().context("the show's seats")?;
    let places = seats
        .iter()
        .map(|seat| Some((seat["x"].as_f64()?, seat["y"].as_f64()?)))
        .collect::<Option<Vec<_>>>()
        .context("every seat's x and y")?;
    anyhow::ensure!(places.len() == ARENA_SEATS, "the arena has {} seats", places.len());
    Ok(places)
}
