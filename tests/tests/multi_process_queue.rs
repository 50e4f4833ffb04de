//! API.md "Waiting room (v3)" with two `seathold serve` processes on one
//! PostgreSQL database, one of them with its own clock two minutes ahead:
//! joins on either process land in one queue, both draw the same order
//! (the database's clock decides when `opensAt` has come, not a process's),
//! both admit by the same formula, and a hold on either needs admission.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

use std::time::Duration;

use anyhow::ensure;
use seathold_system_tests::Server;
use seathold_system_tests::api::Api;
use seathold_system_tests::postgres::Database;
use seathold_system_tests::server::logs;
use serde_json::{Value, json};

const TOKEN: &str = "multi-process-queue-admin-token";
const SHOW: &str = "queued-gig";

#[tokio::test]
async fn two_processes_keep_one_queue_with_one_draw_and_one_admission() -> anyhow::Result<()> {
    let database = Database::fresh().await?;
    let admin = [("SEATHOLD_ADMIN_TOKEN", TOKEN)];
    let ahead = [("SEATHOLD_ADMIN_TOKEN", TOKEN), ("SEATHOLD_CLOCK_SKEW_MS", "120000")];
    let (a, b) = tokio::try_join!(
        Server::start_on_database(&database.url, &[], &admin),
        Server::start_on_database(&database.url, &[], &ahead),
    )?;
    let outcome = one_queue(&Api::new(&a, "A"), &Api::new(&b, "B")).await;
    outcome.map_err(|error| error.context(logs(&[("A", &a), ("B", &b)])))
}

async fn one_queue(a: &Api, b: &Api) -> anyhow::Result<()> {
    let now = a.get("/api/time", None).await?.int("serverTime")?;
    let opens_at = now + 4_000;
    let seats: Vec<Value> = (1..=10).map(|n| json!({"id": format!("S{n}"), "x": n * 10, "y": 0})).collect();
    let show = json!({"id": SHOW, "name": "Queued gig", "seats": seats,
        "onSale": {"opensAt": opens_at, "admitPerMinute": 60, "admissionSeconds": 600}});
    a.post("/api/admin/shows", Some(TOKEN), Some(&show)).await?.expect(201, "the show on A")?;

    // Six sessions join in the pre-queue, alternately on A and on B.
    let servers = [a, b];
    let mut tokens = Vec::new();
    for n in 0..6 {
        let here = servers[n % 2];
        let token = here.session().await?;
        let joined = here.post(&format!("/api/shows/{SHOW}/queue"), Some(&token), None).await?;
        joined.expect(201, "a pre-queue join")?;
        ensure!(joined.body["position"].is_null(), "B's clock runs ahead, yet the database's decides: {joined:?}");
        tokens.push(token);
    }
    let early = servers[0].session().await?;
    b.post(&format!("/api/shows/{SHOW}/holds"), Some(&early), Some(&json!({"seats": ["S1"]}))).await?.expect_error(
        403,
        "not_admitted",
        "a hold before the sale on B",
    )?;

    tokio::time::sleep(Duration::from_millis(u64::try_from(opens_at - now).unwrap() + 300)).await;
    let mut positions = Vec::new();
    for token in &tokens {
        let on_a = a.get(&format!("/api/shows/{SHOW}/queue"), Some(token)).await?;
        let on_b = b.get(&format!("/api/shows/{SHOW}/queue"), Some(token)).await?;
        on_a.expect(200, "a place on A")?;
        ensure!(on_a.body["position"] == on_b.body["position"], "A says {on_a:?}, B says {on_b:?}");
        positions.push(on_a.int("position")?);
    }
    let mut sorted = positions.clone();
    sorted.sort_unstable();
    ensure!(sorted == [1, 2, 3, 4, 5, 6], "one permutation: {positions:?}");
    let (status_a, status_b) = (
        a.get(&format!("/api/admin/shows/{SHOW}/queue"), Some(TOKEN)).await?,
        b.get(&format!("/api/admin/shows/{SHOW}/queue"), Some(TOKEN)).await?,
    );
    ensure!(
        status_a.body["drawSeed"].is_u64() && status_a.body["drawSeed"] == status_b.body["drawSeed"],
        "{status_a:?} {status_b:?}"
    );
    ensure!(status_a.body["length"] == 6 && status_b.body["length"] == 6, "{status_a:?} {status_b:?}");

    // The first place is admitted a second after opensAt, on both; the last is not.
    let first = &tokens[positions.iter().position(|&p| p == 1).unwrap()];
    let last = &tokens[positions.iter().position(|&p| p == 6).unwrap()];
    tokio::time::sleep(Duration::from_millis(1_200)).await;
    let held = b.post(&format!("/api/shows/{SHOW}/holds"), Some(first), Some(&json!({"seats": ["S1"]}))).await?;
    held.expect(201, "the first place holds on B")?;
    let refused = a.post(&format!("/api/shows/{SHOW}/holds"), Some(last), Some(&json!({"seats": ["S2"]}))).await?;
    refused.expect_error(403, "not_admitted", "the last place on A")?;
    ensure!(refused.body["position"] == 6, "{refused:?}");
    // A join on B after opensAt goes to the back of the one queue.
    let late = b.session().await?;
    let joined = b.post(&format!("/api/shows/{SHOW}/queue"), Some(&late), None).await?;
    ensure!(joined.body["position"] == 7, "{joined:?}");
    Ok(())
}
