//! Box office additions to a show definition (API.md "Box office (v2)"):
//! rows, categories with prices, the stage, channels; each invalid form is
//! refused with a message that names the field at fault.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

use serde_json::{Value, json};

use seat_state::wire::ShowInput;
use seat_state::{InvalidShow, RowPlace, Show};

fn venue(extra: Value) -> Value {
    let mut show = json!({
        "id": "hall", "name": "Hall",
        "categories": [
            {"id": "a", "name": "Stalls A", "price": 4500, "currency": "EUR", "color": "#1f6feb"},
            {"id": "b", "name": "Stalls B", "price": 2500, "currency": "EUR", "color": "#8250df"}
        ],
        "focus": {"x": 50, "y": -40},
        "seats": [
            {"id": "A1", "x": 10, "y": 0, "category": "a", "section": "Stalls", "row": "A", "number": 1},
            {"id": "A2", "x": 20, "y": 0, "category": "a", "section": "Stalls", "row": "A", "number": 2},
            {"id": "B1", "x": 10, "y": 10, "category": "b", "section": "Stalls", "row": "B", "number": 1}
        ],
        "channels": [{"id": "presale", "code": "SECRET", "seats": ["B1"]}]
    });
    for (key, value) in extra.as_object().unwrap() {
        show[key] = value.clone();
    }
    show
}

fn parse(json: Value) -> Result<Show, InvalidShow> {
    Show::parse(&serde_json::from_value::<ShowInput>(json).unwrap())
}

fn refusal(json: Value) -> String {
    parse(json).unwrap_err().0
}

#[test]
fn a_venue_with_rows_categories_focus_and_channels_parses_and_reads_back() {
    let show = parse(venue(json!({}))).unwrap();
    assert_eq!(show.categories[0].price, 4500);
    assert_eq!(show.seats[1].place, Some(RowPlace { section: "Stalls".into(), row: "A".into(), number: 2 }));
    assert_eq!(show.focus.map(|f| (f.x, f.y)), Some((50.0, -40.0)));
    assert_eq!(show.channels[0].code, "SECRET");
    let again: ShowInput = serde_json::from_value(serde_json::to_value(show.to_wire()).unwrap()).unwrap();
    assert_eq!(Show::parse(&again).unwrap(), show);
}

#[test]
fn the_public_definition_keeps_channel_seats_but_not_codes() {
    let document = serde_json::to_value(parse(venue(json!({}))).unwrap().to_wire().without_codes()).unwrap();
    assert_eq!(document["channels"], json!([{"id": "presale", "seats": ["B1"]}]));
    assert_eq!(document["seats"][0]["section"], "Stalls");
    assert_eq!(document["categories"][1]["color"], "#8250df");
}

#[test]
fn a_v1_show_reads_back_without_any_box_office_field() {
    let v1 = json!({"id": "old", "name": "Old", "seats": [{"id": "B7", "x": 70, "y": 20}]});
    let document = serde_json::to_value(parse(v1).unwrap().to_wire()).unwrap();
    for field in ["categories", "focus", "channels"] {
        assert!(document.get(field).is_none(), "{field} in {document}");
    }
    assert!(document["seats"][0].get("section").is_none());
}

#[test]
fn a_seat_needs_section_row_and_number_together() {
    let seats = json!([{"id": "A1", "x": 0, "y": 0, "row": "A"}]);
    assert_eq!(
        refusal(json!({"id": "x", "name": "X", "seats": seats})),
        "seat \"A1\" needs section, row and number together or none of them (missing section and number)"
    );
}

#[test]
fn two_seats_in_one_place_are_refused_by_name() {
    let seats = json!([
        {"id": "A1", "x": 0, "y": 0, "section": "S", "row": "A", "number": 1},
        {"id": "A1b", "x": 5, "y": 0, "section": "S", "row": "A", "number": 1}
    ]);
    assert_eq!(
        refusal(json!({"id": "x", "name": "X", "seats": seats})),
        "seats A1 and A1b are both section \"S\", row \"A\", number 1"
    );
}

#[test]
fn seat_numbers_and_names_are_bounded() {
    let seat = |number: Value, row: &str| json!({"seats": [{"id": "A1", "x": 0, "y": 0, "section": "S", "row": row, "number": number}], "categories": [], "channels": []});
    assert!(refusal(venue(seat(json!(-1), "A"))).contains("number must be between 0 and 1000000, not -1"));
    assert!(refusal(venue(seat(json!(1), " "))).contains("seat \"A1\" row must be 1 to 64 characters"));
}

#[test]
fn categories_are_checked_field_by_field() {
    let category = |field: &str, value: Value| {
        let mut a = json!({"id": "a", "name": "Stalls A", "price": 4500, "currency": "EUR", "color": "#1f6feb"});
        a[field] = value;
        refusal(venue(json!({"categories": [a], "seats": [{"id": "A1", "x": 0, "y": 0}], "channels": []})))
    };
    assert!(category("price", json!(-1)).contains("category \"a\" price must be between 0"));
    assert!(category("currency", json!("eur")).contains("currency must be 3 capital letters"));
    assert!(category("color", json!("blue")).contains("color must be #rrggbb, not \"blue\""));
    assert!(category("id", json!("a b")).contains("category id \"a b\" must match"));
    assert!(category("name", json!("")).contains("category \"a\" name must be 1 to 200 characters"));
}

#[test]
fn a_seat_must_name_a_defined_category_once_there_are_categories() {
    let seats = json!([{"id": "A1", "x": 0, "y": 0, "category": "c"}]);
    assert_eq!(
        refusal(venue(json!({"seats": seats, "channels": []}))),
        "seat A1's category \"c\" is not one of the show's categories"
    );
    let free_form = json!({"id": "x", "name": "X", "seats": [{"id": "A1", "x": 0, "y": 0, "category": "c"}]});
    assert!(parse(free_form).is_ok(), "without categories, a category is free-form (v1)");
}

#[test]
fn channels_name_seats_of_the_show_once_and_carry_a_code() {
    let channels = |value: Value| refusal(venue(json!({"channels": value})));
    assert_eq!(channels(json!([{"id": "p", "seats": ["A1"]}])), "channel \"p\" needs a code");
    assert_eq!(
        channels(json!([{"id": "p", "code": "X", "seats": ["Z9"]}])),
        "channel \"p\" names \"Z9\", which is not a seat of the show"
    );
    assert_eq!(
        channels(json!([{"id": "p", "code": "X", "seats": ["A1"]}, {"id": "q", "code": "Y", "seats": ["A1"]}])),
        "seat A1 is in channels \"p\" and \"q\""
    );
    assert_eq!(
        channels(json!([{"id": "p", "code": "X", "seats": []}, {"id": "q", "code": "X", "seats": []}])),
        "channel \"q\" has the same code as another channel"
    );
}

#[test]
fn the_focus_must_be_finite() {
    let input = ShowInput {
        focus: Some(seat_state::wire::Focus { x: f64::NAN, y: 0.0 }),
        ..serde_json::from_value(venue(json!({}))).unwrap()
    };
    assert_eq!(Show::parse(&input).unwrap_err().0, "focus needs finite x and y");
}
