//! Accessible seating under random requests over time (native only:
//! proptest needs the OS): before `accessReleaseAt`, a wheelchair place or
//! companion seat goes only to a request that asked for access, and best
//! available with wheelchair places gives each its own companion.
#![cfg(not(target_arch = "wasm32"))]
// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

mod support;

use proptest::prelude::*;
use serde_json::{Value, json};

use seat_state::wire::{BestRequestBody, HoldOrder, HoldRequestBody, RequestedQuantity, ShowInput};
use seat_state::{Access, Change, Decision, HoldId, Show, ShowState};
use support::{at, holder};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Plain,
    Wheelchair,
    Companion,
}

/// A show of rows of seats; a companion seat goes with the nearest
/// wheelchair place of its row (a plain seat when the row has none).
fn show(rows: &[Vec<Kind>], rule: &str) -> Show {
    let mut seats: Vec<Value> = Vec::new();
    for (r, row) in rows.iter().enumerate() {
        let places: Vec<usize> = (0..row.len()).filter(|&i| row[i] == Kind::Wheelchair).collect();
        for (i, kind) in row.iter().enumerate() {
            let mut seat = json!({"id": format!("R{r}-{i}"), "x": i, "y": r, "section": "S", "row": r.to_string(),
                                  "number": i + 1});
            match (kind, places.iter().min_by_key(|&&p| p.abs_diff(i))) {
                (Kind::Wheelchair, _) => seat["access"] = json!("wheelchair"),
                (Kind::Companion, Some(place)) => {
                    (seat["access"], seat["companionOf"]) = (json!("companion"), json!(format!("R{r}-{place}")));
                }
                _ => {}
            }
            seats.push(seat);
        }
    }
    let show = json!({"id": "v", "name": "V", "seats": seats, "holdSeconds": 30, "maxSeatsPerHold": 10,
                      "maxActiveHoldsPerHolder": 50, "orphanRule": rule, "accessReleaseAt": at(50).0});
    Show::parse(&serde_json::from_value::<ShowInput>(show).unwrap()).unwrap()
}

/// One request: explicit seats or best available, asking for access or
/// not, at some second.
#[derive(Debug, Clone)]
struct Ask {
    best: Option<(u32, u32)>,
    seats: Vec<prop::sample::Index>,
    access: bool,
    second: i64,
    who: u8,
}

fn ask() -> impl Strategy<Value = Ask> {
    (
        prop::option::of((1u32..6, 0u32..3)),
        prop::collection::vec(any::<prop::sample::Index>(), 1..4),
        any::<bool>(),
        0i64..100,
        0u8..4,
    )
        .prop_map(|(best, seats, access, second, who)| Ask { best, seats, access, second, who })
}

fn rows() -> impl Strategy<Value = Vec<Vec<Kind>>> {
    let kind = prop_oneof![5 => Just(Kind::Plain), 2 => Just(Kind::Wheelchair), 2 => Just(Kind::Companion)];
    prop::collection::vec(prop::collection::vec(kind, 1..10), 1..4)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn access_seats_go_only_to_requests_that_ask_before_release(
        rows in rows(),
        rule in prop_oneof![Just("off"), Just("lenient"), Just("strict")],
        mut asks in prop::collection::vec(ask(), 1..25),
    ) {
        let show = show(&rows, rule);
        let ids: Vec<String> = show.seats.iter().map(|seat| seat.id.to_string()).collect();
        let mut state = ShowState::new(show);
        asks.sort_by_key(|ask| ask.second);
        for (n, ask) in asks.iter().enumerate() {
            let now = at(ask.second);
            let body = HoldRequestBody {
                hold_id: Some(format!("hold-{n:04}")),
                seats: if ask.best.is_some() { vec![] } else { ask.seats.iter().map(|i| i.get(&ids).clone()).collect() },
                ..Default::default()
            };
            let best = ask.best.map(|(count, wheelchair)| BestRequestBody {
                count: RequestedQuantity::Integer(count.into()),
                category: None,
                wheelchair: Some(RequestedQuantity::Integer(wheelchair.into())),
            });
            let order = HoldOrder { body, best, channel: None, access: Some(ask.access) };
            let Ok(request) = state.parse_order(&order, HoldId::parse("unused-1").unwrap()) else { continue };
            let Ok(Decision::Apply(change)) = state.decide_create(&holder(&ask.who.to_string()), &request, now) else {
                continue;
            };
            let Change::Created { hold } = &change else { panic!("{change:?}") };
            let access_of = |seat: &seat_state::SeatId| {
                state.show().seats.iter().find(|s| s.id == *seat).and_then(|s| s.access.clone())
            };
            let asked = ask.access || ask.best.is_some_and(|(_, wheelchair)| wheelchair > 0);
            for seat in &hold.seats {
                prop_assert!(
                    access_of(seat).is_none() || asked || now >= at(50),
                    "{seat} went to a request that did not ask, before the release"
                );
            }
            if let Some((_, wheelchair @ 1..)) = ask.best {
                let places: Vec<_> = hold.seats.iter().filter(|s| access_of(s) == Some(Access::Wheelchair)).collect();
                prop_assert_eq!(places.len(), wheelchair as usize);
                for place in places {
                    let companion = Access::Companion { of: place.clone() };
                    prop_assert!(hold.seats.iter().any(|s| access_of(s) == Some(companion.clone())), "{place} alone");
                }
            }
            state.apply(&change);
        }
    }
}
