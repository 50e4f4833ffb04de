use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;

use leptos::prelude::*;

use crate::api::ApiError;
use crate::live_show::retire_picture;

/// A loaded page, ready to draw: drawn in the task that replaces the notice.
pub type Draw = Rc<dyn Fn() -> AnyView>;

/// What a page loads, boxed: every page shares one resource and one
/// `<Suspense>` (one copy of their code in the wasm, not one per page).
pub type Load = Box<dyn Fn() -> Pin<Box<dyn Future<Output = Result<Draw, ApiError>>>>>;

/// Loads a page with `<Suspense>` showing `waiting` meanwhile (behind the
/// server's picture of the map when the page has one), then draws it in
/// place of the picture, or says why it could not load.
#[component]
pub fn Loading(
    /// Shown while loading.
    waiting: &'static str,
    /// Loads the page.
    load: Load,
) -> impl IntoView {
    let loaded = LocalResource::new(load);
    view! {
        <Suspense fallback=move || view! { <p class="notice">{waiting}</p> }>
            {move || loaded.get().map(|result| {
                retire_picture();
                match result {
                    Err(error) => view! { <p class="notice" role="alert">{error.sentence()}</p> }.into_any(),
                    Ok(draw) => draw(),
                }
            })}
        </Suspense>
    }
}
