//! What the customer's actions do: pick, hold, extend, confirm, release.
//! Each action calls `api`, feeds the answer to the [`LiveMap`], and puts a
//! sentence in front of the customer when something went wrong.

use std::sync::Arc;

use leptos::prelude::*;
use leptos::task::spawn_local;
use seat_state::LocalMillis;
use seat_state::sync::Input;
use seat_state::wire::{BestRequestBody, HoldBody, HoldOrder, RequestedQuantity, ShowDefinition, ShowOffer};

use crate::api::{self, ApiError};
use crate::hold::HoldAction;
use crate::live_map::{LiveMap, Shown, seat_order};
use crate::model::{AreaCell, MapModel};
use crate::selection::Toggle;
use crate::words;

/// Handles for everything an action touches; cheap to copy into callbacks.
#[derive(Clone, Copy)]
pub struct Controller {
    pub show_id: StoredValue<String>,
    pub model: StoredValue<Arc<MapModel>>,
    pub live: StoredValue<LiveMap, LocalStorage>,
    pub shown: Shown,
    /// A request is under way.
    pub busy: RwSignal<bool>,
    /// Polite news for the status region.
    pub status: RwSignal<Option<String>>,
    /// How many active holds one customer may have.
    pub max_active_holds: u32,
    /// The sales channel's code the customer entered, sent with each hold.
    pub code: RwSignal<Option<String>>,
    /// The customer asked for wheelchair places: access seats are offered
    /// and holds carry `"access": true`.
    pub access: RwSignal<bool>,
}

/// Fetches the seat map and feeds it to the live map: the one way a map is
/// fetched once the page is live (a re-sync, and the polls while the stream
/// is refused). An error: the fetch failed (with the server's
/// `Retry-After`, if any) or the map does not fit the show.
pub async fn fetch_map(show_id: &str, live: StoredValue<LiveMap, LocalStorage>) -> Result<(), Option<i64>> {
    let map = api::seat_map(show_id).await.map_err(|error| error.retry_after_millis())?;
    // A page no longer there takes nothing and needs nothing more.
    live.try_update_value(|live| live.feed_map(&map)).unwrap_or(Ok(())).map_err(|_| None)
}

/// Fetches a fresh seat map after the machine missed a change. A failure
/// goes back to the machine, which asks again when its back-off says so
/// (only while it still misses something, and the page is still there).
pub fn resync(show_id: String, live: StoredValue<LiveMap, LocalStorage>) {
    spawn_local(async move {
        if let Err(retry_after_millis) = fetch_map(&show_id, live).await {
            let jitter_permille = (js_sys::Math::random() * 1000.0) as u16;
            live.try_update_value(|live| live.feed(Input::ResyncFailed { retry_after_millis, jitter_permille }));
        }
    });
}

impl Controller {
    /// Cells, live map and controller for a show; nothing is fed yet.
    /// `local_now` is the local clock (a fake one in tests).
    pub fn new(
        show: &ShowDefinition,
        offer: &ShowOffer,
        local_now: fn() -> LocalMillis,
    ) -> (Self, Arc<MapModel>, Vec<AreaCell>) {
        let model = MapModel::new(&show.seats, offer, seat_order(show, offer));
        let areas: Vec<AreaCell> = show
            .areas
            .iter()
            .map(|area| AreaCell { id: area.id.clone(), name: area.name.clone(), available: RwSignal::new(0) })
            .collect();
        let shown = Shown::new(u32::try_from(show.max_seats_per_hold).unwrap_or(1));
        let show_id = show.id.clone();
        let live = LiveMap::create(Arc::clone(&model), areas.clone(), shown, show, local_now, move |live| {
            resync(show_id.clone(), live)
        });
        let controller = Self {
            show_id: StoredValue::new(show.id.clone()),
            model: StoredValue::new(Arc::clone(&model)),
            live,
            shown,
            busy: RwSignal::new(false),
            status: RwSignal::new(None),
            max_active_holds: u32::try_from(show.max_active_holds_per_holder).unwrap_or(1),
            code: RwSignal::new(None),
            access: RwSignal::new(false),
        };
        (controller, model, areas)
    }

    /// No new hold for now: a request is under way or the holder has as
    /// many active holds as allowed (read reactively, for the buttons).
    pub fn hold_blocked(&self) -> bool {
        self.busy.get() || self.shown.active_holds.get() >= self.max_active_holds
    }

