//! One customer's live stream (`GET …/events?format=compact` or
//! `?only=taken`, or a waiting room's `…/queue/events`), kept open until
//! the storm ends. 10,000 of them share the generator's cores with the
//! server, so each is a plain socket read into one scratch buffer per
//! thread: no buffer per stream, and a stream that falls behind catches up
//! in one read. Most seat streams only count their bytes; a sample (every
//! `sample_every`-th customer) also parses its events as the web app does
//! (API.md "Live changes (v4)"): it keeps the seat map (`viewer.rs`), checks
//! that each `change` follows what it has (`since` at most its version; ids
//! may skip), and notes each frame's arrival and every seat it lists, or
//! each `progress` event, for the fan-out figures.

use std::cell::RefCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use seat_state::wire::SeatOrder;
use serde_json::Value;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;
use tokio::sync::{oneshot, watch};

use super::viewer::{Arrival, Form, Kind, ViewerMap};
use crate::http::authority;

thread_local! {
    static SCRATCH: RefCell<Vec<u8>> = RefCell::new(vec![0; 256 * 1024]);
}

/// What a stream is asked to do.
pub struct Ask {
    pub base: String,
    pub path: String,
    /// The session's token, sent as its cookie; empty: a viewer without one.
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
    /// Set when the storm is over: bytes read after it are not the storm's.
    pub storm_over: Arc<AtomicBool>,
}

/// What a sample stream notes of the events it parses.
#[derive(Clone)]
pub enum Watch {
    /// A show's seat changes, in `form`, decoded with the show's seat order.
    Seats { order: Arc<SeatOrder>, form: Form },
    /// A waiting room's `progress` events.
    Progress,
}

/// This machine's wall clock against `Instant`s: the server's `serverTime`
/// and a receipt are read on one clock (same machine).
#[derive(Debug, Clone, Copy)]
pub struct WallClock {
    instant: Instant,
    unix_ms: f64,
}

impl WallClock {
    pub fn now() -> Self {
        let unix_ms = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default().as_secs_f64() * 1000.0;
        Self { instant: Instant::now(), unix_ms }
    }

    /// `at` in Unix milliseconds.
    pub fn ms(&self, at: Instant) -> f64 {
        match at.checked_duration_since(self.instant) {
            Some(after) => self.unix_ms + after.as_secs_f64() * 1000.0,
            None => self.unix_ms - self.instant.duration_since(at).as_secs_f64() * 1000.0,
        }
    }
}

/// An event a sample seat stream applied: a `change`, or a `snapshot` after
/// the first (the server found the stream too far behind).
#[derive(Debug, Clone, Copy)]
pub struct Frame {
    /// When the read that completed it returned.
    pub at: Instant,
    /// The event's `serverTime`: its newest change's.
    pub server_time: i64,
    /// Seats it listed (a snapshot: seats that differed from the map).
    pub seats: u32,
    pub snapshot: bool,
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
    /// Of those, the bytes read before the storm was over.
    pub storm_bytes: u64,
    /// The server closed it, or it failed, before the storm ended.
    pub lost: Option<String>,
    /// Where it was opened (the process its map is audited against).
    pub base: String,
    /// Sample seat streams: every `change` (and later `snapshot`) applied.
    pub frames: Vec<Frame>,
    /// Sample seat streams: each seat a frame listed, in the state it came
    /// in (a later snapshot: each seat it changed).
    pub arrivals: Vec<Arrival>,
    /// Sample seat streams: the map as the events left it.
    pub map: Option<ViewerMap>,
    /// The first snapshot's data, bytes.
    pub snapshot_bytes: usize,
    /// Events that did not follow what the stream had (a `since` above its
    /// version, an id at or below it, an id that is not the data's version):
    /// how many, and the first few.
    pub faults: u64,
    pub fault_notes: Vec<String>,
    /// Snapshots after the first: the server found the stream too far behind.
    pub resnapshots: u32,
    /// Sample streams of a waiting room: every `progress` event, in order.
    pub progress: Vec<Progress>,
}

impl Seen {
    fn fault(&mut self, note: String) {
        self.faults += 1;
        if self.fault_notes.len() < 3 {
            self.fault_notes.push(note);
        }
    }
}

