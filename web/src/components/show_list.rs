use std::rc::Rc;

use leptos::prelude::*;
use seat_state::wire::ShowSummary;

use crate::components::loading::{Draw, Loading};
use crate::live_show::load_shows;
use crate::route::Route;

/// Every show, each linking to its seat map.
#[component]
pub fn ShowListPage() -> impl IntoView {
    let load = || Box::pin(async { load_shows().await.map(|list| Rc::new(move || shows(&list)) as Draw) }) as _;
    view! { <Loading waiting="Loading shows…" load=Box::new(load)/> }
}

/// The list, or a notice when there is no show.
fn shows(list: &[ShowSummary]) -> AnyView {
    if list.is_empty() {
        return view! { <p class="notice">"No shows yet."</p> }.into_any();
    }
    view! {
        <h1>"Shows"</h1>
        <ul class="shows">
            {list
                .iter()
                .map(|show| {
                    let places = show.seat_count + show.area_count;
                    view! {
                        <li>
                            <a href=Route::show_path(&show.id)>{show.name.clone()}</a>
                            <span class="muted">{format!(" · {places} places")}</span>
                        </li>
                    }
                })
                .collect_view()}
        </ul>
    }
    .into_any()
}
