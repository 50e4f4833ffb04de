//! The on-sale panel's data: the last hour by the minute, the waiting
//! room's state and the operator's controls over it, and the seat map as
//! it stands, every seat drawn by its state with the picture code the
//! customer's first paint uses (`seat_state::drawing::picture`).

use std::collections::HashMap;
use std::sync::Arc;

use leptos::prelude::*;
use leptos::task::spawn_local;
use seat_state::drawing::SeatLook;
use seat_state::drawing::layout::Layout;
use seat_state::drawing::picture::{Picture, PictureSeat};
use seat_state::wire::{OnSaleHistory, QueueProgress, QueueSettingsBody, QueueStatus, SeatMap, ShowDefinition};
use seat_state::{SeatState, ServerMillis, seat_state};

use super::Admin;
use crate::api::{self, ApiError, QueueFeed};
use crate::live_show::both;

/// How long the last hour's charts are kept before they are asked for again.
const HISTORY_EVERY_MS: i64 = 10_000;

/// What the on-sale panel shows of one show at one instant.
#[derive(Debug, Clone, PartialEq)]
pub struct OnSaleBoard {
    pub history: OnSaleHistory,
    /// The waiting room; `None` for a show without one.
    pub queue: Option<QueueStatus>,
    /// The seat map's markup and its seats by state.
    pub map: Option<(Arc<str>, StateCounts)>,
}

/// Seats by what the map shows them as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct StateCounts {
    pub free: usize,
    pub held: usize,
    pub sold: usize,
    pub blocked: usize,
}

/// One show's seats laid out once: each reload only restyles them.
pub struct AdminMap {
    show_id: String,
    name: String,
    layout: Layout,
    seats: Vec<PictureSeat>,
    index: HashMap<String, usize>,
}

impl AdminMap {
    pub fn new(show: &ShowDefinition) -> Self {
        let label = |seat: &seat_state::wire::SeatDefinition| seat.label.clone().unwrap_or_else(|| seat.id.clone());
        let labels: Vec<String> = show.seats.iter().map(label).collect();
        let layout = Layout::new(show.seats.iter().zip(&labels).map(|(seat, label)| (seat.x, seat.y, label.as_str())));
        let seats = show
            .seats
            .iter()
            .map(|seat| PictureSeat { x: seat.x, y: seat.y, category: None, look: SeatLook::FREE })
            .collect();
        let index = show.seats.iter().enumerate().map(|(at, seat)| (seat.id.clone(), at)).collect();
        Self { show_id: show.id.clone(), name: show.name.clone(), layout, seats, index }
    }

    /// The map with every seat as `facts` say at their `serverTime` (a
    /// compact map: the seats it leaves out are free).
    pub fn draw(&self, facts: &SeatMap) -> (String, StateCounts) {
        let now = ServerMillis(facts.server_time);
        let mut seats = self.seats.clone();
        for fact in &facts.seats {
            let Some(seat) = self.index.get(&fact.id).and_then(|&at| seats.get_mut(at)) else { continue };
            let state = seat_state(fact.sold, fact.hold_expires_at.map(ServerMillis), now);
            seat.look = SeatLook { state, blocked: fact.blocked, ..SeatLook::FREE };
        }
        let mut counts = StateCounts::default();
        for seat in &seats {
            match (seat.look.state, seat.look.blocked) {
                (SeatState::Sold, _) => counts.sold += 1,
                (SeatState::Held, _) => counts.held += 1,
                (SeatState::Free, true) => counts.blocked += 1,
                (SeatState::Free, false) => counts.free += 1,
            }
        }
        let picture =
            Picture { name: &self.name, layout: &self.layout, seats: &seats, colors: &[], version: facts.version };
        (picture.svg(), counts)
    }
}

