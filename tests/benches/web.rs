//! `cargo xtask bench web` (which also prints the wasm size): the release
//! web build in headless Chromium on the demo's 20,000-seat arena.
//!
//! Prints two first-render times, from navigation start: every seat painted
//! (the first frame with all 20,000 on screen: the server's picture of the
//! map in the page's HTML, or the live map if it comes first) and every seat
//! live (the first frame with 20,000 elements carrying `data-seat-id`, the
//! app's clickable map); then the time to apply one live change (from the
//! start of the page's `change` event handler to the seat's `data-state`
//! mutation). The picture is checked after each load: one shape at each of
//! the show's 20,000 seat positions, and no other. Each load waits two
//! frames after its seats are live, so the next starts on an idle page;
//! the arena is also timed without the picture (`/shows/demo-arena/`,
//! which the server answers with `index.html` as it is). The page is the real
//! build; a copy of its `index.html` loads a small timing script before the
//! app, so it can wrap `EventSource` listeners. In the same run, a plain-DOM
//! page draws the same seats without a framework: the baseline both first
//! renders are compared with.
//!
//! Then large venues on an emulated phone (`large_venue.rs`): the arena as
//! SVG and on the canvas, and the stadium when the demo has it (only
//! these with `SEATHOLD_BENCH_LARGE_ONLY=1`; only the stadium with
//! `SEATHOLD_BENCH_STADIUM_ONLY=1` too; with `SEATHOLD_BENCH_PROFILE=1`
//! instead one load of it under Chrome's CPU profiler, its functions by
//! time, the whole profile written to `SEATHOLD_BENCH_PROFILE_OUT`).
//!
//! Needs `SEATHOLD_BIN` and `SEATHOLD_WEB_DIST`, as `cargo xtask bench` sets.

use anyhow::Context;
use seathold_system_tests::Browser;
use seathold_system_tests::first_render::{ARENA, LOADS, first_renders, instrumented_server, seat_places, summary};
use seathold_system_tests::large_venue::{as_a_phone, map_on_a_phone, unthrottled};
use seathold_system_tests::profile::profile_load;
use serde_json::{Value, json};

const CHANGES: usize = 30;

/// Prints a first render's ratio to the baseline against issue 16's 0.6×.
fn ratio_line(what: &str, median: f64, plain: f64) {
    let ratio = median / plain.max(f64::MIN_POSITIVE);
    println!("{what} / plain DOM: {ratio:.2}× (target ≤ 0.6×: {})", if ratio <= 0.6 { "met" } else { "MISSED" });
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

/// Issue 36: the arena as SVG and on the canvas, and the stadium when the
/// demo has one, on an emulated phone (4G, CPU 4× slower).
async fn large_venues(browser: &Browser, base: &str) -> anyhow::Result<()> {
    if std::env::var_os("SEATHOLD_BENCH_PROFILE").is_some() {
        // Only where the stadium's load spends its time, on the phone.
        as_a_phone(browser).await?;
        profile_load(browser, &format!("{base}/shows/demo-stadium?map=canvas")).await?;
        return unthrottled(browser).await;
    }
    println!("large venues on a phone (4G 9 Mbit/s, 60 ms; CPU 4× slower; cache off):");
    if std::env::var_os("SEATHOLD_BENCH_STADIUM_ONLY").is_some() {
        map_on_a_phone(browser, base, "demo-stadium", "canvas").await?;
        return Ok(());
    }
    let svg = map_on_a_phone(browser, base, ARENA, "svg").await?;
    let canvas = map_on_a_phone(browser, base, ARENA, "canvas").await?;
    println!("arena seats live on a phone, canvas / SVG: {:.2}×", canvas / svg.max(f64::MIN_POSITIVE));
    let shows: Value = reqwest::get(format!("{base}/api/shows")).await?.error_for_status()?.json().await?;
    let stadium = shows["shows"].as_array().into_iter().flatten().find(|show| show["id"] == "demo-stadium");
    if stadium.is_some() {
        map_on_a_phone(browser, base, "demo-stadium", "canvas").await?;
    } else {
        println!("demo-stadium: not in this build's demo (yet)");
    }
    Ok(())
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let (server, _web) = instrumented_server().await?;
    let browser = Browser::start().await?;
    let outcome = async {
        // Only issue 36's large venues (they take minutes of their own).
        if std::env::var_os("SEATHOLD_BENCH_LARGE_ONLY").is_some() {
            return large_venues(&browser, &server.base_url).await;
        }
        let seats = seat_places(&server.base_url).await?;
        let plain = first_renders(&browser, &server.base_url, "/plain-dom.html", Some(&seats)).await?;
        let plain_median = summary(
            "plain DOM baseline, the same 20,000 seats (createElementNS/setAttribute, no framework)",
            "ms",
            plain.live,
        );
        summary("  plain DOM: its data in (navigation start → last API answer)", "ms", plain.data_in);
        let arena = first_renders(&browser, &server.base_url, &format!("/shows/{ARENA}"), Some(&seats)).await?;
        let painted = summary("arena seats painted (navigation start → all 20,000 seats on screen)", "ms", arena.painted);
        println!(
            "  painted by the server's picture in {} of {LOADS} loads (each checked: a shape at every seat's place, no other)",
            arena.pictures
        );
        summary("  arena: API answers in before the seats were painted (navigation start → last)", "ms", arena.data_in);
        let live = summary(
            "arena seats live (navigation start → data-seat-id on all 20,000, the app's clickable map)",
            "ms",
            arena.live,
        );
        // The same page without the picture: a path the server's show-page
        // route does not take serves index.html as it is (the app routes it alike).
        let bare = first_renders(&browser, &server.base_url, &format!("/shows/{ARENA}/"), Some(&seats)).await?;
        anyhow::ensure!(bare.pictures == 0, "a picture on /shows/{ARENA}/");
        summary("arena without the server's picture: seats live (as before it)", "ms", bare.live);
        ratio_line("arena seats painted", painted, plain_median);
        ratio_line("arena seats live", live, plain_median);
        let change = summary(
            "one live change applied (change handler → seat repainted)",
            "ms",
            change_times(&browser, &server.base_url).await?,
        );
        println!(
            "one remote change, median {change:.1} ms (target < 2 ms: {})",
            if change < 2.0 { "met" } else { "MISSED" }
        );
        large_venues(&browser, &server.base_url).await?;
        anyhow::Ok(())
    }
    .await;
    browser.close().await?;
    outcome
}
