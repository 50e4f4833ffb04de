//! Every HTTP call and the live event stream. Nothing else knows a URL.
//!
//! Requests go through `fetch` (reqwest on wasm) with same-origin
//! credentials, so the session cookie set by `POST /api/sessions` rides
//! along by itself. Bodies are parsed with the wire types of `seat-state`.

use std::cell::RefCell;
use std::rc::Rc;

use gloo_timers::callback::Timeout;
use gloo_timers::future::TimeoutFuture;
use serde::Serialize;
use serde::de::DeserializeOwned;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::Closure;
use web_sys::{EventSource, MessageEvent};

use seat_state::wire::{
    ChangeEvent, ErrorBody, HoldBody, HoldCounts, HoldList, HoldOrder, OperatorHoldList, PlaceCounts, SeatMap,
    SessionBody, ShowDefinition, ShowList, ShowOffer, ShowStats, TimeBody,
};
use seat_state::{ClockSample, LocalMillis, Rejection, ServerMillis};

use crate::words;

/// Why a call failed.
#[derive(Debug, Clone, PartialEq)]
pub enum ApiError {
    /// The server answered with an error body (and maybe `Retry-After`).
    Server { status: u16, body: ErrorBody, retry_after_millis: Option<i64> },
    /// The server could not be reached or answered nonsense.
    Transport(String),
}

impl ApiError {
    /// The API.md error code, when the server gave one.
    pub fn code(&self) -> Option<&str> {
        match self {
            Self::Server { body, .. } => Some(&body.error),
            Self::Transport(_) => None,
        }
    }

    /// How long the server asked to wait before trying again.
    pub fn retry_after_millis(&self) -> Option<i64> {
        match self {
            Self::Server { retry_after_millis, .. } => *retry_after_millis,
            Self::Transport(_) => None,
        }
    }

    /// The seats an error names (`seats_taken`, `invalid_seats`).
    pub fn seats(&self) -> &[String] {
        match self {
            Self::Server { body, .. } => body.seats.as_deref().unwrap_or_default(),
            Self::Transport(_) => &[],
        }
    }

    /// One sentence for the customer.
    pub fn sentence(&self) -> String {
        self.sentence_naming(&str::to_owned)
    }

    /// One sentence for the customer, seats named by `name` (their labels):
    /// a rule's refusal in `seat-state`'s words, anything else by its code.
    pub fn sentence_naming(&self, name: &dyn Fn(&str) -> String) -> String {
        match self {
            Self::Server { body, .. } => match Rejection::from_wire(body) {
                Some(rejection) => words::refusal(rejection.naming_seats(name)),
                None => words::error_sentence(&body.error, &body.message),
            },
            Self::Transport(_) => words::UNREACHABLE.to_owned(),
        }
    }
}

fn transport(error: impl ToString) -> ApiError {
    ApiError::Transport(error.to_string())
}

/// The browser's own clock, which the rules never trust on its own. It is
/// monotonic (`performance.timeOrigin + performance.now()`), so changing
/// the device's time while the page is open does not move it.
pub fn local_now() -> LocalMillis {
    let monotonic = web_sys::window()
        .and_then(|window| window.performance())
        .map(|performance| performance.time_origin() + performance.now());
    LocalMillis(monotonic.unwrap_or_else(js_sys::Date::now) as i64)
}

fn url(path: &str) -> String {
    let origin = web_sys::window().and_then(|window| window.location().origin().ok()).unwrap_or_default();
    format!("{origin}{path}")
}

/// Parses JSON with the browser's own parser into a wire type.
pub fn from_json<T: DeserializeOwned>(text: &str) -> Option<T> {
    let value = js_sys::JSON::parse(text).ok()?;
    crate::js_read::from_value(value)
}

/// Serializes a wire type to JSON with the browser's own serializer.
fn to_json(body: &impl Serialize) -> Result<String, ApiError> {
    let serializer = serde_wasm_bindgen::Serializer::json_compatible();
    let value = body.serialize(&serializer).map_err(transport)?;
    js_sys::JSON::stringify(&value).map(String::from).map_err(|_| transport("unserializable body"))
}

