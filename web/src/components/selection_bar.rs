use leptos::prelude::*;

use crate::selection::Selection;
use crate::words;

/// What is picked, how many more may be, and the Hold button.
#[component]
pub fn SelectionBar(
    /// The places picked for the next hold.
    #[prop(into)]
    selection: Signal<Selection>,
    /// A request is under way, or a hold is active: Hold waits.
    #[prop(into)]
    disabled: Signal<bool>,
    /// Holds the selection.
    on_hold: Callback<()>,
    /// Unpicks everything.
    on_clear: Callback<()>,
) -> impl IntoView {
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
                    disabled=move || empty() || disabled.get()
                    on:click=move |_| on_hold.run(())>"Hold"</button>
                <button type="button" disabled=empty on:click=move |_| on_clear.run(())>"Clear"</button>
            </div>
        </div>
    }
}
