use std::fmt::Write as _;

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::components::seat::escaped;
use crate::controller::Controller;
use crate::model::Category;

/// The value of the form field `[data-field=NAME]` below `root`.
pub fn field_value(root: &web_sys::Element, name: &str) -> String {
    root.query_selector(&format!("[data-field=\"{name}\"]"))
        .ok()
        .flatten()
        .and_then(|field| js_sys::Reflect::get(&field, &"value".into()).ok())
        .and_then(|value| value.as_string())
        .unwrap_or_default()
}

/// The form whose submit button `event` (a click) pressed, its default
/// prevented; `None` for a click anywhere else. Pressing Enter in a field
/// clicks the form's submit button too, so a click handler (delegated, as
/// every click on the page) serves for both, and the page links no submit
/// handling of its own.
pub fn submitted(event: &web_sys::MouseEvent) -> Option<web_sys::Element> {
    let target: web_sys::Element = event.target()?.dyn_into().ok()?;
    let button = target.closest("button[type=\"submit\"]").ok()??;
    event.prevent_default();
    button.closest("form").ok()?
}

/// "Best N seats": how many adjacent seats and, optionally, of which price
/// category; the server picks them (nearest the stage, in one row) and
/// holds them in the same decision. The form is one piece of markup read
/// when sent (far less wasm than an element-by-element view). It is disabled
/// while the controller (context) may not hold, and asks the controller.
#[component]
pub fn BestSeats(
    /// The show's price categories (none: no category choice).
    categories: Vec<Category>,
    /// The most places one hold may take.
    max_places: u32,
    /// Whether the show has wheelchair places (a count of them to ask for).
    #[prop(default = false)]
    wheelchair: bool,
) -> impl IntoView {
    let controller = expect_context::<Controller>();
    let max_places = max_places.max(1);
    let mut markup = format!(
        r#"<form class="best" aria-label="Best available seats"><label>Best <input type="number" data-field="best-count" min="1" max="{max_places}" value="{}" inputmode="numeric"> seats together</label>"#,
        2.min(max_places)
    );
    if !categories.is_empty() {
        markup.push_str(r#"<label> in <select data-field="best-category"><option value="">any category</option>"#);
        for category in &categories {
            let _ = write!(
                markup,
                r#"<option value="{}">{} ({})</option>"#,
                escaped(&category.id),
                escaped(&category.name),
                escaped(&category.price_text)
            );
        }
        markup.push_str("</select></label>");
    }
    if wheelchair && max_places >= 2 {
        let _ = write!(
            markup,
            r#"<label> with <input type="number" data-field="best-wheelchair" min="0" max="{}" value="0" inputmode="numeric"> wheelchair places (each with a companion seat)</label>"#,
            max_places / 2
        );
    }
    markup.push_str(r#"<button type="submit" data-action="best">Find and hold</button></form>"#);
    let root = NodeRef::<leptos::html::Div>::new();
    Effect::new(move |_| {
        let off = controller.hold_blocked();
        let button = root.get().and_then(|root| root.query_selector("[data-action=\"best\"]").ok().flatten());
        if let Some(button) = button {
            let _ = if off { button.set_attribute("disabled", "") } else { button.remove_attribute("disabled") };
        }
    });
    let on_click = move |event: web_sys::MouseEvent| {
        let Some(root) = submitted(&event) else {
            return;
        };
        let count = field_value(&root, "best-count").trim().parse::<u32>().unwrap_or(1).clamp(1, max_places);
        let category = field_value(&root, "best-category");
        let wheelchair = field_value(&root, "best-wheelchair").trim().parse::<u32>().unwrap_or(0).min(count / 2);
        controller.best(count, (!category.is_empty()).then_some(category), wheelchair);
    };
    view! { <div node_ref=root on:click=on_click inner_html=markup></div> }
}
