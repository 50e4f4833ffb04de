//! Best available against a brute-force oracle on random venues (native
//! only: proptest needs the OS): the block picked is free, adjacent, in the
//! category, and no other adjacent block ranks better (a stranded single
//! free seat, of any category, first, then the distance from its centre to
//! the stage).
#![cfg(not(target_arch = "wasm32"))]
// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

mod support;

use proptest::prelude::*;
use serde_json::{Value, json};

use seat_state::wire::ShowInput;
use seat_state::{BestRequest, Decision, HoldRequest, Rejection, SeatId, Show, ShowState};
use support::{at, hold_id, holder};

/// One seat: `(number, x, y, in category a, taken)`.
type RandomSeat = (u32, f64, f64, bool, bool);

/// A venue: rows of seats; numbers may skip (an aisle), which breaks adjacency.
#[derive(Debug, Clone)]
struct Venue {
    rows: Vec<Vec<RandomSeat>>,
    focus: (f64, f64),
}

fn venue() -> impl Strategy<Value = Venue> {
    let seat = (1u32..3, -50.0..50.0f64, -5.0..5.0f64, any::<bool>(), prop::bool::weighted(0.35));
    let row = prop::collection::vec(seat, 0..14);
    (prop::collection::vec(row, 1..5), (-100.0..100.0f64, -60.0..60.0f64)).prop_map(|(rows, focus)| Venue {
        rows: rows
            .into_iter()
            .map(|row| {
                let mut number = 0;
                row.into_iter()
                    .map(|(step, x, y, category, taken)| {
                        number += step;
                        (number, x, y, category, taken)
                    })
                    .collect()
            })
            .collect(),
        focus,
    })
}

fn seat_id(row: usize, number: u32) -> String {
    format!("R{row}-{number}")
}

fn category(flag: bool) -> &'static str {
    if flag { "a" } else { "b" }
}

/// The state with the venue's taken seats held by someone else.
fn state(venue: &Venue) -> ShowState {
    let mut seats: Vec<Value> = Vec::new();
    for (r, row) in venue.rows.iter().enumerate() {
        for &(number, x, y, flag, _) in row {
            seats.push(json!({"id": seat_id(r, number), "x": x, "y": y, "section": "S", "row": r.to_string(),
                              "number": number, "category": category(flag)}));
        }
    }
    seats.push(json!({"id": "spare", "x": 0, "y": 0}));
    let show = json!({"id": "v", "name": "V", "seats": seats, "maxSeatsPerHold": 100,
                      "focus": {"x": venue.focus.0, "y": venue.focus.1}});
    let mut state = ShowState::new(Show::parse(&serde_json::from_value::<ShowInput>(show).unwrap()).unwrap());
    let taken: Vec<SeatId> = venue
        .rows
        .iter()
        .enumerate()
        .flat_map(|(r, row)| {
            row.iter().filter(|seat| seat.4).map(move |seat| SeatId::parse(&seat_id(r, seat.0)).unwrap())
        })
        .collect();
    if !taken.is_empty() {
        let request = HoldRequest {
            hold_id: hold_id("others-1"),
            seats: taken,
            areas: vec![],
            best: None,
            channel: None,
            access: false,
        };
        let Ok(Decision::Apply(change)) = state.decide_create(&holder("others"), &request, at(0)) else { panic!() };
        state.apply(&change);
    }
    state
}

/// Every adjacent block of `count` free seats in the category, with its
/// rank: (strands a single free seat, of any category, distance to the stage).
fn every_block(venue: &Venue, count: usize, wanted: Option<bool>) -> Vec<(Vec<String>, (bool, f64))> {
    let mut blocks = Vec::new();
    for (r, row) in venue.rows.iter().enumerate() {
        let open = |i: usize| row.get(i).is_some_and(|s| !s.4 && wanted.is_none_or(|w| s.3 == w));
        let joined = |i: usize, j: usize| row[j].0 == row[i].0 + 1;
        for first in 0..row.len() {
            let last = first + count - 1;
            if last >= row.len() || !(first..=last).all(open) || !(first..last).all(|i| joined(i, i + 1)) {
                continue;
            }
            // One free seat joined to the block, then none joined beyond it.
            let free = |i: usize| row.get(i).is_some_and(|s| !s.4);
            let single_left = first >= 1
                && free(first - 1)
                && joined(first - 1, first)
                && !(first >= 2 && free(first - 2) && joined(first - 2, first - 1));
            let single_right =
                free(last + 1) && joined(last, last + 1) && !(free(last + 2) && joined(last + 1, last + 2));
            let (x, y) = (first..=last).fold((0.0, 0.0), |(x, y), i| (x + row[i].1, y + row[i].2));
            let n = count as f64;
            let distance = (x / n - venue.focus.0).hypot(y / n - venue.focus.1);
            let ids = (first..=last).map(|i| seat_id(r, row[i].0)).collect();
            blocks.push((ids, (single_left || single_right, distance)));
        }
    }
    blocks
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn the_block_picked_is_free_adjacent_in_category_and_ranks_best(
        venue in venue(),
        count in 1usize..5,
        wanted in prop::option::of(any::<bool>()),
    ) {
        let state = state(&venue);
        let best = BestRequest { count: count as u32, category: wanted.map(|w| category(w).to_owned()), wheelchair: 0 };
        let blocks = every_block(&venue, count, wanted);
        match state.best_block(&best, None, false, at(0)) {
            Ok(picked) => {
                let picked: Vec<String> = picked.iter().map(ToString::to_string).collect();
                let rank = blocks.iter().find(|(ids, _)| *ids == picked).map(|(_, rank)| *rank);
                prop_assert!(rank.is_some(), "{picked:?} is not a free adjacent block in the category");
                let (strands, distance) = rank.unwrap();
                for (other, (other_strands, other_distance)) in &blocks {
                    let better = (!*other_strands && strands)
                        || (*other_strands == strands && *other_distance < distance - 1e-9);
                    prop_assert!(!better, "{other:?} ranks better than {picked:?}");
                }
            }
            Err(Rejection::NoBlock { available }) => {
                prop_assert!(blocks.is_empty(), "a block was there: {:?}", blocks[0]);
                prop_assert!((available as usize) < count);
            }
            Err(other) => prop_assert!(false, "{other:?}"),
        }
    }
}
