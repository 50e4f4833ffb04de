//! Where a page load's CPU time goes: Chrome's sampling profiler
//! (`Profiler.start`/`stop` through ChromeDriver) around one navigation,
//! for the web bench's `SEATHOLD_BENCH_PROFILE=1`. Rust functions come out
//! by name when the web build kept them (`SEATHOLD_WEB_NAMES=1 cargo xtask
//! web`: `wasm-opt -g`); otherwise as `wasm-function[N]`.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde_json::{Value, json};

use crate::{Browser, cdp};

/// Functions printed, by self and by total time.
const TOP: usize = 25;

/// Loads `url` with the profiler on (sampling every 200 µs) until the
/// bench's `settled`, then prints the functions taking most time.
pub async fn profile_load(browser: &Browser, url: &str) -> anyhow::Result<()> {
    let client = &browser.client;
    cdp::command(client, "Profiler.enable", json!({})).await?;
    cdp::command(client, "Profiler.setSamplingInterval", json!({"interval": 200})).await?;
    cdp::command(client, "Profiler.start", json!({})).await?;
    client.goto(url).await?;
    browser.wait_for("the map live, then two frames", "window.__bench && window.__bench.settled === true").await?;
    let live = browser.eval("window.__bench.live").await?;
    let stopped = cdp::command(client, "Profiler.stop", json!({})).await?;
    cdp::command(client, "Profiler.disable", json!({})).await?;
    if let Some(path) = std::env::var_os("SEATHOLD_BENCH_PROFILE_OUT") {
        // The whole profile, for DevTools' Performance panel or a script.
        std::fs::write(&path, stopped["profile"].to_string())?;
    }
    println!("profile of one load of {url} (live at {live} ms):");
    print_profile(&stopped["profile"]);
    Ok(())
}

/// Self and total time (ms) per function name of a `Profiler.Profile`.
fn print_profile(profile: &Value) {
    let empty = Vec::new();
    let nodes = profile["nodes"].as_array().unwrap_or(&empty);
    let mut name_of: HashMap<u64, String> = HashMap::new();
    let mut parent: HashMap<u64, u64> = HashMap::new();
    for node in nodes {
        let id = node["id"].as_u64().unwrap_or(0);
        let frame = &node["callFrame"];
        let function = frame["functionName"].as_str().unwrap_or("");
        let url = frame["url"].as_str().unwrap_or("");
        let file = url.rsplit('/').next().unwrap_or("");
        let name = if function.is_empty() { format!("({file})") } else { format!("{function} {file}") };
        name_of.insert(id, name);
        for child in node["children"].as_array().unwrap_or(&empty) {
            parent.insert(child.as_u64().unwrap_or(0), id);
        }
    }
    let samples = profile["samples"].as_array().unwrap_or(&empty);
    let deltas = profile["timeDeltas"].as_array().unwrap_or(&empty);
    let mut own: BTreeMap<&str, f64> = BTreeMap::new();
    let mut total: BTreeMap<&str, f64> = BTreeMap::new();
    // A sample's time belongs to the node sampled; its delta comes with the next sample.
    for (at, sample) in samples.iter().enumerate() {
        let ms = deltas.get(at + 1).and_then(Value::as_f64).unwrap_or(0.0) / 1000.0;
        let mut node = sample.as_u64().unwrap_or(0);
        let name = name_of.get(&node).map_or("?", String::as_str);
        *own.entry(name).or_default() += ms;
        let mut seen = BTreeSet::new();
        loop {
            let name = name_of.get(&node).map_or("?", String::as_str);
            if seen.insert(name) {
                *total.entry(name).or_default() += ms;
            }
            match parent.get(&node) {
                Some(&up) => node = up,
                None => break,
            }
        }
    }
    for (title, table) in [("self", &own), ("total (self and callees)", &total)] {
        let mut rows: Vec<(&str, f64)> = table.iter().map(|(name, ms)| (*name, *ms)).collect();
        rows.sort_by(|a, b| b.1.total_cmp(&a.1));
        println!("  by {title} time:");
        for (name, ms) in rows.into_iter().take(TOP) {
            let name: String = name.chars().take(140).collect();
            println!("    {ms:>8.1} ms  {name}");
        }
    }
}
