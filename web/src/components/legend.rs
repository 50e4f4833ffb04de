use std::fmt::Write as _;

use leptos::prelude::*;
use seat_state::SeatState;

use crate::components::seat::{escaped, shape};
use crate::model::{Category, SeatLook};

/// What each seat shape means. Shapes differ, not only colours: a ring is
/// available, a disc with a tick is picked, a square is held, a square with
/// a tick is yours, a crossed ring is sold, a barred ring needs a code, a
/// slashed one is not for sale, a ring with a ring inside a wheelchair
/// place or companion seat.
/// Then each price category: its ring (colour and dash pattern), name and
/// price.
#[component]
pub fn Legend(
    /// The show's price categories (none: no price list).
    categories: Vec<Category>,
    /// Whether some seats are kept for a sales channel.
    channels: bool,
    /// Whether some seats are wheelchair places or companion seats.
    #[prop(default = false)]
    access: bool,
) -> impl IntoView {
    let entry = |look: SeatLook, text: &'static str| {
        view! {
            <li>
                <svg width="22" height="22" viewBox="-12 -12 24 24" aria-hidden="true">
                    <path
                        class="seat"
                        data-state=look.state.as_str()
                        data-mine=look.mine.then_some("true")
                        data-locked=look.locked.then_some("true")
                        data-blocked=look.blocked.then_some("true")
                        data-access=look.access.then_some("wheelchair")
                        aria-pressed=look.selected.then_some("true")
                        d=shape(look, 0.0, 0.0, 9.0)
                    ></path>
                </svg>
                {text}
            </li>
        }
    };
    let look = |state, mine, selected| SeatLook { state, mine, selected, ..SeatLook::FREE };
    // One piece of markup (far less wasm than a view per entry).
    let ring = shape(SeatLook::FREE, 0.0, 0.0, 9.0);
    let mut prices = String::new();
    for (index, category) in categories.iter().enumerate() {
        let _ = write!(
            prices,
            r#"<li data-category-id="{}"><svg width="22" height="22" viewBox="-12 -12 24 24" aria-hidden="true"><path class="seat" data-state="free" data-category="{index}" d="{ring}"></path></svg><span class="name">{}</span> <span class="price" data-price="{}">{}</span></li>"#,
            escaped(&category.id),
            escaped(&category.name),
            category.price,
            escaped(&category.price_text)
        );
    }
    view! {
        <ul class="legend" aria-label="Legend">
            {entry(look(SeatState::Free, false, false), "Available")}
            {entry(look(SeatState::Free, false, true), "Selected")}
            {entry(look(SeatState::Held, true, false), "Yours")}
            {entry(look(SeatState::Held, false, false), "Held")}
            {entry(look(SeatState::Sold, false, false), "Sold")}
            {channels.then(|| entry(SeatLook { locked: true, ..SeatLook::FREE }, "Presale: needs a code"))}
            {entry(SeatLook { blocked: true, ..SeatLook::FREE }, "Not for sale")}
            {access.then(|| entry(SeatLook { access: true, ..SeatLook::FREE }, "Wheelchair place or companion seat"))}
        </ul>
        <ul class="legend prices" aria-label="Prices" inner_html=prices></ul>
    }
}
