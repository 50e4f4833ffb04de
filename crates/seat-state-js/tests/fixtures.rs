//! `tests/fixtures/rows.json`, which `node.test.mjs` reads: a show with
//! parametric rows as `seat-state` (the server's own rules) defines, holds
//! and serves it. Made here from a real `ShowState`, never by hand, and
//! checked on every native `cargo test`: a fixture that no longer matches
//! what seat-state makes fails, and `SEATHOLD_BLESS=1 cargo test -p
//! seat-state-js --test fixtures` writes it afresh.
//!
//! It holds the definition as `GET /api/shows/{showId}` answers customers,
//! every seat as the server keeps them (`seats`, the shape `expandSeats`
//! answers), and one session's seat map at one instant in the three forms
//! the server sends: JSON with every seat, `?format=compact` and
//! `?format=bits`.

#![cfg(not(target_arch = "wasm32"))]
// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use seat_state::wire::{BitsMap, CompactMap, HoldOrder, SeatOrder, ShowInput};
use seat_state::{Decision, HoldId, HolderId, SeatId, SeatScope, ServerMillis, Show, ShowState};
use serde_json::{Value, json};

/// The session whose map the fixture holds (`mine`).
const ME: &str = "me";
/// The instant of the map; holds are made at 0 and 1,000.
const NOW: ServerMillis = ServerMillis(2_000);

/// Listed seats, then rows: straight with an aisle and access places, a
/// curve numbered against its heading, a bent-the-other-way row with an
/// id prefix and no place; a channel and an area.
fn input() -> ShowInput {
    serde_json::from_value(json!({
        "id": "rows-fixture", "name": "Rows fixture", "holdSeconds": 600,
        "maxSeatsPerHold": 20, "maxActiveHoldsPerHolder": 5,
        "seats": [
            {"id": "box-1", "x": -60, "y": 0, "label": "Royal box, seat 1"},
            {"id": "box-2", "x": -60, "y": 20},
            {"id": "P-A-1", "x": -40, "y": 0, "section": "P", "row": "A", "number": 1, "category": "lower"}
        ],
        "rows": [
            {"section": "101", "row": "1", "x": 0, "y": 0, "spacing": 12, "count": 14, "category": "lower",
             "gaps": [{"after": 7, "space": 24}], "wheelchair": [1], "companions": [{"number": 2, "of": 1}]},
            {"section": "101", "row": "2", "x": 0, "y": 14, "angle": 10, "radius": 300, "spacing": 12,
             "count": 12, "first": 12, "step": -1, "category": "lower"},
            {"idPrefix": "terrace-", "x": 0, "y": 100, "angle": 180, "radius": -200, "spacing": 10.5,
             "count": 9, "first": 5}
        ],
        "categories": [{"id": "lower", "name": "Lower tier", "price": 5900, "currency": "EUR", "color": "#8250df"}],
        "channels": [{"id": "presale", "code": "SECRET", "seats": ["101-2-5", "terrace-7"]}],
        "areas": [{"id": "floor", "name": "Standing floor", "capacity": 100}]
    }))
    .unwrap()
}

/// The show after a few sessions: mine held and one of them sold, others'
/// holds with two deadlines, a seat blocked.
fn state(show: Show) -> ShowState {
    let mut state = ShowState::new(show);
    let mut take = |who: &str, seats: &[&str], at: i64, id: &str| {
        let order: HoldOrder = serde_json::from_value(json!({"seats": seats, "areas": {"floor": 1}})).unwrap();
        let request = state.parse_order(&order, HoldId::parse(id).unwrap()).unwrap();
        let Ok(Decision::Apply(change)) = state.decide_create(&HolderId::new(who), &request, ServerMillis(at)) else {
            panic!("{id} is taken")
        };
        state.apply(&change);
    };
    take(ME, &["101-1-9", "101-1-10"], 0, "hold-me001");
    take(ME, &["box-2"], 0, "hold-me002");
    take("ann", &["101-1-3", "101-1-4", "101-2-12", "terrace-13"], 0, "hold-ann01");
    take("bob", &["101-2-1", "P-A-1"], 1_000, "hold-bob01");
    let Ok(Decision::Apply(sale)) =
        state.decide_confirm(&HolderId::new(ME), &HoldId::parse("hold-me002").unwrap(), ServerMillis(1_500))
    else {
        panic!("my box seat is sold")
    };
    state.apply(&sale);
    let Ok(Decision::Apply(block)) = state.decide_block(&[SeatId::parse("terrace-9").unwrap()], "camera") else {
        panic!("terrace-9 is blocked")
    };
    state.apply(&block);
    state
}

/// Every seat as the server keeps it, in the shape `expandSeats` answers.
fn server_seats(show: &Show) -> Vec<Value> {
    show.seats
        .iter()
        .map(|seat| {
            let mut value = json!({"id": seat.id.to_string(), "x": seat.x, "y": seat.y, "label": seat.label});
            let mut set = |key: &str, field: Option<Value>| {
                if let Some(field) = field {
                    value[key] = field;
                }
            };
            set("category", seat.category.clone().map(Value::from));
            set("section", seat.place.as_ref().map(|place| place.section.clone().into()));
            set("row", seat.place.as_ref().map(|place| place.row.clone().into()));
            set("number", seat.place.as_ref().map(|place| place.number.into()));
            set("access", seat.access.as_ref().map(|access| access.as_str().into()));
            set("companionOf", seat.access.as_ref().and_then(|a| a.companion_of()).map(|of| of.to_string().into()));
            value
        })
        .collect()
}

fn fixture() -> Value {
    let show = Show::parse(&input()).unwrap();
    let definition = show.to_wire().for_customers();
    assert!(!definition.rows.is_empty() && definition.seats.len() == 3, "served as rows, not as seats");
    let seats = server_seats(&show);
    let state = state(show);
    let me = HolderId::new(ME);
    let every = state.seat_map_of(SeatScope::Every, Some(&me), NOW);
    let taken = state.seat_map_of(SeatScope::Taken, Some(&me), NOW);
    let order = SeatOrder::of_document(&definition);
    assert_eq!(order.ids().collect::<Vec<_>>(), every.seats.iter().map(|fact| fact.id.as_str()).collect::<Vec<_>>());
    let compact = CompactMap::encode(&taken, &order).unwrap();
    let bits = BitsMap::encode(&taken, &order).unwrap();
    // The three forms say the same (what node.test.mjs checks of the package).
    assert_eq!(bits.decode_every(&order).unwrap(), every);
    assert_eq!(compact.decode_every(&order).unwrap(), every);
    assert!(bits.s.len() > 1 && bits.e.len() >= 4 && !bits.b.is_empty() && !bits.m.is_empty(), "{bits:?}");
    json!({"definition": definition, "seats": seats, "json": every, "compact": compact, "bits": bits})
}

#[test]
fn the_rows_fixture_is_what_seat_state_makes() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rows.json");
    let made = serde_json::to_string_pretty(&fixture()).unwrap() + "\n";
    if std::env::var_os("SEATHOLD_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &made).unwrap();
    }
    let kept = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        kept == made,
        "{} is not what seat-state makes now: SEATHOLD_BLESS=1 cargo test -p seat-state-js --test fixtures",
        path.display()
    );
}
