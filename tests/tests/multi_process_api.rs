//! Issue 11: the API answered alternately by two `seathold serve` processes
//! on one PostgreSQL database. Each reads the other's writes right after
//! they are answered (a hold, the seat map, the list of holds), and the
//! rules hold across them: conflicts, idempotent replays, extensions,
//! confirmations, releases.
//!
//! Like every `multi_process_*` test, it gets a database of its own next to
//! `SEATHOLD_TEST_POSTGRES`.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

use anyhow::{Context, ensure};
use reqwest::Method;
use seathold_system_tests::Server;
use seathold_system_tests::api::Api;
use seathold_system_tests::postgres::Database;
use seathold_system_tests::server::logs;
use serde_json::{Value, json};

const THEATRE: &str = "demo-theatre";
const HOLDS: &str = "/api/shows/demo-theatre/holds";

#[tokio::test]
async fn two_processes_answer_alternately_and_each_reads_the_others_writes() -> anyhow::Result<()> {
    let database = Database::fresh().await?;
    // Both start at once on an empty database: one migrates and creates the
    // demo shows, the other waits for the migration and finds them.
    let (a, b) = tokio::try_join!(
        Server::start_on_database(&database.url, &[], &[]),
        Server::start_on_database(&database.url, &[], &[]),
    )?;
    let outcome = alternate(&Api::new(&a, "A"), &Api::new(&b, "B")).await;
    outcome.map_err(|error| error.context(logs(&[("A", &a), ("B", &b)])))
}

