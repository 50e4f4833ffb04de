//! Regression tests for issue 10: clients on a hostile network, spoken to
//! over raw TCP where a normal HTTP client cannot misbehave on purpose.
//!
//! - A hold request whose connection is closed right after it is sent, then
//!   retried, leaves a hold its owner can find and confirm (no ghost hold).
//! - A hold request whose body arrives late is decided when it arrives, at
//!   the writer's instant, not when its headers came: the seat is then held
//!   by it alone and the seat map says so.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

use std::time::{Duration, Instant};

use anyhow::Context;
use reqwest::Method;
use seathold_system_tests::{PATIENCE, Server};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Test 1's show: 20,000 seats, a fresh one each round.
const ARENA: &str = "demo-arena";
/// Test 2's show.
const THEATRE: &str = "demo-theatre";

/// One answer: status, `X-Server-Time` and the JSON body (`Null` when none).
#[derive(Debug)]
struct Answer {
    status: u16,
    server_time: Option<i64>,
    body: Value,
}

struct Api {
    base: String,
    /// `127.0.0.1:PORT`, for raw connections.
    addr: String,
    client: reqwest::Client,
}

impl Api {
    fn new(server: &Server) -> Self {
        let addr = server.base_url.strip_prefix("http://").unwrap_or(&server.base_url).trim_end_matches('/');
        Self { base: server.base_url.clone(), addr: addr.to_owned(), client: reqwest::Client::new() }
    }

    async fn call(&self, method: Method, path: &str, token: Option<&str>, body: Option<&Value>) -> Answer {
        let mut request = self.client.request(method.clone(), format!("{}{path}", self.base));
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        if let Some(body) = body {
            request = request.json(body);
        }
        let response = request.send().await.unwrap_or_else(|e| panic!("{method} {path}: {e}"));
        let status = response.status().as_u16();
        let server_time = header_time(response.headers().get("x-server-time").and_then(|v| v.to_str().ok()));
        let body = response.json().await.unwrap_or(Value::Null);
        Answer { status, server_time, body }
    }

    async fn session(&self) -> String {
        let answer = self.call(Method::POST, "/api/sessions", None, None).await;
        assert_eq!(answer.status, 201, "a session: {answer:?}");
        answer.body["token"].as_str().unwrap().to_owned()
    }

    /// `POST /api/shows/{show}/holds`'s request line and headers, up to the
    /// blank line; the body (`length` bytes) is the caller's to send.
    fn hold_head(&self, show: &str, token: &str, length: usize) -> String {
        format!(
            "POST /api/shows/{show}/holds HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {token}\r\n\
             Content-Type: application/json\r\nContent-Length: {length}\r\nConnection: close\r\n\r\n",
            self.addr
        )
    }
}

fn header_time(value: Option<&str>) -> Option<i64> {
    value.and_then(|v| v.trim().parse().ok())
}

/// Reads one HTTP/1.1 answer to a `Connection: close` request, up to EOF.
async fn read_answer(stream: &mut TcpStream) -> anyhow::Result<Answer> {
    let mut raw = Vec::new();
    tokio::time::timeout(PATIENCE, stream.read_to_end(&mut raw)).await.context("no answer in time")??;
    let text = String::from_utf8(raw).context("a UTF-8 answer")?;
    let (head, body) = text.split_once("\r\n\r\n").with_context(|| format!("no end of headers in {text:?}"))?;
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap_or_default();
    let status = status_line.split(' ').nth(1).and_then(|s| s.parse().ok()).context(status_line.to_owned())?;
    let mut server_time = None;
    let mut length = None;
    for line in lines {
        let (name, value) = line.split_once(':').with_context(|| format!("a header line: {line:?}"))?;
        match name.trim().to_ascii_lowercase().as_str() {
            "x-server-time" => server_time = header_time(Some(value)),
            "content-length" => length = value.trim().parse::<usize>().ok(),
            "transfer-encoding" => anyhow::bail!("a chunked answer, which this reader does not decode: {text:?}"),
            _ => {}
        }
    }
    let body = &body[..length.unwrap_or(body.len()).min(body.len())];
    let body = if body.is_empty() { Value::Null } else { serde_json::from_str(body)? };
    Ok(Answer { status, server_time, body })
}

