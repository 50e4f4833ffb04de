use leptos::prelude::*;

use crate::model::Category;

/// "Best N seats": how many adjacent seats and, optionally, of which price
/// category; the server picks them (nearest the stage, in one row) and
/// holds them in the same decision.
#[component]
pub fn BestSeats(
    /// The show's price categories (none: no category choice).
    categories: Vec<Category>,
    /// The most places one hold may take.
    max_places: u32,
    /// A request is under way, or no more holds are allowed.
    #[prop(into)]
    disabled: Signal<bool>,
    /// Asks for `(count, category id)`.
    on_best: Callback<(u32, Option<String>)>,
) -> impl IntoView {
    let max_places = max_places.max(1);
    let count = RwSignal::new(2.min(max_places));
    let category = RwSignal::new(String::new());
    let choice = (!categories.is_empty()).then(|| {
        let options = categories
            .into_iter()
            .map(|c| view! { <option value=c.id>{format!("{} ({})", c.name, c.price_text)}</option> })
            .collect_view();
        view! {
            <label>
                " in "
                <select data-field="best-category" on:change=move |event| category.set(event_target_value(&event))>
                    <option value="">"any category"</option>
                    {options}
                </select>
            </label>
        }
    });
    let on_submit = move |event: leptos::ev::SubmitEvent| {
        event.prevent_default();
        let chosen = category.get_untracked();
        on_best.run((count.get_untracked(), (!chosen.is_empty()).then_some(chosen)));
    };
    view! {
        <form class="best" aria-label="Best available seats" on:submit=on_submit>
            <label>
                "Best "
                <input type="number" data-field="best-count" min="1" max=max_places.to_string() inputmode="numeric"
                    prop:value=move || count.get().to_string()
                    on:change=move |event| {
                        let wanted: u32 = event_target_value(&event).trim().parse().unwrap_or(1);
                        count.set(wanted.clamp(1, max_places));
                    }/>
                " seats together"
            </label>
            {choice}
            <button type="submit" data-action="best" disabled=disabled>"Find and hold"</button>
        </form>
    }
}
