//! A show's page as data: what is loaded before it can draw, and what keeps
//! it live afterwards (the event stream resuming after the loaded snapshot,
//! clock re-sync, a fresh look when the tab comes back). Components only
//! render what this sets up.

use std::sync::Arc;
use std::task::Poll;

use gloo_timers::future::TimeoutFuture;
use leptos::prelude::*;
use leptos::task::spawn_local;
use seat_state::sync::Input;
use seat_state::wire::{HoldList, SeatMap as SeatFacts, ShowDefinition, ShowOffer, ShowSummary};
use seat_state::{ClockSample, LocalMillis};

use crate::api::{self, ApiError, LiveEvent, LiveFeed};
use crate::controller::{Controller, resync};
use crate::live_map::LiveMap;
use crate::model::{AreaCell, MapModel};

/// Clock samples taken in a row at start and when the tab comes back; the
/// one with the smallest round trip wins.
const SAMPLES: usize = 3;

/// The state of the live stream of changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Connection {
    /// Opening for the first time.
    Connecting,
    /// Changes arrive as they happen.
    Live,
    /// The stream broke and is being reopened; the map may be behind.
    Reconnecting,
    /// The server has no room for another stream now: the seat map is
    /// polled every few seconds until a stream opens again.
    Polling,
}

/// How often the seat map is fetched while the server refuses a stream.
const POLL_MS: u32 = 3_000;

/// Every show, for the list page.
pub async fn load_shows() -> Result<Vec<ShowSummary>, ApiError> {
    api::shows().await.map(|list| list.shows)
}

/// Everything a show's page needs before it can draw.
#[derive(Debug, Clone, PartialEq)]
pub struct Loaded {
    pub show: ShowDefinition,
    /// Categories and channels.
    pub offer: ShowOffer,
    pub facts: SeatFacts,
    pub holds: HoldList,
    pub samples: Vec<ClockSample>,
    /// The stage, when the show names it: a phone's map opens on the seats nearest it.
    pub stage: Option<(f64, f64)>,
}

/// Loads a show, the customer's holds (starting a session when there is
/// none; a reload keeps the cookie's), the clock and the facts. The show and
/// its facts download while the holds and clock samples go back and forth:
/// the first render waits for the slowest, not for the sum.
pub async fn load_show(show_id: String) -> Result<Arc<Loaded>, ApiError> {
    let customer = async {
        let holds = api::my_holds().await?;
        let samples = api::sample_clock_several(SAMPLES).await?;
        Ok::<_, ApiError>((holds, samples))
    };
    let ((show, facts), customer) = both(both(api::show(&show_id), api::seat_map(&show_id)), customer).await;
    let (holds, samples) = customer?;
    let (show, offer, staged) = show?;
    let stage = staged.focus.map(|focus| (focus.x, focus.y));
    Ok(Arc::new(Loaded { show, offer, facts: facts?, holds, samples, stage }))
}

/// Removes the server's picture of the map, which a show page's HTML
/// carries (`seat_state::drawing::picture`): called in the task that draws
/// the live map (or the error instead), so no frame shows neither.
pub fn retire_picture() {
    if let Some(picture) = document().get_element_by_id(seat_state::drawing::picture::PICTURE_ID) {
        picture.remove();
    }
}

/// Runs two futures at once; both answers when both are done.
pub async fn both<A, B>(a: impl Future<Output = A>, b: impl Future<Output = B>) -> (A, B) {
    let (mut a, mut b) = (std::pin::pin!(a), std::pin::pin!(b));
    let (mut first, mut second) = (None, None);
    std::future::poll_fn(move |cx| {
        if first.is_none()
            && let Poll::Ready(answer) = a.as_mut().poll(cx)
        {
            first = Some(answer);
        }
        if second.is_none()
            && let Poll::Ready(answer) = b.as_mut().poll(cx)
        {
            second = Some(answer);
        }
        match (first.take(), second.take()) {
            (Some(a), Some(b)) => Poll::Ready((a, b)),
            (a, b) => {
                (first, second) = (a, b);
                Poll::Pending
            }
        }
    })
    .await
}

/// Samples the clock several times and feeds every sample.
async fn sample_clock(live: StoredValue<LiveMap, LocalStorage>) {
    if let Ok(samples) = api::sample_clock_several(SAMPLES).await {
        live.try_update_value(|live| live.feed_all(samples.into_iter().map(Input::ClockSample)));
    }
}

