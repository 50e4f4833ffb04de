//! Parametric rows (issue 36): a definition's `rows` expand to seats the
//! same way every time, with unique ids, and parse to the same show as
//! the explicit `seats` they stand for.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]
#![cfg(not(target_arch = "wasm32"))]

use std::collections::HashSet;

use proptest::prelude::*;
use serde_json::json;

use seat_state::parametric::expand;
use seat_state::wire::{
    RowCompanion, RowDefinition, RowGap, SeatMap, ShowDefinition, ShowDocument, ShowInput, ShowOffer, ShowRows,
};
use seat_state::{Access, Show, ShowState};

/// A row of section `section`, row `row` in that section, with the drawn geometry.
#[allow(clippy::too_many_arguments)]
fn row_of(
    section: usize,
    row: usize,
    count: i64,
    (x, y, angle): (f64, f64, f64),
    radius: Option<f64>,
    (first, step): (i64, i64),
    gaps: Vec<RowGap>,
    access: bool,
) -> RowDefinition {
    // Numbers run from `first` by `step`; the last number stays ≥ 0.
    let first = if step < 0 { first + count } else { first };
    let numbers: Vec<i64> = (0..count).map(|k| first + step * k).collect();
    let (wheelchair, companions) = if access && count >= 2 {
        (vec![numbers[0]], vec![RowCompanion { number: numbers[1], of: numbers[0] }])
    } else {
        (Vec::new(), Vec::new())
    };
    RowDefinition {
        section: Some(format!("S{section}")),
        row: Some(format!("R{row}")),
        id_prefix: None,
        x,
        y,
        angle: Some(angle),
        radius,
        spacing: 12.5,
        count,
        first: Some(first),
        step: Some(step),
        category: Some(if row.is_multiple_of(2) { "a" } else { "b" }.to_owned()),
        gaps: gaps.into_iter().filter(|gap| gap.after < count).collect(),
        wheelchair,
        companions,
    }
}

fn rows_strategy() -> impl Strategy<Value = Vec<RowDefinition>> {
    let geometry = (-5000.0..5000.0f64, -5000.0..5000.0f64, -720.0..720.0f64);
    let radius = prop_oneof![Just(None), (50.0..3000.0f64).prop_map(Some), (-3000.0..-50.0f64).prop_map(Some)];
    let numbering = (0i64..50, prop_oneof![Just(1i64), Just(-1i64), Just(2i64)]);
    let gaps = prop::collection::vec((1i64..40, 0.0..60.0f64).prop_map(|(after, space)| RowGap { after, space }), 0..3);
    let row = (1i64..40, geometry, radius, numbering, gaps, any::<bool>());
    prop::collection::vec(row, 1..12).prop_map(|drawn| {
        drawn
            .into_iter()
            .enumerate()
            .map(|(at, (count, geometry, radius, numbering, gaps, access))| {
                row_of(at / 3, at, count, geometry, radius, numbering, gaps, access)
            })
            .collect()
    })
}

fn input(seats: Vec<seat_state::wire::VenueSeat>, rows: Option<Vec<RowDefinition>>) -> ShowInput {
    serde_json::from_value::<ShowInput>(json!({
        "id": "rows", "name": "Rows",
        "categories": [
            {"id": "a", "name": "A", "price": 4500, "currency": "EUR", "color": "#1f6feb"},
            {"id": "b", "name": "B", "price": 2500, "currency": "EUR", "color": "#8250df"}
        ],
        "seats": seats,
        "rows": rows,
        "areas": [{"id": "floor", "name": "Floor", "capacity": 100}]
    }))
    .unwrap()
}

