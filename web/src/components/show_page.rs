use leptos::prelude::*;

use crate::components::show_view::ShowView;
use crate::live_show::{LiveShow, load_show, retire_picture};

/// One show: loads it (with `<Suspense>` showing a notice meanwhile, behind
/// the server's picture of the map when the page has one), then renders it
/// live in place of the picture. The controller goes into context for everything below.
#[component]
pub fn ShowPage(
    /// The show to open.
    show_id: String,
) -> impl IntoView {
    let loaded = LocalResource::new(move || load_show(show_id.clone()));
    view! {
        <Suspense fallback=|| view! { <p class="notice">"Loading the seat map…"</p> }>
            {move || loaded.get().map(|result| {
                retire_picture();
                match result {
                    Err(error) => view! { <p class="notice" role="alert">{error.sentence()}</p> }.into_any(),
                    Ok(data) => {
                        // Started once per load: nothing it reads may re-run this.
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
                        .into_any()
                    }
                }
            })}
        </Suspense>
    }
}
