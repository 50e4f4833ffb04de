//! API.md "Box office (v2)" through the router on a real SQLite file:
//! venue rows, categories and the stage; CSV import; best available.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

mod support;

use serde_json::{Value, json};
use support::{ADMIN_TOKEN, TestApp, assert_error};

/// Two rows of six seats in category `a` (row A) and `b` (row B), the stage
/// above row A's middle, and seat B6 for the `presale` channel.
fn hall() -> Value {
    let seats: Vec<Value> = ["A", "B"]
        .iter()
        .enumerate()
        .flat_map(|(r, row)| {
            (1..=6).map(move |n| {
                json!({"id": format!("{row}{n}"), "x": n * 10, "y": r * 10, "section": "Stalls", "row": row,
                       "number": n, "category": if r == 0 { "a" } else { "b" }})
            })
        })
        .collect();
    json!({
        "id": "hall", "name": "Hall", "maxSeatsPerHold": 6, "seats": seats,
        "categories": [
            {"id": "a", "name": "Stalls A", "price": 4500, "currency": "EUR", "color": "#1f6feb"},
            {"id": "b", "name": "Stalls B", "price": 2500, "currency": "EUR", "color": "#8250df"}
        ],
        "focus": {"x": 35, "y": -20},
        "channels": [{"id": "presale", "code": "SECRET", "seats": ["B6"]}]
    })
}

#[tokio::test]
async fn a_show_reads_back_with_rows_categories_focus_and_channels_but_no_codes() {
    let app = TestApp::new(Some(ADMIN_TOKEN)).await;
    let created = app.create_show(&hall()).await;
    assert_eq!(created.status, 201, "{created:?}");
    let app = app.restart();
    let read = app.get("/api/shows/hall").await;
    assert_eq!(read.status, 200, "{read:?}");
    assert_eq!(read.body["categories"], hall()["categories"]);
    assert_eq!(read.body["focus"], json!({"x": 35.0, "y": -20.0}));
    assert_eq!(read.body["seats"][7]["row"], "B");
    assert_eq!(read.body["seats"][7]["number"], 2);
    assert_eq!(read.body["seats"][7]["section"], "Stalls");
    assert_eq!(read.body["channels"], json!([{"id": "presale", "seats": ["B6"]}]), "the code stays secret");
    assert_eq!(app.create_show(&hall()).await.status, 200, "the same definition again");
}

#[tokio::test]
async fn an_invalid_box_office_field_is_422_naming_it() {
    let app = TestApp::new(Some(ADMIN_TOKEN)).await;
    let mut show = hall();
    show["categories"][1]["currency"] = json!("euro");
    let answer = app.create_show(&show).await;
    assert_error(&answer, 422, "invalid_show");
    assert!(answer.body["message"].as_str().unwrap().contains("category \"b\" currency"), "{answer:?}");
    assert_error(&app.get("/api/shows/hall").await, 404, "unknown_show");
}

#[tokio::test]
async fn the_document_states_the_box_office_constraints() {
    let app = TestApp::new(None).await;
    let schemas = app.get("/api/openapi.json").await.body["components"]["schemas"].clone();
    assert_eq!(schemas["CategoryDefinition"]["properties"]["currency"]["pattern"], "^[A-Z]{3}$");
    assert_eq!(schemas["CategoryDefinition"]["properties"]["color"]["pattern"], "^#[0-9A-Fa-f]{6}$");
    assert_eq!(
        schemas["ChannelDefinition"]["properties"]["seats"]["items"]["pattern"],
        "^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$"
    );
    let place = schemas["VenueSeat"]["allOf"].as_array().unwrap().iter().find(|p| p["properties"].is_object()).unwrap();
    assert_eq!(place["properties"]["number"]["maximum"], 1_000_000, "{place}");
}
