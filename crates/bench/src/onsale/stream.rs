//! One customer's live stream (`GET …/events?only=taken`, or a waiting
//! room's `…/queue/events`), kept open until the storm ends. 10,000 of them
//! share the generator's cores with the server, so each is a plain socket
//! read into one scratch buffer per thread: no buffer per stream, and a
//! stream that falls behind catches up in one read. Most seat streams only
//! count their bytes; a sample (every `sample_every`-th customer) also
//! parses its events and notes when each seat's change arrived, or each
//! `progress` event, for the fan-out figures.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Instant;

use serde_json::Value;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;
use tokio::sync::{oneshot, watch};

use crate::http::authority;

thread_local! {
    static SCRATCH: RefCell<Vec<u8>> = RefCell::new(vec![0; 256 * 1024]);
}

/// What a stream is asked to do.
pub struct Ask {
    pub base: String,
    pub path: String,
    pub token: String,
    /// Parse events and note arrivals (read without compression, to parse).
    pub sample: bool,
    /// What a sample stream notes.
    pub watch: Watch,
    pub stop: watch::Receiver<bool>,
    /// Streams whose answer head has arrived (200) and that are still open.
    pub open: Arc<AtomicUsize>,
    /// Arrivals noted by every sample stream: the storm waits until they stop.
    pub arrivals: Arc<AtomicU64>,
}

/// What a sample stream notes of the events it parses.
#[derive(Clone)]
pub enum Watch {
    /// A show's seat changes: seat id → index, for compact arrival notes.
    Seats(Arc<HashMap<String, u32>>),
    /// A waiting room's `progress` events.
    Progress,
}

/// A `progress` event as one stream received it.
#[derive(Debug, Clone, Copy)]
pub struct Progress {
    pub server_time: i64,
    pub admitted_through: u64,
    pub at: Instant,
}

/// What a stream saw, once the storm stopped it (or the server closed it).
#[derive(Debug, Default)]
pub struct Seen {
    pub sample: bool,
    /// When its `200` head arrived.
    pub opened: Option<Instant>,
    /// Every byte the server sent: head, framing, events.
    pub bytes: u64,
    /// The server closed it, or it failed, before the storm ended.
    pub lost: Option<String>,
    /// Sample streams: each seat listed in a `change` (or a later
    /// `snapshot`, after falling behind), with when it arrived.
    pub arrivals: Vec<(u32, Instant)>,
    /// Snapshots after the first: the server found the stream too far behind.
    pub resnapshots: u32,
    /// Sample streams of a waiting room: every `progress` event, in order.
    pub progress: Vec<Progress>,
}

/// Opens the stream; the status arrives on the first receiver once the head
/// has, the rest when it ends.
pub fn open(ask: Ask) -> (oneshot::Receiver<anyhow::Result<u16>>, tokio::task::JoinHandle<Seen>) {
    let (head_sender, head) = oneshot::channel();
    let task = tokio::spawn(async move {
        let mut seen = Seen { sample: ask.sample, ..Seen::default() };
        let mut head_sender = Some(head_sender);
        let outcome = follow(&ask, &mut seen, &mut head_sender).await;
        if seen.opened.is_some() {
            ask.open.fetch_sub(1, Ordering::Relaxed);
        }
        if let Err(error) = outcome {
            match head_sender.take() {
                Some(sender) => drop(sender.send(Err(error))),
                None => seen.lost = Some(error.to_string()),
            }
        }
        seen
    });
    (head, task)
}

