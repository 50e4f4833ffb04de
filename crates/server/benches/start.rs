//! What a long sale's history costs a restart: start time and resident
//! memory of a process whose show has a long journal (issue 15).
//!
//! Writes a 20,000-seat show's journal straight through the SQLite store
//! (holds on every seat in turn, each expired, released or confirmed; the
//! last ones still active), then measures, in a fresh process each time,
//! opening the store and answering the show's first seat map and the
//! resident memory before and after: first with no checkpoint (a database
//! from before checkpoints: the whole journal is replayed, and the writer
//! then writes a checkpoint), then again from that checkpoint. Runs for a
//! short history and a long one, so any growth shows.
//!
//! `cargo bench -p seathold-server --bench start [-- ENTRIES…]` (default
//! 10,000 and 1,000,000 entries).

use std::sync::Arc;
use std::time::Instant;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use tower::ServiceExt;

use seat_state::wire::ShowInput;
use seat_state::{Change, Hold, HoldId, HoldStatus, HolderId, SeatId, ServerMillis, Show};
use seathold_core::clock::SystemClock;
use seathold_core::store::{Durability, SqliteStore, Store, Transition};
use seathold_server::app::router;
use seathold_server::state::AppState;

const SEATS: usize = 20_000;
const SHOW: &str = "long-sale";
/// Holds left active at the end, as a sale in progress has.
const ACTIVE: usize = 1_000;
/// Transitions per commit while writing the history.
const BATCH: usize = 2_000;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    let runtime = tokio::runtime::Runtime::new()?;
    if let [measure, path, first] = args.as_slice()
        && measure == "measure"
    {
        return runtime.block_on(measure_start(path, first == "first"));
    }
    let sizes: Vec<usize> = if args.is_empty() {
        vec![10_000, 1_000_000]
    } else {
        args.iter().map(|a| a.replace(['_', ','], "").parse()).collect::<Result<_, _>>()?
    };
    for entries in sizes {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("start.db");
        let started = Instant::now();
        let holds = runtime.block_on(write_history(&path, entries))?;
        println!(
            "start bench: wrote {entries} journal entries ({holds} holds, {ACTIVE} still active) on a {SEATS}-seat \
             show in {:.1} s",
            started.elapsed().as_secs_f64()
        );
        // A fresh process each: nothing of the writing phase (or the first
        // start) in its memory.
        for start in ["first", "again"] {
            let status = std::process::Command::new(std::env::current_exe()?)
                .args(["measure", &path.display().to_string(), start])
                .status()?;
            anyhow::ensure!(status.success(), "measuring failed: {status}");
        }
    }
    Ok(())
}

fn show_input() -> ShowInput {
    let seats: Vec<_> =
        (0..SEATS).map(|n| serde_json::json!({"id": format!("S{n}"), "x": n % 200 * 12, "y": n / 200 * 14})).collect();
    serde_json::from_value(serde_json::json!({
        "id": SHOW, "name": "A long sale", "holdSeconds": 600, "maxActiveHoldsPerHolder": 1000,
        "seats": seats
    }))
    .expect("a valid show")
}

