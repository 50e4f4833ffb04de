//! A show's live changes (API.md "Live changes (v4)"): one frame per tick,
//! shared by every stream.
//!
//! The writer hands each committed change to the show's hub task, which
//! gathers a tick's changes (at most [`Ticks::tick`]; the first change after
//! a quiet tick goes at once), conflates them per seat and area, and
//! encodes the frame once as server-sent-event text in both forms, JSON and
//! compact. Every stream writes the same bytes: no per-stream JSON or copy.
//! A stream that falls behind the broadcast skips to a fresh snapshot of
//! the published map. Recent frames are kept for `Last-Event-ID` resumes.
//! Each frame also goes to the optional [`FrameSink`] (a GRIP proxy's
//! publish API, at the edge): once per frame, never once per viewer. A
//! proxy's viewer starts from [`Live::held`]: what it is sent ends where
//! the next published frame begins, so the proxy never passes it an id
//! that does not rise.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use bytes::Bytes;
use tokio::sync::{broadcast, mpsc};
use tokio::time::Instant;

use seat_state::wire::{ChangeEvent, CompactChange, Conflation, SeatOrder};

use super::view::MapView;

/// How many frames a resuming viewer can catch up from.
pub const REPLAY_FRAMES: usize = 256;
/// Frames a stream may fall behind before it is sent a snapshot instead.
const BEHIND: usize = 64;

/// The hub's timing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ticks {
    /// The longest a change waits for its frame (API.md: at most 250 ms).
    pub tick: Duration,
    /// A comment goes to every stream after this long without a frame
    /// (API.md: at least every 15 s).
    pub keep_alive: Duration,
}

impl Default for Ticks {
    fn default() -> Self {
        Self { tick: Duration::from_millis(250), keep_alive: Duration::from_secs(10) }
    }
}

/// One tick's conflated changes, encoded once for every stream.
#[derive(Debug)]
pub struct Frame {
    /// The version the frame follows: it carries every change in `(since, version]`.
    pub since: i64,
    /// `0` for a keep-alive comment.
    pub version: i64,
    /// The `change` event with JSON data, as event-stream text.
    pub json: Bytes,
    /// The same with compact data (`?format=compact`).
    pub compact: Bytes,
}

impl Frame {
    /// Whether this is only a keep-alive comment.
    pub fn is_keep_alive(&self) -> bool {
        self.version == 0
    }

    /// The bytes for a stream of the given form.
    pub fn bytes(&self, compact: bool) -> Bytes {
        if compact { self.compact.clone() } else { self.json.clone() }
    }

    fn keep_alive() -> Self {
        Self { since: 0, version: 0, json: Bytes::from_static(b":\n\n"), compact: Bytes::from_static(b":\n\n") }
    }
}

/// Where a show's frames go beyond this process's own streams: the edge's
/// publisher to GRIP proxies (Pushpin, Fastly Fanout). Called on the hub's
/// task, so it must not block or wait: queue and return.
pub trait FrameSink: Send + Sync {
    /// A show's hub started at `version` (the show was loaded): what went
    /// out for it before, from an earlier process, is not known.
    fn started(&self, show_id: &str, version: i64);

    /// A frame the show's hub just sent to its streams (never a keep-alive).
    fn frame(&self, show_id: &str, frame: &Arc<Frame>);
}

/// The optional sink, shared by every show's hub.
pub type SharedSink = Option<Arc<dyn FrameSink>>;

/// One event-stream event: `event`, `id`, one `data` line (JSON has no newlines).
pub fn event_text(kind: &str, version: i64, data: &str) -> Bytes {
    Bytes::from(format!("event: {kind}\nid: {version}\ndata: {data}\n\n"))
}

/// What streams read without asking the writer: the published map and the
/// recent frames.
pub struct Live {
    view: RwLock<Arc<MapView>>,
    log: Mutex<FrameLog>,
    /// The writer cannot reach its storage: the show answers nothing.
    unavailable: AtomicBool,
}

struct FrameLog {
    sender: broadcast::Sender<Arc<Frame>>,
    recent: VecDeque<Arc<Frame>>,
    /// The version the hub started at: the first frame follows it.
    floor: i64,
    /// The newest frame's version (the floor before the first): the next
    /// frame follows it.
    newest: i64,
    /// The published map at the version of a frame sent (the floor at
    /// first): a snapshot the kept frames continue. The writer's map runs
    /// ahead of the frames by up to a tick, so a snapshot of it would be
    /// followed by a frame it already holds, or an older one.
    framed: Arc<MapView>,
}

/// What a new viewer gets first.
pub enum Start {
    /// The whole map, as last published.
    Snapshot(Arc<MapView>),
    /// Every frame after the viewer's `Last-Event-ID`, oldest first.
    Replay(Vec<Arc<Frame>>),
}