/// Sends a request and reads the answer: `Ok(None)` for an empty success
/// body (204), the error body for a failure. Not generic, so the request
/// machinery exists once in the wasm; only [`decode`] is per type.
async fn exchange(request: reqwest::RequestBuilder) -> Result<Option<String>, ApiError> {
    let response = request.fetch_credentials_same_origin().send().await.map_err(transport)?;
    let status = response.status();
    let retry_after_millis = retry_after_millis(response.headers());
    let text = response.text().await.map_err(transport)?;
    if status.is_success() {
        Ok((!text.is_empty()).then_some(text))
    } else {
        let body =
            from_json(&text).ok_or_else(|| transport(format!("status {} without an error body", status.as_u16())))?;
        Err(ApiError::Server { status: status.as_u16(), body, retry_after_millis })
    }
}

/// `Retry-After` in seconds (API.md's form; an HTTP date is ignored).
fn retry_after_millis(headers: &reqwest::header::HeaderMap) -> Option<i64> {
    let seconds: i64 = headers.get(reqwest::header::RETRY_AFTER)?.to_str().ok()?.trim().parse().ok()?;
    Some(seconds.saturating_mul(1000))
}

/// Reads a success body as a wire type.
fn decode<T: DeserializeOwned>(text: Option<String>) -> Result<T, ApiError> {
    let text = text.ok_or_else(|| transport("empty answer"))?;
    from_json(&text).ok_or_else(|| transport("unreadable answer"))
}

/// A request to a same-origin path.
fn request(method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
    reqwest::Client::new().request(method, url(path))
}

async fn post_empty<T: DeserializeOwned>(path: &str) -> Result<T, ApiError> {
    decode(exchange(request(reqwest::Method::POST, path)).await?)
}

async fn get<T: DeserializeOwned>(path: &str) -> Result<T, ApiError> {
    decode(exchange(request(reqwest::Method::GET, path)).await?)
}

async fn post<T: DeserializeOwned>(path: &str, body: &impl Serialize) -> Result<T, ApiError> {
    let request = request(reqwest::Method::POST, path)
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .body(to_json(body)?);
    decode(exchange(request).await?)
}

/// Every show.
pub async fn shows() -> Result<ShowList, ApiError> {
    get("/api/shows").await
}

/// One show's definition: seats, positions, rules, and its box office's
/// categories and channels. The answer is parsed once and read as two flat
/// wire types (unknown fields skipped): its `serverTime` is not needed, and
/// neither reads through `#[serde(flatten)]`, which would make serde buffer
/// every seat in the wasm.
pub async fn show(show_id: &str) -> Result<(ShowDefinition, ShowOffer), ApiError> {
    let value = get_value(&format!("/api/shows/{show_id}")).await?;
    let unreadable = || transport("unreadable answer");
    let show = crate::js_read::from_value(value.clone()).ok_or_else(unreadable)?;
    let offer = crate::js_read::from_value(value).ok_or_else(unreadable)?;
    Ok((show, offer))
}

/// The facts every seat's state is derived from (with `mine` for this session).
pub async fn seat_map(show_id: &str) -> Result<SeatMap, ApiError> {
    let value = get_value(&format!("/api/shows/{show_id}/seats")).await?;
    crate::js_read::from_value(value).ok_or_else(|| transport("unreadable answer"))
}

/// A successful `GET` answer parsed by the browser: the one `index.html`'s
/// start-up script already asked for, when it did (see [`prefetched`]),
/// otherwise asked for now.
async fn get_value(path: &str) -> Result<wasm_bindgen::JsValue, ApiError> {
    if let Some(value) = prefetched(path).await {
        return Ok(value);
    }
    let text = exchange(request(reqwest::Method::GET, path)).await?.ok_or_else(|| transport("empty answer"))?;
    js_sys::JSON::parse(&text).map_err(|_| transport("unreadable answer"))
}

