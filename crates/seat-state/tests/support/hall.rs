//! A two-row hall with categories, a stage and a presale channel, and a
//! desk that decides and applies box office requests as the server does.

use serde_json::{Value, json};

use seat_state::wire::{HoldOrder, ShowInput};
use seat_state::{Change, Decision, Rejection, ServerMillis, Show, ShowState};

use super::{at, hold_id, holder};

/// Rows A and B of 8 seats (A in category `a`, B in `b`), x = 10·number,
/// the stage above seat 4.5 unless `extra` says otherwise; B7 and B8 kept
/// for the `presale` channel (code SECRET).
pub fn hall(extra: Value) -> ShowState {
    let seats: Vec<Value> = ["A", "B"]
        .iter()
        .enumerate()
        .flat_map(|(r, row)| {
            let category = ["a", "b"][r];
            (1..=8).map(move |n| {
                json!({"id": format!("{row}{n}"), "x": n * 10, "y": r * 10, "section": "S", "row": row,
                       "number": n, "category": category})
            })
        })
        .collect();
    let mut show = json!({
        "id": "hall", "name": "Hall", "maxSeatsPerHold": 8, "maxActiveHoldsPerHolder": 10, "seats": seats,
        "categories": [
            {"id": "a", "name": "A", "price": 4500, "currency": "EUR", "color": "#1f6feb"},
            {"id": "b", "name": "B", "price": 2500, "currency": "EUR", "color": "#8250df"}
        ],
        "focus": {"x": 45, "y": -20},
        "channels": [{"id": "presale", "code": "SECRET", "seats": ["B7", "B8"]}]
    });
    for (key, value) in extra.as_object().unwrap() {
        show[key] = value.clone();
    }
    ShowState::new(Show::parse(&serde_json::from_value::<ShowInput>(show).unwrap()).unwrap())
}

pub fn order(body: Value) -> HoldOrder {
    serde_json::from_value(body).unwrap()
}

/// Decides and applies at `at(0)`; the seats held, or the refusal.
pub fn hold(state: &mut ShowState, who: &str, body: Value) -> Result<Vec<String>, Rejection> {
    hold_at(state, who, body, at(0))
}

/// Decides and applies at `now`; the seats held, or the refusal.
pub fn hold_at(state: &mut ShowState, who: &str, body: Value, now: ServerMillis) -> Result<Vec<String>, Rejection> {
    let generated = hold_id(&format!("generated-{}", state.holds().len()));
    let request = state.parse_order(&order(body), generated)?;
    match state.decide_create(&holder(who), &request, now)? {
        Decision::Apply(change) => {
            state.apply(&change);
            let Change::Created { hold } = change else { panic!("a hold request creates a hold") };
            Ok(hold.seats.iter().map(ToString::to_string).collect())
        }
        Decision::Unchanged => {
            Ok(state.hold(&request.hold_id).unwrap().seats.iter().map(ToString::to_string).collect())
        }
    }
}