/// Re-samples the clock whenever `seat-state` says it is time (a few
/// samples while warming up, then about every minute), until the page goes.
fn keep_clock_synced(live: StoredValue<LiveMap, LocalStorage>) {
    spawn_local(async move {
        loop {
            let Some(next) = live.try_with_value(LiveMap::next_clock_sample) else {
                return;
            };
            let wait = next.map_or(0, |at: LocalMillis| (at.0 - api::local_now().0).clamp(0, 600_000));
            TimeoutFuture::new(u32::try_from(wait).unwrap_or(60_000)).await;
            if live.try_with_value(|_| ()).is_none() {
                return;
            }
            sample_clock(live).await;
        }
    });
}

/// Fetches the seat map every [`POLL_MS`] while `connection` says
/// polling (the stream was refused), feeding each newer map to the live
/// map; stops once a stream is open again (or a newer poller took over:
/// `polls` counts them), or the page goes.
fn poll(
    show_id: String,
    live: StoredValue<LiveMap, LocalStorage>,
    connection: RwSignal<Connection>,
    polls: StoredValue<u32>,
) {
    let Some(mine) = polls.try_update_value(|count| {
        *count += 1;
        *count
    }) else {
        return;
    };
    spawn_local(async move {
        loop {
            let current = polls.try_get_value() == Some(mine);
            if !current || connection.try_get_untracked() != Some(Connection::Polling) {
                return;
            }
            if let Ok(facts) = api::seat_map(&show_id).await {
                live.try_update_value(|live| {
                    if live.version().is_none_or(|known| facts.version > known) {
                        live.feed(Input::Snapshot(facts));
                    }
                });
            }
            TimeoutFuture::new(POLL_MS).await;
        }
    });
}

/// A loaded show made live, for the current reactive owner (it all stops
/// when the owner is cleaned up).
pub struct LiveShow {
    pub controller: Controller,
    pub model: Arc<MapModel>,
    pub areas: Vec<AreaCell>,
    pub connection: RwSignal<Connection>,
}

impl LiveShow {
    /// Feeds what was loaded to a fresh live map, then opens the event
    /// stream after the loaded snapshot's version, keeps the clock synced,
    /// and looks again whenever the tab comes back into view.
    pub fn start(data: &Loaded) -> Self {
        let (controller, model, areas) = Controller::new(&data.show, &data.offer, api::local_now);
        let live = controller.live;
        live.update_value(|live| {
            let mut inputs: Vec<Input> = data.samples.iter().copied().map(Input::ClockSample).collect();
            inputs.push(Input::MyHolds(data.holds.holds.clone()));
            inputs.push(Input::Snapshot(data.facts.clone()));
            live.feed_all(inputs);
            live.focus_newest_active();
        });

        let connection = RwSignal::new(Connection::Connecting);
        let polls = StoredValue::new(0);
        let feed = LiveFeed::open(&data.show.id, Some(data.facts.version), move |event| match event {
            LiveEvent::Connected => {
                if matches!(connection.get_untracked(), Connection::Reconnecting | Connection::Polling) {
                    controller.refresh_holds();
                }
                connection.set(Connection::Live);
            }
            // While polling, a refused retry is no news: the map stays current.
            LiveEvent::Reconnecting if connection.get_untracked() == Connection::Polling => {}
            LiveEvent::Reconnecting => connection.set(Connection::Reconnecting),
            LiveEvent::Busy { .. } => {
                if connection.get_untracked() != Connection::Polling {
                    connection.set(Connection::Polling);
                    poll(controller.show_id.get_value(), live, connection, polls);
                }
            }
            LiveEvent::Snapshot(facts) => {
                live.try_update_value(|live| live.feed(Input::Snapshot(facts)));
            }
            LiveEvent::Change(change) => {
                live.try_update_value(|live| live.feed(Input::Change(change)));
            }
            LiveEvent::Garbled => resync(controller.show_id.get_value(), live),
        });
        let feed = StoredValue::new_local(Some(feed));
        keep_clock_synced(live);
        let comeback = move || {
            let visible = document().visibility_state() == web_sys::VisibilityState::Visible;
            if visible {
                feed.with_value(|feed| feed.as_ref().map(LiveFeed::nudge));
                live.try_update_value(LiveMap::tick);
                spawn_local(sample_clock(live));
                controller.refresh_holds();
            }
        };
        let on_focus = window_event_listener(leptos::ev::focus, move |_| comeback());
        let on_visible = window_event_listener_untyped("visibilitychange", move |_| comeback());
        on_cleanup(move || {
            on_focus.remove();
            on_visible.remove();
            feed.set_value(None);
        });
        Self { controller, model, areas, connection }
    }
}