/// Opens the stream; the status arrives on the first receiver once the head
/// has, the rest when it ends.
pub fn open(ask: Ask) -> (oneshot::Receiver<anyhow::Result<u16>>, tokio::task::JoinHandle<Seen>) {
    let (head_sender, head) = oneshot::channel();
    let task = tokio::spawn(async move {
        let base = if ask.sample { ask.base.clone() } else { String::new() };
        let mut seen = Seen { sample: ask.sample, base, ..Seen::default() };
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
    // A viewer without a session (an empty token) sends no cookie.
    let cookie =
        if ask.token.is_empty() { String::new() } else { format!("Cookie: seathold_session={}\r\n", ask.token) };
    let request = format!(
        "GET {} HTTP/1.1\r\nHost: {authority}\r\nAccept: text/event-stream\r\nCache-Control: no-cache\r\n\
         {cookie}{encoding}\r\n",
        ask.path
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
                let noted = seen.arrivals.len() + seen.frames.len() + seen.progress.len();
                events.take(&ask.watch, seen)?;
                let added = seen.arrivals.len() + seen.frames.len() + seen.progress.len() - noted;
                ask.arrivals.fetch_add(added as u64, Ordering::Relaxed);
            }
            Ok(Some(n))
        })?;
        match read {
            Some(0) => anyhow::bail!("the server closed the stream"),
            Some(n) => {
                seen.bytes += n as u64;
                if !ask.storm_over.load(Ordering::Relaxed) {
                    seen.storm_bytes += n as u64;
                }
            }
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
            let event = &self.text[at..at + end];
            at += end + 2;
            let (mut kind, mut id, mut data): (&[u8], &[u8], &[u8]) = (b"", b"", b"");
            for line in event.split(|&b| b == b'\n') {
                if let Some(value) = line.strip_prefix(b"event:") {
                    kind = value.trim_ascii();
                } else if let Some(value) = line.strip_prefix(b"id:") {
                    id = value.trim_ascii();
                } else if let Some(value) = line.strip_prefix(b"data:") {
                    data = value.trim_ascii();
                }
            }
            match watch {
                Watch::Seats { order, form } => {
                    let id = std::str::from_utf8(id).ok().and_then(|id| id.parse::<i64>().ok());
                    match kind {
                        b"snapshot" => snapshot(data, id, order, *form, now, seen)?,
                        b"change" => change(data, id, order, *form, now, seen)?,
                        _ => {}
                    }
                }
                Watch::Progress => {
                    if kind == b"progress" {
                        let body: Value = serde_json::from_slice(data)?;
                        let server_time = body["serverTime"].as_i64().unwrap_or_default();
                        let admitted_through = body["admittedThrough"].as_u64().unwrap_or_default();
                        seen.progress.push(Progress { server_time, admitted_through, at: now });
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

/// A `snapshot`: the stream's start, or (later) the newest map standing
/// in for the changes the stream fell behind on: each seat it changes
/// arrives with it.
fn snapshot(
    data: &[u8],
    id: Option<i64>,
    order: &SeatOrder,
    form: Form,
    now: Instant,
    seen: &mut Seen,
) -> anyhow::Result<()> {
    let map = form.seat_map(data, order)?;
    let fresh = ViewerMap::of_map(&map, order)?;
    if id != Some(map.version) {
        seen.fault(format!("a snapshot with id {id:?} and version {}", map.version));
    }
    match seen.map.take() {
        None => seen.snapshot_bytes = data.len(),
        Some(old) => {
            seen.resnapshots += 1;
            let frame = seen.frames.len();
            let before = seen.arrivals.len();
            seen.arrivals.extend(old.differing(&fresh).map(|at| Arrival::new(at as u32, fresh.kind(at), frame)));
            let seats = u32::try_from(seen.arrivals.len() - before).unwrap_or(u32::MAX);
            seen.frames.push(Frame { at: now, server_time: map.server_time, seats, snapshot: true });
        }
    }
    seen.map = Some(fresh);
    Ok(())
}

/// A `change`: applied when it follows the map's version (its `since` at
/// most the version; its id, the newest change it carries, above it).
fn change(
    data: &[u8],
    id: Option<i64>,
    order: &SeatOrder,
    form: Form,
    now: Instant,
    seen: &mut Seen,
) -> anyhow::Result<()> {
    let change = form.change(data, order)?;
    if id != Some(change.version) {
        seen.fault(format!("a change with id {id:?} and version {}", change.version));
    }
    let Some(last) = seen.map.as_ref().map(|map| map.version) else {
        seen.fault(format!("a change to v{} before any snapshot", change.version));
        return Ok(());
    };
    if change.version <= last {
        seen.fault(format!("a change to v{} after v{last}", change.version));
        return Ok(());
    }
    if change.follows() > last {
        // A gap: applied all the same (the audit shows what it cost).
        seen.fault(format!("a change ({}, {}] after v{last}: a gap", change.follows(), change.version));
    }
    let frame = seen.frames.len();
    let Some(map) = seen.map.as_mut() else { return Ok(()) };
    for fact in &change.seats {
        let at = map.set(fact, order)?;
        seen.arrivals.push(Arrival::new(at, map.kind(at as usize), frame));
    }
    for area in &change.areas {
        map.set_area(area);
    }
    map.version = change.version;
    let seats = u32::try_from(change.seats.len()).unwrap_or(u32::MAX);
    seen.frames.push(Frame { at: now, server_time: change.server_time, seats, snapshot: false });
    Ok(())
}

/// The state a change of `kind` shows a viewer (a hold may arrive already
/// sold, when its confirm came in the same tick).
pub fn shows(kind: Kind, arrived: Kind) -> bool {
    kind == arrived || (kind == Kind::Held && arrived == Kind::Sold)
}