async fn alternate(a: &Api, b: &Api) -> anyhow::Result<()> {
    let show = a.get(&format!("/api/shows/{THEATRE}"), None).await?;
    show.expect(200, "the demo theatre on A")?;
    let (hold_ms, extension_ms) = (show.int("holdSeconds")? * 1000, show.int("extensionSeconds")? * 1000);
    // Sessions made on one process are known to the other.
    let (alice, bob, carol) = (a.session().await?, b.session().await?, a.session().await?);

    // The demo's box office may have blocked seats already: versions count from here.
    let start = b.get(&format!("/api/shows/{THEATRE}/seats"), None).await?.int("version")?;

    // Alice holds on A; B shows it right after: hold, list, seat map.
    let alice_body = json!({"holdId": "alice-hold-1", "seats": ["A1", "A2"]});
    let held = a.post(HOLDS, Some(&alice), Some(&alice_body)).await?;
    held.expect(201, "alice's hold on A")?;
    let expires = held.int("expiresAt")?;
    ensure!(expires - held.int("serverTime")? == hold_ms, "a hold of {hold_ms} ms: {held:?}");
    let read = b.get("/api/holds/alice-hold-1", Some(&alice)).await?;
    read.expect(200, "alice's hold read on B right after it was made on A")?;
    ensure!(
        (&read.body["status"], &read.body["expiresAt"], &read.body["seats"])
            == (&json!("HELD"), &json!(expires), &json!(["A1", "A2"])),
        "B reads alice's hold as {read:?}, A answered {held:?}"
    );
    let list = b.get("/api/holds", Some(&alice)).await?;
    list.expect(200, "alice's holds on B")?;
    ensure!(list.body["holds"][0]["holdId"] == "alice-hold-1", "B's list of alice's holds lacks it: {list:?}");
    let map = b.get(&format!("/api/shows/{THEATRE}/seats"), Some(&alice)).await?;
    map.expect(200, "the seat map on B")?;
    for id in ["A1", "A2"] {
        let entry = map.seat(id)?;
        ensure!(
            entry["holdExpiresAt"] == expires && entry["mine"] == true && entry["sold"] == false,
            "B's seat map right after alice's hold on A shows {entry}"
        );
    }
    ensure!(
        map.int("version")? == start + 1,
        "B's map is not at version {} after one hold: {}",
        start + 1,
        map.body["version"]
    );

    // Extended on B, read on A.
    let extended = b.post("/api/holds/alice-hold-1/extend", Some(&alice), None).await?;
    extended.expect(200, "alice's extension on B")?;
    ensure!(
        extended.body["expiresAt"] == expires + extension_ms && extended.body["extensions"] == 1,
        "the extension on B: {extended:?}"
    );
    let read = a.get("/api/holds/alice-hold-1", Some(&alice)).await?;
    ensure!(
        read.status == 200 && read.body["expiresAt"] == expires + extension_ms && read.body["extensions"] == 1,
        "A reads alice's hold extended on B as {read:?}"
    );

    // Confirmed on A, seen on B; confirmed again on B is the same answer.
    let confirmed = a.post("/api/holds/alice-hold-1/confirm", Some(&alice), None).await?;
    confirmed.expect(200, "alice's confirmation on A")?;
    ensure!(confirmed.body["status"] == "CONFIRMED", "{confirmed:?}");
    let read = b.get("/api/holds/alice-hold-1", Some(&alice)).await?;
    ensure!(read.status == 200 && read.body["status"] == "CONFIRMED", "B reads the confirmed hold as {read:?}");
    let map = b.get(&format!("/api/shows/{THEATRE}/seats"), None).await?;
    for id in ["A1", "A2"] {
        let entry = map.seat(id)?;
        ensure!(entry["sold"] == true && entry["mine"] == false, "B's public map after the sale on A: {entry}");
    }
    let again = b.post("/api/holds/alice-hold-1/confirm", Some(&alice), None).await?;
    again.expect(200, "alice's confirmation repeated on B")?;
    ensure!(again.body["status"] == "CONFIRMED", "{again:?}");
    let late_extension = a.post("/api/holds/alice-hold-1/extend", Some(&alice), None).await?;
    late_extension.expect_error(409, "already_confirmed", "extending the confirmed hold on A")?;

    // Bob, on B, wants a sold seat and a free one: refused, naming the sold one.
    let conflict = b.post(HOLDS, Some(&bob), Some(&json!({"holdId": "bob-hold-0", "seats": ["A2", "A3"]}))).await?;
    conflict.expect_error(409, "seats_taken", "bob's hold of a seat sold on A")?;
    ensure!(conflict.body["seats"] == json!(["A2"]), "the taken seats: {conflict:?}");

    // Bob holds on B; the same request again on A is a replay; a different
    // body with that id is a mismatch; alice cannot see it on either.
    let bob_body = json!({"holdId": "bob-hold-1", "seats": ["A3"]});
    let bob_hold = b.post(HOLDS, Some(&bob), Some(&bob_body)).await?;
    bob_hold.expect(201, "bob's hold on B")?;
    let replay = a.post(HOLDS, Some(&bob), Some(&bob_body)).await?;
    replay.expect(200, "bob's hold retried on A")?;
    ensure!(
        replay.body["holdId"] == "bob-hold-1"
            && replay.body["expiresAt"] == bob_hold.body["expiresAt"]
            && replay.body["status"] == "HELD",
        "the replay on A {replay:?} is not the hold B made {bob_hold:?}"
    );
    let mismatch = a.post(HOLDS, Some(&bob), Some(&json!({"holdId": "bob-hold-1", "seats": ["A4"]}))).await?;
    mismatch.expect_error(409, "idempotency_mismatch", "bob's hold id with other seats on A")?;
    let stolen = a.post(HOLDS, Some(&alice), Some(&bob_body)).await?;
    stolen.expect_error(409, "idempotency_mismatch", "bob's hold id and body from alice on A")?;
    for api in [a, b] {
        let foreign = api.get("/api/holds/bob-hold-1", Some(&alice)).await?;
        foreign.expect_error(404, "no_hold", &format!("alice reading bob's hold on {}", api.name))?;
        let own = api.get("/api/holds/bob-hold-1", Some(&bob)).await?;
        own.expect(200, &format!("bob reading his hold on {}", api.name))?;
        ensure!(own.body["status"] == "HELD", "bob's hold on {}: {own:?}", api.name);
        let own = api.get("/api/holds/alice-hold-1", Some(&alice)).await?;
        ensure!(own.status == 200 && own.body["status"] == "CONFIRMED", "alice's on {}: {own:?}", api.name);
    }

    // Released on A, released again on B (idempotent), the create replayed
    // on B answers the hold as it stands now; the seat is free on B.
    let released = a.call(Method::DELETE, "/api/holds/bob-hold-1", Some(&bob), None).await?;
    ensure!(released.status == 204, "bob's release on A: {released:?}");
    let released = b.call(Method::DELETE, "/api/holds/bob-hold-1", Some(&bob), None).await?;
    ensure!(released.status == 204, "bob's release repeated on B: {released:?}");
    let replay = b.post(HOLDS, Some(&bob), Some(&bob_body)).await?;
    replay.expect(200, "bob's released hold's create retried on B")?;
    ensure!(replay.body["status"] == "RELEASED", "the create replayed after the release: {replay:?}");
    let map = b.get(&format!("/api/shows/{THEATRE}/seats"), None).await?;
    ensure!(map.seat_is_free("A3")?, "B's map after the release on A: {}", map.seat("A3")?);

    // Carol takes the released seat on B and reads it on A.
    let carol_hold = b.post(HOLDS, Some(&carol), Some(&json!({"holdId": "carol-hold-1", "seats": ["A3"]}))).await?;
    carol_hold.expect(201, "carol's hold on B of the seat bob released on A")?;
    let map = a.get(&format!("/api/shows/{THEATRE}/seats"), Some(&carol)).await?;
    let entry = map.seat("A3")?;
    ensure!(entry["mine"] == true && entry["holdExpiresAt"] == carol_hold.body["expiresAt"], "A's map: {entry}");
    // created, extended, confirmed; bob created, released; carol created.
    let map_b = b.get(&format!("/api/shows/{THEATRE}/seats"), None).await?;
    ensure!(
        map.int("version")? == start + 6 && map_b.int("version")? == start + 6,
        "after six changes from version {start} A's map is at version {} and B's at {}",
        map.body["version"],
        map_b.body["version"]
    );
    let list = a.get("/api/holds", Some(&bob)).await?;
    let ids: Vec<&Value> = list.body["holds"].as_array().context("holds")?.iter().map(|h| &h["holdId"]).collect();
    ensure!(ids == [&json!("bob-hold-1")], "bob's holds on A: {list:?}");
    Ok(())
}
