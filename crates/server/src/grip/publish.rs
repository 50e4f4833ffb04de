//! Every show's frames, published to each GRIP proxy: the core's
//! `FrameSink`, fed by the show hubs.
//!
//! A frame becomes one item per form (the JSON channel, which `only=taken`
//! viewers share, and the compact one), with the frame's version as the
//! item's `id` and the version it follows as `prev-id`: a proxy that missed
//! an item sees the next one does not follow what its viewer has and asks
//! the stream's `Grip-Link` for what is missing. Items wait in a bounded
//! queue per proxy and go in order, many to a request
//! (`POST <proxy>/publish/`); a failed request is retried with back-off,
//! then its items are dropped (counted), as are items that find the queue
//! full. A hub never waits for a proxy.

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Bytes;
use serde::Serialize;
use tokio::sync::mpsc;

use seathold_core::engine::events::{Frame, FrameSink};

use super::Naming;
use super::metrics::{Dropped, GripMetrics};

/// Items waiting for one proxy: a burst of ticks across many shows.
const QUEUE: usize = 4096;
/// Items in one publish request.
const BATCH: usize = 256;
/// A failed request is tried again after this, doubling each time.
const FIRST_RETRY: Duration = Duration::from_millis(50);
/// Tries per request before its items are dropped: 50 ms … 3.2 s apart,
/// about 6 s in all (a proxy restarting), while later items queue.
const ATTEMPTS: u32 = 8;
/// The longest one request may take.
const TIMEOUT: Duration = Duration::from_secs(5);
/// The `prev-id` of the item a hub sends when it starts: no version is
/// this, so every viewer the proxy holds asks for what it lacks.
pub const START: &str = "start";

/// One publish item, as GRIP's publish API takes it.
#[derive(Debug, Clone)]
struct Item {
    channel: String,
    id: i64,
    prev_id: Option<i64>,
    content: Bytes,
}

/// The publisher: a queue per proxy, each emptied by a task of its own.
pub struct Publisher {
    proxies: Vec<mpsc::Sender<Item>>,
    naming: Naming,
    metrics: Arc<GripMetrics>,
}

/// `http://host:5561` → `http://host:5561/publish/` (a URL that already
/// ends in `/publish` or `/publish/` stays).
pub fn endpoint(url: &str) -> String {
    let base = url.trim_end_matches('/');
    if base.ends_with("/publish") { format!("{base}/") } else { format!("{base}/publish/") }
}

impl Publisher {
    /// Starts one task per proxy (`urls`: each proxy's publish API).
    pub fn start(urls: &[String], naming: Naming, metrics: Arc<GripMetrics>) -> Arc<Self> {
        let client = reqwest::Client::builder().timeout(TIMEOUT).build().unwrap_or_default();
        let proxies = urls
            .iter()
            .map(|url| {
                let (sender, queue) = mpsc::channel(QUEUE);
                tokio::spawn(run(endpoint(url), queue, client.clone(), Arc::clone(&metrics)));
                sender
            })
            .collect();
        Arc::new(Self { proxies, naming, metrics })
    }

    fn offer(&self, items: [Item; 2]) {
        for proxy in &self.proxies {
            for item in &items {
                if proxy.try_send(item.clone()).is_err() {
                    // Full (or the task ended with the runtime): dropped, never waited for.
                    self.metrics.dropped.get_or_create(&Dropped { reason: "full" }).inc();
                }
            }
        }
    }
}

impl FrameSink for Publisher {
    fn started(&self, show_id: &str, version: i64) {
        // Empty content: a held viewer only learns that it must ask.
        let item = |compact| Item {
            channel: self.naming.channel(show_id, compact),
            id: version,
            prev_id: None,
            content: Bytes::new(),
        };
        self.offer([item(false), item(true)]);
    }

    fn frame(&self, show_id: &str, frame: &Arc<Frame>) {
        let item = |compact| Item {
            channel: self.naming.channel(show_id, compact),
            id: frame.version,
            prev_id: Some(frame.since),
            content: frame.bytes(compact),
        };
        self.offer([item(false), item(true)]);
    }
}

