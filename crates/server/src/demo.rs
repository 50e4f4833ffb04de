//! The demo show `--demo` creates: a small theatre, rows A–H of 20 seats.

use seat_state::Show;
use seat_state::wire::{SeatDefinition, ShowInput};

/// The demo theatre's id.
pub const DEMO_SHOW_ID: &str = "demo-theatre";

const ROWS: &str = "ABCDEFGH";
const SEATS_PER_ROW: u32 = 20;

/// Rows A–H facing the stage at the top, an aisle between seats 10 and 11.
pub fn theatre() -> Show {
    let seats = ROWS
        .chars()
        .enumerate()
        .flat_map(|(row_index, row)| {
            (1..=SEATS_PER_ROW).map(move |number| {
                let aisle = if number > SEATS_PER_ROW / 2 { 20.0 } else { 0.0 };
                SeatDefinition {
                    id: format!("{row}{number}"),
                    x: f64::from(number - 1) * 30.0 + aisle,
                    y: row_index as f64 * 34.0,
                    label: Some(format!("Row {row}, seat {number}")),
                    category: Some(if row_index < 3 { "premium" } else { "standard" }.to_owned()),
                }
            })
        })
        .collect();
    let input = ShowInput {
        id: Some(DEMO_SHOW_ID.to_owned()),
        name: Some("Demo Theatre — Improv night".to_owned()),
        seats: Some(seats),
        ..ShowInput::default()
    };
    Show::parse(&input).expect("the demo theatre is a valid show")
}
