use leptos::prelude::*;
use leptos::task::spawn_local;

use seat_state::wire::{SeatMap as SeatFacts, ShowDefinition};
use seat_state::{ClockOffset, ServerMillis};

use crate::api::{self, ApiError};
use crate::components::legend::Legend;
use crate::components::seat_map::{SeatMap, SeatOnMap};

/// Everything the page needs before it can draw.
#[derive(Debug, Clone, PartialEq)]
struct Loaded {
    show: ShowDefinition,
    facts: SeatFacts,
    offset: ClockOffset,
}

async fn load(show_id: &str) -> Result<Loaded, ApiError> {
    let offset = ClockOffset::from_sample(api::sample_clock().await?);
    let show = api::show(show_id).await?.show;
    let facts = api::seat_map(show_id).await?;
    Ok(Loaded {
        show,
        facts,
        offset,
    })
}

/// Pairs each seat's position with its facts (same ids, any order).
fn seats_on_map(show: &ShowDefinition, facts: &SeatFacts) -> Vec<SeatOnMap> {
    let by_id: std::collections::HashMap<&str, _> = facts
        .seats
        .iter()
        .map(|fact| (fact.id.as_str(), fact))
        .collect();
    show.seats
        .iter()
        .map(|seat| {
            let fact = by_id.get(seat.id.as_str());
            SeatOnMap {
                id: seat.id.clone(),
                label: seat.label.clone().unwrap_or_else(|| seat.id.clone()),
                x: seat.x,
                y: seat.y,
                sold: fact.is_some_and(|fact| fact.sold),
                hold_expires_at: fact.and_then(|fact| fact.hold_expires_at).map(ServerMillis),
            }
        })
        .collect()
}

/// One show: its name, the stage, the seat map and a legend.
#[component]
pub fn ShowPage(
    /// The show to open.
    show_id: String,
) -> impl IntoView {
    let loaded = RwSignal::new(None::<Result<Loaded, ApiError>>);
    spawn_local(async move {
        loaded.set(Some(load(&show_id).await));
    });
    move || match loaded.get() {
        None => view! { <p class="notice">"Loading the seat map…"</p> }.into_any(),
        Some(Err(error)) => {
            view! { <p class="notice" role="alert">{error.message()}</p> }.into_any()
        }
        Some(Ok(Loaded {
            show,
            facts,
            offset,
        })) => {
            let server_now = Signal::derive(move || offset.server_now(api::local_now()));
            view! {
                <h1>{show.name.clone()}</h1>
                <div class="stage" aria-hidden="true">"Stage"</div>
                <SeatMap seats=seats_on_map(&show, &facts) server_now/>
                <Legend/>
            }
            .into_any()
        }
    }
}
