use leptos::prelude::*;
use web_sys::PointerEvent;

use crate::decimal::Dec;
use crate::layout::Bounds;
use crate::viewport::Viewport;

/// While the map is zoomed in: the whole venue in small (its rows as lines)
/// with the part on screen framed. A tap or click on it centres the map
/// there. Decorative for assistive technology: the keyboard moves the view
/// with the focus instead.
#[component]
pub fn Minimap(
    /// The part of the map on screen.
    viewport: RwSignal<Viewport>,
    /// The whole map's rectangle.
    bounds: Bounds,
    /// Each row as `(x1, y1, x2, y2)`, from its first seat to its last.
    rows: Vec<(f64, f64, f64, f64)>,
) -> impl IntoView {
    let mut lines = String::new();
    for (x1, y1, x2, y2) in rows {
        lines.push_str(&format!("M{},{}L{},{}", Dec(x1), Dec(y1), Dec(x2), Dec(y2)));
    }
    let view_box = format!("{} {} {} {}", Dec(bounds.x), Dec(bounds.y), Dec(bounds.width), Dec(bounds.height));
    let stroke = Dec((bounds.width / 60.0).max(1.0)).to_string();
    let frame = move |pick: fn(Bounds) -> f64| move || viewport.with(|view| Dec(pick(view.visible())).to_string());
    let on_pointerdown = move |event: PointerEvent| {
        let Some(target) =
            event.current_target().and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(t).ok())
        else {
            return;
        };
        event.prevent_default();
        let rect = target.get_bounding_client_rect();
        let fx = ((f64::from(event.client_x()) - rect.left()) / rect.width().max(1.0)).clamp(0.0, 1.0);
        let fy = ((f64::from(event.client_y()) - rect.top()) / rect.height().max(1.0)).clamp(0.0, 1.0);
        viewport.update(|view| {
            *view = view.centred_on(bounds.x + fx * bounds.width, bounds.y + fy * bounds.height);
        });
    };
    view! {
        <Show when=move || viewport.with(|view| !view.is_whole())>
            <svg class="minimap" viewBox=view_box.clone() preserveAspectRatio="xMidYMid meet" aria-hidden="true"
                on:pointerdown=on_pointerdown>
                <path class="minimap-rows" d=lines.clone() stroke-width=stroke.clone()></path>
                <rect class="minimap-frame" x=frame(|b| b.x) y=frame(|b| b.y)
                    width=frame(|b| b.width) height=frame(|b| b.height) stroke-width=stroke.clone()></rect>
            </svg>
        </Show>
    }
}
