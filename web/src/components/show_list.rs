use leptos::prelude::*;

use crate::live_show::load_shows;
use crate::route::Route;

/// Every show, each linking to its seat map.
#[component]
pub fn ShowListPage() -> impl IntoView {
    let shows = LocalResource::new(load_shows);
    view! {
        <Suspense fallback=|| view! { <p class="notice">"Loading shows…"</p> }>
            {move || shows.get().map(|result| {
                match result {
                    Err(error) => view! { <p class="notice" role="alert">{error.sentence()}</p> }.into_any(),
                    Ok(list) if list.is_empty() => view! { <p class="notice">"No shows yet."</p> }.into_any(),
                    Ok(list) => view! {
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
            })}
        </Suspense>
    }
}