/// The publish API's body.
#[derive(Serialize)]
struct Body<'a> {
    items: Vec<Wire<'a>>,
}

#[derive(Serialize)]
struct Wire<'a> {
    channel: &'a str,
    id: String,
    #[serde(rename = "prev-id")]
    prev_id: String,
    formats: Formats<'a>,
}

#[derive(Serialize)]
struct Formats<'a> {
    #[serde(rename = "http-stream")]
    http_stream: Content<'a>,
}

#[derive(Serialize)]
struct Content<'a> {
    content: std::borrow::Cow<'a, str>,
}

fn encode(items: &[Item]) -> Vec<u8> {
    let items = items
        .iter()
        .map(|item| Wire {
            channel: &item.channel,
            id: item.id.to_string(),
            prev_id: item.prev_id.map_or_else(|| START.to_owned(), |since| since.to_string()),
            // Frames are event-stream text: UTF-8.
            formats: Formats { http_stream: Content { content: String::from_utf8_lossy(&item.content) } },
        })
        .collect();
    serde_json::to_vec(&Body { items }).unwrap_or_default()
}

/// Empties one proxy's queue, in order, many items to a request.
async fn run(endpoint: String, mut queue: mpsc::Receiver<Item>, client: reqwest::Client, metrics: Arc<GripMetrics>) {
    let mut batch = Vec::with_capacity(BATCH);
    while queue.recv_many(&mut batch, BATCH).await > 0 {
        let body = Bytes::from(encode(&batch));
        let count = batch.len() as u64;
        let mut wait = FIRST_RETRY;
        let mut last_error = String::new();
        let mut published = false;
        for _ in 0..ATTEMPTS {
            let started = Instant::now();
            let sent = client
                .post(&endpoint)
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                .body(body.clone())
                .send()
                .await;
            match sent {
                Ok(answer) if answer.status().is_success() => {
                    metrics.duration.observe(started.elapsed().as_secs_f64());
                    metrics.published.inc_by(count);
                    published = true;
                    break;
                }
                Ok(answer) => last_error = format!("status {}", answer.status()),
                Err(error) => last_error = error.to_string(),
            }
            metrics.failed_attempts.inc();
            tracing::debug!(endpoint, error = last_error, "a GRIP publish failed; retrying");
            tokio::time::sleep(wait).await;
            wait *= 2;
        }
        if !published {
            metrics.dropped.get_or_create(&Dropped { reason: "failed" }).inc_by(count);
            tracing::warn!(
                endpoint,
                items = count,
                error = last_error,
                "GRIP publish items dropped after {ATTEMPTS} attempts"
            );
        }
        batch.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_endpoint_is_the_proxys_publish_path() {
        assert_eq!(endpoint("http://127.0.0.1:5561"), "http://127.0.0.1:5561/publish/");
        assert_eq!(endpoint("http://127.0.0.1:5561/"), "http://127.0.0.1:5561/publish/");
        assert_eq!(endpoint("http://127.0.0.1:5561/publish"), "http://127.0.0.1:5561/publish/");
        assert_eq!(endpoint("http://h/publish/"), "http://h/publish/");
    }

    #[test]
    fn items_are_written_as_grips_publish_api_takes_them() {
        let items = [
            Item {
                channel: "show-x".into(),
                id: 9,
                prev_id: Some(7),
                content: Bytes::from_static(b"event: change\nid: 9\n\n"),
            },
            Item { channel: "show-x.compact".into(), id: 5, prev_id: None, content: Bytes::new() },
        ];
        let body: serde_json::Value = serde_json::from_slice(&encode(&items)).unwrap();
        assert_eq!(
            body,
            serde_json::json!({"items": [
                {"channel": "show-x", "id": "9", "prev-id": "7", "formats": {"http-stream": {"content": "event: change\nid: 9\n\n"}}},
                {"channel": "show-x.compact", "id": "5", "prev-id": "start", "formats": {"http-stream": {"content": ""}}},
            ]})
        );
    }
}