/// The `n`th seat of the demo arena (rows 1–80 of 250 seats).
fn arena_seat(n: usize) -> String {
    format!("R{}-{}", n / 250 % 80 + 1, n % 250 + 1)
}

/// Rounds of test 1. Before the fix a round left a ghost whenever the
/// dropped request had reached the show's writer: 5 % to 80 % of rounds,
/// run to run, so 200 rounds (about 2 s) miss that bug less than once in
/// 20,000 runs even at the lowest rate seen.
const ROUNDS: usize = 200;

#[tokio::test]
async fn a_hold_whose_connection_dropped_and_was_retried_is_found_and_confirmed() -> anyhow::Result<()> {
    let server = Server::start_api_only(&[]).await?;
    let api = Api::new(&server);
    let mut ghosts = Vec::new();
    let mut replays = 0;
    for round in 0..ROUNDS {
        // A fresh customer and seat each round: one active hold per holder.
        let token = api.session().await;
        let hold_id = format!("dropped-{round:03}");
        let seat = arena_seat(round);
        let body = json!({"holdId": hold_id, "seats": [seat]});
        let text = body.to_string();

        // The whole request, then the connection closes without reading the answer.
        let mut stream = TcpStream::connect(&api.addr).await?;
        stream.write_all(format!("{}{text}", api.hold_head(ARENA, &token, text.len())).as_bytes()).await?;
        stream.flush().await?;
        drop(stream);

        // The client retries, as it would after a broken connection.
        let path = format!("/api/shows/{ARENA}/holds");
        let retried = api.call(Method::POST, &path, Some(&token), Some(&body)).await;
        assert!(matches!(retried.status, 200 | 201), "round {round}: the retry: {retried:?}\n{}", server.log());
        assert_eq!(retried.body["holdId"], hold_id, "round {round}: {retried:?}");
        assert_eq!(retried.body["status"], "HELD", "round {round}: {retried:?}");

        replays += usize::from(retried.status == 200);
        let mut problems = Vec::new();
        let read = api.call(Method::GET, &format!("/api/holds/{hold_id}"), Some(&token), None).await;
        if read.status != 200 || read.body["status"] != "HELD" {
            problems.push(format!("GET /api/holds/{hold_id} → {} {}", read.status, read.body));
        }
        let list = api.call(Method::GET, "/api/holds", Some(&token), None).await;
        let listed = list.body["holds"].as_array().is_some_and(|h| h.iter().any(|h| h["holdId"] == hold_id));
        if list.status != 200 || !listed {
            problems.push(format!("GET /api/holds → {} {}", list.status, list.body));
        }
        let confirmed = api.call(Method::POST, &format!("/api/holds/{hold_id}/confirm"), Some(&token), None).await;
        if confirmed.status != 200 || confirmed.body["status"] != "CONFIRMED" {
            problems.push(format!("POST /api/holds/{hold_id}/confirm → {} {}", confirmed.status, confirmed.body));
        }
        if !problems.is_empty() {
            ghosts.push(format!("round {round} (seat {seat}, retry {}): {}", retried.status, problems.join("; ")));
        }
    }
    eprintln!("{replays} of {ROUNDS} retries were replays (200), {} ghosts", ghosts.len());
    assert!(
        ghosts.is_empty(),
        "{} of {ROUNDS} holds whose first request's connection dropped are ghosts after the retry \
         ({replays} retries were replays: the first request had reached the writer); the first:\n{}",
        ghosts.len(),
        ghosts.iter().take(3).cloned().collect::<Vec<_>>().join("\n")
    );
    Ok(())
}

