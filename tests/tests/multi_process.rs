//! Issue 11: several `seathold serve` processes on one PostgreSQL database.
//!
//! - The API answered alternately by two processes: each reads the other's
//!   writes right after they are answered, and the rules (conflicts,
//!   idempotent replays, extensions, confirmations) hold across them.
//! - Two processes whose own clocks are 20 minutes apart decide identically:
//!   the database's clock decides, deadlines and expiries included.
//! - A change made on one process reaches a viewer of the other even while
//!   the notifications are being lost (the journal is the source).
//! - A viewer whose reconnection lands on the other process gets every
//!   change it missed (or a current snapshot), then live ones.
//!
//! `multi_process_events.rs` measures the live events' latency and
//! `multi_process_crash.rs` kills a process mid-sale.
//!
//! Each test gets a database of its own next to `SEATHOLD_TEST_POSTGRES`.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

use std::time::{Duration, Instant};

use anyhow::{Context, ensure};
use reqwest::Method;
use seathold_system_tests::api::{Answer, Api};
use seathold_system_tests::postgres::{Database, database_now};
use seathold_system_tests::{PATIENCE, Server};
use serde_json::{Value, json};

const THEATRE: &str = "demo-theatre";
const HOLDS: &str = "/api/shows/demo-theatre/holds";
const ADMIN_TOKEN: &str = "multi-process-admin";

/// Every server's log, to append to a failure.
fn logs(servers: &[(&str, &Server)]) -> String {
    servers.iter().map(|(name, server)| format!("--- log of {name}:\n{}", server.log())).collect::<Vec<_>>().join("\n")
}

/// The test machine's clock (the database runs on it too) as epoch ms.
fn real_now() -> i64 {
    let since = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    i64::try_from(since.as_millis()).unwrap_or(i64::MAX)
}

/// One seat of a seat-map body.
fn seat<'a>(map: &'a Answer, id: &str) -> anyhow::Result<&'a Value> {
    map.body["seats"].as_array().and_then(|seats| seats.iter().find(|s| s["id"] == id)).with_context(|| {
        format!("seat {id} is not in the map: {}", map.body.to_string().chars().take(300).collect::<String>())
    })
}

/// Whether a seat-map entry is free at the map's own instant.
fn free(map: &Answer, id: &str) -> anyhow::Result<bool> {
    let entry = seat(map, id)?;
    let now = map.int("serverTime")?;
    Ok(entry["sold"] == false && entry["holdExpiresAt"].as_i64().is_none_or(|at| at <= now))
}

/// Fails with `what` and the answer unless its status is `status`.
fn expect(answer: &Answer, status: u16, what: &str) -> anyhow::Result<()> {
    ensure!(answer.status == status, "{what}: expected {status}, got {answer:?}");
    ensure!(
        answer.status == 204
            || answer.server_time.is_some() && answer.server_time == answer.body["serverTime"].as_i64(),
        "{what}: X-Server-Time differs from serverTime: {answer:?}"
    );
    Ok(())
}

