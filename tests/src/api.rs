//! A JSON client for one server's API, and its live event stream, for
//! tests that speak HTTP to several processes.

use std::time::Instant;

use anyhow::Context;
use reqwest::Method;
use serde_json::Value;

use crate::{PATIENCE, Server};

/// One answer: status, `X-Server-Time` and the JSON body (`Null` when none).
#[derive(Debug, Clone)]
pub struct Answer {
    pub status: u16,
    pub server_time: Option<i64>,
    pub body: Value,
}

/// Seats A1..A{count} in row A of the stalls, 40 map units apart.
pub fn one_row(count: usize) -> Vec<Value> {
    (1..=count)
        .map(|n| serde_json::json!({"id": format!("A{n}"), "x": n * 40, "y": 40, "section": "Stalls", "row": "A", "number": n}))
        .collect()
}

impl Answer {
    /// The body's integer field `name`, or a failure naming the answer.
    pub fn int(&self, name: &str) -> anyhow::Result<i64> {
        self.body[name].as_i64().with_context(|| format!("no integer {name:?} in {self:?}"))
    }

    /// Fails, naming `what`, unless the status is `status` and (for a body
    /// with `serverTime`: every one but a show's definition, API.md
    /// "On-sale (v3)") `X-Server-Time` equals `serverTime`.
    pub fn expect(&self, status: u16, what: &str) -> anyhow::Result<()> {
        anyhow::ensure!(self.status == status, "{what}: expected {status}, got {self:?}");
        let definition = self.body.get("serverTime").is_none() && self.body.get("holdSeconds").is_some();
        anyhow::ensure!(
            self.body.is_null()
                || self.server_time.is_some() && (definition || self.server_time == self.body["serverTime"].as_i64()),
            "{what}: X-Server-Time differs from serverTime: {self:?}"
        );
        Ok(())
    }

    /// Fails, naming `what`, unless this is the error `code` with `status`.
    pub fn expect_error(&self, status: u16, code: &str, what: &str) -> anyhow::Result<()> {
        anyhow::ensure!(
            self.status == status && self.body["error"] == code,
            "{what}: expected {status} {code}, got {self:?}"
        );
        Ok(())
    }

    /// One seat of a seat-map body.
    pub fn seat(&self, id: &str) -> anyhow::Result<&Value> {
        self.body["seats"].as_array().and_then(|seats| seats.iter().find(|s| s["id"] == id)).with_context(|| {
            format!("seat {id} is not in the map: {}", self.body.to_string().chars().take(300).collect::<String>())
        })
    }

    /// Whether a seat of a seat-map body is free at the map's own instant.
    pub fn seat_is_free(&self, id: &str) -> anyhow::Result<bool> {
        let (seat, now) = (self.seat(id)?, self.int("serverTime")?);
        Ok(seat["sold"] == false && seat["holdExpiresAt"].as_i64().is_none_or(|at| at <= now))
    }
}

/// One server's API.
#[derive(Debug, Clone)]
pub struct Api {
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    /// Names the process in failure messages: "A", "B".
    pub name: String,
    client: reqwest::Client,
}

impl Api {
    /// Requests give up after `PATIENCE` (a hung server fails the test).
    pub fn new(server: &Server, name: &str) -> Self {
        Self::at(&server.base_url, name)
    }

    /// The API at `base` (e.g. a proxy in front of a server).
    pub fn at(base: &str, name: &str) -> Self {
        let client = reqwest::Client::builder().timeout(PATIENCE).build().unwrap_or_default();
        Self { base: base.to_owned(), name: name.to_owned(), client }
    }

    /// `METHOD path` with an optional session and JSON body. An error means
    /// no answer came (the connection failed), never a status.
    pub async fn call(
        &self,
        method: Method,
        path: &str,
        token: Option<&str>,
        body: Option<&Value>,
    ) -> anyhow::Result<Answer> {
        let mut request = self.client.request(method.clone(), format!("{}{path}", self.base));
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        if let Some(body) = body {
            request = request.json(body);
        }
        let response = request.send().await.with_context(|| format!("{method} {path} on {}", self.name))?;
        let status = response.status().as_u16();
        let server_time = response.headers().get("x-server-time").and_then(|v| v.to_str().ok()?.trim().parse().ok());
        let text = response.text().await.with_context(|| format!("{method} {path} on {}: the body", self.name))?;
        let body =
            if text.is_empty() { Value::Null } else { serde_json::from_str(&text).unwrap_or(Value::String(text)) };
        Ok(Answer { status, server_time, body })
    }

    pub async fn get(&self, path: &str, token: Option<&str>) -> anyhow::Result<Answer> {
        self.call(Method::GET, path, token, None).await
    }

    pub async fn post(&self, path: &str, token: Option<&str>, body: Option<&Value>) -> anyhow::Result<Answer> {
        self.call(Method::POST, path, token, body).await
    }