/// Writes `entries` journal entries; returns how many holds they made.
async fn write_history(path: &std::path::Path, entries: usize) -> anyhow::Result<usize> {
    let store = SqliteStore::open_with(path, Durability::Normal).await?;
    let show = Show::parse(&show_input())?;
    store.create_show(&show, ServerMillis(0)).await?;
    let holds = entries.saturating_sub(ACTIVE) / 2 + ACTIVE;
    let mut transitions = Vec::with_capacity(entries);
    let far = ServerMillis(i64::MAX / 2);
    for n in 0..holds {
        let at = ServerMillis(n as i64);
        let version = transitions.len() as i64 + 1;
        let settled = n < holds - ACTIVE;
        let deadline = if settled { ServerMillis(at.0 + 1) } else { far };
        let hold = Hold {
            id: HoldId::parse(&format!("hold-{n:010}"))?,
            holder: HolderId::new(format!("holder-{}", n % 10_000)),
            // Seats go round, so none is in two active holds.
            seats: vec![SeatId::parse(&format!("S{}", n % SEATS))?],
            areas: Vec::new(),
            created_at: at,
            created_version: version,
            expires_at: deadline,
            extensions: 0,
            stored_status: HoldStatus::Held,
            late: false,
        };
        let id = hold.id.clone();
        let holder = hold.holder.clone();
        transitions.push(Transition { change: Change::Created { hold }, holder: holder.clone(), at, version });
        if settled {
            let version = version + 1;
            // Mostly expiries, some releases; a tenth of the last round sold
            // (a sold seat is never held again, so only in the last round).
            let change = match n % 10 {
                0 if n >= holds.saturating_sub(SEATS) => Change::Confirmed { hold: id, deadline, late: false },
                1 | 2 => Change::Released { hold: id, previous: HoldStatus::Held },
                _ => Change::Expired { hold: id, deadline },
            };
            transitions.push(Transition { change, holder, at: deadline, version });
        }
    }
    for chunk in transitions.chunks(BATCH) {
        store.commit(SHOW, Arc::from(chunk.to_vec())).await?;
    }
    Ok(holds)
}

/// In a fresh process: opens the store and answers the first seat map.
async fn measure_start(path: &str, first: bool) -> anyhow::Result<()> {
    let before = resident_kib()?;
    let started = Instant::now();
    let store: Arc<dyn Store> = Arc::new(SqliteStore::open(path).await?);
    let opened = started.elapsed();
    let state = AppState::new(store, SystemClock::shared(), None);
    let app = router(state.clone(), None);
    let request = Request::builder().uri(format!("/api/shows/{SHOW}/seats")).body(Body::empty())?;
    let response = app.oneshot(request).await?;
    anyhow::ensure!(response.status() == StatusCode::OK, "seat map: {}", response.status());
    let seat_map = response.into_body().collect().await?.to_bytes();
    let loaded = started.elapsed();
    let after = resident_kib()?;
    let from = if first { "without a checkpoint" } else { "from the checkpoint" };
    println!(
        "start bench ({from}): open {:.1} ms, first seat map (load the show) {:.1} ms in all; resident \
         memory {:.1} MiB before opening, {:.1} MiB after ({} KiB seat map; {} settled holds let go at load)",
        opened.as_secs_f64() * 1000.0,
        loaded.as_secs_f64() * 1000.0,
        before as f64 / 1024.0,
        after as f64 / 1024.0,
        seat_map.len() / 1024,
        state.metrics.holds_evicted.get(),
    );
    // A load that replayed a long journal writes a checkpoint: wait for it,
    // so the next start can use it.
    let waiting = Instant::now();
    let long = version(&state).await? >= seathold_core::engine::Retention::default().checkpoint_every;
    while first && long && state.metrics.checkpoints.get() == 0 {
        anyhow::ensure!(waiting.elapsed().as_secs() < 120, "no checkpoint after two minutes");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    Ok(())
}

/// The show's version, as the stats say it.
async fn version(state: &AppState) -> anyhow::Result<i64> {
    let engine = state.engines.show(SHOW).await?.ok_or_else(|| anyhow::anyhow!("no show"))?;
    Ok(engine.seat_map(seat_state::SeatScope::Every, None, ServerMillis(0)).await?.value.version)
}

/// This process's resident set (`VmRSS`), in KiB.
fn resident_kib() -> anyhow::Result<u64> {
    let status = std::fs::read_to_string("/proc/self/status")?;
    let line = status.lines().find(|line| line.starts_with("VmRSS:")).ok_or_else(|| anyhow::anyhow!("no VmRSS"))?;
    Ok(line.split_whitespace().nth(1).unwrap_or("0").parse()?)
}