    fn say(&self, alert: Option<String>, status: Option<String>) {
        self.shown.alert.set(alert);
        self.status.set(status);
    }

    /// Picks or unpicks the seat at `index`.
    pub fn toggle(&self, index: usize) {
        let Some((seat_id, label, look)) = self.model.with_value(|model| {
            let cell = model.seats.get(index)?;
            Some((cell.id.clone(), cell.label.clone(), model.look(index)?))
        }) else {
            return;
        };
        let available = look.usable();
        let mut outcome = Toggle::Unavailable;
        self.shown.selection.update(|selection| outcome = selection.toggle(&seat_id, available));
        match outcome {
            Toggle::Added | Toggle::Removed => {
                let selected = outcome == Toggle::Added;
                self.model.with_value(|model| model.set_selected(&seat_id, selected));
                self.say(None, None);
            }
            Toggle::OverLimit => {
                let max = self.shown.selection.with_untracked(|s| s.max_places());
                self.say(Some(words::over_limit(max)), None);
            }
            Toggle::Unavailable if look.blocked && look.state == seat_state::SeatState::Free => {
                self.say(None, Some(words::blocked(&label)));
            }
            Toggle::Unavailable if look.locked && look.access && look.state == seat_state::SeatState::Free => {
                self.say(None, Some(words::access_locked(&label)));
            }
            Toggle::Unavailable if look.locked && look.state == seat_state::SeatState::Free => {
                self.say(None, Some(words::locked(&label)));
            }
            Toggle::Unavailable => {
                let why = words::spoken_state(look.state, look.mine);
                self.say(None, Some(format!("{label} is {why}.")));
            }
        }
    }

    /// Sets how many places of an area are picked.
    pub fn set_quantity(&self, area_id: &str, wanted: u32) {
        let available = self.live.with_value(|live| live.available(area_id));
        let mut cut = false;
        self.shown.selection.update(|selection| cut = selection.set_quantity(area_id, wanted, available).1);
        if cut {
            let max = self.shown.selection.with_untracked(|s| s.max_places());
            self.say(Some(words::over_limit(max)), None);
        } else {
            self.say(None, None);
        }
    }

    /// Unpicks everything.
    pub fn clear(&self) {
        let seats = self.shown.selection.with_untracked(|s| s.seats().to_vec());
        self.model.with_value(|model| {
            for seat_id in &seats {
                model.set_selected(seat_id, false);
            }
        });
        self.shown.selection.update(|selection| selection.clear());
        self.say(None, None);
    }

    /// Feeds hold answers to the machine.
    fn took(&self, holds: Vec<HoldBody>) {
        self.live.update_value(|live| live.feed(Input::MyHolds(holds)));
    }

    /// Holds the selection. On `seats_taken`, names the taken seats and
    /// unpicks only those.
    pub fn hold(self) {
        let hold_id = api::new_hold_id();
        let body = self.shown.selection.with_untracked(|s| s.to_request(&hold_id));
        self.live.update_value(|live| live.set_in_flight(body.seats.clone()));
        self.send(HoldOrder { body, best: None, channel: self.code.get_untracked(), access: self.access() });
    }

    /// `"access": true` when the customer asked for wheelchair places.
    fn access(&self) -> Option<bool> {
        self.model.with_value(|model| model.asks_access()).then_some(true)
    }

    /// Asks the server for the best `count` adjacent seats (of `category`,
    /// or any; `wheelchair` of them wheelchair places, each with its
    /// companion seat) and holds them, as it picks them, in one decision.
    pub fn best(self, count: u32, category: Option<String>, wheelchair: u32) {
        self.clear();
        let body = seat_state::wire::HoldRequestBody { hold_id: Some(api::new_hold_id()), ..Default::default() };
        let wheelchair = (wheelchair > 0).then(|| RequestedQuantity::Integer(i64::from(wheelchair)));
        let best = BestRequestBody { count: RequestedQuantity::Integer(i64::from(count)), category, wheelchair };
        let order = HoldOrder { body, best: Some(best), channel: self.code.get_untracked(), access: self.access() };
        self.send(order);
    }