#[tokio::test]
async fn a_hold_whose_body_arrives_late_is_decided_when_it_arrives() -> anyhow::Result<()> {
    const SEAT: &str = "C7";
    let server = Server::start_api_only(&[]).await?;
    let api = Api::new(&server);
    let show = api.call(Method::GET, &format!("/api/shows/{THEATRE}"), None, None).await;
    let hold_ms = show.body["holdSeconds"].as_i64().context("the show's holdSeconds")? * 1000;
    let (late, other, third) = (api.session().await, api.session().await, api.session().await);
    let holds_path = format!("/api/shows/{THEATRE}/holds");

    // The late customer's headers go out; its body is held back.
    let late_body = json!({"holdId": "late-body-hold", "seats": [SEAT]}).to_string();
    let mut stream = TcpStream::connect(&api.addr).await?;
    stream.write_all(api.hold_head(THEATRE, &late, late_body.len()).as_bytes()).await?;
    stream.flush().await?;
    let headers_sent = Instant::now();

    // Meanwhile another customer holds the seat and lets it go.
    let held = api
        .call(Method::POST, &holds_path, Some(&other), Some(&json!({"holdId": "other-hold", "seats": [SEAT]})))
        .await;
    assert_eq!(held.status, 201, "the other customer's hold: {held:?}");
    let released = api.call(Method::DELETE, "/api/holds/other-hold", Some(&other), None).await;
    assert_eq!(released.status, 204, "the other customer's release: {released:?}");
    let released_at = released.server_time.context("the release's X-Server-Time")?;

    // The body, half a second after the headers (deliberately late, not a wait).
    tokio::time::sleep_until((headers_sent + Duration::from_millis(500)).into()).await;
    stream.write_all(late_body.as_bytes()).await?;
    stream.flush().await?;
    let answer = read_answer(&mut stream).await?;

    // Every broken rule is named, not only the first.
    let mut broken = Vec::new();
    let third_body = json!({"holdId": "third-hold", "seats": [SEAT]});
    match answer.status {
        201 => {
            let body_time = answer.body["serverTime"].as_i64().context("the late hold's serverTime")?;
            if answer.server_time != Some(body_time) {
                broken.push(format!("X-Server-Time {:?} differs from serverTime {body_time}", answer.server_time));
            }
            if body_time < released_at {
                broken.push(format!(
                    "the late hold was decided at {body_time}, before the release it came after ({released_at}): \
                     when its headers came, not at the writer's instant"
                ));
            }
            let expires = answer.body["expiresAt"].as_i64().context("the late hold's expiresAt")?;
            if expires < released_at + hold_ms {
                broken.push(format!("its deadline {expires} counts from before the release ({released_at})"));
            }
            if answer.body["status"] != "HELD" {
                broken.push(format!("the granted hold is {}", answer.body["status"]));
            }

            // Nobody else gets the seat now, and the map shows it held.
            let refused = api.call(Method::POST, &holds_path, Some(&third), Some(&third_body)).await;
            let refusal = (refused.status, refused.body["error"].clone(), refused.body["seats"].clone());
            if refusal != (409, json!("seats_taken"), json!([SEAT])) {
                broken.push(format!("a third customer's hold on {SEAT} was not refused seats_taken: {refused:?}"));
            }
            let map = server.seat_facts(THEATRE).await?;
            let now = map["serverTime"].as_i64().context("the map's serverTime")?;
            let seat = map["seats"].as_array().and_then(|s| s.iter().find(|s| s["id"] == SEAT)).context(SEAT)?;
            if seat["holdExpiresAt"].as_i64().is_none_or(|at| at <= now) {
                broken.push(format!("the seat map does not show {SEAT} held at {now}: {seat}"));
            } else if seat["holdExpiresAt"].as_i64() != Some(expires) {
                broken.push(format!("the seat map's deadline is not the late hold's ({expires}): {seat}"));
            }
        }
        // The only other acceptable answer: the server refused a body that late.
        408 if answer.body["error"] == "request_timeout" => {
            let third_hold = api.call(Method::POST, &holds_path, Some(&third), Some(&third_body)).await;
            if third_hold.status != 201 {
                broken.push(format!("the seat is free, yet a third customer's hold got {third_hold:?}"));
            }
        }
        _ => broken.push("the seat was free when the body came, yet it was not granted".to_owned()),
    }

    // In no case two holds HELD on the seat at once.
    let mut holding = Vec::new();
    for (token, hold) in [(&late, "late-body-hold"), (&other, "other-hold"), (&third, "third-hold")] {
        let read = api.call(Method::GET, &format!("/api/holds/{hold}"), Some(token), None).await;
        if read.body["status"] == "HELD" {
            holding.push(hold);
        }
    }
    if holding.len() > 1 {
        broken.push(format!("{SEAT} is HELD by {holding:?} at once"));
    } else if answer.status == 201 && holding != ["late-body-hold"] {
        broken.push(format!("the granted late hold does not hold {SEAT}; HELD: {holding:?}"));
    }
    assert!(broken.is_empty(), "the late hold answered {answer:?}:\n{}\n{}", broken.join("\n"), server.log());
    Ok(())
}
