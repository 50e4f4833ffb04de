//! The demo shows `--demo` creates: a small theatre (rows A–H of 20 seats)
//! and an arena of 20,000 seats with a 5,000-place standing floor.

use seat_state::Show;
use seat_state::wire::{AreaDefinition, SeatDefinition, ShowInput, VenueSeat};

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
                VenueSeat::from(SeatDefinition {
                    id: format!("{row}{number}"),
                    x: f64::from(number - 1) * 30.0 + aisle,
                    y: row_index as f64 * 34.0,
                    label: Some(format!("Row {row}, seat {number}")),
                    category: Some(if row_index < 3 { "premium" } else { "standard" }.to_owned()),
                })
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

/// The demo arena's id.
pub const ARENA_SHOW_ID: &str = "demo-arena";

const ARENA_ROWS: u32 = 80;
const ARENA_SEATS_PER_ROW: u32 = 250;

/// 80 rows of 250 seats in five blocks, and a standing floor of 5,000.
pub fn arena() -> Show {
    let seats = (1..=ARENA_ROWS)
        .flat_map(|row| {
            (1..=ARENA_SEATS_PER_ROW).map(move |number| {
                let block_gap = f64::from((number - 1) / 50) * 16.0;
                VenueSeat::from(SeatDefinition {
                    id: format!("R{row}-{number}"),
                    x: f64::from(number - 1) * 12.0 + block_gap,
                    y: f64::from(row - 1) * 14.0,
                    label: Some(format!("Row {row}, seat {number}")),
                    category: Some(if row <= 20 { "lower" } else { "upper" }.to_owned()),
                })
            })
        })
        .collect();
    let input = ShowInput {
        id: Some(ARENA_SHOW_ID.to_owned()),
        name: Some("Demo Arena — Stadium tour".to_owned()),
        seats: Some(seats),
        areas: Some(vec![AreaDefinition { id: "floor".to_owned(), name: "Standing floor".to_owned(), capacity: 5000 }]),
        ..ShowInput::default()
    };
    Show::parse(&input).expect("the demo arena is a valid show")
}
