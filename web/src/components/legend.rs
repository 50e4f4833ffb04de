use leptos::prelude::*;
use seat_state::SeatState;

use crate::components::seat::shape;
use crate::model::SeatLook;

/// What each seat shape means. Shapes differ, not only colours: a ring is
/// available, a disc with a tick is picked, a square is held, a square with
/// a tick is yours, a crossed ring is sold.
#[component]
pub fn Legend() -> impl IntoView {
    let entry = |look: SeatLook, text: &'static str| {
        view! {
            <li>
                <svg width="22" height="22" viewBox="-12 -12 24 24" aria-hidden="true">
                    <path
                        class="seat"
                        data-state=look.state.as_str()
                        data-mine=look.mine.then_some("true")
                        aria-pressed=look.selected.then_some("true")
                        d=shape(look, 0.0, 0.0, 9.0)
                    ></path>
                </svg>
                {text}
            </li>
        }
    };
    let look = |state, mine, selected| SeatLook { state, mine, selected, tab_stop: false };
    view! {
        <ul class="legend" aria-label="Legend">
            {entry(look(SeatState::Free, false, false), "Available")}
            {entry(look(SeatState::Free, false, true), "Selected")}
            {entry(look(SeatState::Held, true, false), "Yours")}
            {entry(look(SeatState::Held, false, false), "Held")}
            {entry(look(SeatState::Sold, false, false), "Sold")}
        </ul>
    }
}
