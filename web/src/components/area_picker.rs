use leptos::prelude::*;

use crate::controller::Controller;
use crate::model::AreaCell;

/// General-admission areas: how many places are left, and a quantity to
/// pick for each (within what is left and the hold's limit). The picked
/// quantities are the controller's (context) selection.
#[component]
pub fn AreaPicker(
    /// Every area with its availability signal.
    areas: Vec<AreaCell>,
) -> impl IntoView {
    let controller = expect_context::<Controller>();
    let selection = controller.shown.selection;
    let rows = areas
        .into_iter()
        .map(|area| {
            let AreaCell { id, name, available } = area;
            let picked = {
                let id = id.clone();
                move || selection.with(|s| s.quantity(&id))
            };
            let set = {
                let id = id.clone();
                move |quantity: u32| controller.set_quantity(&id, quantity)
            };
            let (less, more, typed) = (set.clone(), set.clone(), set);
            let (picked_less, picked_more, picked_value) = (picked.clone(), picked.clone(), picked);
            let input_id = format!("area-{id}");
            view! {
                <li class="area" data-area-id=id.clone()>
                    <label for=input_id.clone()>
                        <strong>{name.clone()}</strong>
                        <span class="muted" data-available=move || available.get().to_string()>
                            {move || match available.get() {
                                0 => " · sold out".to_owned(),
                                1 => " · 1 place left".to_owned(),
                                n => format!(" · {n} places left"),
                            }}
                        </span>
                    </label>
                    <div class="stepper">
                        <button type="button" aria-label=format!("One fewer in {name}")
                            on:click=move |_| less(picked_less().saturating_sub(1))>"−"</button>
                        <input id=input_id type="number" min="0" inputmode="numeric"
                            prop:value=move || picked_value().to_string()
                            on:change=move |event| typed(event_target_value(&event).trim().parse().unwrap_or(0))/>
                        <button type="button" aria-label=format!("One more in {name}")
                            on:click=move |_| more(picked_more() + 1)>"+"</button>
                    </div>
                </li>
            }
        })
        .collect_view();
    view! { <ul class="areas" aria-label="Standing and unnumbered areas">{rows}</ul> }
}