/// What a GRIP proxy's viewer is sent first: a snapshot and/or frames,
/// oldest first, bringing it to `last`, which is the `prev-id` its stream
/// is held at. The proxy passes on only a published frame that follows
/// that version (its id is higher), and asks again when one does not.
#[derive(Debug)]
pub struct Held {
    pub snapshot: Option<Arc<MapView>>,
    pub frames: Vec<Arc<Frame>>,
    pub last: i64,
}

/// A viewer's live feed: first `start`, then `frames` (skip those at or
/// below the version already sent).
pub struct Subscription {
    pub start: Start,
    pub frames: broadcast::Receiver<Arc<Frame>>,
}

impl Live {
    /// The map as the writer last published it.
    pub fn view(&self) -> Arc<MapView> {
        match self.view.read() {
            Ok(view) => Arc::clone(&view),
            Err(poisoned) => Arc::clone(&poisoned.into_inner()),
        }
    }

    /// Subscribes a viewer. With `after`, replays the frames since when they
    /// cover it; otherwise the published map makes the start.
    pub fn subscribe(&self, after: Option<i64>) -> Subscription {
        let log = self.log.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        // Subscribed under the lock: no frame falls between the replay and the feed.
        let frames = log.sender.subscribe();
        let view = self.view();
        let start = match after {
            Some(after) if after == view.version => Start::Replay(Vec::new()),
            Some(after) if after < view.version && log.covers(after) => {
                Start::Replay(log.recent.iter().filter(|frame| frame.version > after).cloned().collect())
            }
            _ => Start::Snapshot(view),
        };
        Subscription { start, frames }
    }

    /// What a GRIP proxy's viewer is sent before the proxy holds its
    /// stream (the proxy, not this process, gets the frames): see [`Held`].
    /// `after` is the version the viewer has; `asked` when the proxy asks
    /// for what its held viewer missed (`Grip-Last`), on the same
    /// connection, so nothing may go back.
    pub fn held(&self, after: Option<i64>, asked: bool) -> Held {
        let log = self.log.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        // The view is published before its changes reach the hub: read
        // after the newest frame, it holds at least that frame's changes.
        let newest = log.newest;
        let view = self.view();
        let frames_after = |version: i64| log.recent.iter().filter(|frame| frame.version > version).cloned().collect();
        if let Some(after) = after.filter(|&after| asked || after <= view.version) {
            if after >= newest {
                // Nothing framed after it yet. Held at it: a next frame that
                // follows an older version makes the proxy ask again.
                return Held { snapshot: None, frames: Vec::new(), last: after };
            }
            if log.covers(after) {
                return Held { snapshot: None, frames: frames_after(after), last: newest };
            }
        }
        // A snapshot; when the proxy asks, newer than what its viewer has.
        let floor = after.filter(|_| asked).unwrap_or(i64::MIN);
        let framed = &log.framed;
        if framed.version > floor && (framed.version == newest || log.covers(framed.version)) {
            return Held { snapshot: Some(Arc::clone(framed)), frames: frames_after(framed.version), last: newest };
        }
        if view.version > floor {
            return Held { last: view.version, snapshot: Some(view), frames: Vec::new() };
        }
        Held { snapshot: None, frames: Vec::new(), last: floor }
    }

    /// Whether the show's storage is failing (its writer answers 503).
    pub fn unavailable(&self) -> bool {
        self.unavailable.load(Ordering::Acquire)
    }

    /// Whether anyone is watching live.
    pub fn watched(&self) -> bool {
        self.log.lock().map(|log| log.sender.receiver_count() > 0).unwrap_or(false)
    }

    fn set_view(&self, view: Arc<MapView>) {
        match self.view.write() {
            Ok(mut slot) => *slot = view,
            Err(poisoned) => *poisoned.into_inner() = view,
        }
    }

    /// Keeps `view` as the framed map when a frame ends at its version
    /// (the hub takes frames and the writer's maps in the writer's order).
    fn frame_view(&self, view: &Arc<MapView>) {
        let mut log = self.log.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if view.version == log.newest && view.version >= log.framed.version {
            log.framed = Arc::clone(view);
        }
    }

    fn send(&self, frame: Frame, keep: bool, sink: Option<&(Arc<str>, Arc<dyn FrameSink>)>) {
        let frame = Arc::new(frame);
        let mut log = self.log.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if keep {
            if log.recent.len() == REPLAY_FRAMES {
                log.recent.pop_front();
            }
            log.newest = frame.version;
            log.recent.push_back(Arc::clone(&frame));
        }
        // No receivers is fine: nobody is watching.
        let _ = log.sender.send(Arc::clone(&frame));
        drop(log);
        if let (true, Some((show_id, sink))) = (keep, sink) {
            sink.frame(show_id, &frame);
        }
    }
}

