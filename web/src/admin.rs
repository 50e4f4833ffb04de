//! The operator's page as data: the admin token (asked once, kept in the
//! tab's `sessionStorage`), the show looked at, its stats and active holds
//! (with the webhook log: each webhook's pending, failed, attempts, last
//! status and error; and the on-sale panel, [`on_sale`])
//! (reloaded when the show's live stream reports a change, at most once a
//! second, and every 15 s), the server's clock (`seat-state`'s `ClockSync`
//! over the loads' and the link's round trips), and the operator's actions: force-release,
//! block and unblock, journal export. Components only render what this
//! holds and send it intents.

mod on_sale;

use std::sync::Arc;

use gloo_timers::callback::{Interval, Timeout};
use leptos::prelude::*;
use leptos::task::spawn_local;
use seat_state::sync::ConnectionStatus;
use seat_state::wire::{OperatorHold, ShowStats, WebhookStatus};
use seat_state::{ClockSample, ClockSync, ServerMillis};
use wasm_bindgen::{JsCast, JsValue};

use crate::api::{self, ApiError, JournalFormat, LiveEvent};
use crate::live_link::{Hooks, LiveLink};
use crate::live_show::both;

pub use on_sale::{AdminMap, OnSaleBoard, StateCounts};

/// Where the token is kept: this tab only, gone when it closes.
const TOKEN_KEY: &str = "seathold-admin-token";

/// Changes within this many ms reload the board once.
const THROTTLE_MS: u32 = 1_000;

/// The board reloads this often even when the stream is quiet (or refused).
const PERIODIC_MS: u32 = 15_000;

/// What the operator sees of one show at one instant.
#[derive(Debug, Clone, PartialEq)]
pub struct Board {
    pub stats: ShowStats,
    /// Active holds, oldest first.
    pub holds: Vec<OperatorHold>,
    /// Every webhook with its deliveries, oldest first.
    pub webhooks: Vec<WebhookStatus>,
    /// The last hour, the waiting room and the seat map.
    pub on_sale: OnSaleBoard,
}

/// Handles for the operator's page; cheap to copy into callbacks.
#[derive(Clone, Copy)]
pub struct Admin {
    /// The admin token, once entered.
    pub token: RwSignal<Option<String>>,
    /// The show looked at.
    pub show: RwSignal<Option<String>>,
    /// Bumped to reload the board.
    pub revision: RwSignal<u32>,
    /// The urgent sentence (`role="alert"`).
    pub alert: RwSignal<Option<String>>,
    /// Polite news (`role="status"`).
    pub status: RwSignal<Option<String>>,
    /// An action is under way.
    pub busy: RwSignal<bool>,
    /// Every seat blocked, as the last block or unblock answered.
    pub blocked: RwSignal<Option<Vec<String>>>,
    /// The server's clock as last read, advanced each second by the local one.
    pub server_now: RwSignal<i64>,
    /// The server's clock estimated from round trips (the board's loads
    /// and `GET /api/time`): the best of several, not the last one.
    clock: StoredValue<ClockSync>,
    /// A reload waiting out the throttle.
    pending: StoredValue<Option<Timeout>, LocalStorage>,
    /// What keeps the board current while a show is looked at.
    watching: StoredValue<Option<Watching>, LocalStorage>,
    /// The seat layout of the show looked at, kept across reloads.
    map: StoredValue<Option<Arc<AdminMap>>>,
    /// The last hour's charts as last asked for: the show, the local
    /// instant and the answer.
    history: StoredValue<Option<(String, i64, seat_state::wire::OnSaleHistory)>>,
    /// The operator asked to close the waiting room and has not confirmed.
    pub closing: RwSignal<bool>,
    /// The waiting room's progress stream, and the show it is of.
    queue_feed: StoredValue<Option<(String, api::QueueFeed)>, LocalStorage>,
}

/// The live stream and timers of the show looked at; dropped, they stop.
struct Watching {
    _link: LiveLink,
    _periodic: Interval,
    _clock: Interval,
}

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.session_storage().ok()?
}

/// Seat ids from what the operator typed: separated by commas or spaces.
pub fn seat_ids(text: &str) -> Vec<String> {
    text.split(|c: char| c == ',' || c.is_whitespace()).filter(|id| !id.is_empty()).map(str::to_owned).collect()
}

/// `m:ss`, or `h:mm:ss` from an hour on; never negative.
pub fn duration(ms: i64) -> String {
    let seconds = ms.max(0) / 1000;
    let (h, m, s) = (seconds / 3600, seconds / 60 % 60, seconds % 60);
    if h > 0 { format!("{h}:{m:02}:{s:02}") } else { format!("{m}:{s:02}") }
}

/// The local time of day of a server instant, `HH:MM:SS`.
pub fn time_of_day(at: i64) -> String {
    let date = js_sys::Date::new(&JsValue::from_f64(at as f64));
    format!("{:02}:{:02}:{:02}", date.get_hours(), date.get_minutes(), date.get_seconds())
}

