//! The live event stream (`EventSource`): reconnects by itself, resumes
//! after the last version seen, and polls the seat map when the server
//! refuses a stream (503).

use std::cell::RefCell;
use std::rc::Rc;

use gloo_timers::callback::Timeout;
use serde::de::DeserializeOwned;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::Closure;
use web_sys::{EventSource, MessageEvent};

use seat_state::wire::{ChangeEvent, SeatMap};

use super::*;
/// What the live stream reports.
#[derive(Debug, Clone, PartialEq)]
pub enum LiveEvent {
    /// The stream is open (again).
    Connected,
    /// The stream broke; it is being reopened.
    Reconnecting,
    /// The whole seat map, first on every fresh connection.
    Snapshot(SeatMap),
    /// Some seats or areas changed.
    Change(ChangeEvent),
    /// An event could not be read: the map may have missed something.
    Garbled,
    /// The server has no room for another stream now (`503` with
    /// `Retry-After`): it is tried again after `retry_after_millis`;
    /// meanwhile the seat map is to be polled.
    Busy { retry_after_millis: i64 },
}

type Listener = Closure<dyn FnMut(web_sys::Event)>;

struct Feed {
    url: String,
    /// The version of the last facts received: a reopened stream resumes
    /// after it instead of starting with a snapshot.
    resume_after: Option<i64>,
    on_event: Rc<dyn Fn(LiveEvent)>,
    source: Option<EventSource>,
    listeners: Vec<(&'static str, Listener)>,
    /// Errors since the stream was last open.
    failures: u32,
    /// The current connection opened at least once.
    opened: bool,
    retry: Option<Timeout>,
    /// The pending retry waits out the server's `Retry-After`.
    busy: bool,
}

/// `GET /api/shows/{id}/events`, kept open, resuming after a version.
///
/// It opens with `?lastEventId=` set to the version of the snapshot the page
/// already read, so the server sends only what came after it (or a snapshot
/// when it no longer keeps those changes), never the same snapshot again.
/// A short break is left to the browser, which reconnects by itself and
/// sends `Last-Event-ID`, so the server replays only what was missed. When
/// that fails too (or the server refuses), the stream is reopened with
/// exponential back-off (0.5 s doubling up to 30 s, with jitter), resuming
/// after the last version received; the machine asks for a snapshot if it
/// still sees a gap, so the map always ends equal to the server's. Dropping
/// the `LiveFeed` closes the stream.
pub struct LiveFeed {
    feed: Rc<RefCell<Feed>>,
}

impl LiveFeed {
    /// Opens the stream of `show_id` after version `resume_after` (`None`:
    /// from a snapshot); `on_event` hears everything.
    pub fn open(show_id: &str, resume_after: Option<i64>, on_event: impl Fn(LiveEvent) + 'static) -> Self {
        let feed = Rc::new(RefCell::new(Feed {
            // Snapshots list only taken seats; the live map knows the rest are free.
            url: url(&format!("/api/shows/{show_id}/events?only=taken")),
            resume_after,
            on_event: Rc::new(on_event),
            source: None,
            listeners: Vec::new(),
            failures: 0,
            opened: false,
            retry: None,
            busy: false,
        }));
        connect(&feed);
        Self { feed }
    }

