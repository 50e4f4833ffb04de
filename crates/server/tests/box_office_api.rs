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

const VENUE_CSV: &str = "section,row,number,x,y,category,label\n\
                         Stalls,A,1,10,0,a,\n\
                         Stalls,A,2,20,0,a,Aisle\n\
                         Stalls,B,1,10,10,b,\n";

async fn import(app: &TestApp, query: &str, csv: &str) -> support::Answer {
    let request = axum::http::Request::post(format!("/api/admin/shows?{query}"))
        .header("content-type", "text/csv; charset=utf-8")
        .header("authorization", format!("Bearer {ADMIN_TOKEN}"))
        .body(axum::body::Body::from(csv.to_owned()))
        .unwrap();
    app.send(request).await
}

#[tokio::test]
async fn a_csv_venue_becomes_a_show_with_rows_and_default_ids_and_labels() {
    let app = TestApp::new(Some(ADMIN_TOKEN)).await;
    let created = import(&app, "id=csv-hall&name=CSV%20Hall&holdSeconds=120", VENUE_CSV).await;
    assert_eq!(created.status, 201, "{created:?}");
    let read = app.get("/api/shows/csv-hall").await;
    assert_eq!((read.body["name"].as_str(), read.body["holdSeconds"].as_i64()), (Some("CSV Hall"), Some(120)));
    let seat = &read.body["seats"][0];
    assert_eq!(seat["id"], "Stalls-A-1");
    // The label is the default for a seat with a place: left out, clients derive it.
    assert_eq!(seat.get("label"), None, "{seat}");
    assert_eq!((&seat["section"], &seat["row"], &seat["number"]), (&json!("Stalls"), &json!("A"), &json!(1)));
    assert_eq!(read.body["seats"][1]["label"], "Aisle");
    let again = import(&app, "id=csv-hall&name=CSV%20Hall&holdSeconds=120", VENUE_CSV).await;
    assert_eq!(again.status, 200, "the same venue again: {again:?}");
}

#[tokio::test]
async fn a_bad_csv_venue_is_422_naming_the_line_and_the_column() {
    let app = TestApp::new(Some(ADMIN_TOKEN)).await;
    let bad = format!("{VENUE_CSV}Stalls,B,2,ten,10,b,\n");
    let answer = import(&app, "id=csv-bad&name=Bad", &bad).await;
    assert_error(&answer, 422, "invalid_show");
    let message = answer.body["message"].as_str().unwrap();
    assert!(message.contains("line 5, column 4 (x): \"ten\" is not a number"), "{message}");
    let nameless = import(&app, "id=csv-bad", VENUE_CSV).await;
    assert_error(&nameless, 422, "invalid_show");
    assert!(nameless.body["message"].as_str().unwrap().contains("name is required"), "{nameless:?}");
    assert_error(&import(&app, "id=csv-bad&name=Bad&holdSeconds=soon", VENUE_CSV).await, 400, "bad_request");
    assert_error(&app.get("/api/shows/csv-bad").await, 404, "unknown_show");
}

#[tokio::test]
async fn the_command_line_creates_a_show_from_a_csv_venue() {
    use clap::Parser;
    let dir = tempfile::tempdir().unwrap();
    let venue = dir.path().join("venue.csv");
    std::fs::write(&venue, VENUE_CSV).unwrap();
    let database = format!("sqlite:{}", dir.path().join("cli.db").display());
    let args = ["seathold", "show", "create", venue.to_str().unwrap(), "--id", "cli-hall", "--name", "CLI Hall"];
    let cli = seathold_server::config::Cli::parse_from(args.into_iter().chain(["--database", &database]));
    seathold_server::run(cli).await.unwrap();
    let store = seathold_core::store::SqliteStore::open(dir.path().join("cli.db")).await.unwrap();
    let show = seathold_core::store::Store::show(&store, "cli-hall").await.unwrap().unwrap();
    assert_eq!((show.name.as_str(), show.seats.len()), ("CLI Hall", 3));
    assert_eq!(show.seats[2].place.as_ref().map(|place| place.row.as_str()), Some("B"));
}

#[tokio::test]
async fn best_available_holds_the_block_nearest_the_stage_and_replays_it() {
    let app = TestApp::new(Some(ADMIN_TOKEN)).await;
    assert_eq!(app.create_show(&hall()).await.status, 201);
    let token = app.session().await;
    let body = json!({"holdId": "best-hold-1", "best": {"count": 2, "category": "a"}});
    let held = app.hold(&token, "hall", body.clone()).await;
    assert_eq!(held.status, 201, "{held:?}");
    assert_eq!(held.body["seats"], json!(["A3", "A4"]));
    let again = app.hold(&token, "hall", body).await;
    assert_eq!((again.status.as_u16(), &again.body["seats"]), (200, &json!(["A3", "A4"])), "{again:?}");
    let seats = app.call("GET", "/api/shows/hall/seats", None, None).await.body["seats"].clone();
    let held_ids: Vec<&str> = seats
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["holdExpiresAt"].is_i64())
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert_eq!(held_ids, ["A3", "A4"], "nothing more was taken");
}

#[tokio::test]
async fn best_available_without_a_block_is_409_not_enough_seats_with_the_largest() {
    let app = TestApp::new(Some(ADMIN_TOKEN)).await;
    assert_eq!(app.create_show(&hall()).await.status, 201);
    let ann = app.session().await;
    assert_eq!(app.hold(&ann, "hall", json!({"seats": ["A3"]})).await.status, 201);
    let bob = app.session().await;
    let refused = app.hold(&bob, "hall", json!({"best": {"count": 4, "category": "a"}})).await;
    assert_error(&refused, 409, "not_enough_seats");
    assert_eq!(refused.body["available"], 3, "A4 to A6");
    let invalid = app.hold(&bob, "hall", json!({"best": {"count": 2, "category": "z"}})).await;
    assert_error(&invalid, 422, "invalid_seats");
}

#[tokio::test]
async fn a_channel_seat_needs_the_code_and_is_unavailable_before_taken() {
    let app = TestApp::new(Some(ADMIN_TOKEN)).await;
    assert_eq!(app.create_show(&hall()).await.status, 201);
    let ann = app.session().await;
    assert_eq!(app.hold(&ann, "hall", json!({"seats": ["B5"]})).await.status, 201);
    let bob = app.session().await;
    let refused = app.hold(&bob, "hall", json!({"seats": ["B5", "B6"]})).await;
    assert_error(&refused, 409, "seats_unavailable");
    assert_eq!(refused.body["seats"], json!(["B6"]));
    let held = app.hold(&bob, "hall", json!({"seats": ["B6"], "channel": "SECRET"})).await;
    assert_eq!((held.status.as_u16(), &held.body["seats"]), (201, &json!(["B6"])), "{held:?}");
}

#[tokio::test]
async fn the_command_line_refuses_show_fields_beside_a_json_venue() {
    use clap::Parser;
    let dir = tempfile::tempdir().unwrap();
    let venue = dir.path().join("venue.json");
    std::fs::write(&venue, hall().to_string()).unwrap();
    let database = format!("sqlite:{}", dir.path().join("cli.db").display());
    let args = ["seathold", "show", "create", venue.to_str().unwrap(), "--hold-seconds", "60", "--database", &database];
    let error = seathold_server::run(seathold_server::config::Cli::parse_from(args)).await.unwrap_err();
    assert!(error.to_string().contains("are for a CSV venue"), "{error:#}");
}
