//! The live event stream (`EventSource`) as a thin adapter: it opens the
//! URL, reports what the stream says, and closes when dropped. When to open,
//! give up, reopen or poll is `seat_state::sync::Connection`'s to decide
//! (driven by `crate::live_link`).

use serde::de::DeserializeOwned;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::Closure;
use web_sys::{EventSource, MessageEvent};

use seat_state::wire::{CompactChange, CompactMap};

use super::*;

/// What the live stream reports.
#[derive(Debug, Clone, PartialEq)]
pub enum LiveEvent {
    /// The stream is open (again).
    Opened,
    /// The stream reported an error; `reconnecting`: the browser is trying
    /// again by itself, otherwise it closed.
    Error { reconnecting: bool },
    /// The whole seat map (compact: only the seats taken), first on every
    /// fresh connection.
    Snapshot(CompactMap),
    /// Some seats or areas changed (compact; maybe several changes).
    Change(CompactChange),
    /// An event could not be read: the map may have missed something.
    Garbled,
}

type Listener = Closure<dyn FnMut(web_sys::Event)>;

/// `GET /api/shows/{id}/events?format=compact`, open until dropped.
///
/// With a version to resume after, it opens with `&lastEventId=` so the
/// server sends only what came after it (or a snapshot when it no longer
/// keeps those changes). A short break is left to the browser, which
/// reconnects by itself and sends `Last-Event-ID`.
pub struct LiveFeed {
    source: EventSource,
    listeners: Vec<(&'static str, Listener)>,
}

/// The stream's URL: compact frames (API.md "Live changes (v4)"), seats
/// by their position in the definition, snapshots listing only the seats
/// taken; `crate::live_map` decodes them with the show's seat order.
fn stream_url(show_id: &str) -> String {
    url(&format!("/api/shows/{show_id}/events?format=compact"))
}

impl LiveFeed {
    /// Opens the stream of `show_id` after version `resume_after` (`None`:
    /// from a snapshot); `on_event` hears everything. `None` when the
    /// browser refuses to open it at all.
    pub fn open(show_id: &str, resume_after: Option<i64>, on_event: impl Fn(LiveEvent) + 'static) -> Option<Self> {
        let url = match resume_after {
            Some(version) => format!("{}&lastEventId={version}", stream_url(show_id)),
            None => stream_url(show_id),
        };
        let source = EventSource::new(&url).ok()?;
        let emit = std::rc::Rc::new(on_event);
        let listen = |name: &'static str, handle: Box<dyn FnMut(web_sys::Event)>| {
            let listener = Closure::wrap(handle);
            let _ = source.add_event_listener_with_callback(name, listener.as_ref().unchecked_ref());
            (name, listener)
        };
        let on_open = {
            let emit = emit.clone();
            listen("open", Box::new(move |_| emit(LiveEvent::Opened)))
        };
        let on_snapshot = {
            let emit = emit.clone();
            listen(
                "snapshot",
                Box::new(move |event| emit(parse(&event).map_or(LiveEvent::Garbled, LiveEvent::Snapshot))),
            )
        };
        let on_change = {
            let emit = emit.clone();
            listen("change", Box::new(move |event| emit(parse(&event).map_or(LiveEvent::Garbled, LiveEvent::Change))))
        };
        let on_error = {
            let source = source.clone();
            listen(
                "error",
                Box::new(move |_| {
                    let reconnecting = source.ready_state() != EventSource::CLOSED;
                    emit(LiveEvent::Error { reconnecting });
                }),
            )
        };
        Some(Self { source, listeners: vec![on_open, on_snapshot, on_change, on_error] })
    }
}

impl Drop for LiveFeed {
    fn drop(&mut self) {
        for (name, listener) in self.listeners.drain(..) {
            let _ = self.source.remove_event_listener_with_callback(name, listener.as_ref().unchecked_ref());
        }
        self.source.close();
    }
}

fn parse<T: DeserializeOwned>(event: &web_sys::Event) -> Option<T> {
    from_json(&event.dyn_ref::<MessageEvent>()?.data().as_string()?)
}

/// Why the stream closed before it opened (EventSource does not say): a
/// `HEAD` of the same URL. `Some(retry_after)` for a `503` (too many
/// streams, API.md's Limits), `None` for anything else or no answer.
pub async fn stream_refusal(show_id: &str) -> Option<Option<i64>> {
    let answer = reqwest::Client::new().head(stream_url(show_id)).fetch_credentials_same_origin().send().await;
    let busy = answer.ok().filter(|response| response.status() == reqwest::StatusCode::SERVICE_UNAVAILABLE)?;
    Some(retry_after_millis(busy.headers()))
}