async fn follow(
    ask: &Ask,
    seen: &mut Seen,
    head_sender: &mut Option<oneshot::Sender<anyhow::Result<u16>>>,
) -> anyhow::Result<()> {
    let authority = authority(&ask.base)?;
    let mut socket = TcpStream::connect(authority).await?;
    socket.set_nodelay(true)?;
    // As a browser's EventSource asks: the session cookie, and (outside the
    // sample, which must parse what it reads) compression.
    let encoding = if ask.sample { "" } else { "Accept-Encoding: br, gzip\r\n" };
    let request = format!(
        "GET {} HTTP/1.1\r\nHost: {authority}\r\nAccept: text/event-stream\r\nCache-Control: no-cache\r\n\
         Cookie: seathold_session={}\r\n{encoding}\r\n",
        ask.path, ask.token
    );
    socket.write_all(request.as_bytes()).await?;
    let mut stop = ask.stop.clone();
    let mut head = Vec::new();
    let mut events = ask.sample.then(Events::default);
    loop {
        tokio::select! {
            biased;
            _ = stop.wait_for(|stop| *stop) => return Ok(()),
            readable = socket.readable() => readable?,
        }
        let read = SCRATCH.with(|scratch| -> anyhow::Result<Option<usize>> {
            let mut scratch = scratch.borrow_mut();
            let n = match socket.try_read(&mut scratch) {
                Ok(n) => n,
                Err(error) if error.kind() == std::io::ErrorKind::WouldBlock => return Ok(None),
                Err(error) => return Err(error.into()),
            };
            let mut data = &scratch[..n];
            if seen.opened.is_none() {
                head.extend_from_slice(data);
                let Some(end) = find(&head, b"\r\n\r\n") else { return Ok(Some(n)) };
                let status = status_of(&head[..end])?;
                seen.opened = Some(Instant::now());
                ask.open.fetch_add(1, Ordering::Relaxed);
                if let Some(sender) = head_sender.take() {
                    drop(sender.send(Ok(status)));
                }
                anyhow::ensure!(status == 200, "status {status}");
                if let Some(events) = events.as_mut() {
                    let headers = String::from_utf8_lossy(&head[..end]).to_ascii_lowercase();
                    anyhow::ensure!(!headers.contains("content-encoding:"), "compressed though not asked to");
                    events.chunked = headers.contains("transfer-encoding: chunked");
                    events.raw.extend_from_slice(&head[end + 4..]);
                }
                head = Vec::new();
                data = &[];
            }
            if let Some(events) = events.as_mut() {
                events.raw.extend_from_slice(data);
                let noted = seen.arrivals.len() + seen.progress.len();
                events.take(&ask.watch, seen)?;
                let added = seen.arrivals.len() + seen.progress.len() - noted;
                ask.arrivals.fetch_add(added as u64, Ordering::Relaxed);
            }
            Ok(Some(n))
        })?;
        match read {
            Some(0) => anyhow::bail!("the server closed the stream"),
            Some(n) => seen.bytes += n as u64,
            None => {}
        }
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|window| window == needle)
}

/// The status code of `HTTP/1.1 200 OK…`.
fn status_of(head: &[u8]) -> anyhow::Result<u16> {
    let line = head.split(|&b| b == b'\r').next().unwrap_or_default();
    let text = std::str::from_utf8(line)?;
    text.split(' ').nth(1).and_then(|code| code.parse().ok()).ok_or_else(|| anyhow::anyhow!("no status in {text:?}"))
}

/// A sample stream's parse state: chunked framing, then events.
#[derive(Default)]
struct Events {
    chunked: bool,
    raw: Vec<u8>,
    text: Vec<u8>,
    snapshots: u32,
}

impl Events {
    /// Takes every complete event out of what has arrived.
    fn take(&mut self, watch: &Watch, seen: &mut Seen) -> anyhow::Result<()> {
        if self.chunked {
            self.dechunk()?;
        } else {
            self.text.append(&mut self.raw);
        }
        let now = Instant::now();
        let mut at = 0;
        while let Some(end) = find(&self.text[at..], b"\n\n") {
            let event = std::str::from_utf8(&self.text[at..at + end])?;
            at += end + 2;
            let (mut kind, mut data) = ("", "");
            for line in event.lines() {
                if let Some(value) = line.strip_prefix("event:") {
                    kind = value.trim();
                } else if let Some(value) = line.strip_prefix("data:") {
                    data = value.trim();
                }
            }
            let seats = match watch {
                Watch::Seats(seats) => seats,
                Watch::Progress => {
                    if kind == "progress" {
                        let body: Value = serde_json::from_str(data)?;
                        let server_time = body["serverTime"].as_i64().unwrap_or_default();
                        let admitted_through = body["admittedThrough"].as_u64().unwrap_or_default();
                        seen.progress.push(Progress { server_time, admitted_through, at: now });
                    }
                    continue;
                }
            };
            let is_change = match kind {
                "change" => true,
                "snapshot" => {
                    self.snapshots += 1;
                    seen.resnapshots = self.snapshots.saturating_sub(1);
                    // The first snapshot is the stream's start; a later one
                    // stands in for the changes the stream fell behind on.
                    self.snapshots > 1
                }
                _ => false,
            };
            if is_change {
                let body: Value = serde_json::from_str(data)?;
                for seat in body["seats"].as_array().into_iter().flatten() {
                    if let Some(index) = seat["id"].as_str().and_then(|id| seats.get(id)) {
                        seen.arrivals.push((*index, now));
                    }
                }
            }
        }
        self.text.drain(..at);
        Ok(())
    }

    /// Moves every complete chunk's data from `raw` to `text`.
    fn dechunk(&mut self) -> anyhow::Result<()> {
        let mut at = 0;
        while let Some(line) = find(&self.raw[at..], b"\r\n") {
            let size_text = std::str::from_utf8(&self.raw[at..at + line])?;
            let size = usize::from_str_radix(size_text.split(';').next().unwrap_or_default().trim(), 16)?;
            let data = at + line + 2;
            if self.raw.len() < data + size + 2 {
                break;
            }
            self.text.extend_from_slice(&self.raw[data..data + size]);
            at = data + size + 2;
        }
        self.raw.drain(..at);
        Ok(())
    }
}
