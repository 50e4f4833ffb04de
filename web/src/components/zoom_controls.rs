use leptos::prelude::*;

use crate::viewport::{Viewport, ZOOM_STEP};

/// Zoom in, zoom out and show the whole map, as buttons (the map also
/// zooms with the wheel, a pinch, and the `+`, `-` and `0` keys).
#[component]
pub fn ZoomControls(
    /// The part of the map on screen.
    viewport: RwSignal<Viewport>,
) -> impl IntoView {
    view! {
        <div class="zoom" role="group" aria-label="Zoom">
            <button type="button" aria-label="Zoom in" title="Zoom in"
                on:click=move |_| viewport.update(|view| *view = view.zoom(ZOOM_STEP))>"+"</button>
            <button type="button" aria-label="Zoom out" title="Zoom out"
                disabled=move || viewport.with(|view| view.scale <= 1.0)
                on:click=move |_| viewport.update(|view| *view = view.zoom(1.0 / ZOOM_STEP))>"−"</button>
            <button type="button" title="Show the whole map"
                disabled=move || viewport.with(Viewport::is_whole)
                on:click=move |_| viewport.update(|view| *view = Viewport::whole_like(view))>"Reset"</button>
        </div>
    }
}
