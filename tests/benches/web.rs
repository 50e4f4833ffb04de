//! `cargo xtask bench web` (which also prints the wasm size): the release
//! web build in headless Chromium on the demo's 20,000-seat arena.
//!
//! Prints the first render time (from navigation start to the first frame
//! with every seat in the DOM) and the time to apply one live change (from
//! the start of the page's `change` event handler to the seat's `data-state`
//! mutation). The page is the real build; a copy of its `index.html` gets a
//! small timing script, injected before the app so it can wrap `EventSource`
//! listeners.
//!
//! Needs `SEATHOLD_BIN` and `SEATHOLD_WEB_DIST`, as `cargo xtask bench` sets.

use std::path::Path;
use std::sync::Arc;

use anyhow::Context;
use seathold_system_tests::{Browser, Server};
use serde_json::{Value, json};

const ARENA: &str = "demo-arena";
const ARENA_SEATS: usize = 20_000;
const LOADS: usize = 5;
const CHANGES: usize = 30;

/// Runs before the app: records when every seat is first in a frame, and
/// times each `change` handler until the watched seat's state attribute moves.
const TIMING_SCRIPT: &str = r#"<script>
(() => {
  const bench = (window.__bench = { rendered: null, changeStarted: null, applied: null });
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
    if (seats.length >= __SEATS__) bench.rendered = performance.now();
    else requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
  bench.watch = (id) => {
    const seat = document.querySelector(`[data-seat-id="${id}"]`);
    bench.applied = null;
    const observer = new MutationObserver(() => {
      if (seat.getAttribute("data-state") !== "free") {
        bench.applied = performance.now() - bench.changeStarted;
        observer.disconnect();
      }
    });
    observer.observe(seat, { attributes: true, attributeFilter: ["data-state"] });
  };
})();
</script>"#;

/// A copy of the web build whose `index.html` runs [`TIMING_SCRIPT`] first.
fn instrumented_copy(dist: &Path, into: &Path) -> anyhow::Result<()> {
    for entry in std::fs::read_dir(dist)? {
        let entry = entry?;
        std::fs::copy(entry.path(), into.join(entry.file_name()))?;
    }
    let index = into.join("index.html");
    let html = std::fs::read_to_string(&index)?;
    let script = TIMING_SCRIPT.replace("__SEATS__", &ARENA_SEATS.to_string());
    let instrumented = html.replacen("<head>", &format!("<head>{script}"), 1);
    anyhow::ensure!(instrumented != html, "no <head> in {}", index.display());
    std::fs::write(index, instrumented)?;
    Ok(())
}

fn summary(name: &str, unit: &str, mut values: Vec<f64>) {
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
}

async fn first_renders(browser: &Browser, base: &str) -> anyhow::Result<Vec<f64>> {
    let mut rendered = Vec::new();
    for _ in 0..LOADS {
        browser.client.goto(&format!("{base}/shows/{ARENA}")).await?;
        browser.wait_for("every seat rendered", "window.__bench && window.__bench.rendered !== null").await?;
        rendered.push(browser.eval("window.__bench.rendered").await?.as_f64().context("a number")?);
    }
    Ok(rendered)
}

/// Another customer holds free seats one at a time; the page applies each change.
async fn change_times(browser: &Browser, base: &str) -> anyhow::Result<Vec<f64>> {
    let http = reqwest::Client::new();
    let session: Value = http.post(format!("{base}/api/sessions")).send().await?.error_for_status()?.json().await?;
    let token = session["token"].as_str().context("a session token")?.to_owned();
    browser.wait_for("the live stream", "document.querySelector('[data-connection=\"live\"]') !== null").await?;
    let free: Vec<String> = serde_json::from_value(
        browser
            .eval(&format!(
                "Array.from(document.querySelectorAll('[data-state=\"free\"]')).slice(0, {CHANGES}).map(s => s.dataset.seatId)"
            ))
            .await?,
    )?;
    anyhow::ensure!(free.len() == CHANGES, "only {} free seats", free.len());
    let mut applied = Vec::new();
    for (n, seat) in free.iter().enumerate() {
        browser.eval(&format!("window.__bench.watch({})", json!(seat))).await?;
        let body = json!({ "holdId": format!("bench-web-{n:04}"), "seats": [seat] });
        http.post(format!("{base}/api/shows/{ARENA}/holds"))
            .bearer_auth(&token)
            .json(&body)
            .send()
            .await?
            .error_for_status()?;
        browser.wait_for("the seat shown held", "window.__bench.applied !== null").await?;
        applied.push(browser.eval("window.__bench.applied").await?.as_f64().context("a number")?);
        // Hold limits are per customer: release so the next hold is allowed.
        http.delete(format!("{base}/api/holds/bench-web-{n:04}"))
            .bearer_auth(&token)
            .send()
            .await?
            .error_for_status()?;
    }
    Ok(applied)
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let dist = std::path::PathBuf::from(std::env::var_os("SEATHOLD_WEB_DIST").context("SEATHOLD_WEB_DIST")?);
    let web = tempfile::tempdir()?;
    instrumented_copy(&dist, web.path())?;
    let server = Server::start_serving(web.path(), Arc::new(tempfile::tempdir()?), &[]).await?;
    let browser = Browser::start().await?;
    let outcome = async {
        summary(
            "arena first render (navigation start → every seat in a frame)",
            "ms",
            first_renders(&browser, &server.base_url).await?,
        );
        summary(
            "one live change applied (change handler → seat repainted)",
            "ms",
            change_times(&browser, &server.base_url).await?,
        );
        anyhow::Ok(())
    }
    .await;
    browser.close().await?;
    outcome
}
