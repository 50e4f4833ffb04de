//! A process that stalls (SIGSTOP here; a VM pause or a network partition
//! in real life) while inside a show's batch transaction holds that show's
//! advisory lock. The other processes must still answer for the show
//! (SPEC rule 20: clearly, 503 with Retry-After at worst, never hang), and
//! take it over once the database ends the stalled session.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

use std::time::{Duration, Instant};

use anyhow::{Context, ensure};
use seathold_system_tests::Server;
use seathold_system_tests::api::Api;
use seathold_system_tests::postgres::Database;
use serde_json::json;

/// How long B may take to answer anything.
const ANSWER_WITHIN: Duration = Duration::from_secs(10);

fn signal(server: &Server, name: &str) -> anyhow::Result<()> {
    let pid = server.pid().context("the server is gone")?;
    let status = std::process::Command::new("kill").args([name, &pid.to_string()]).status()?;
    ensure!(status.success(), "kill {name} {pid}");
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_process_stalled_inside_a_batch_does_not_stop_the_show_on_the_others() -> anyhow::Result<()> {
    let database = Database::fresh().await?;
    let a = Server::start_on_database(&database.url, &[], &[]).await?;
    let b = Server::start_on_database(&database.url, &[], &[]).await?;
    let (api_a, api_b) = (Api::new(&a, "A"), Api::new(&b, "B"));
    let sql = database.connect().await?;
    let mut tokens = Vec::new();
    for _ in 0..41 {
        tokens.push(api_a.session().await?);
    }
    for api in [&api_a, &api_b] {
        api.get("/api/shows/demo-theatre/seats", None).await?.expect(200, "warming up")?;
    }

    // Stop A while one of its connections is inside the theatre's batch
    // (its advisory lock granted, the transaction idle: A is not running).
    let mut stopped_inside = false;
    for attempt in 0..50 {
        let mut holds = Vec::new();
        for (n, token) in tokens.iter().take(40).enumerate() {
            let api = api_a.clone();
            let (token, seat) = (token.clone(), format!("{}{}", char::from(b'A' + (attempt % 8) as u8), n % 20 + 1));
            holds.push(tokio::spawn(async move {
                drop(api.post("/api/shows/demo-theatre/holds", Some(&token), Some(&json!({"seats": [seat]}))).await)
            }));
        }
        tokio::time::sleep(Duration::from_millis(2 + (attempt % 7) * 3)).await;
        signal(&a, "-STOP")?;
        tokio::time::sleep(Duration::from_millis(50)).await;
        let inside: i64 = sql
            .query_one(
                "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity s USING (pid)
                 WHERE l.locktype = 'advisory' AND l.granted AND s.datname = $1
                   AND s.state = 'idle in transaction'",
                &[&database.name],
            )
            .await?
            .get(0);
        if inside > 0 {
            stopped_inside = true;
            eprintln!("A stopped inside the theatre's batch at attempt {attempt}");
            // A's customers wait on A; they are not this test's concern.
            holds.into_iter().for_each(|hold| hold.abort());
            break;
        }
        signal(&a, "-CONT")?;
        for hold in holds {
            hold.await?;
        }
    }
    ensure!(stopped_inside, "A was never stopped inside a batch");

    // Another show on B is fine; the theatre on B must answer too.
    let started = Instant::now();
    let other = api_b.post("/api/shows/demo-arena/holds", Some(&tokens[40]), Some(&json!({"seats": ["R1-1"]}))).await?;
    other.expect(201, "a hold of another show on B")?;
    eprintln!("another show's hold on B: {} ms", started.elapsed().as_millis());
    let customer = api_b.session().await?;
    let started = Instant::now();
    let held = tokio::time::timeout(
        ANSWER_WITHIN,
        api_b.post("/api/shows/demo-theatre/holds", Some(&customer), Some(&json!({"seats": ["H20"]}))),
    )
    .await;
    let read = tokio::time::timeout(ANSWER_WITHIN, api_b.get("/api/shows/demo-theatre/seats", None)).await;
    ensure!(
        held.is_ok() && read.is_ok(),
        "while A is stopped inside the theatre's batch, B answered neither a hold nor a seat map of the theatre \
         in {ANSWER_WITHIN:?} (hold answered: {}, map answered: {}); {} ms in all",
        held.is_ok(),
        read.is_ok(),
        started.elapsed().as_millis()
    );
    if let (Ok(held), Ok(read)) = (&held, &read) {
        let (held, read) = (
            held.as_ref().map_err(|e| anyhow::anyhow!("{e:#}"))?,
            read.as_ref().map_err(|e| anyhow::anyhow!("{e:#}"))?,
        );
        ensure!(matches!(held.status, 201 | 503), "the hold on B: {held:?}");
        ensure!(matches!(read.status, 200 | 503), "the seat map on B: {read:?}");
    }
    // Once the database ends A's idle session, B takes the show over.
    let later = api_b.session().await?;
    let deadline = Instant::now() + ANSWER_WITHIN;
    loop {
        let held = api_b
            .post(
                "/api/shows/demo-theatre/holds",
                Some(&later),
                Some(&json!({"holdId": "after-the-stall", "seats": ["H19"]})),
            )
            .await?;
        if held.status == 201 || held.status == 200 {
            break;
        }
        ensure!(held.status == 503 && Instant::now() < deadline, "B never took the show over: {held:?}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    signal(&a, "-CONT")?;
    Ok(())
}