impl Admin {
    /// Hears the waiting room's progress of `show_id` while it is looked at:
    /// admissions that move reload the board (at most once a second, as a
    /// change of seats does); stops hearing a show without one.
    pub(super) fn hear_queue(self, show_id: &str, has_queue: bool) {
        let heard_show = self.queue_feed.with_value(|feed| feed.as_ref().map(|(show, _)| show.clone()));
        if !has_queue {
            self.queue_feed.set_value(None);
            return;
        }
        if heard_show.as_deref() == Some(show_id) {
            return;
        }
        let last = std::cell::Cell::new(None::<(u64, u32, bool)>);
        let feed = QueueFeed::open(show_id, move |heard: QueueProgress| {
            let now = (heard.admitted_through, heard.rate_per_minute, heard.paused);
            let moved = last.replace(Some(now)) != Some(now);
            if moved {
                self.reload_soon();
            }
        });
        self.queue_feed.set_value(feed.map(|feed| (show_id.to_owned(), feed)));
    }

    /// The on-sale panel's answers for `show_id`; the show's layout is
    /// kept from the first load.
    pub(super) async fn load_on_sale(self, show_id: &str, token: &str) -> Result<OnSaleBoard, ApiError> {
        let kept = self.map.with_value(|map| map.as_ref().filter(|map| map.show_id == show_id).cloned());
        let map = async {
            let map = match kept {
                Some(map) => map,
                None => {
                    let (show, _, _) = api::show(show_id).await?;
                    let map = Arc::new(AdminMap::new(&show));
                    self.map.set_value(Some(Arc::clone(&map)));
                    map
                }
            };
            // A show without seats (areas only) has no map to draw.
            if map.seats.is_empty() {
                return Ok(None);
            }
            let facts = api::taken_seats(show_id).await?;
            let (markup, counts) = map.draw(&facts);
            Ok::<_, ApiError>(Some((Arc::from(markup), counts)))
        };
        let figures = both(self.recent_history(show_id, token), api::queue_status(show_id, token));
        let ((history, queue), map) = both(figures, map).await;
        Ok(OnSaleBoard { history: history?, queue: queue?, map: map? })
    }

    /// The last hour by the minute, asked for at most every
    /// [`HISTORY_EVERY_MS`]: each answer reads the show's whole journal,
    /// and a board reloads up to once a second in a sale.
    async fn recent_history(self, show_id: &str, token: &str) -> Result<OnSaleHistory, ApiError> {
        let now = api::local_now().0;
        let kept = self.history.with_value(|kept| {
            kept.as_ref()
                .filter(|(show, at, _)| show == show_id && now - at < HISTORY_EVERY_MS)
                .map(|kept| kept.2.clone())
        });
        if let Some(history) = kept {
            return Ok(history);
        }
        let history = api::on_sale_history(show_id, token).await?;
        self.history.set_value(Some((show_id.to_owned(), now, history.clone())));
        Ok(history)
    }

    /// Sends the operator's change to the waiting room, then reloads.
    pub fn settle_queue(self, settings: QueueSettingsBody, done: &'static str) {
        let (Some(token), Some(show_id)) = (self.token.get_untracked(), self.show.get_untracked()) else { return };
        self.busy.set(true);
        spawn_local(async move {
            let answer = api::settle_queue(&show_id, &token, &settings).await;
            self.busy.set(false);
            match answer {
                Ok(status) => {
                    let rate = status.rate_per_minute;
                    let state = if status.closed {
                        "closed"
                    } else if status.paused {
                        "paused"
                    } else {
                        "admitting"
                    };
                    self.say(None, Some(format!("{done} The waiting room is {state}, at {rate} a minute.")));
                    self.reload();
                }
                Err(error) => self.refused(&error),
            }
        });
    }

    /// Sets the admission rate typed (a whole number of places a minute).
    pub fn set_rate(self, typed: &str) {
        match typed.trim().parse::<i64>() {
            Ok(rate) if rate >= 1 => {
                let settings = QueueSettingsBody { admit_per_minute: Some(rate), ..QueueSettingsBody::default() };
                self.settle_queue(settings, "Rate set.");
            }
            _ => self.say(Some("Enter the places to admit a minute: a whole number, at least 1.".to_owned()), None),
        }
    }
}
