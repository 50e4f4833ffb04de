//! A show's page as data: what is loaded before it can draw, and what keeps
//! it live afterwards (the event stream resuming after the loaded snapshot,
//! clock re-sync, a fresh look when the tab comes back, all timed by
//! `seat-state`'s connection policy in [`crate::live_link`]). Components only
//! render what this sets up.

use std::sync::Arc;
use std::task::Poll;

use leptos::prelude::*;
use seat_state::ClockSample;
use seat_state::sync::Input;
use seat_state::sync::connection::Input as ConnectionInput;
use seat_state::wire::{CompactMap, HoldList, ShowDefinition, ShowOffer, ShowSummary};

use crate::api::{self, ApiError, LiveEvent};
use crate::controller::{Controller, fetch_map, resync};
use crate::live_link::{Hooks, LiveLink};
use crate::live_map::LiveMap;
use crate::model::{AreaCell, MapModel};

/// Clock samples taken in a row at start; the
/// one with the smallest round trip wins.
const SAMPLES: usize = 3;

/// The state of the live stream of changes, as `seat-state`'s connection
/// policy says.
pub use seat_state::sync::ConnectionStatus as Connection;

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
    /// The seats taken, compact (decoded by the live map, which knows the
    /// show's seat order).
    pub facts: CompactMap,
    pub holds: HoldList,
    pub samples: Vec<ClockSample>,
    /// The stage, when the show names it: a phone's map opens on the seats nearest it.
    pub stage: Option<(f64, f64)>,
    /// The waiting room customers pass before the map, when the show has one.
    pub on_sale: Option<seat_state::wire::OnSaleDefinition>,
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
    let on_sale = staged.on_sale;
    Ok(Arc::new(Loaded { show, offer, facts: facts?, holds, samples, stage, on_sale }))
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
    /// stream after the loaded snapshot's version (or from a snapshot, when
    /// the loaded map did not fit the show), keeps the clock synced, and
    /// looks again whenever the tab comes back into view.
    pub fn start(data: &Loaded) -> Self {
        let (controller, model, areas) = Controller::new(&data.show, &data.offer, api::local_now);
        let live = controller.live;
        live.update_value(|live| {
            let mut inputs: Vec<Input> = data.samples.iter().copied().map(Input::ClockSample).collect();
            inputs.push(Input::MyHolds(data.holds.holds.clone()));
            inputs.extend(live.snapshot(&data.facts).ok());
            live.feed_all(inputs);
            live.focus_newest_active();
        });
        let resume_after = live.with_value(LiveMap::version);

        let connection = RwSignal::new(Connection::Connecting);
        let show_id = data.show.id.clone();
        let hooks = Hooks {
            on_event: Box::new(move |event| {
                // A frame that does not fit the show is as good as garbled.
                let taken = match event {
                    LiveEvent::Snapshot(map) => live.try_update_value(|live| live.feed_map(&map).is_ok()),
                    LiveEvent::Change(change) => live.try_update_value(|live| live.feed_change(&change).is_ok()),
                    LiveEvent::Garbled => Some(false),
                    LiveEvent::Opened | LiveEvent::Error { .. } => None,
                };
                if taken == Some(false) {
                    resync(controller.show_id.get_value(), live);
                }
            }),
            poll: Box::new(move || {
                let show_id = show_id.clone();
                Box::pin(async move { fetch_map(&show_id, live).await })
            }),
            on_sample: Box::new(move |sample| {
                live.try_update_value(|live| live.feed(Input::ClockSample(sample)));
            }),
            on_back: Box::new(move || controller.refresh_holds()),
        };
        let link = LiveLink::start(&data.show.id, resume_after, &data.samples, connection, hooks);
        let link = StoredValue::new_local(Some(link));
        let seen = move |input: ConnectionInput| link.with_value(|link| link.as_ref().map(|link| link.feed(input)));
        let comeback = move || {
            let visible = document().visibility_state() == web_sys::VisibilityState::Visible;
            if visible {
                seen(ConnectionInput::Visible);
                live.try_update_value(LiveMap::tick);
                controller.refresh_holds();
            } else {
                seen(ConnectionInput::Hidden);
            }
        };
        let on_focus = window_event_listener(leptos::ev::focus, move |_| comeback());
        let on_visible = window_event_listener_untyped("visibilitychange", move |_| comeback());
        on_cleanup(move || {
            on_focus.remove();
            on_visible.remove();
            link.set_value(None);
        });
        Self { controller, model, areas, connection }
    }
}
