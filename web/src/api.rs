//! Every HTTP call and the live event stream (`api/live.rs`; the
//! operator's calls in `api/operator.rs`). Nothing else knows a URL.
//!
//! Requests go through `fetch` (reqwest on wasm) with same-origin
//! credentials, so the session cookie set by `POST /api/sessions` rides
//! along by itself. Bodies are parsed with the wire types of `seat-state`.

use gloo_timers::future::TimeoutFuture;
use serde::Serialize;
use serde::de::DeserializeOwned;
use wasm_bindgen::JsCast;

use seat_state::wire::{
    CompactMap, ErrorBody, Focus, HoldBody, HoldList, HoldOrder, SeatMap, SessionBody, ShowDefinition, ShowList,
    ShowOffer, TimeBody,
};
use seat_state::{ClockSample, LocalMillis, Rejection, ServerMillis};

use crate::words;

mod live;
mod operator;
mod queue;

pub use live::{LiveEvent, LiveFeed, stream_refusal};
pub use operator::{
    Blocked, JournalFormat, active_holds, force_release, journal, on_sale_history, queue_status, set_blocked,
    settle_queue, show_stats, webhooks,
};
pub use queue::{QueueFeed, join_queue, queue_place};

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
    seathold_js_value::from_value(value).ok()
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

/// Where a show's stage is (`focus`, optional) and its waiting room, read
/// apart from the v1 definition, which carries neither.
#[derive(Debug, Clone, Copy, PartialEq, serde::Deserialize)]
pub struct Staged {
    #[serde(default)]
    pub focus: Option<Focus>,
    /// The waiting room's settings, when the show has one.
    #[serde(default, rename = "onSale")]
    pub on_sale: Option<seat_state::wire::OnSaleDefinition>,
}

/// One show's definition: seats, positions, rules, its box office's
/// categories and channels, and its stage. The answer is parsed once and
/// read as flat wire types (unknown fields skipped): its `serverTime` is
/// not needed, and none reads through `#[serde(flatten)]`, which would make
/// serde buffer every seat in the wasm.
pub async fn show(show_id: &str) -> Result<(ShowDefinition, ShowOffer, Staged), ApiError> {
    let value = get_value(&format!("/api/shows/{show_id}")).await?;
    let unreadable = || transport("unreadable answer");
    let mut show: ShowDefinition = seathold_js_value::from_value(value.clone()).ok().ok_or_else(unreadable)?;
    let mut offer: ShowOffer = seathold_js_value::from_value(value.clone()).ok().ok_or_else(unreadable)?;
    // A label equal to its default is left out of the definition (API.md "On-sale (v3)").
    for (seat, place) in show.seats.iter_mut().zip(&offer.seats) {
        if seat.label.is_none() {
            let (section, row) = (place.section.as_deref(), place.row.as_deref());
            seat.label = Some(seat_state::wire::default_label(&seat.id, section, row, place.number));
        }
    }
    // Parametric rows (a stadium's) become seats after the listed ones, as the server numbers them.
    let rows: seat_state::wire::ShowRows = seathold_js_value::from_value(value.clone()).ok().ok_or_else(unreadable)?;
    if !rows.rows.is_empty() {
        rows.append_to(&mut show, &mut offer).map_err(|_| transport("unreadable rows"))?;
    }
    let staged = seathold_js_value::from_value(value).ok().ok_or_else(unreadable)?;
    Ok((show, offer, staged))
}

/// The facts every seat's state is derived from (with `mine` for this
/// session) in the compact form (`?format=compact`, API.md "Live changes
/// (v4)"): only the seats taken, by their position in the definition;
/// `crate::live_map` decodes it with the show's seat order.
pub async fn seat_map(show_id: &str) -> Result<CompactMap, ApiError> {
    let value = get_value(&format!("/api/shows/{show_id}/seats?format=compact")).await?;
    seathold_js_value::from_value(value).ok().ok_or_else(|| transport("unreadable answer"))
}

/// The seat map as JSON, only the seats taken (`?only=taken`; the
/// operator's board, which reads no seat order).
pub async fn taken_seats(show_id: &str) -> Result<SeatMap, ApiError> {
    get(&format!("/api/shows/{show_id}/seats?only=taken")).await
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
