use leptos::prelude::*;

use seat_state::{SeatState, ServerMillis, seat_state};

/// One seat as the map draws it: where it is and the facts its state comes from.
#[derive(Debug, Clone, PartialEq)]
pub struct SeatOnMap {
    pub id: String,
    pub label: String,
    pub x: f64,
    pub y: f64,
    pub sold: bool,
    pub hold_expires_at: Option<ServerMillis>,
}

/// Room around the outermost seats, in map units.
const MARGIN: f64 = 20.0;

fn view_box(seats: &[SeatOnMap]) -> String {
    let (mut min_x, mut min_y, mut max_x, mut max_y) = (f64::MAX, f64::MAX, f64::MIN, f64::MIN);
    for seat in seats {
        min_x = min_x.min(seat.x);
        min_y = min_y.min(seat.y);
        max_x = max_x.max(seat.x);
        max_y = max_y.max(seat.y);
    }
    if seats.is_empty() {
        return "0 0 100 100".to_owned();
    }
    let (x, y) = (min_x - MARGIN, min_y - MARGIN);
    format!(
        "{x} {y} {} {}",
        max_x - min_x + 2.0 * MARGIN,
        max_y - min_y + 2.0 * MARGIN
    )
}

fn spoken(state: SeatState) -> &'static str {
    match state {
        SeatState::Free => "available",
        SeatState::Held => "held",
        SeatState::Sold => "sold",
    }
}

/// The seat map: every seat at its x/y, in the state `seat-state` derives
/// from its facts against the estimated server time.
#[component]
pub fn SeatMap(
    /// The seats with their facts, in drawing order.
    seats: Vec<SeatOnMap>,
    /// The estimated server now that states are derived against.
    #[prop(into)]
    server_now: Signal<ServerMillis>,
) -> impl IntoView {
    let view_box = view_box(&seats);
    let drawn = seats
        .into_iter()
        .map(|seat| {
            let SeatOnMap {
                id,
                label,
                x,
                y,
                sold,
                hold_expires_at,
            } = seat;
            let state = Memo::new(move |_| seat_state(sold, hold_expires_at, server_now.get()));
            view! {
                <g
                    class="seat"
                    data-seat-id=id
                    data-state=move || state.get().as_str()
                    transform=format!("translate({x} {y})")
                    role="img"
                    aria-label=move || format!("{label}, {}", spoken(state.get()))
                >
                    <circle r="12"></circle>
                    <path class="mark" d="M -5 -5 L 5 5 M 5 -5 L -5 5"></path>
                </g>
            }
        })
        .collect_view();
    view! {
        <svg class="seat-map" viewBox=view_box preserveAspectRatio="xMidYMin meet">
            {drawn}
        </svg>
    }
}