/// One explicit seat before the rows: the rows' seats follow the definition's own.
fn own_seat() -> seat_state::wire::VenueSeat {
    serde_json::from_value(json!({"id": "box-1", "x": 0, "y": -50, "category": "a"})).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn expansion_is_deterministic_and_its_ids_unique_and_named_by_number(rows in rows_strategy()) {
        let seats = expand(&rows).unwrap();
        prop_assert_eq!(&seats, &expand(&rows).unwrap());
        prop_assert_eq!(seats.len() as i64, rows.iter().map(|row| row.count).sum::<i64>());
        let ids: HashSet<&str> = seats.iter().map(|seat| seat.seat.id.as_str()).collect();
        prop_assert_eq!(ids.len(), seats.len());
        for seat in &seats {
            let number = seat.number.unwrap();
            let expected = format!("{}-{}-{number}", seat.section.as_deref().unwrap(), seat.row.as_deref().unwrap());
            prop_assert_eq!(&seat.seat.id, &expected);
            prop_assert!(seat.seat.x.is_finite() && seat.seat.y.is_finite());
        }
    }

    #[test]
    fn rows_parse_to_the_same_show_as_the_seats_they_stand_for(rows in rows_strategy()) {
        let from_rows = Show::parse(&input(vec![own_seat()], Some(rows.clone()))).unwrap();
        let mut seats = vec![own_seat()];
        seats.extend(expand(&rows).unwrap());
        let from_seats = Show::parse(&input(seats, None)).unwrap();
        // The same show in every respect but the form it is written back in.
        prop_assert_eq!(&from_rows.rows, &rows);
        prop_assert_eq!(&Show { rows: Vec::new(), ..from_rows.clone() }, &from_seats);
        // Its definition keeps the rows and parses back to it, through JSON as stores keep it.
        let document = from_rows.to_wire();
        prop_assert_eq!(document.seats.len(), 1);
        let stored = serde_json::to_string(&document).unwrap();
        let again = Show::parse(&serde_json::from_str::<ShowInput>(&stored).unwrap()).unwrap();
        prop_assert_eq!(&again, &from_rows);
        // The same state's seat map either way.
        let map = |show: Show| -> SeatMap { ShowState::new(show).seat_map(None, seat_state::ServerMillis(0)) };
        prop_assert_eq!(map(from_rows), map(from_seats));
    }

    #[test]
    fn a_client_appends_the_same_seats_the_server_numbers(rows in rows_strategy()) {
        let show = Show::parse(&input(vec![own_seat()], Some(rows))).unwrap();
        let served = serde_json::to_value(show.to_wire().for_customers()).unwrap();
        let mut definition: ShowDefinition = serde_json::from_value(served.clone()).unwrap();
        let mut offer: ShowOffer = serde_json::from_value(served.clone()).unwrap();
        let rows: ShowRows = serde_json::from_value(served.clone()).unwrap();
        rows.append_to(&mut definition, &mut offer).unwrap();
        prop_assert_eq!(definition.seats.len(), show.seats.len());
        for ((client, place), server) in definition.seats.iter().zip(&offer.seats).zip(&show.seats) {
            prop_assert_eq!(client.id.as_str(), server.id.as_str());
            prop_assert_eq!((client.x, client.y), (server.x, server.y));
            prop_assert_eq!(place.access.as_deref(), server.access.as_ref().map(Access::as_str));
        }
        let order = seat_state::wire::SeatOrder::of_document(&serde_json::from_value::<ShowDocument>(served).unwrap());
        prop_assert!(order.ids().eq(show.seats.iter().map(|seat| seat.id.as_str())));
    }
}

fn refusal(rows: serde_json::Value) -> String {
    let input: ShowInput = serde_json::from_value(json!({"id": "rows", "name": "Rows", "rows": rows})).unwrap();
    Show::parse(&input).map(|_| ()).unwrap_err().0
}

#[test]
fn a_bad_row_is_refused_naming_the_row_and_the_field() {
    let row = json!({"section": "101", "row": "A", "x": 0, "y": 0, "spacing": 10, "count": 5});
    let with = |field: &str, value: serde_json::Value| {
        let mut row = row.clone();
        row[field] = value;
        json!([row])
    };
    assert!(refusal(with("count", json!(0))).contains("rows[0] (section \"101\", row \"A\"): count"));
    assert!(refusal(with("spacing", json!(-1))).contains("spacing"));
    assert!(refusal(with("radius", json!(2))).contains("radius"));
    assert!(refusal(with("step", json!(0))).contains("step"));
    let mut downwards = row.clone();
    (downwards["first"], downwards["step"]) = (json!(2), json!(-1));
    assert!(refusal(json!([downwards])).contains("numbers from first 2 by step -1"));
    assert!(refusal(with("wheelchair", json!([9]))).contains("seat number 9"));
    assert!(refusal(with("gaps", json!([{"after": 5, "space": 3}]))).contains("a gap"));
    assert!(refusal(json!([{"x": 0, "y": 0, "spacing": 10, "count": 5}])).contains("needs an idPrefix"));
    // Two rows with one place name the same ids: refused as for explicit seats.
    assert!(refusal(json!([row, row])).contains("used twice"));
    assert!(refusal(json!([with("count", json!(10_000))[0], with("count", json!(10_001))[0]])).contains("count"));
}

#[test]
fn a_row_without_a_place_takes_its_ids_from_its_prefix() {
    let input: ShowInput = serde_json::from_value(json!({"id": "rows", "name": "Rows",
        "rows": [{"idPrefix": "P", "x": 0, "y": 0, "spacing": 10, "count": 3, "first": 7}]}))
    .unwrap();
    let show = Show::parse(&input).unwrap();
    let ids: Vec<&str> = show.seats.iter().map(|seat| seat.id.as_str()).collect();
    assert_eq!(ids, ["P7", "P8", "P9"]);
    assert!(show.seats.iter().all(|seat| seat.place.is_none() && seat.label == seat.id.as_str()));
    assert_eq!(show.seats.iter().map(|seat| seat.x).collect::<Vec<_>>(), [0.0, 10.0, 20.0]);
}
