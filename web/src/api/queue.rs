//! The waiting room's endpoints (API.md "Waiting room (v3)").

use seat_state::wire::{QueuePlace, QueueProgress};
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;
use web_sys::{EventSource, MessageEvent};

use super::{ApiError, from_json, get, post_empty, url};

/// Takes this session's place in the show's queue (or answers the one it
/// has: a reload keeps the cookie's session, so it keeps its place).
pub async fn join_queue(show_id: &str) -> Result<QueuePlace, ApiError> {
    post_empty(&format!("/api/shows/{show_id}/queue")).await
}

/// This session's place as it stands.
pub async fn queue_place(show_id: &str) -> Result<QueuePlace, ApiError> {
    get(&format!("/api/shows/{show_id}/queue")).await
}

/// The queue's progress events, heard until dropped.
pub struct QueueFeed {
    source: EventSource,
    _listener: Closure<dyn FnMut(web_sys::Event)>,
}

impl QueueFeed {
    /// Opens the stream; `on_progress` hears every event it can read.
    /// `None` when the browser refuses to open it.
    pub fn open(show_id: &str, on_progress: impl Fn(QueueProgress) + 'static) -> Option<Self> {
        let source = EventSource::new(&url(&format!("/api/shows/{show_id}/queue/events"))).ok()?;
        let listener = Closure::wrap(Box::new(move |event: web_sys::Event| {
            let data = event.dyn_ref::<MessageEvent>().and_then(|message| message.data().as_string());
            if let Some(progress) = data.and_then(|text| from_json::<QueueProgress>(&text)) {
                on_progress(progress);
            }
        }) as Box<dyn FnMut(web_sys::Event)>);
        source.add_event_listener_with_callback("progress", listener.as_ref().unchecked_ref()).ok()?;
        Some(Self { source, _listener: listener })
    }
}

impl Drop for QueueFeed {
    fn drop(&mut self) {
        self.source.close();
    }
}