/// The answer to `GET path` if `index.html` asked for it while the wasm was
/// still downloading (`window.seatholdPrefetch`, keyed by path: a show
/// page's definition and seat facts), read as JSON by the browser. Each is
/// taken once; an answer that failed or is not a success is left to the
/// normal path, which asks again and reads any error as every call does.
async fn prefetched(path: &str) -> Option<wasm_bindgen::JsValue> {
    let window = web_sys::window()?;
    let store = js_sys::Reflect::get(&window, &"seatholdPrefetch".into()).ok().filter(|store| store.is_object())?;
    let key = wasm_bindgen::JsValue::from_str(path);
    let promise = js_sys::Reflect::get(&store, &key).ok()?.dyn_into::<js_sys::Promise>().ok()?;
    js_sys::Reflect::delete_property(store.unchecked_ref::<js_sys::Object>(), &key).ok()?;
    let response = wasm_bindgen_futures::JsFuture::from(promise).await.ok()?.dyn_into::<web_sys::Response>().ok()?;
    if !response.ok() {
        return None;
    }
    wasm_bindgen_futures::JsFuture::from(response.json().ok()?).await.ok()
}

/// One round trip to the server clock.
pub async fn sample_clock() -> Result<ClockSample, ApiError> {
    let sent = local_now();
    let body: TimeBody = get("/api/time").await?;
    Ok(ClockSample { sent, server: ServerMillis(body.server_time), received: local_now() })
}

/// Several round trips, one after another; the caller keeps the best.
pub async fn sample_clock_several(count: usize) -> Result<Vec<ClockSample>, ApiError> {
    let mut samples = Vec::with_capacity(count);
    for _ in 0..count {
        samples.push(sample_clock().await?);
    }
    Ok(samples)
}

/// The caller's holds, newest first. Starts a session first when the
/// browser has none (or an unknown one), so a reload keeps the cookie's
/// session and its holds, and a first visit gets a session.
pub async fn my_holds() -> Result<HoldList, ApiError> {
    match get("/api/holds").await {
        Err(ApiError::Server { status: 401, .. }) => {
            let _: SessionBody = post_empty("/api/sessions").await?;
            get("/api/holds").await
        }
        other => other,
    }
}

/// How often a hold request is sent before giving up on the network.
const HOLD_ATTEMPTS: u32 = 3;

/// Asks to hold the places in `body` (or the best seats it asks for, with
/// its channel's code). The body carries a client-chosen
/// `holdId`, so when the network fails the very same request is sent again:
/// the server answers a repeat with the same hold and takes nothing more.
pub async fn create_hold(show_id: &str, body: &HoldOrder) -> Result<HoldBody, ApiError> {
    let path = format!("/api/shows/{show_id}/holds");
    let mut attempt = 1;
    loop {
        match post(&path, body).await {
            Err(ApiError::Transport(_)) if attempt < HOLD_ATTEMPTS => {
                TimeoutFuture::new(400 * 3_u32.pow(attempt - 1)).await;
                attempt += 1;
            }
            other => return other,
        }
    }
}

/// Adds the show's extension to the hold's deadline.
pub async fn extend(hold_id: &str) -> Result<HoldBody, ApiError> {
    post_empty(&format!("/api/holds/{hold_id}/extend")).await
}

/// Buys the hold's places (payment is out of scope).
pub async fn confirm(hold_id: &str) -> Result<HoldBody, ApiError> {
    post_empty(&format!("/api/holds/{hold_id}/confirm")).await
}

/// Lets the hold's places go.
pub async fn release(hold_id: &str) -> Result<(), ApiError> {
    exchange(request(reqwest::Method::DELETE, &format!("/api/holds/{hold_id}"))).await.map(|_| ())
}

