//! pretix seating plans (issue 38): ours → pretix → ours keeps what both
//! express; a pretix plan → ours → pretix comes back the same; what
//! cannot carry over is dropped as the module says, and bad plans are
//! refused with the seat at fault.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]
#![cfg(not(target_arch = "wasm32"))]

use proptest::prelude::*;
use serde_json::json;

use seat_state::wire::pretix::{PretixPlan, from_show, to_show};
use seat_state::wire::{CategoryDefinition, RowDefinition, SeatDefinition, ShowInput, VenueSeat};

type Comparable = (String, f64, f64, String, Option<String>, Option<(String, String, i64)>);

/// What both formats express about a seat: id, position, effective
/// label, category and place; sorted by id.
fn comparable(input: &ShowInput) -> Vec<Comparable> {
    let rows = input.rows.as_deref().map(seat_state::parametric::expand).transpose().unwrap().unwrap_or_default();
    let mut seats: Vec<_> = input
        .seats
        .iter()
        .flatten()
        .cloned()
        .chain(rows)
        .map(|seat| {
            let label = seat.seat.label.clone().unwrap_or_else(|| seat.default_label());
            let place = seat.section.clone().zip(seat.row.clone()).zip(seat.number).map(|((s, r), n)| (s, r, n));
            (seat.seat.id, seat.seat.x, seat.seat.y, label, seat.seat.category, place)
        })
        .collect();
    seats.sort_by(|a, b| a.0.cmp(&b.0));
    seats
}

fn category(id: &str, color: &str) -> CategoryDefinition {
    CategoryDefinition { id: id.into(), name: id.into(), price: 0, currency: "EUR".into(), color: color.into() }
}

fn ours() -> ShowInput {
    let seat = |id: &str, x: f64, y: f64, label: Option<&str>, category: Option<&str>| SeatDefinition {
        id: id.into(),
        x,
        y,
        label: label.map(Into::into),
        category: category.map(Into::into),
    };
    let placed = |id: &str, row: &str, number: i64, x: f64, y: f64| VenueSeat {
        section: Some("Stalls".into()),
        row: Some(row.into()),
        number: Some(number),
        ..VenueSeat::from(seat(id, x, y, None, Some("a")))
    };
    ShowInput {
        id: Some("hall".into()),
        name: Some("Small hall".into()),
        seats: Some(vec![
            placed("Stalls-A-1", "A", 1, 10.0, 20.5),
            placed("Stalls-A-2", "A", 2, 22.25, 20.5),
            VenueSeat::from(seat("box1", -40.0, 5.0, Some("Box, left"), Some("b"))),
            VenueSeat::from(seat("box2", -40.0, 25.0, None, None)),
            // A UUID's hex digits: pretix's editor names seats by UUIDs.
            VenueSeat::from(seat("0f8e2a6c1b9d4e3fa2c45d6e7f809a1b", 300.0, 300.0, None, Some("a"))),
        ]),
        rows: Some(vec![RowDefinition {
            section: Some("Circle".into()),
            row: Some("1".into()),
            id_prefix: None,
            x: 0.0,
            y: 100.0,
            angle: Some(10.0),
            radius: Some(300.0),
            spacing: 12.0,
            count: 8,
            first: Some(1),
            step: Some(1),
            category: Some("b".into()),
            gaps: vec![],
            wheelchair: vec![],
            companions: vec![],
        }]),
        categories: Some(vec![category("a", "#1f6feb"), category("b", "#d29922")]),
        ..ShowInput::default()
    }
}

#[test]
fn ours_to_pretix_and_back_keeps_seats_places_labels_and_categories() {
    let input = ours();
    let plan = from_show(&input).unwrap();
    // Through JSON, as it would travel, and against the schema's key rules.
    let plan: PretixPlan = serde_json::from_value(serde_json::to_value(&plan).unwrap()).unwrap();
    let zones: Vec<Option<&str>> = plan.zones.iter().map(|zone| zone.name.as_deref()).collect();
    assert_eq!(zones, [Some("Stalls"), None, Some("Circle")]);
    assert_eq!(plan.zones[1].rows[0].seats[2].seat_guid, "0f8e2a6c-1b9d-4e3f-a2c4-5d6e7f809a1b");
    let back = to_show(&plan, "EUR").unwrap();
    assert_eq!(comparable(&back), comparable(&input));
    assert_eq!(back.categories, input.categories);
    assert_eq!(back.name, input.name);
}

/// A plan as pretix's editor writes it: seats positioned from their row,
/// rows from their zone, categories by name.
fn theirs() -> serde_json::Value {
    json!({
        "name": "Studio",
        "categories": [{"name": "front", "color": "#ff0000"}, {"name": "back", "color": "#0000ff"}],
        "size": {"width": 210, "height": 110},
        "zones": [
            {"name": "Main", "position": {"x": 0, "y": 0}, "rows": [
                {"row_number": "A", "seats": [
                    {"seat_guid": "Main-A-1", "seat_number": "1", "position": {"x": 50, "y": 50}, "category": "front"},
                    {"seat_guid": "Main-A-2", "seat_number": "2", "position": {"x": 75.5, "y": 50}, "category": "front"}
                ]},
                {"row_number": "B", "seats": [
                    {"seat_guid": "Main-B-1", "seat_number": "1", "position": {"x": 50, "y": 80}, "category": "back"},
                    {"seat_guid": "Main-B-2", "seat_number": "2", "position": {"x": 75, "y": 80}, "category": ""}
                ]}
            ]},
            {"position": {"x": 0, "y": 0}, "rows": [
                {"row_number": "", "seats": [
                    {"seat_guid": "bar-stool", "seat_number": "Bar stool", "position": {"x": 200, "y": 100}, "category": "back"}
                ]}
            ]}
        ]
    })
}