/// Fails unless the answer is the error `code` with `status`.
fn expect_error(answer: &Answer, status: u16, code: &str, what: &str) -> anyhow::Result<()> {
    ensure!(
        answer.status == status && answer.body["error"] == code,
        "{what}: expected {status} {code}, got {answer:?}"
    );
    Ok(())
}

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
    expect(&show, 200, "the demo theatre on A")?;
    let (hold_ms, extension_ms) = (show.int("holdSeconds")? * 1000, show.int("extensionSeconds")? * 1000);
    // Sessions made on one process are known to the other.
    let (alice, bob, carol) = (a.session().await?, b.session().await?, a.session().await?);

    // Alice holds on A; B shows it right after: hold, list, seat map.
    let alice_body = json!({"holdId": "alice-hold-1", "seats": ["A1", "A2"]});
    let held = a.post(HOLDS, Some(&alice), Some(&alice_body)).await?;
    expect(&held, 201, "alice's hold on A")?;
    let expires = held.int("expiresAt")?;
    ensure!(expires - held.int("serverTime")? == hold_ms, "a hold of {hold_ms} ms: {held:?}");
    let read = b.get("/api/holds/alice-hold-1", Some(&alice)).await?;
    expect(&read, 200, "alice's hold read on B right after it was made on A")?;
    ensure!(
        (&read.body["status"], &read.body["expiresAt"], &read.body["seats"])
            == (&json!("HELD"), &json!(expires), &json!(["A1", "A2"])),
        "B reads alice's hold as {read:?}, A answered {held:?}"
    );
    let list = b.get("/api/holds", Some(&alice)).await?;
    expect(&list, 200, "alice's holds on B")?;
    ensure!(list.body["holds"][0]["holdId"] == "alice-hold-1", "B's list of alice's holds lacks it: {list:?}");
    let map = b.get(&format!("/api/shows/{THEATRE}/seats"), Some(&alice)).await?;
    expect(&map, 200, "the seat map on B")?;
    for id in ["A1", "A2"] {
        let entry = seat(&map, id)?;
        ensure!(
            entry["holdExpiresAt"] == expires && entry["mine"] == true && entry["sold"] == false,
            "B's seat map right after alice's hold on A shows {entry}"
        );
    }
    ensure!(map.int("version")? == 1, "B's map is not at version 1 after one hold: {}", map.body["version"]);

    // Extended on B, read on A.
    let extended = b.post("/api/holds/alice-hold-1/extend", Some(&alice), None).await?;
    expect(&extended, 200, "alice's extension on B")?;
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
    expect(&confirmed, 200, "alice's confirmation on A")?;
    ensure!(confirmed.body["status"] == "CONFIRMED", "{confirmed:?}");
    let read = b.get("/api/holds/alice-hold-1", Some(&alice)).await?;
    ensure!(read.status == 200 && read.body["status"] == "CONFIRMED", "B reads the confirmed hold as {read:?}");
    let map = b.get(&format!("/api/shows/{THEATRE}/seats"), None).await?;
    for id in ["A1", "A2"] {
        let entry = seat(&map, id)?;
        ensure!(entry["sold"] == true && entry["mine"] == false, "B's public map after the sale on A: {entry}");
    }
    let again = b.post("/api/holds/alice-hold-1/confirm", Some(&alice), None).await?;
    expect(&again, 200, "alice's confirmation repeated on B")?;
    ensure!(again.body["status"] == "CONFIRMED", "{again:?}");
    let late_extension = a.post("/api/holds/alice-hold-1/extend", Some(&alice), None).await?;
    expect_error(&late_extension, 409, "already_confirmed", "extending the confirmed hold on A")?;

    // Bob, on B, wants a sold seat and a free one: refused, naming the sold one.
    let conflict = b.post(HOLDS, Some(&bob), Some(&json!({"holdId": "bob-hold-0", "seats": ["A2", "A3"]}))).await?;
    expect_error(&conflict, 409, "seats_taken", "bob's hold of a seat sold on A")?;
    ensure!(conflict.body["seats"] == json!(["A2"]), "the taken seats: {conflict:?}");

    // Bob holds on B; the same request again on A is a replay; a different
    // body with that id is a mismatch; alice cannot see it on either.
    let bob_body = json!({"holdId": "bob-hold-1", "seats": ["A3"]});
    let bob_hold = b.post(HOLDS, Some(&bob), Some(&bob_body)).await?;
    expect(&bob_hold, 201, "bob's hold on B")?;
    let replay = a.post(HOLDS, Some(&bob), Some(&bob_body)).await?;
    expect(&replay, 200, "bob's hold retried on A")?;
    ensure!(
        replay.body["holdId"] == "bob-hold-1"
            && replay.body["expiresAt"] == bob_hold.body["expiresAt"]
            && replay.body["status"] == "HELD",
        "the replay on A {replay:?} is not the hold B made {bob_hold:?}"
    );
    let mismatch = a.post(HOLDS, Some(&bob), Some(&json!({"holdId": "bob-hold-1", "seats": ["A4"]}))).await?;
    expect_error(&mismatch, 409, "idempotency_mismatch", "bob's hold id with other seats on A")?;
    let stolen = a.post(HOLDS, Some(&alice), Some(&bob_body)).await?;
    expect_error(&stolen, 409, "idempotency_mismatch", "bob's hold id and body from alice on A")?;
    for api in [a, b] {
        let foreign = api.get("/api/holds/bob-hold-1", Some(&alice)).await?;
        expect_error(&foreign, 404, "no_hold", &format!("alice reading bob's hold on {}", api.name))?;
        let own = api.get("/api/holds/bob-hold-1", Some(&bob)).await?;
        expect(&own, 200, &format!("bob reading his hold on {}", api.name))?;
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
    expect(&replay, 200, "bob's released hold's create retried on B")?;
    ensure!(replay.body["status"] == "RELEASED", "the create replayed after the release: {replay:?}");
    let map = b.get(&format!("/api/shows/{THEATRE}/seats"), None).await?;
    ensure!(free(&map, "A3")?, "B's map after the release on A: {}", seat(&map, "A3")?);

    // Carol takes the released seat on B and reads it on A.
    let carol_hold = b.post(HOLDS, Some(&carol), Some(&json!({"holdId": "carol-hold-1", "seats": ["A3"]}))).await?;
    expect(&carol_hold, 201, "carol's hold on B of the seat bob released on A")?;
    let map = a.get(&format!("/api/shows/{THEATRE}/seats"), Some(&carol)).await?;
    let entry = seat(&map, "A3")?;
    ensure!(entry["mine"] == true && entry["holdExpiresAt"] == carol_hold.body["expiresAt"], "A's map: {entry}");
    // created, extended, confirmed; bob created, released; carol created.
    let map_b = b.get(&format!("/api/shows/{THEATRE}/seats"), None).await?;
    ensure!(
        map.int("version")? == 6 && map_b.int("version")? == 6,
        "after six changes A's map is at version {} and B's at {}",
        map.body["version"],
        map_b.body["version"]
    );
    let list = a.get("/api/holds", Some(&bob)).await?;
    let ids: Vec<&Value> = list.body["holds"].as_array().context("holds")?.iter().map(|h| &h["holdId"]).collect();
    ensure!(ids == [&json!("bob-hold-1")], "bob's holds on A: {list:?}");
    Ok(())
}

