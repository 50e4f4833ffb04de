use std::sync::Arc;

use leptos::prelude::*;

use crate::controller::Controller;
use crate::model::MapModel;
use crate::selection::Selection;
use crate::words;

/// What is picked, how many more may be, the Hold button, and before it a
/// warning when holding the picked seats would leave a seat alone under
/// the show's orphan rule (`data-warning="strand"`, a polite status): the
/// controller's (context) selection, held or cleared by the controller.
#[component]
pub fn SelectionBar(
    /// Every seat with its signal: what the warning judges by.
    model: Arc<MapModel>,
) -> impl IntoView {
    let controller = expect_context::<Controller>();
    let selection = controller.shown.selection;
    let warning = Memo::new(move |_| selection.with(|picked| crate::orphan::warning(&model, picked.seats())));
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
            <p class="warning" role="status" data-warning="strand" class:empty=move || warning.with(Option::is_none)>
                {move || warning.get()}
            </p>
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
