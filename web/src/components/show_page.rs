use std::rc::Rc;

use leptos::prelude::*;

use crate::components::loading::{Draw, Loading};
use crate::components::show_view::ShowView;
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

/// The loaded show, made live.
fn live(data: &Loaded) -> AnyView {
    // Started once per load: nothing it reads may re-run this.
    let LiveShow { controller, model, areas, connection } = untrack(|| LiveShow::start(data));
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
    .into_any()
}