    /// Sends a hold request and shows its answer as the hold.
    fn send(self, order: HoldOrder) {
        let show_id = self.show_id.get_value();
        self.busy.set(true);
        spawn_local(async move {
            let answer = api::create_hold(&show_id, &order).await;
            self.live.update_value(|live| live.set_in_flight(Vec::new()));
            self.busy.set(false);
            match answer {
                Ok(hold) => {
                    let places = hold.places();
                    self.clear();
                    self.live.update_value(|live| {
                        live.focus(Some(hold.hold_id.clone()));
                        live.feed(Input::MyHolds(vec![hold]));
                    });
                    self.say(None, Some(format!("Held {}. Confirm before the time runs out.", words::places(places))));
                }
                Err(error) => self.refused(&error),
            }
        });
    }

    /// Takes a channel's code (empty: none): its seats are offered to this
    /// customer and holds carry it; the server checks it.
    pub fn set_code(&self, code: &str) {
        let code = code.trim();
        let code = (!code.is_empty()).then(|| code.to_owned());
        let locked = code.is_none();
        self.model.with_value(|model| model.offer_channel_seats(!locked));
        self.unpick_locked();
        let news = if locked { words::CODE_CLEARED } else { words::CODE_TAKEN };
        self.code.set(code);
        self.say(None, Some(news.to_owned()));
    }

    /// Offers the wheelchair places and companion seats (`asked`: holds
    /// carry `access`, the server's rule for them until it releases them)
    /// or stops offering them.
    pub fn set_access(&self, asked: bool) {
        self.model.with_value(|model| model.offer_access_seats(asked));
        self.access.set(asked);
        self.unpick_locked();
        let news = if asked { words::ACCESS_ASKED } else { words::ACCESS_CLEARED };
        self.say(None, Some(news.to_owned()));
    }

    /// Unpicks the picked seats that are no longer offered to this customer.
    fn unpick_locked(&self) {
        let locked: Vec<String> = self.shown.selection.with_untracked(|selection| {
            self.model.with_value(|model| {
                let locked = |id: &&String| model.find(id).and_then(|at| model.look(at)).is_some_and(|l| l.locked);
                selection.seats().iter().filter(locked).cloned().collect()
            })
        });
        if locked.is_empty() {
            return;
        }
        self.shown.selection.update(|selection| {
            selection.remove_seats(&locked);
        });
        self.model.with_value(|model| locked.iter().for_each(|id| model.set_selected(id, false)));
    }

    /// Shows a refusal; for taken seats, unpicks only those.
    pub fn refused(&self, error: &ApiError) {
        if error.code() == Some("seats_taken") {
            let taken = error.seats().to_vec();
            self.model.with_value(|model| {
                for seat_id in &taken {
                    model.set_selected(seat_id, false);
                }
            });
            self.shown.selection.update(|selection| {
                selection.remove_seats(&taken);
            });
        }
        if matches!(error.code(), Some("hold_expired" | "hold_released" | "no_hold" | "already_confirmed")) {
            self.refresh_holds();
        }
        let sentence = self.model.with_value(|model| error.sentence_naming(&|seat_id| model.spoken(seat_id)));
        self.say(Some(sentence), None);
    }

    /// Asks the server for my holds again (after a reload, a reconnect, or
    /// a refusal that says the hold changed elsewhere).
    pub fn refresh_holds(self) {
        spawn_local(async move {
            if let Ok(list) = api::my_holds().await {
                self.took(list.holds);
            }
        });
    }

    /// Runs a button of the hold panel.
    pub fn act(self, action: HoldAction) {
        let Some(hold_id) = self.live.with_value(LiveMap::focused) else {
            return;
        };
        if action == HoldAction::Dismiss {
            self.live.update_value(|live| live.focus(None));
            self.say(None, None);
            return;
        }
        self.busy.set(true);
        spawn_local(async move {
            let answer = match action {
                HoldAction::Extend => api::extend(&hold_id).await.map(Some),
                HoldAction::Confirm => api::confirm(&hold_id).await.map(Some),
                HoldAction::Release => api::release(&hold_id).await.map(|()| None),
                HoldAction::Dismiss => Ok(None),
            };
            self.busy.set(false);
            match (action, answer) {
                (_, Err(error)) => self.refused(&error),
                (HoldAction::Release, Ok(_)) => {
                    self.live.update_value(|live| live.focus(None));
                    self.refresh_holds();
                    self.say(None, Some("Released. The seats are free again.".to_owned()));
                }
                (_, Ok(hold)) => {
                    let news = match action {
                        HoldAction::Extend => "Extended. Your new time is shown.",
                        _ => "Confirmed. Enjoy the show!",
                    };
                    self.took(hold.into_iter().collect());
                    self.say(None, Some(news.to_owned()));
                }
            }
        });
    }
}