#[test]
fn a_pretix_plan_to_ours_and_back_is_the_same_plan() {
    let plan: PretixPlan = serde_json::from_value(theirs()).unwrap();
    let ours = to_show(&plan, "CHF").unwrap();
    let seats = ours.seats.as_ref().unwrap();
    assert_eq!(seats[0].default_label(), "Section Main, row A, seat 1");
    assert_eq!(seats[4].seat.label.as_deref(), Some("Bar stool"));
    assert_eq!(seats[3].seat.category, None);
    assert!(seat_state::Show::parse(&ShowInput { id: Some("studio".into()), ..ours.clone() }).is_ok());
    assert_eq!(serde_json::to_value(seat_state::wire::pretix::from_show(&ours).unwrap()).unwrap(), theirs());
}

#[test]
fn offsets_and_uuids_fold_into_seats_and_labels_templates_into_labels() {
    let plan: PretixPlan = serde_json::from_value(json!({
        "name": "Offsets", "categories": [{"name": "Balcony seat"}], "zones": []
    }))
    .unwrap();
    let refused = to_show(&plan, "EUR").unwrap_err().0;
    assert!(refused.starts_with("categories[0]: name \"Balcony seat\" is not usable"), "{refused}");
    let plan: PretixPlan = serde_json::from_value(json!({
        "name": "Offsets", "categories": [{"name": "c", "color": "red"}],
        "zones": [{"name": "Balcony", "position": {"x": 100, "y": 10}, "areas": [{"shape": "text", "text": {"text": "STAGE", "position": {"x": 0, "y": 0}}}],
            "rows": [{"row_number": "3", "row_label": "Reihe %s", "position": {"x": 5, "y": 5}, "seats": [
                {"seat_guid": "0f8e2a6c-1b9d-4e3f-a2c4-5d6e7f809a1b", "seat_number": "07", "position": {"x": 1, "y": 2}, "category": "c", "radius": 8}
            ]}]}]
    }))
    .unwrap();
    let ours = to_show(&plan, "EUR").unwrap();
    let seat = &ours.seats.as_ref().unwrap()[0];
    assert_eq!((seat.seat.id.as_str(), seat.seat.x, seat.seat.y), ("0f8e2a6c1b9d4e3fa2c45d6e7f809a1b", 106.0, 17.0));
    // "07" would read back as 7: no place, pretix's own description as the label.
    assert_eq!((seat.number, seat.seat.label.as_deref()), (None, Some("Balcony, Reihe 3, Seat 07")));
    assert_eq!(ours.categories.as_ref().unwrap()[0].color, "#888888");
    let bad: PretixPlan = serde_json::from_value(json!({
        "name": "x", "categories": [], "zones": [{"position": {"x": 0, "y": 0}, "rows": [{"row_number": "1", "seats": [
            {"seat_guid": "a seat with spaces", "seat_number": "1", "position": {"x": 0, "y": 0}, "category": ""}]}]}]
    }))
    .unwrap();
    let refused = to_show(&bad, "EUR").unwrap_err().0;
    assert!(refused.starts_with("zones[0].rows[0].seats[0]: seat_guid \"a seat with spaces\""), "{refused}");
    // Unknown fields are not pretix's schema (additionalProperties: false).
    assert!(
        serde_json::from_value::<PretixPlan>(json!({"name": "x", "categories": [], "zones": [], "extra": 1})).is_err()
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// Any seats with places, loose seats and categories survive ours →
    /// pretix (through JSON) → ours.
    #[test]
    fn any_venue_round_trips_through_pretix(
        seats in prop::collection::vec(
            (0usize..3, 0usize..4, 0i64..500, -1e4..1e4f64, -1e4..1e4f64, proptest::option::of(0usize..2), any::<bool>()),
            1..60,
        ),
    ) {
        let sections = ["Stalls", "Circle", "Box"];
        let mut used = std::collections::HashSet::new();
        let seats: Vec<VenueSeat> = seats
            .into_iter()
            .filter(|(s, r, n, ..)| used.insert((*s, *r, *n)))
            .map(|(s, r, n, x, y, category, loose)| {
                let id = format!("s{s}r{r}n{n}");
                let definition = SeatDefinition { id, x, y, label: None, category: category.map(|c| ["a", "b"][c].to_owned()) };
                if loose {
                    VenueSeat::from(SeatDefinition { label: Some(format!("Loose {n}")), ..definition })
                } else {
                    VenueSeat { section: Some(sections[s].into()), row: Some(format!("R{r}")), number: Some(n), ..VenueSeat::from(definition) }
                }
            })
            .collect();
        let input = ShowInput {
            name: Some("Any".into()),
            seats: Some(seats),
            categories: Some(vec![category("a", "#000000"), category("b", "#ffffff")]),
            ..ShowInput::default()
        };
        let json = serde_json::to_string(&from_show(&input).unwrap()).unwrap();
        let back = to_show(&serde_json::from_str(&json).unwrap(), "EUR").unwrap();
        prop_assert_eq!(comparable(&back), comparable(&input));
    }
}
