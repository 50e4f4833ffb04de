//! How long a 20,000-seat CSV venue takes to import (issue 13: under 2 s):
//! `POST /api/admin/shows` with `Content-Type: text/csv` through the router
//! into a SQLite file (every commit synced), then the same file again
//! (answered 200 after reading it back). Run with
//! `cargo bench -p seathold-server --bench venue_import`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::Request;
use http_body_util::BodyExt;
use tower::ServiceExt;

use seathold_core::clock::SystemClock;
use seathold_core::store::{SqliteStore, Store};
use seathold_server::app::router;
use seathold_server::state::AppState;

const ROWS: usize = 80;
const SEATS_PER_ROW: usize = 250;
const TARGET: Duration = Duration::from_secs(2);
const TOKEN: &str = "bench-admin-token";

/// Four sections of 20 rows, 250 seats each; front rows in category `a`.
fn venue() -> String {
    let mut csv = String::from("section,row,number,x,y,category\n");
    for row in 0..ROWS {
        let section = ["North", "East", "South", "West"][row / 20];
        for number in 1..=SEATS_PER_ROW {
            let category = if row % 20 < 5 { "a" } else { "b" };
            csv.push_str(&format!("{section},{},{number},{},{},{category}\n", row % 20 + 1, number * 12, row * 14));
        }
    }
    csv
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let store: Arc<dyn Store> = Arc::new(SqliteStore::open(dir.path().join("bench.db")).await?);
    let app = router(AppState::new(store, SystemClock::shared(), Some(TOKEN.into())), None);
    let body = venue();
    println!("venue: {} seats, {} KiB of CSV", ROWS * SEATS_PER_ROW, body.len() / 1024);
    for (round, expected) in [("first import", 201), ("same venue again", 200)] {
        let request = Request::post("/api/admin/shows?id=arena-csv&name=Arena")
            .header("content-type", "text/csv")
            .header("authorization", format!("Bearer {TOKEN}"))
            .body(Body::from(body.clone()))?;
        let started = Instant::now();
        let response = app.clone().oneshot(request).await?;
        let status = response.status().as_u16();
        response.into_body().collect().await?;
        let took = started.elapsed();
        anyhow::ensure!(status == expected, "{round}: status {status}, expected {expected}");
        let verdict = if took < TARGET { "within" } else { "OVER" };
        println!("{round}: {:.0} ms ({verdict} the {} s target)", took.as_secs_f64() * 1000.0, TARGET.as_secs());
    }
    Ok(())
}