/// A hold's places in a few words: its seats, then area quantities.
pub fn places(hold: &OperatorHold) -> String {
    let mut parts: Vec<String> = hold.seats.clone();
    parts.extend(hold.areas.iter().map(|(area, quantity)| format!("{quantity} × {area}")));
    parts.join(", ")
}

impl Admin {
    /// The page's state; the token comes back from this tab's storage.
    pub fn new() -> Self {
        let token = storage().and_then(|storage| storage.get_item(TOKEN_KEY).ok().flatten());
        Self {
            token: RwSignal::new(token.filter(|token| !token.is_empty())),
            show: RwSignal::new(None),
            revision: RwSignal::new(0),
            alert: RwSignal::new(None),
            status: RwSignal::new(None),
            busy: RwSignal::new(false),
            blocked: RwSignal::new(None),
            server_now: RwSignal::new(api::local_now().0),
            clock: StoredValue::new(ClockSync::new()),
            pending: StoredValue::new_local(None),
            watching: StoredValue::new_local(None),
            map: StoredValue::new(None),
            history: StoredValue::new(None),
            closing: RwSignal::new(false),
            queue_feed: StoredValue::new_local(None),
        }
    }

    fn say(&self, alert: Option<String>, status: Option<String>) {
        self.alert.set(alert);
        self.status.set(status);
    }

    /// Keeps the token for this tab (the server checks it on first use).
    pub fn sign_in(&self, token: &str) {
        let token = token.trim();
        if token.is_empty() {
            self.say(Some("Enter the admin token.".to_owned()), None);
            return;
        }
        if let Some(storage) = storage() {
            let _ = storage.set_item(TOKEN_KEY, token);
        }
        self.token.set(Some(token.to_owned()));
        self.say(None, None);
    }

    /// Forgets the token.
    pub fn sign_out(&self) {
        if let Some(storage) = storage() {
            let _ = storage.remove_item(TOKEN_KEY);
        }
        self.token.set(None);
        self.blocked.set(None);
    }

    /// Shows a failure; a refused token is forgotten and asked for again.
    pub fn refused(&self, error: &ApiError) {
        let sentence = match error {
            ApiError::Server { status: 401, .. } => {
                self.sign_out();
                "The admin token was not accepted. Enter it again.".to_owned()
            }
            ApiError::Server { body, .. } if body.error == "admin_disabled" => {
                "This server has no admin token set (SEATHOLD_ADMIN_TOKEN), so the operator's page is off.".to_owned()
            }
            _ => error.sentence(),
        };
        self.say(Some(sentence), None);
    }

    /// The token, or `None` (then nothing is sent).
    fn token_now(&self) -> Option<String> {
        self.token.get_untracked()
    }

    /// Loads a show's stats and active holds, and the webhook log,
    /// together; a failure is shown (and a refused token forgotten).
    pub async fn load(self, show_id: String, token: String) -> Result<Arc<Board>, ApiError> {
        let sent = api::local_now();
        let show = both(api::show_stats(&show_id, &token), api::active_holds(&show_id, &token));
        let rest = both(api::webhooks(&token), self.load_on_sale(&show_id, &token));
        let ((stats, holds), (webhooks, on_sale)) = both(show, rest).await;
        let loaded = (|| Ok::<_, ApiError>((stats?, holds?, webhooks?, on_sale?)))();
        match loaded {
            Ok((stats, list, webhooks, on_sale)) => {
                self.hear_queue(&show_id, on_sale.queue.is_some());
                // The list's serverTime was read between sending and now: a round trip.
                self.sampled(ClockSample { sent, server: ServerMillis(list.server_time), received: api::local_now() });
                Ok(Arc::new(Board { stats, holds: list.holds, webhooks: webhooks.webhooks, on_sale }))
            }
            Err(error) => {
                self.refused(&error);
                Err(error)
            }
        }
    }

    /// Reloads the board now.
    pub fn reload(&self) {
        self.revision.update(|revision| *revision += 1);
    }

    /// Reloads the board soon: changes within a second reload it once.
    pub fn reload_soon(self) {
        if self.pending.with_value(Option::is_some) {
            return;
        }
        let timer = Timeout::new(THROTTLE_MS, move || {
            self.pending.try_set_value(None);
            let _ = self.revision.try_update(|revision| *revision += 1);
        });
        self.pending.set_value(Some(timer));
    }

