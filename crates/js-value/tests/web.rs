//! The reader and writer over real JavaScript values, in headless Chromium.

use serde::{Deserialize, Serialize};
use wasm_bindgen::JsValue;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

#[derive(Debug, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
struct Seat {
    seat_id: String,
    hold_expires_at: Option<i64>,
    state: State,
}

#[derive(Debug, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
enum State {
    Free,
    Held,
}

fn parsed(json: &str) -> JsValue {
    js_sys::JSON::parse(json).expect("test JSON parses")
}

fn error_of(json: &str) -> String {
    seathold_js_value::from_value::<Vec<Seat>>(parsed(json)).expect_err("a mismatch").text()
}

#[wasm_bindgen_test]
fn parsed_json_reads_into_wire_types_and_writes_back() {
    let json = r#"[{"seatId": "A1", "holdExpiresAt": null, "state": "FREE", "other": 1},
                   {"seatId": "A2", "holdExpiresAt": 5000, "state": "HELD"}]"#;
    let seats: Vec<Seat> = seathold_js_value::from_value(parsed(json)).expect("seats read");
    assert_eq!(
        seats,
        [
            Seat { seat_id: "A1".into(), hold_expires_at: None, state: State::Free },
            Seat { seat_id: "A2".into(), hold_expires_at: Some(5000), state: State::Held },
        ]
    );
    let written = seathold_js_value::to_value(&seats).expect("seats written");
    let text = String::from(js_sys::JSON::stringify(&written).expect("stringified"));
    assert_eq!(
        text,
        r#"[{"seatId":"A1","holdExpiresAt":null,"state":"FREE"},{"seatId":"A2","holdExpiresAt":5000,"state":"HELD"}]"#
    );
}

#[wasm_bindgen_test]
fn a_mismatch_names_its_path() {
    assert_eq!(error_of(r#"[{"seatId": "A1", "state": "FREE"}, {"seatId": 7}]"#), "expected a string at [1].seatId");
    assert_eq!(
        error_of(r#"[{"seatId": "A1", "holdExpiresAt": 1.5, "state": "FREE"}]"#),
        "expected an integer at [0].holdExpiresAt"
    );
    assert_eq!(error_of(r#"[{"seatId": "A1", "state": "GONE"}]"#), "unknown variant `GONE` at [0].state");
    assert_eq!(error_of(r#"[{"seatId": "A1"}]"#), "missing field at [0].state");
}