    /// The seat order of `show`'s definition, which compact frames and
    /// `?only=taken` snapshots are read with.
    pub async fn seat_order(&self, show: &str) -> anyhow::Result<seat_state::wire::SeatOrder> {
        let definition: seat_state::wire::ShowDocument =
            serde_json::from_value(self.get(&format!("/api/shows/{show}"), None).await?.body)?;
        Ok(seat_state::wire::SeatOrder::of_document(&definition))
    }

    /// A new session's token, made on this process.
    pub async fn session(&self) -> anyhow::Result<String> {
        let answer = self.post("/api/sessions", None, None).await?;
        anyhow::ensure!(answer.status == 201, "a session on {}: {answer:?}", self.name);
        Ok(answer.body["token"].as_str().context("a session token")?.to_owned())
    }

    /// Opens `GET /api/shows/{show}/events` (without a session).
    pub async fn events(&self, show: &str) -> anyhow::Result<EventStream> {
        self.events_after(show, None).await
    }

    /// The same, resuming with `Last-Event-ID: after` when given.
    pub async fn events_after(&self, show: &str, after: Option<i64>) -> anyhow::Result<EventStream> {
        self.events_with(show, "", after).await
    }

    /// The same with a query (`"?format=compact"`, or `""`).
    pub async fn events_with(&self, show: &str, query: &str, after: Option<i64>) -> anyhow::Result<EventStream> {
        // No timeout: a stream lives as long as its reader wants.
        let mut request = reqwest::Client::new()
            .get(format!("{}/api/shows/{show}/events{query}", self.base))
            .header("accept", "text/event-stream");
        if let Some(after) = after {
            request = request.header("last-event-id", after.to_string());
        }
        let response = request.send().await.with_context(|| format!("the event stream of {show} on {}", self.name))?;
        anyhow::ensure!(response.status() == 200, "the event stream of {show} on {}: {}", self.name, response.status());
        Ok(EventStream { response, buffer: Vec::new(), scanned: 0 })
    }
}

/// One server-sent event, stamped when its last line arrived.
#[derive(Debug, Clone)]
pub struct Event {
    /// `snapshot`, `change`, … (`message` when the event names none).
    pub kind: String,
    pub id: Option<String>,
    pub data: Value,
    pub arrived: Instant,
}

/// A live `text/event-stream`, read chunk by chunk.
pub struct EventStream {
    response: reqwest::Response,
    /// Bytes received and not yet parsed (a chunk may end mid-character).
    buffer: Vec<u8>,
    /// How much of `buffer` is known to hold no blank line.
    scanned: usize,
}

impl EventStream {
    /// The stream of an answer the caller opened itself.
    pub fn from_response(response: reqwest::Response) -> Self {
        Self { response, buffer: Vec::new(), scanned: 0 }
    }

    /// Reads the stream on a task of its own, so events are taken (and can be
    /// stamped) as they arrive: the receiver, and the task (its error, if any).
    pub fn forward(
        mut self,
    ) -> (tokio::sync::mpsc::UnboundedReceiver<Event>, tokio::task::JoinHandle<anyhow::Result<()>>) {
        let (sender, events) = tokio::sync::mpsc::unbounded_channel::<Event>();
        let reader = tokio::spawn(async move {
            while let Some(event) = self.next().await? {
                if sender.send(event).is_err() {
                    break;
                }
            }
            anyhow::Ok(())
        });
        (events, reader)
    }

    /// The next event (comment lines skipped); `None` when the stream ends.
    pub async fn next(&mut self) -> anyhow::Result<Option<Event>> {
        loop {
            let from = self.scanned.saturating_sub(1);
            if let Some(end) = self.buffer[from..].windows(2).position(|pair| pair == b"\n\n").map(|at| from + at) {
                let block: Vec<u8> = self.buffer.drain(..end + 2).collect();
                self.scanned = 0;
                if let Some(event) = parse_event(std::str::from_utf8(&block).context("a UTF-8 event")?)? {
                    return Ok(Some(event));
                }
                continue;
            }
            self.scanned = self.buffer.len();
            match self.response.chunk().await.context("reading the event stream")? {
                Some(chunk) => self.buffer.extend(chunk.iter().copied().filter(|&byte| byte != b'\r')),
                None => return Ok(None),
            }
        }
    }
}

/// One event block's `event:`, `id:` and `data:` lines; `None` for a block
/// of comments only (keep-alives).
fn parse_event(block: &str) -> anyhow::Result<Option<Event>> {
    let (mut kind, mut id, mut data) = (None, None, Vec::new());
    for line in block.lines() {
        let (field, value) = line.split_once(':').unwrap_or((line, ""));
        let value = value.strip_prefix(' ').unwrap_or(value);
        match field {
            "" => {}
            "event" => kind = Some(value.to_owned()),
            "id" => id = Some(value.to_owned()),
            "data" => data.push(value),
            _ => {}
        }
    }
    if kind.is_none() && id.is_none() && data.is_empty() {
        return Ok(None);
    }
    let data = data.join("\n");
    let data = serde_json::from_str(&data).with_context(|| format!("an event's data is not JSON: {data:?}"))?;
    Ok(Some(Event { kind: kind.unwrap_or_else(|| "message".to_owned()), id, data, arrived: Instant::now() }))
}
