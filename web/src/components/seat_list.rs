use std::sync::Arc;

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::controller::Controller;
use crate::model::MapModel;
use crate::seat_list::row_and_seat;
use crate::words;

/// Choosing seats without the map, for keyboards and screen readers: a
/// section, then a row, then that row's seats as checkboxes. Checking one
/// picks it exactly as a click on the map does, so the hold flow (Hold,
/// the panel, Confirm) is the same. Drawn only while open, so the map's
/// first render does not pay for it.
#[component]
pub fn SeatList(
    /// Every seat with its signal, grouped by section and row.
    model: Arc<MapModel>,
) -> impl IntoView {
    let open = RwSignal::new(false);
    view! {
        <details class="seat-list" on:toggle=move |event| {
            let details = event.target().and_then(|t| t.dyn_into::<web_sys::HtmlDetailsElement>().ok());
            open.set(details.is_some_and(|details| details.open()));
        }>
            <summary>"Choose seats from a list"</summary>
            {move || open.get().then(|| view! { <Steps model=Arc::clone(&model)/> })}
        </details>
    }
}

/// The section and row pickers and the chosen row's seats.
#[component]
fn Steps(model: Arc<MapModel>) -> impl IntoView {
    let controller = expect_context::<Controller>();
    let section = RwSignal::new(0_usize);
    let row = RwSignal::new(0_usize);
    let chosen = {
        let model = Arc::clone(&model);
        move || -> Vec<usize> {
            let (at, row_at) = (section.get(), row.get());
            model.sections.get(at).and_then(|s| s.rows.get(row_at)).map(|r| r.seats.clone()).unwrap_or_default()
        }
    };
    let section_options = model
        .sections
        .iter()
        .enumerate()
        .map(|(at, s)| view! { <option value=at.to_string()>{s.name.clone()}</option> })
        .collect_view();
    let row_options = {
        let model = Arc::clone(&model);
        move || {
            let at = section.get();
            model.sections.get(at).map_or_else(Vec::new, |s| {
                s.rows
                    .iter()
                    .enumerate()
                    .map(|(row_at, r)| {
                        view! { <option value=row_at.to_string() selected=row_at == 0>{r.name.clone()}</option> }
                    })
                    .collect()
            })
        }
    };
    let seats = move || {
        chosen()
            .into_iter()
            .filter_map(|index| {
                let cell = model.seats.get(index)?.clone();
                let look = cell.look;
                let seat = row_and_seat(&cell.label).1.to_owned();
                let spoken = move || {
                    look.with(|look| {
                        if look.blocked && look.state == seat_state::SeatState::Free {
                            words::NOT_FOR_SALE
                        } else {
                            words::spoken_state(look.state, look.mine)
                        }
                    })
                };
                let usable = move || look.with(|look| look.usable());
                let on_change = move |event: leptos::ev::Event| {
                    controller.toggle(index);
                    // A refused pick (over the limit, just taken) leaves the box as the seat is.
                    if let Some(input) = event.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) {
                        input.set_checked(look.get_untracked().selected);
                    }
                };
                Some(view! {
                    <li>
                        <label>
                            <input type="checkbox" data-list-seat=cell.id.clone()
                                prop:checked=move || look.get().selected
                                disabled=move || !usable()
                                on:change=on_change/>
                            {seat}", "<span class="spoken">{spoken}</span>
                        </label>
                    </li>
                })
            })
            .collect::<Vec<_>>()
    };
    view! {
        <div class="steps">
            <label>"Section "
                <select data-list="section" on:change=move |event| {
                    section.set(event_target_value(&event).parse().unwrap_or(0));
                    row.set(0);
                }>{section_options}</select>
            </label>
            <label>"Row "
                <select data-list="row" on:change=move |event| row.set(event_target_value(&event).parse().unwrap_or(0))>
                    {row_options}
                </select>
            </label>
        </div>
        <ul class="list-seats" aria-label="Seats in this row">{seats}</ul>
    }
}