    /// Keeps the board of `show_id` current (`None`: stops): the show's
    /// live stream (any change reloads it, throttled), a reload every 15 s,
    /// and the clock for ages and deadlines. A new show replaces the old.
    pub fn follow(self, show_id: Option<&str>) {
        self.pending.try_set_value(None);
        let Some(show_id) = show_id else {
            self.watching.try_set_value(None);
            self.queue_feed.try_set_value(None);
            return;
        };
        let hooks = Hooks {
            on_event: Box::new(move |event| match event {
                LiveEvent::Snapshot(_) | LiveEvent::Change(_) | LiveEvent::Garbled => self.reload_soon(),
                LiveEvent::Opened | LiveEvent::Error { .. } => {}
            }),
            // While the stream is refused, the board itself is the poll.
            poll: Box::new(move || {
                self.reload_soon();
                Box::pin(async { Ok(()) })
            }),
            on_sample: Box::new(move |sample| self.sampled(sample)),
            on_back: Box::new(move || self.reload_soon()),
        };
        let link = LiveLink::start(show_id, None, &[], RwSignal::new(ConnectionStatus::Connecting), hooks);
        let periodic = Interval::new(PERIODIC_MS, move || {
            let _ = self.revision.try_update(|revision| *revision += 1);
        });
        let clock = Interval::new(1_000, move || self.show_server_now());
        self.watching.try_set_value(Some(Watching { _link: link, _periodic: periodic, _clock: clock }));
    }

    /// Takes a round trip to the server's clock into the estimate.
    fn sampled(&self, sample: ClockSample) {
        self.clock.try_update_value(|clock| {
            clock.add(sample);
        });
        self.show_server_now();
    }

    /// The server's clock now, as estimated (unchanged before any sample).
    fn show_server_now(&self) {
        let now = self.clock.try_with_value(|clock| clock.server_now(api::local_now())).flatten();
        if let Some(now) = now {
            self.server_now.try_set(now.0);
        }
    }

    /// Releases anyone's hold (the operator's force-release), then reloads.
    pub fn release(self, hold_id: String, what: String) {
        let Some(token) = self.token_now() else { return };
        self.busy.set(true);
        spawn_local(async move {
            let answer = api::force_release(&hold_id, &token).await;
            self.busy.set(false);
            match answer {
                Ok(_) => {
                    self.say(None, Some(format!("Released {what}.")));
                    self.reload();
                }
                Err(error) => {
                    self.refused(&error);
                    self.reload();
                }
            }
        });
    }

    /// Blocks (or unblocks) the seats typed, with a reason.
    pub fn set_blocked(self, seats_text: &str, reason: &str, block: bool) {
        let (Some(token), Some(show_id)) = (self.token_now(), self.show.get_untracked()) else { return };
        let seats = seat_ids(seats_text);
        if seats.is_empty() {
            self.say(Some("Name at least one seat, e.g. A1, A2.".to_owned()), None);
            return;
        }
        let reason = reason.trim().to_owned();
        self.busy.set(true);
        spawn_local(async move {
            let answer = api::set_blocked(&show_id, &token, &seats, &reason, block).await;
            self.busy.set(false);
            match answer {
                Ok(now) => {
                    let done = if block { "Blocked" } else { "Unblocked" };
                    self.say(None, Some(format!("{done} {}.", crate::words::list(&seats))));
                    self.blocked.set(Some(now.blocked));
                    self.reload();
                }
                Err(error) => self.refused(&error),
            }
        });
    }

    /// Downloads the journal in `format` (a fetch with the token, saved
    /// from a Blob: a plain link could not carry the Authorization header).
    pub fn export(self, format: JournalFormat) {
        let (Some(token), Some(show_id)) = (self.token_now(), self.show.get_untracked()) else { return };
        self.busy.set(true);
        spawn_local(async move {
            let answer = api::journal(&show_id, &token, format).await;
            self.busy.set(false);
            match answer {
                Ok(text) => {
                    let extension = if format == JournalFormat::Csv { "csv" } else { "jsonl" };
                    let name = format!("{show_id}-journal.{extension}");
                    let lines = text.lines().count();
                    let entries = if format == JournalFormat::Csv { lines.saturating_sub(1) } else { lines };
                    match save(&text, &name, format.media_type()) {
                        Ok(()) => self.say(None, Some(format!("Journal saved as {name}: {entries} entries."))),
                        Err(()) => self.say(Some("The browser refused to save the file.".to_owned()), None),
                    }
                }
                Err(error) => self.refused(&error),
            }
        });
    }
}

impl Default for Admin {
    fn default() -> Self {
        Self::new()
    }
}

/// Offers `text` as a file download named `name`.
fn save(text: &str, name: &str, media_type: &str) -> Result<(), ()> {
    let parts = js_sys::Array::of1(&JsValue::from_str(text));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(media_type);
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options).map_err(drop)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(drop)?;
    let link: web_sys::HtmlElement = document().create_element("a").map_err(drop)?.dyn_into().map_err(drop)?;
    link.set_attribute("href", &url).map_err(drop)?;
    link.set_attribute("download", name).map_err(drop)?;
    link.click();
    // The download has started from the URL; it may go after a moment.
    Timeout::new(60_000, move || {
        let _ = web_sys::Url::revoke_object_url(&url);
    })
    .forget();
    Ok(())
}