/// How far an instant a process answers may be from the real clock's and
/// the database's.
const TOLERANCE_MS: i64 = 1000;

/// Fails unless `at` lies within a second of the interval `[before, after]`
/// measured on the real clock and on the database's.
fn near(what: &str, at: i64, real: (i64, i64), database: (i64, i64)) -> anyhow::Result<()> {
    ensure!(
        real.0 - TOLERANCE_MS <= at && at <= real.1 + TOLERANCE_MS,
        "{what}: {at} is not within {TOLERANCE_MS} ms of the real time {real:?} (off by {} ms)",
        at - real.0
    );
    ensure!(
        database.0 - TOLERANCE_MS <= at && at <= database.1 + TOLERANCE_MS,
        "{what}: {at} is not within {TOLERANCE_MS} ms of the database's now() {database:?}"
    );
    Ok(())
}

#[tokio::test]
async fn processes_whose_clocks_are_twenty_minutes_apart_make_identical_decisions() -> anyhow::Result<()> {
    let database = Database::fresh().await?;
    let admin = ("SEATHOLD_ADMIN_TOKEN", ADMIN_TOKEN);
    // The sweep runs often, so a sweep that trusted its own clock would show.
    let sweep = ["--sweep-interval", "100ms"];
    let a = Server::start_on_database(&database.url, &sweep, &[admin, ("SEATHOLD_CLOCK_SKEW_MS", "-600000")]).await?;
    let b = Server::start_on_database(&database.url, &sweep, &[admin, ("SEATHOLD_CLOCK_SKEW_MS", "600000")]).await?;
    let outcome = skewed(&Api::new(&a, "A (-10 min)"), &Api::new(&b, "B (+10 min)"), &database).await;
    outcome.map_err(|error| error.context(logs(&[("A", &a), ("B", &b)])))
}