impl FrameLog {
    /// Whether the kept frames hold every change after `after` (changes not
    /// yet in a frame follow the newest one, so they will come).
    fn covers(&self, after: i64) -> bool {
        // With nothing kept yet, the next frame follows the floor.
        after >= self.floor && self.recent.front().is_none_or(|oldest| oldest.since <= after)
    }
}

/// The writer's side of its show's hub.
pub struct EventHub {
    live: Arc<Live>,
    changes: mpsc::UnboundedSender<Input>,
}

/// What the writer hands its hub, in the writer's order: changes, then the
/// map they make.
enum Input {
    Change(ChangeEvent),
    View(Arc<MapView>),
}

impl EventHub {
    /// A hub over `view` (the loaded map) of show `show_id`, with its tick
    /// task; each frame also goes to `sink`, if any.
    pub fn start(view: MapView, ticks: Ticks, show_id: Arc<str>, sink: SharedSink) -> Self {
        let order = view.statics.order.clone();
        let floor = view.version;
        let (sender, _) = broadcast::channel(BEHIND);
        let view = Arc::new(view);
        let recent = VecDeque::with_capacity(REPLAY_FRAMES);
        let live = Arc::new(Live {
            view: RwLock::new(Arc::clone(&view)),
            unavailable: AtomicBool::new(false),
            log: Mutex::new(FrameLog { sender, recent, floor, newest: floor, framed: Arc::clone(&view) }),
        });
        let sink = sink.map(|sink| {
            sink.started(&show_id, floor);
            (show_id, sink)
        });
        let (changes, received) = mpsc::unbounded_channel();
        let ticker = Ticker { live: Arc::clone(&live), order, ticks, pending: Conflation::default(), sink, view };
        tokio::spawn(ticker.run(received));
        Self { live, changes }
    }

    /// What readers share.
    pub fn live(&self) -> Arc<Live> {
        Arc::clone(&self.live)
    }

    /// A durable change for the next frame.
    pub fn publish(&self, event: ChangeEvent) {
        // The tick task ends only after the writer: a send cannot fail before.
        let _ = self.changes.send(Input::Change(event));
    }

    /// The map as of the changes published so far.
    pub fn publish_view(&self, view: MapView) {
        let view = Arc::new(view);
        self.live.set_view(Arc::clone(&view));
        // The hub keeps the map a frame ends at, for GRIP snapshots.
        let _ = self.changes.send(Input::View(view));
    }

    /// Whether anyone is watching live.
    pub fn watched(&self) -> bool {
        self.live.watched()
    }

    /// Readers are refused while the writer cannot reach its storage.
    pub fn set_unavailable(&self, unavailable: bool) {
        self.live.unavailable.store(unavailable, Ordering::Release);
    }
}

/// The hub's task: gathers a tick's changes, sends one frame.
struct Ticker {
    live: Arc<Live>,
    order: SeatOrder,
    ticks: Ticks,
    pending: Conflation,
    /// Where frames go besides the streams, with the show's id.
    sink: Option<(Arc<str>, Arc<dyn FrameSink>)>,
    /// The writer's newest map the hub has received.
    view: Arc<MapView>,
}

impl Ticker {
    async fn run(mut self, mut received: mpsc::UnboundedReceiver<Input>) {
        // Long ago: the first change goes at once.
        let mut last_frame = Instant::now().checked_sub(self.ticks.tick).unwrap_or_else(Instant::now);
        let mut last_sent = Instant::now();
        loop {
            let due =
                if self.pending.is_empty() { last_sent + self.ticks.keep_alive } else { last_frame + self.ticks.tick };
            tokio::select! {
                input = received.recv() => match input {
                    Some(Input::Change(event)) => self.pending.push(event),
                    Some(Input::View(view)) => {
                        // Its frame may have gone before it came.
                        self.live.frame_view(&view);
                        self.view = view;
                    }
                    None => return self.flush(),
                },
                () = tokio::time::sleep_until(due) => {
                    if self.pending.is_empty() {
                        self.live.send(Frame::keep_alive(), false, None);
                    } else {
                        self.flush();
                        last_frame = Instant::now();
                    }
                    last_sent = Instant::now();
                }
            }
        }
    }

    /// Encodes what is pending once, in both forms, and sends it.
    fn flush(&mut self) {
        let Some(event) = self.pending.take() else { return };
        let json = serde_json::to_string(&event).unwrap_or_else(|_| "{}".to_owned());
        let compact = CompactChange::encode(&event, &self.order)
            .ok()
            .and_then(|compact| serde_json::to_string(&compact).ok())
            .unwrap_or_else(|| "{}".to_owned());
        let frame = Frame {
            since: event.follows(),
            version: event.version,
            json: event_text("change", event.version, &json),
            compact: event_text("change", event.version, &compact),
        };
        self.live.send(frame, true, self.sink.as_ref());
        self.live.frame_view(&self.view);
    }
}

#[cfg(test)]
mod held_tests;