    /// Reopens at once if the stream is waiting out a back-off (e.g. when
    /// the tab comes back into view), but not before a `Retry-After`.
    pub fn nudge(&self) {
        let waiting = self.feed.borrow().retry.is_some() && !self.feed.borrow().busy;
        if waiting {
            self.feed.borrow_mut().retry = None;
            connect(&self.feed);
        }
    }
}

impl Drop for LiveFeed {
    fn drop(&mut self) {
        disconnect(&mut self.feed.borrow_mut());
    }
}

fn disconnect(feed: &mut Feed) {
    feed.retry = None;
    if let Some(source) = feed.source.take() {
        for (name, listener) in feed.listeners.drain(..) {
            let _ = source.remove_event_listener_with_callback(name, listener.as_ref().unchecked_ref());
        }
        source.close();
    }
}

fn parse<T: DeserializeOwned>(event: &web_sys::Event) -> Option<T> {
    from_json(&event.dyn_ref::<MessageEvent>()?.data().as_string()?)
}

/// Remembers an event's id (its version), where a reopened stream resumes.
fn remember_version(feed: &std::rc::Weak<RefCell<Feed>>, event: &web_sys::Event) {
    let version = event.dyn_ref::<MessageEvent>().and_then(|message| message.last_event_id().parse().ok());
    if let (Some(feed), Some(version)) = (feed.upgrade(), version) {
        feed.borrow_mut().resume_after = Some(version);
    }
}

fn connect(shared: &Rc<RefCell<Feed>>) {
    let mut feed = shared.borrow_mut();
    disconnect(&mut feed);
    feed.opened = false;
    feed.busy = false;
    let url = match feed.resume_after {
        Some(version) => format!("{}&lastEventId={version}", feed.url),
        None => feed.url.clone(),
    };
    let Ok(source) = EventSource::new(&url) else {
        drop(feed);
        schedule_retry(shared);
        return;
    };
    let emit = Rc::clone(&feed.on_event);
    let listen = |name: &'static str, handle: Box<dyn FnMut(web_sys::Event)>| {
        let listener = Closure::wrap(handle);
        let _ = source.add_event_listener_with_callback(name, listener.as_ref().unchecked_ref());
        (name, listener)
    };
    let weak = Rc::downgrade(shared);
    let on_open = {
        let emit = Rc::clone(&emit);
        let weak = weak.clone();
        listen(
            "open",
            Box::new(move |_| {
                if let Some(feed) = weak.upgrade() {
                    let mut feed = feed.borrow_mut();
                    feed.failures = 0;
                    feed.opened = true;
                }
                emit(LiveEvent::Connected);
            }),
        )
    };
    let on_snapshot = {
        let emit = Rc::clone(&emit);
        let weak = weak.clone();
        listen(
            "snapshot",
            Box::new(move |event| {
                remember_version(&weak, &event);
                emit(parse(&event).map_or(LiveEvent::Garbled, LiveEvent::Snapshot));
            }),
        )
    };
    let on_change = {
        let emit = Rc::clone(&emit);
        let weak = weak.clone();
        listen(
            "change",
            Box::new(move |event| {
                remember_version(&weak, &event);
                emit(parse(&event).map_or(LiveEvent::Garbled, LiveEvent::Change));
            }),
        )
    };
    let on_error = listen(
        "error",
        Box::new(move |_| {
            emit(LiveEvent::Reconnecting);
            let Some(shared) = weak.upgrade() else {
                return;
            };
            let (give_up, refused) = {
                let mut feed = shared.borrow_mut();
                feed.failures += 1;
                let closed = feed.source.as_ref().is_none_or(|source| source.ready_state() == EventSource::CLOSED);
                // Closed before it ever opened: the server answered, but not
                // with a stream (EventSource does not say which status).
                (closed || feed.failures >= 2, closed && !feed.opened)
            };
            if give_up {
                // Stop the browser's own retries; the listeners (this one
                // included) are dropped on the next connect, not while running.
                if let Some(source) = shared.borrow().source.as_ref() {
                    source.close();
                }
                if refused {
                    ask_why_refused(&shared);
                } else {
                    schedule_retry(&shared);
                }
            }
        }),
    );
    feed.listeners = vec![on_open, on_snapshot, on_change, on_error];
    feed.source = Some(source);
}

/// When no stream was given, a `HEAD` of the same URL says why: `503`
/// (too many streams, API.md's Limits) means polling until its
/// `Retry-After` has passed, then trying again; anything else is a
/// failure like any other, retried with back-off.
fn ask_why_refused(shared: &Rc<RefCell<Feed>>) {
    let weak = Rc::downgrade(shared);
    let url = shared.borrow().url.clone();
    wasm_bindgen_futures::spawn_local(async move {
        let answer = reqwest::Client::new().head(&url).fetch_credentials_same_origin().send().await;
        let Some(shared) = weak.upgrade() else {
            return;
        };
        let busy = answer.ok().filter(|response| response.status() == reqwest::StatusCode::SERVICE_UNAVAILABLE);
        match busy {
            Some(response) => {
                let wait = retry_after_millis(response.headers()).unwrap_or(STREAM_RETRY_MILLIS).clamp(1_000, 300_000);
                let emit = Rc::clone(&shared.borrow().on_event);
                emit(LiveEvent::Busy { retry_after_millis: wait });
                retry_in(&shared, u32::try_from(wait).unwrap_or(u32::MAX));
                shared.borrow_mut().busy = true;
            }
            None => schedule_retry(&shared),
        }
    });
}

/// How long to wait for a stream after a `503` without `Retry-After`.
const STREAM_RETRY_MILLIS: i64 = 10_000;

fn schedule_retry(shared: &Rc<RefCell<Feed>>) {
    let failures = shared.borrow().failures.clamp(1, 7);
    let base = 500_u32 << (failures - 1);
    retry_in(shared, base.min(30_000));
}

/// Reopens the stream after `delay` ms and up to 250 ms of jitter.
fn retry_in(shared: &Rc<RefCell<Feed>>, delay: u32) {
    let delay = delay.saturating_add((js_sys::Math::random() * 250.0) as u32);
    let weak = Rc::downgrade(shared);
    let timer = Timeout::new(delay, move || {
        if let Some(shared) = weak.upgrade() {
            shared.borrow_mut().retry = None;
            connect(&shared);
        }
    });
    shared.borrow_mut().retry = Some(timer);
}
