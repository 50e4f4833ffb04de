//! The crash soak's customers: a flash sale against one base URL whose
//! server is killed (`kill -9`) and restarted under it (by `cargo xtask
//! soak`). Requests that get no answer are counted, not fatal; at the end,
//! once the server answers again, an audit: every 201 hold and every 200
//! confirm is still there as it was told, no seat is sold to two holds,
//! and the floor is within capacity. Prints one line `soak: …` of figures.
//!
//! `soak BASE_URL ADMIN_TOKEN SECONDS`

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

mod sold;

use anyhow::Context;
use serde_json::{Value, json};

const SHOW: &str = "soak";
const SEATS: usize = 4_000;
const FLOOR: u64 = 1_000;
const SESSIONS: usize = 200;
const WORKERS: usize = 16;
/// Each request gives up after this: a killed server never answers.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(3);

/// What the customers were told.
#[derive(Default)]
struct Told {
    /// Hold id → (session token, confirmed with 200).
    holds: BTreeMap<String, (String, bool)>,
    answered: u64,
    unanswered: u64,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [base, admin, seconds] = args.as_slice() else { anyhow::bail!("usage: soak BASE_URL ADMIN_TOKEN SECONDS") };
    let client = reqwest::Client::builder().timeout(REQUEST_TIMEOUT).build()?;
    let seats: Vec<Value> =
        (0..SEATS).map(|n| json!({"id": format!("S{n}"), "x": n % 40 * 12, "y": n / 40 * 14})).collect();
    let show = json!({"id": SHOW, "name": "Soak", "holdSeconds": 2, "maxSeatsPerHold": 2, "maxActiveHoldsPerHolder": 2,
                      "seats": seats, "areas": [{"id": "floor", "name": "Floor", "capacity": FLOOR}]});
    retrying(|| client.post(format!("{base}/api/admin/shows")).bearer_auth(admin).json(&show).send()).await?;
    let mut tokens = Vec::new();
    for _ in 0..SESSIONS {
        let answer = retrying(|| client.post(format!("{base}/api/sessions")).send()).await?;
        tokens.push(answer["token"].as_str().context("no token")?.to_owned());
    }
    let deadline = Instant::now() + Duration::from_secs(seconds.parse()?);
    let mut workers = Vec::new();
    for worker in 0..WORKERS {
        let (client, base, tokens) = (client.clone(), base.clone(), tokens.clone());
        workers.push(tokio::spawn(async move { customers(worker, &client, &base, &tokens, deadline).await }));
    }
    let mut told = Told::default();
    for worker in workers {
        let part = worker.await?;
        told.holds.extend(part.holds);
        told.answered += part.answered;
        told.unanswered += part.unanswered;
    }
    audit(&client, base, &told).await
}

/// Retries until the server answers with a success (it may be restarting).
async fn retrying<F, R>(send: F) -> anyhow::Result<Value>
where
    F: Fn() -> R,
    R: Future<Output = reqwest::Result<reqwest::Response>>,
{
    let give_up = Instant::now() + Duration::from_secs(60);
    loop {
        if let Ok(response) = send().await
            && response.status().is_success()
        {
            return Ok(response.json().await.unwrap_or(Value::Null));
        }
        anyhow::ensure!(Instant::now() < give_up, "the server did not answer for a minute");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn customers(worker: usize, client: &reqwest::Client, base: &str, tokens: &[String], deadline: Instant) -> Told {
    let mut rng = fastrand::Rng::with_seed(worker as u64 + 1);
    let mut told = Told::default();
    while Instant::now() < deadline {
        let token = &tokens[rng.usize(..tokens.len())];
        let body = if rng.u8(..4) == 0 {
            json!({"areas": {"floor": rng.u64(1..=2)}})
        } else {
            json!({"seats": [format!("S{}", rng.usize(..SEATS))]})
        };
        let Some((status, answer)) =
            send(client.post(format!("{base}/api/shows/{SHOW}/holds")).bearer_auth(token).json(&body)).await
        else {
            told.unanswered += 1;
            // The server is down: give it a moment rather than spin.
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        told.answered += 1;
        let Some(hold) = answer["holdId"].as_str().filter(|_| status == 201) else { continue };
        let mut confirmed = false;
        if rng.u8(..10) < 3 {
            match send(client.post(format!("{base}/api/holds/{hold}/confirm")).bearer_auth(token)).await {
                Some((status, _)) => {
                    told.answered += 1;
                    confirmed = status == 200;
                }
                None => told.unanswered += 1,
            }
        }
        told.holds.insert(hold.to_owned(), (token.clone(), confirmed));
    }
    told
}

async fn send(request: reqwest::RequestBuilder) -> Option<(u16, Value)> {
    let response = request.send().await.ok()?;
    let status = response.status().as_u16();
    let body = response.bytes().await.ok()?;
    Some((status, serde_json::from_slice(&body).unwrap_or(Value::Null)))
}

async fn audit(client: &reqwest::Client, base: &str, told: &Told) -> anyhow::Result<()> {
    let mut sold_to: BTreeMap<String, String> = BTreeMap::new();
    let mut floor_confirmed = 0;
    for (hold, (token, confirmed)) in &told.holds {
        let answer = retrying(|| client.get(format!("{base}/api/holds/{hold}")).bearer_auth(token).send()).await?;
        let status = answer["status"].as_str().unwrap_or("");
        anyhow::ensure!(["HELD", "CONFIRMED", "EXPIRED", "RELEASED"].contains(&status), "hold {hold}: {answer}");
        anyhow::ensure!(!confirmed || status == "CONFIRMED", "hold {hold} was confirmed with 200, now {answer}");
        if status == "CONFIRMED" {
            for seat in answer["seats"].as_array().into_iter().flatten().filter_map(Value::as_str) {
                let other = sold_to.insert(seat.to_owned(), hold.clone());
                anyhow::ensure!(other.is_none(), "seat {seat} sold to {hold} and {other:?}");
            }
            floor_confirmed += answer["areas"]["floor"].as_u64().unwrap_or(0);
        }
    }
    let map = retrying(|| client.get(format!("{base}/api/shows/{SHOW}/seats")).send()).await?;
    let sold = sold::sold_seats(&map);
    for seat in sold_to.keys() {
        anyhow::ensure!(sold.contains(seat.as_str()), "seat {seat} of a confirmed hold is not sold on the map");
    }
    let floor = &map["areas"][0];
    let floor_sold = floor["sold"].as_u64().unwrap_or(u64::MAX);
    let now = map["serverTime"].as_i64().unwrap_or(i64::MAX);
    let floor_held: u64 = floor["holds"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|hold| hold["expiresAt"].as_i64().is_some_and(|at| at > now))
        .filter_map(|hold| hold["quantity"].as_u64())
        .sum();
    anyhow::ensure!(floor_sold >= floor_confirmed, "floor: {floor_sold} sold, {floor_confirmed} confirmed with 200");
    anyhow::ensure!(floor_sold + floor_held <= FLOOR, "floor: {floor_sold} sold + {floor_held} held > {FLOOR}");
    let confirmed = told.holds.values().filter(|(_, confirmed)| *confirmed).count();
    println!(
        "soak: {} answered decisions ({} holds, {confirmed} confirms with 200), {} requests unanswered while down; \
         audit: every 201 hold and 200 confirm accounted for, no seat sold twice ({} sold), floor {floor_sold}/{FLOOR}",
        told.answered,
        told.holds.len(),
        told.unanswered,
        sold.len()
    );
    Ok(())
}
