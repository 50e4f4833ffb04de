use leptos::prelude::*;
use leptos::task::spawn_local;

use seat_state::wire::ShowSummary;

use crate::api;
use crate::route::Route;

/// Every show, each linking to its seat map.
#[component]
pub fn ShowListPage() -> impl IntoView {
    let shows = RwSignal::new(None::<Result<Vec<ShowSummary>, api::ApiError>>);
    spawn_local(async move {
        shows.set(Some(api::shows().await.map(|list| list.shows)));
    });
    move || match shows.get() {
        None => view! { <p class="notice">"Loading shows…"</p> }.into_any(),
        Some(Err(error)) => view! { <p class="notice" role="alert">{error.sentence()}</p> }.into_any(),
        Some(Ok(list)) if list.is_empty() => view! { <p class="notice">"No shows yet."</p> }.into_any(),
        Some(Ok(list)) => view! {
            <h1>"Shows"</h1>
            <ul class="shows">
                {list
                    .into_iter()
                    .map(|show| {
                        let places = show.seat_count + show.area_count;
                        view! {
                            <li>
                                <a href=Route::show_path(&show.id)>{show.name}</a>
                                <span class="muted">{format!(" · {places} places")}</span>
                            </li>
                        }
                    })
                    .collect_view()}
            </ul>
        }
        .into_any(),
    }
}
