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
/// the panel, Confirm) is the same. When the show has wheelchair places,
/// "Wheelchair places" lists only them and their companion seats, and
/// offers them (the controller's access: holds then say so). Drawn only
/// while open, so the map's first render does not pay for it. Beside a
/// canvas map the row's seats are toggle buttons carrying the seat hooks
/// the SVG map's seats carry (`data-seat-id`, `data-state`, `data-mine`,
/// `aria-pressed`): there the list is the seats' DOM.
#[component]
pub fn SeatList(
    /// Every seat with its signal, grouped by section and row.
    model: Arc<MapModel>,
    /// Whether the seats carry the map's test hooks (no map element does).
    #[prop(default = false)]
    seat_hooks: bool,
) -> impl IntoView {
    // Beside a canvas it starts open: the first row's seats are there at once.
    let open = RwSignal::new(seat_hooks);
    view! {
        <details class="seat-list" open=seat_hooks on:toggle=move |event| {
            let details = event.target().and_then(|t| t.dyn_into::<web_sys::HtmlDetailsElement>().ok());
            open.set(details.is_some_and(|details| details.open()));
        }>
            <summary>"Choose seats from a list"</summary>
            {move || open.get().then(|| view! { <Steps model=Arc::clone(&model) seat_hooks/> })}
        </details>
    }
}

/// The section and row pickers (and the wheelchair filter) and the chosen
/// row's seats.
#[component]
fn Steps(model: Arc<MapModel>, seat_hooks: bool) -> impl IntoView {
    let controller = expect_context::<Controller>();
    let wheelchair = controller.access;
    let section = RwSignal::new(0_usize);
    let row = RwSignal::new(0_usize);
    let has_access = model.has_access_seats();
    // Under the filter, only access seats count, and rows and sections without any go.
    let shown_seats = {
        let model = Arc::clone(&model);
        move |seats: &[usize]| -> Vec<usize> {
            let filter = wheelchair.get();
            seats.iter().copied().filter(|&at| !filter || model.seats[at].access.is_some()).collect()
        }
    };
    let shown_rows = {
        let (model, shown_seats) = (Arc::clone(&model), shown_seats.clone());
        move |at: usize| -> Vec<usize> {
            let rows = model.sections.get(at).map_or(&[][..], |s| &s.rows[..]);
            (0..rows.len()).filter(|&r| !shown_seats(&rows[r].seats).is_empty()).collect()
        }
    };
    let shown_sections = {
        let (model, shown_rows) = (Arc::clone(&model), shown_rows.clone());
        move || -> Vec<usize> { (0..model.sections.len()).filter(|&at| !shown_rows(at).is_empty()).collect() }
    };
    let chosen = {
        let (model, shown_seats) = (Arc::clone(&model), shown_seats.clone());
        move || -> Vec<usize> {
            let (at, row_at) = (section.get(), row.get());
            model.sections.get(at).and_then(|s| s.rows.get(row_at)).map(|r| shown_seats(&r.seats)).unwrap_or_default()
        }
    };
    let on_filter = {
        let (shown_sections, shown_rows) = (shown_sections.clone(), shown_rows.clone());
        move |event: leptos::ev::Event| {
            let checked = event
                .target()
                .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
                .is_some_and(|i| i.checked());
            controller.set_access(checked);
            let first = shown_sections().first().copied().unwrap_or(0);
            section.set(first);
            row.set(shown_rows(first).first().copied().unwrap_or(0));
        }
    };
    // Each list is drawn again whenever what it offers changes, with the
    // choice of that moment: no render effect per option (a stadium's
    // section offers 1,400 rows).
    let section_options = {
        let model = Arc::clone(&model);
        move || {
            let chosen = section.get_untracked();
            shown_sections()
                .into_iter()
                .map(|at| {
                    let name = model.sections[at].name.clone();
                    view! { <option value=at.to_string() selected=chosen == at>{name}</option> }
                })
                .collect::<Vec<_>>()
        }
    };
    let row_options = {
        let (model, shown_rows) = (Arc::clone(&model), shown_rows.clone());
        move || {
            let (at, chosen) = (section.get(), row.get_untracked());
            shown_rows(at)
                .into_iter()
                .map(|row_at| {
                    let name = model.sections[at].rows[row_at].name.clone();
                    view! { <option value=row_at.to_string() selected=chosen == row_at>{name}</option> }
                })
                .collect::<Vec<_>>()
        }
    };
    let seats = move || {
        chosen()
            .into_iter()
            .filter_map(|index| {
                let cell = model.seats.get(index)?;
                // Only the chosen row's seats follow their looks.
                let look = {
                    let model = Arc::clone(&model);
                    Signal::derive(move || model.look_tracked(index))
                };
                let seat = row_and_seat(&cell.label).1.to_owned();
                let access = crate::components::seat::access_words(cell).map(|words| format!(", {words}"));
                let spoken = move || {
                    look.with(|look| {
                        if look.blocked && look.state == seat_state::SeatState::Free {
                            words::NOT_FOR_SALE
                        } else if look.locked && look.access && look.state == seat_state::SeatState::Free {
                            words::NEEDS_ACCESS
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
                if seat_hooks {
                    return Some(
                        view! {
                            <li>
                                <button type="button" class="list-seat" data-seat-id=cell.id.clone()
                                    data-list-seat=cell.id.clone()
                                    data-state=move || look.get().state.as_str()
                                    data-mine=move || look.get().mine.then_some("true")
                                    aria-pressed=move || if look.get().selected { "true" } else { "false" }
                                    aria-disabled=move || (!usable()).then_some("true")
                                    on:click=move |_| controller.toggle(index)>
                                    {seat}{access}", "<span class="spoken">{spoken}</span>
                                </button>
                            </li>
                        }
                        .into_any(),
                    );
                }
                Some(
                    view! {
                        <li>
                            <label>
                                <input type="checkbox" data-list-seat=cell.id.clone()
                                    prop:checked=move || look.get().selected
                                    disabled=move || !usable()
                                    on:change=on_change/>
                                {seat}{access}", "<span class="spoken">{spoken}</span>
                            </label>
                        </li>
                    }
                    .into_any(),
                )
            })
            .collect::<Vec<_>>()
    };
    view! {
        <div class="steps">
            {has_access.then(|| view! {
                <label class="filter">
                    <input type="checkbox" data-list-filter="wheelchair" prop:checked=move || wheelchair.get()
                        on:change=on_filter/>
                    " Wheelchair places"
                </label>
            })}
            <label>"Section "
                <select data-list="section" on:change=move |event| {
                    let at = event_target_value(&event).parse().unwrap_or(0);
                    section.set(at);
                    row.set(shown_rows(at).first().copied().unwrap_or(0));
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