/// A fresh hold id: 128 random bits from `crypto.getRandomValues`, as 32
/// hex digits (API.md asks for `[A-Za-z0-9_-]{8,64}`).
pub fn new_hold_id() -> String {
    let mut bytes = [0_u8; 16];
    let filled = web_sys::window()
        .and_then(|window| window.crypto().ok())
        .is_some_and(|crypto| crypto.get_random_values_with_u8_array(&mut bytes).is_ok());
    if !filled {
        for byte in &mut bytes {
            *byte = (js_sys::Math::random() * 256.0) as u8;
        }
    }
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

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
            url: url(&format!("/api/shows/{show_id}/events")),
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
        Some(version) => format!("{}?lastEventId={version}", feed.url),
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

// The operator's calls: each carries the admin token (API.md "Box office
// (v2)", Operator; `401 unauthorized` when the token is wrong).

/// A request to an admin path with the operator's token.
fn as_operator(method: reqwest::Method, path: &str, token: &str) -> reqwest::RequestBuilder {
    request(method, path).header(reqwest::header::AUTHORIZATION, format!("Bearer {token}"))
}

/// `GET …/stats` read flat: [`ShowStats`]'s `#[serde(flatten)]` would make
/// serde buffer the answer through its generic content in the wasm.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct StatsBody {
    free: u64,
    held: u64,
    sold: u64,
    blocked: u64,
    by_category: std::collections::BTreeMap<String, PlaceCounts>,
    holds: HoldCounts,
    conversion: f64,
    median_seconds_to_confirm: Option<f64>,
    server_time: i64,
}

/// A show's places by state and category, holds by outcome, conversion.
pub async fn show_stats(show_id: &str, token: &str) -> Result<ShowStats, ApiError> {
    let path = format!("/api/admin/shows/{show_id}/stats");
    let body: StatsBody = decode(exchange(as_operator(reqwest::Method::GET, &path, token)).await?)?;
    Ok(ShowStats {
        places: PlaceCounts { free: body.free, held: body.held, sold: body.sold, blocked: body.blocked },
        by_category: body.by_category,
        holds: body.holds,
        conversion: body.conversion,
        median_seconds_to_confirm: body.median_seconds_to_confirm,
        server_time: body.server_time,
    })
}

/// A show's active holds with their holders, oldest first.
pub async fn active_holds(show_id: &str, token: &str) -> Result<OperatorHoldList, ApiError> {
    let path = format!("/api/admin/shows/{show_id}/holds");
    decode(exchange(as_operator(reqwest::Method::GET, &path, token)).await?)
}

/// Releases anyone's hold, as the operator (journaled as such).
pub async fn force_release(hold_id: &str, token: &str) -> Result<HoldBody, ApiError> {
    let path = format!("/api/admin/holds/{hold_id}/release");
    decode(exchange(as_operator(reqwest::Method::POST, &path, token)).await?)
}

/// The journal's two export formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JournalFormat {
    JsonLines,
    Csv,
}

impl JournalFormat {
    /// The media type asked for (`Accept`) and saved.
    pub fn media_type(self) -> &'static str {
        match self {
            Self::JsonLines => "application/jsonl",
            Self::Csv => "text/csv",
        }
    }
}

/// A show's whole journal, oldest first, as text in `format`.
pub async fn journal(show_id: &str, token: &str, format: JournalFormat) -> Result<String, ApiError> {
    let path = format!("/api/admin/shows/{show_id}/journal");
    let request = as_operator(reqwest::Method::GET, &path, token).header(reqwest::header::ACCEPT, format.media_type());
    Ok(exchange(request).await?.unwrap_or_default())
}

/// `{"seats": [...], "reason": "..."}`: seats to block or unblock.
#[derive(Debug, Clone, Serialize)]
struct BlockBody<'a> {
    seats: &'a [String],
    reason: &'a str,
}

/// `{"blocked": [...]}`: every seat blocked now.
#[derive(Debug, Clone, serde::Deserialize)]
pub struct Blocked {
    pub blocked: Vec<String>,
}

/// Blocks `seats` (`block`) or unblocks them; every seat blocked afterwards.
pub async fn set_blocked(
    show_id: &str,
    token: &str,
    seats: &[String],
    reason: &str,
    block: bool,
) -> Result<Blocked, ApiError> {
    let path = format!("/api/admin/shows/{show_id}/blocked");
    let method = if block { reqwest::Method::POST } else { reqwest::Method::DELETE };
    let request = as_operator(method, &path, token)
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .body(to_json(&BlockBody { seats, reason })?);
    decode(exchange(request).await?)
}
