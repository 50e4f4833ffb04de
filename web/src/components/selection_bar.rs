use leptos::prelude::*;

use crate::controller::Controller;
use crate::selection::Selection;
use crate::words;

/// What is picked, how many more may be, and the Hold button: the
/// controller's (context) selection, held or cleared by the controller.
#[component]
pub fn SelectionBar() -> impl IntoView {
    let controller = expect_context::<Controller>();
    let selection = controller.shown.selection;
    let summary = move || {
        selection.with(|picked| {
            let count = picked.places();
            let max = picked.max_places();
            if count == 0 {
                format!("Pick up to {}.", words::places(max))
            } else {
                let seats = picked.seats();
                let named = if seats.is_empty() { String::new() } else { format!(": {}", words::list(seats)) };
                format!("{} of {max} picked{named}", words::places(count))
            }
        })
    };
    let empty = move || selection.with(Selection::is_empty);
    view! {
        <div class="selection-bar">
            <p class="picked">{summary}</p>
            <div class="actions">
                <button type="button" class="primary" data-action="hold"
                    disabled=move || empty() || controller.hold_blocked()
                    on:click=move |_| controller.hold()>"Hold"</button>
                <button type="button" disabled=empty on:click=move |_| controller.clear()>"Clear"</button>
            </div>
        </div>
    }
}