async fn skewed(a: &Api, b: &Api, database: &Database) -> anyhow::Result<()> {
    let sql = database.connect().await?;
    // Measures `ask` against the real clock and the database's.
    macro_rules! measured {
        ($ask:expr) => {{
            let (real, db) = (real_now(), database_now(&sql).await?);
            let answer = $ask;
            (answer, (real, real_now()), (db, database_now(&sql).await?))
        }};
    }
    for api in [a, b] {
        let (time, real, db) = measured!(api.get("/api/time", None).await?);
        expect(&time, 200, &format!("GET /api/time on {}", api.name))?;
        near(&format!("GET /api/time on {}", api.name), time.int("serverTime")?, real, db)?;
    }
    let show = a.get(&format!("/api/shows/{THEATRE}"), None).await?;
    let (hold_ms, extension_ms) = (show.int("holdSeconds")? * 1000, show.int("extensionSeconds")? * 1000);
    // 600 s holds: B's own clock (+10 min) is already at their deadline.
    ensure!(hold_ms == 600_000, "the demo theatre's holds are no longer 10 minutes: {show:?}");
    let (alice, bob, carol) = (a.session().await?, b.session().await?, a.session().await?);

    // A hold on each: the same length from an instant near the real one.
    let mut holds = Vec::new();
    for (api, token, id, seat_id) in [(a, &alice, "alice-skewed", "B1"), (b, &bob, "bob-skewed", "B2")] {
        let body = json!({"holdId": id, "seats": [seat_id]});
        let (held, real, db) = measured!(api.post(HOLDS, Some(token), Some(&body)).await?);
        expect(&held, 201, &format!("{id} on {}", api.name))?;
        let (at, expires) = (held.int("serverTime")?, held.int("expiresAt")?);
        ensure!(expires - at == hold_ms, "{id} on {}: expiresAt - serverTime = {} ms", api.name, expires - at);
        near(&format!("the decision of {id} on {}", api.name), at, real, db)?;
        holds.push(held);
    }
    let (alice_hold, bob_hold) = (&holds[0], &holds[1]);
    let apart = (alice_hold.int("serverTime")? - bob_hold.int("serverTime")?).abs();
    ensure!(apart < TOLERANCE_MS, "holds made one after the other on A and B are {apart} ms apart");

    // Each reads the other's hold as it is: HELD, with the same deadline.
    for (api, token, hold) in [(b, &alice, alice_hold), (a, &bob, bob_hold)] {
        let id = hold.body["holdId"].as_str().context("holdId")?;
        let read = api.get(&format!("/api/holds/{id}"), Some(token)).await?;
        expect(&read, 200, &format!("{id} read on {}", api.name))?;
        ensure!(
            read.body["status"] == "HELD" && read.body["expiresAt"] == hold.body["expiresAt"],
            "{id} read on {}: {read:?}; made as {hold:?}",
            api.name
        );
    }
    // B's own clock says alice's hold is over; the database's says it is not.
    let taken = b.post(HOLDS, Some(&carol), Some(&json!({"holdId": "carol-skewed", "seats": ["B1"]}))).await?;
    expect_error(&taken, 409, "seats_taken", "carol's hold on B of the seat alice holds")?;
    let taken = a.post(HOLDS, Some(&carol), Some(&json!({"holdId": "carol-skewed", "seats": ["B2"]}))).await?;
    expect_error(&taken, 409, "seats_taken", "carol's hold on A of the seat bob holds")?;
    let (map_a, map_b) = (
        a.get(&format!("/api/shows/{THEATRE}/seats"), None).await?,
        b.get(&format!("/api/shows/{THEATRE}/seats"), None).await?,
    );
    for (map, name) in [(&map_a, &a.name), (&map_b, &b.name)] {
        for (id, hold) in [("B1", alice_hold), ("B2", bob_hold)] {
            let entry = seat(map, id)?;
            ensure!(entry["holdExpiresAt"] == hold.body["expiresAt"], "{name}'s map shows {entry}");
            ensure!(!free(map, id)?, "{name}'s map at {} shows {id} free", map.body["serverTime"]);
        }
    }
    let versions = (&map_a.body["version"], &map_b.body["version"]);
    ensure!(versions.0 == versions.1, "A's map is at version {} and B's at {}", versions.0, versions.1);
    let extended = b.post("/api/holds/alice-skewed/extend", Some(&alice), None).await?;
    expect(&extended, 200, "alice's hold extended on B")?;
    ensure!(extended.int("expiresAt")? == alice_hold.int("expiresAt")? + extension_ms, "{extended:?}");
    let confirmed = a.post("/api/holds/bob-skewed/confirm", Some(&bob), None).await?;
    expect(&confirmed, 200, "bob's hold confirmed on A")?;

    // A short hold expires when the database's clock reaches its deadline,
    // on both processes, and each process's sweep leaves it alone before.
    let short = json!({"id": "skew-short", "name": "Two-second holds", "holdSeconds": 2,
                       "seats": [{"id": "S1", "x": 0, "y": 0}]});
    let created = a.call(Method::POST, "/api/admin/shows", Some(ADMIN_TOKEN), Some(&short)).await?;
    expect(&created, 201, "a show of 2-second holds through A's admin API")?;
    let (dave, erin) = (b.session().await?, a.session().await?);
    let (held, real, db) = measured!(
        b.post("/api/shows/skew-short/holds", Some(&dave), Some(&json!({"holdId": "dave-short", "seats": ["S1"]})))
            .await?
    );
    expect(&held, 201, "dave's 2-second hold on B")?;
    let (at, expires) = (held.int("serverTime")?, held.int("expiresAt")?);
    ensure!(expires - at == 2000, "a 2-second hold: {held:?}");
    near("dave's 2-second hold on B", at, real, db)?;
    // Until the deadline both say HELD, after it both say EXPIRED, each at
    // the instant it reports, which follows the real clock.
    let mut observed = Vec::new();
    let started = Instant::now();
    loop {
        let mut expired_everywhere = true;
        for api in [a, b] {
            let (read, real, db) = measured!(api.get("/api/holds/dave-short", Some(&dave)).await?);
            expect(&read, 200, &format!("dave's hold on {}", api.name))?;
            let at = read.int("serverTime")?;
            near(&format!("reading dave's hold on {}", api.name), at, real, db)?;
            let status = read.body["status"].as_str().context("status")?.to_owned();
            let expected = if at < expires { "HELD" } else { "EXPIRED" };
            ensure!(
                status == expected,
                "{} says {status} at {at}, deadline {expires}; observations so far: {observed:?}",
                api.name
            );
            expired_everywhere &= status == "EXPIRED";
            observed.push((api.name.clone(), at - expires, status));
        }
        if expired_everywhere && real_now() > expires + 500 {
            break;
        }
        ensure!(started.elapsed() < PATIENCE, "dave's hold never expired everywhere: {observed:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // The seat is free on A's instant too, and a sweep records the expiry
    // at or after the deadline.
    let erin_body = json!({"holdId": "erin-short", "seats": ["S1"]});
    let granted = a.post("/api/shows/skew-short/holds", Some(&erin), Some(&erin_body)).await?;
    expect(&granted, 201, "erin's hold on A of the seat whose hold expired")?;
    let started = Instant::now();
    let recorded: i64 = loop {
        let row =
            sql.query_opt("SELECT at FROM journal WHERE hold_id = 'dave-short' AND action = 'expired'", &[]).await?;
        if let Some(row) = row {
            break row.get(0);
        }
        ensure!(started.elapsed() < PATIENCE, "no sweep recorded the expiry of dave's hold in {PATIENCE:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    ensure!(recorded >= expires, "the expiry of dave's hold was recorded at {recorded}, before its deadline {expires}");
    eprintln!(
        "2-second hold made on B (+10 min): {} reads on A and B, HELD before its deadline and EXPIRED after; \
         erin got the seat on A {} ms after the deadline; the sweep recorded the expiry {} ms after it",
        observed.len(),
        granted.int("serverTime")? - expires,
        recorded - expires
    );

    // The 600-second holds: still there after many sweeps of both processes.
    for (api, token, id, status) in [(a, &alice, "alice-skewed", "HELD"), (b, &bob, "bob-skewed", "CONFIRMED")] {
        let read = api.get(&format!("/api/holds/{id}"), Some(token)).await?;
        ensure!(read.status == 200 && read.body["status"] == status, "{id} on {} after the sweeps: {read:?}", api.name);
    }
    // The journal: every decision at an instant near the real one, and only
    // the short hold expired.
    let rows =
        sql.query("SELECT show_id, version, at, hold_id, action FROM journal ORDER BY show_id, version", &[]).await?;
    let end = real_now();
    for row in &rows {
        let (show_id, version, at, hold_id, action): (String, i64, i64, String, String) =
            (row.get(0), row.get(1), row.get(2), row.get(3), row.get(4));
        ensure!(
            alice_hold.int("serverTime")? - TOLERANCE_MS <= at && at <= end + TOLERANCE_MS,
            "journal entry {show_id} v{version} ({action} {hold_id}) at {at}, not within the test's time"
        );
        ensure!(action != "expired" || hold_id == "dave-short", "{hold_id} expired: {show_id} v{version}");
    }
    Ok(())
}

#[tokio::test]
async fn a_change_reaches_the_other_process_s_viewers_while_notifications_are_lost() -> anyhow::Result<()> {
    let database = Database::fresh().await?;
    let a = Server::start_on_database(&database.url, &[], &[]).await?;
    let b = Server::start_on_database(&database.url, &[], &[]).await?;
    let outcome = lost_notifications(&Api::new(&a, "A"), &Api::new(&b, "B"), &database).await;
    outcome.map_err(|error| error.context(logs(&[("A", &a), ("B", &b)])))
}

/// How long notifications are lost for.
const OUTAGE: Duration = Duration::from_secs(3);

async fn lost_notifications(a: &Api, b: &Api, database: &Database) -> anyhow::Result<()> {
    database.until_listening(2).await?;
    let mut viewer = b.events(THEATRE).await?;
    let snapshot = tokio::time::timeout(PATIENCE, viewer.next()).await.context("no snapshot in time")??;
    let snapshot = snapshot.context("the stream ended")?;
    ensure!(snapshot.kind == "snapshot", "the first event: {snapshot:?}");
    let mut version = snapshot.data["version"].as_i64().context("the snapshot's version")?;

    // Every listening connection to this database is cut, again and again:
    // notifications sent meanwhile reach nobody.
    let killer_sql = database.connect().await?;
    let name = database.name.clone();
    let killer = tokio::spawn(async move {
        let started = Instant::now();
        let mut cut = 0_u64;
        while started.elapsed() < OUTAGE {
            let rows = killer_sql
                .query(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                     WHERE datname = $1 AND query ILIKE 'LISTEN%' AND pid <> pg_backend_pid()",
                    &[&name],
                )
                .await?;
            cut += rows.len() as u64;
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        anyhow::Ok(cut)
    });

    // Meanwhile holds made on A, one every 300 ms.
    let mut latencies = Vec::new();
    let mut n = 0;
    let started = Instant::now();
    while started.elapsed() < OUTAGE {
        let token = a.session().await?;
        let seat_id = format!("C{}", n + 1);
        let held = a.post(HOLDS, Some(&token), Some(&json!({"seats": [&seat_id]}))).await?;
        expect(&held, 201, &format!("hold {n} on A"))?;
        let answered = Instant::now();
        let event = tokio::time::timeout(PATIENCE, viewer.next())
            .await
            .with_context(|| format!("B's viewer never got the hold of {seat_id} made on A"))??
            .context("the stream ended")?;
        version += 1;
        ensure!(
            event.kind == "change" && event.data["version"] == version,
            "B's viewer expected change {version}, got {event:?}"
        );
        let seats = &event.data["seats"];
        ensure!(
            seats.as_array().is_some_and(|s| s.len() == 1) && seats[0]["id"] == seat_id.as_str(),
            "change {version} on B is not the hold of {seat_id}: {event:?}"
        );
        ensure!(seats[0]["holdExpiresAt"] == held.body["expiresAt"], "change {version}: {event:?}; hold {held:?}");
        latencies.push(event.arrived.saturating_duration_since(answered));
        n += 1;
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    let cut = killer.await??;
    ensure!(cut > 0, "no listening connection of this database was found to cut: no LISTEN in pg_stat_activity?");
    let shown: Vec<String> = latencies.iter().map(|l| format!("{}", l.as_millis())).collect();
    eprintln!(
        "{n} holds on A while {cut} LISTEN connections were cut over {} s; B's viewer got each after (ms): {}",
        OUTAGE.as_secs(),
        shown.join(" ")
    );

    // Once the outage is over, each process listens again.
    let started = Instant::now();
    database.until_listening(2).await?;
    eprintln!("both processes listen again {} ms after the outage", started.elapsed().as_millis());
    Ok(())
}

#[tokio::test]
async fn a_viewer_that_reconnects_to_the_other_process_gets_every_change_it_missed() -> anyhow::Result<()> {
    let database = Database::fresh().await?;
    let a = Server::start_on_database(&database.url, &[], &[]).await?;
    let b = Server::start_on_database(&database.url, &[], &[]).await?;
    database.until_listening(2).await?;
    let outcome = resume_elsewhere(&Api::new(&a, "A"), &Api::new(&b, "B")).await;
    outcome.map_err(|error| error.context(logs(&[("A", &a), ("B", &b)])))
}

/// The next event of `stream`, or a failure naming `what`.
async fn next_event(
    stream: &mut seathold_system_tests::api::EventStream,
    what: &str,
) -> anyhow::Result<seathold_system_tests::api::Event> {
    tokio::time::timeout(PATIENCE, stream.next())
        .await
        .with_context(|| format!("{what}: nothing in {PATIENCE:?}"))??
        .with_context(|| format!("{what}: the stream ended"))
}

async fn resume_elsewhere(a: &Api, b: &Api) -> anyhow::Result<()> {
    let mut on_a = a.events(THEATRE).await?;
    let snapshot = next_event(&mut on_a, "A's viewer's snapshot").await?;
    let mut version = snapshot.data["version"].as_i64().context("the snapshot's version")?;
    let mut seat = 0;
    // First B has never loaded the show, then it has but nobody watches it there.
    for b_state in ["cold", "loaded, unwatched"] {
        let mut deadlines = Vec::new();
        for _ in 0..4 {
            seat += 1;
            let token = a.session().await?;
            let held = a.post(HOLDS, Some(&token), Some(&json!({"seats": [format!("D{seat}")]}))).await?;
            expect(&held, 201, &format!("the hold of D{seat} on A"))?;
            deadlines.push((format!("D{seat}"), held.int("expiresAt")?));
        }
        // A's viewer gets the first change, then loses its connection.
        let first = next_event(&mut on_a, "A's viewer's change").await?;
        ensure!(first.id == Some((version + 1).to_string()), "A's viewer's change {}: {first:?}", version + 1);
        drop(on_a);
        let (seen, last) = (version + 1, version + 4);

        // Its reconnection lands on B: every change after the one it has, or a current snapshot.
        let mut on_b = b.events_after(THEATRE, Some(seen)).await?;
        let event = next_event(&mut on_b, "B's answer to the resumption").await?;
        if event.kind == "snapshot" {
            ensure!(event.data["version"] == last, "B ({b_state}) resumed {seen} with an old snapshot: {event:?}");
            eprintln!("resumed after {seen} on B ({b_state}): a snapshot at {last}");
        } else {
            let mut event = event;
            for (n, (seat_id, deadline)) in deadlines.iter().enumerate().skip(1) {
                let expected = version + 1 + n as i64;
                ensure!(
                    event.kind == "change"
                        && event.id == Some(expected.to_string())
                        && event.data["seats"][0]["id"] == seat_id.as_str()
                        && event.data["seats"][0]["holdExpiresAt"] == *deadline,
                    "B ({b_state}) resuming after {seen}: expected change {expected} of {seat_id}, got {event:?}"
                );
                if expected < last {
                    event = next_event(&mut on_b, "B's replay").await?;
                }
            }
            eprintln!("resumed after {seen} on B ({b_state}): changes {} to {last} replayed", seen + 1);
        }
        // Then live changes made on A.
        seat += 1;
        let token = a.session().await?;
        let held = a.post(HOLDS, Some(&token), Some(&json!({"seats": [format!("D{seat}")]}))).await?;
        expect(&held, 201, "a hold on A after the resumption")?;
        let live = next_event(&mut on_b, "B's live change after the resumption").await?;
        ensure!(
            live.kind == "change"
                && live.id == Some((last + 1).to_string())
                && live.data["seats"][0]["id"] == format!("D{seat}"),
            "B ({b_state})'s live change after the resumption: {live:?}"
        );
        version = last + 1;
        drop(on_b);
        // The next viewer starts on A again, at the current version.
        on_a = a.events_after(THEATRE, Some(version)).await?;
    }
    Ok(())
}
