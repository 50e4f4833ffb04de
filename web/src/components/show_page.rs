use std::rc::Rc;
use std::sync::Arc;

use leptos::prelude::*;

use crate::components::loading::{Draw, Loading};
use crate::components::show_view::ShowView;
use crate::components::waiting_room::WaitingRoom;
use crate::live_show::{LiveShow, Loaded, load_show};

/// One show: loads it, then renders it live in place of the server's
/// picture. The controller goes into context for everything below.
#[component]
pub fn ShowPage(
    /// The show to open.
    show_id: String,
) -> impl IntoView {
    let load = move || {
        let show_id = show_id.clone();
        Box::pin(async move { load_show(show_id).await.map(|data| Rc::new(move || live(&data)) as Draw) }) as _
    };
    view! { <Loading waiting="Loading the seat map…" load=Box::new(load)/> }
}

/// The loaded show, made live: at once, or behind its waiting room once
/// the customer is admitted (a waiting customer holds no seat stream open;
/// the map resumes from the loaded facts, or a fresh snapshot, when it starts).
fn live(data: &Arc<Loaded>) -> AnyView {
    let on_sale = data.on_sale;
    let (show_id, name, samples) = (data.show.id.clone(), data.show.name.clone(), data.samples.clone());
    let data = Arc::clone(data);
    let map = move || {
        // Started once per render: nothing it reads may re-run this.
        let LiveShow { controller, model, areas, connection } = untrack(|| LiveShow::start(&data));
        provide_context(controller);
        view! {
            <ShowView
                name=data.show.name.clone()
                extension_seconds=data.show.extension_seconds
                stage=data.stage
                model
                areas
                connection
            />
        }
    };
    let Some(on_sale) = on_sale else { return map().into_any() };
    let mut clock = seat_state::ClockSync::new();
    for sample in samples {
        clock.add(sample);
    }
    let offset = clock.offset_or_zero();
    let opens_at = seat_state::ServerMillis(on_sale.opens_at);
    view! { <WaitingRoom show_id name offset opens_at>{map()}</WaitingRoom> }.into_any()
}
