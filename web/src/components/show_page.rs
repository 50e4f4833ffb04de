use std::sync::Arc;

use gloo_timers::future::TimeoutFuture;
use leptos::prelude::*;
use leptos::task::spawn_local;
use seat_state::sync::Input;
use seat_state::wire::{HoldList, SeatMap as SeatFacts, ShowDefinition};
use seat_state::{ClockSample, LocalMillis};

use crate::api::{self, ApiError, LiveEvent, LiveFeed};
use crate::components::connection_status::Connection;
use crate::components::show_view::ShowView;
use crate::controller::{Controller, resync};
use crate::live_map::LiveMap;

/// Clock samples taken in a row at start and when the tab comes back; the
/// one with the smallest round trip wins.
const SAMPLES: usize = 3;

/// Everything the page needs before it can draw.
#[derive(Debug, Clone, PartialEq)]
pub struct Loaded {
    pub show: ShowDefinition,
    pub facts: SeatFacts,
    pub holds: HoldList,
    pub samples: Vec<ClockSample>,
}

async fn load(show_id: &str) -> Result<Loaded, ApiError> {
    let show = api::show(show_id).await?;
    // Starts a session when there is none; a reload keeps the cookie's.
    let holds = api::my_holds().await?;
    let samples = api::sample_clock_several(SAMPLES).await?;
    let facts = api::seat_map(show_id).await?;
    Ok(Loaded { show, facts, holds, samples })
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

/// One show: its name, the hold banner, the stage, the seat map with its
/// legend, standing areas, and what is picked. Loads the show, the
/// customer's holds (starting a session if needed), the clock and the
/// facts, then keeps the map live.
#[component]
pub fn ShowPage(
    /// The show to open.
    show_id: String,
) -> impl IntoView {
    let loaded = RwSignal::new(None::<Result<Arc<Loaded>, ApiError>>);
    {
        let show_id = show_id.clone();
        spawn_local(async move {
            loaded.set(Some(load(&show_id).await.map(Arc::new)));
        });
    }
    move || match loaded.get() {
        None => view! { <p class="notice">"Loading the seat map…"</p> }.into_any(),
        Some(Err(error)) => view! { <p class="notice" role="alert">{error.sentence()}</p> }.into_any(),
        Some(Ok(data)) => view! { <LiveShow show_id=show_id.clone() data/> }.into_any(),
    }
}

/// The loaded show, kept live: the event stream, clock re-sync, and a
/// fresh look whenever the tab comes back into view.
#[component]
fn LiveShow(
    /// The show's id.
    show_id: String,
    /// What was loaded for it.
    data: Arc<Loaded>,
) -> impl IntoView {
    let show = &data.show;
    let (controller, model, areas) = Controller::new(show, api::local_now);
    let live = controller.live;
    live.update_value(|live| {
        let mut inputs: Vec<Input> = data.samples.iter().copied().map(Input::ClockSample).collect();
        inputs.push(Input::MyHolds(data.holds.holds.clone()));
        inputs.push(Input::Snapshot(data.facts.clone()));
        live.feed_all(inputs);
        live.focus_newest_active();
    });

    let connection = RwSignal::new(Connection::Connecting);
    let feed = LiveFeed::open(&show_id, move |event| match event {
        LiveEvent::Connected => {
            if connection.get_untracked() == Connection::Reconnecting {
                controller.refresh_holds();
            }
            connection.set(Connection::Live);
        }
        LiveEvent::Reconnecting => connection.set(Connection::Reconnecting),
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

    view! {
        <ShowView
            name=show.name.clone()
            extension_seconds=show.extension_seconds
            model
            areas
            controller
            connection
        />
    }
}
