//! The venue designer's endpoints (issue 38): validation before
//! publishing, pretix import and export; the demo venues validate clean,
//! and the stadium's 200,000 seats fast (the time is printed: run with
//! `--nocapture`, in release for the figure that counts).

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

mod support;

use std::time::Instant;

use serde_json::{Value, json};
use support::{ADMIN_TOKEN, TestApp, assert_error, show_with};

use seat_state::design::validate;
use seat_state::wire::ShowInput;
use seathold_server::demo;

async fn shows(app: &TestApp) -> usize {
    app.get("/api/shows").await.body["shows"].as_array().unwrap().len()
}

#[tokio::test]
async fn validation_reports_problems_and_creates_nothing() {
    let app = TestApp::new(Some(ADMIN_TOKEN)).await;
    let clean = show_with("hall", 4, 10, json!({}));
    let answer = app.post_admin("/api/admin/venues/validate", Some(ADMIN_TOKEN), clean.to_string()).await;
    assert_eq!(answer.status, 200, "{answer:?}");
    assert_eq!((answer.body["publishable"].as_bool(), answer.body["errors"].as_u64()), (Some(true), Some(0)));
    assert_eq!((answer.body["seats"].as_u64(), answer.body["areaPlaces"].as_u64()), (Some(4), Some(10)));
    assert!(answer.body["serverTime"].is_i64());
    // Seats with no label and no place show customers their ids: a warning.
    assert_eq!(answer.body["issues"][0]["code"], "label_is_id");

    let mut broken = show_with("hall", 3, 10, json!({}));
    broken["seats"][1]["x"] = json!(31);
    broken["seats"][2]["id"] = json!("floor");
    let answer = app.post_admin("/api/admin/venues/validate", Some(ADMIN_TOKEN), broken.to_string()).await;
    assert_eq!(answer.status, 200, "{answer:?}");
    assert_eq!(answer.body["publishable"], false);
    let codes: Vec<&str> =
        answer.body["issues"].as_array().unwrap().iter().map(|i| i["code"].as_str().unwrap()).collect();
    assert_eq!(&codes[..3], ["invalid_show", "duplicate_id", "overlapping_seats"], "{answer:?}");
    let strict =
        app.post_admin("/api/admin/venues/validate?minDistance=40", Some(ADMIN_TOKEN), clean.to_string()).await;
    assert_eq!((strict.body["errors"].as_u64(), strict.body["minDistance"].as_f64()), (Some(3), Some(40.0)));

    let path = "/api/admin/venues/validate";
    assert_error(&app.post_admin(path, None, clean.to_string()).await, 401, "unauthorized");
    assert_error(&app.post_admin(path, Some(ADMIN_TOKEN), "seats: none").await, 400, "bad_request");
    assert_error(&app.post_admin(path, Some(ADMIN_TOKEN), r#"{"seats": 3}"#).await, 400, "bad_request");
    let negative =
        app.post_admin("/api/admin/venues/validate?minDistance=-1", Some(ADMIN_TOKEN), clean.to_string()).await;
    assert_error(&negative, 422, "invalid_show");
    assert_eq!(shows(&app).await, 0, "validation created a show");
}

/// A pretix plan with offsets folded in already, as Seathold writes one.
fn plan() -> Value {
    json!({
        "name": "Studio",
        "categories": [{"name": "front", "color": "#ff0000"}],
        "size": {"width": 90, "height": 60},
        "zones": [{"name": "Main", "position": {"x": 0, "y": 0}, "rows": [{"row_number": "A", "seats": [
            {"seat_guid": "Main-A-1", "seat_number": "1", "position": {"x": 50, "y": 50}, "category": "front"},
            {"seat_guid": "Main-A-2", "seat_number": "2", "position": {"x": 79.5, "y": 50}, "category": "front"}
        ]}]}]
    })
}

async fn get_admin(app: &TestApp, path: &str) -> support::Answer {
    app.call("GET", path, Some(ADMIN_TOKEN), None).await
}

async fn import(app: &TestApp, query: &str, body: String) -> support::Answer {
    app.post_admin(&format!("/api/admin/venues/import{query}"), Some(ADMIN_TOKEN), body).await
}

#[tokio::test]
async fn a_pretix_plan_is_imported_published_and_exported_the_same() {
    let app = TestApp::new(Some(ADMIN_TOKEN)).await;
    let answer = app
        .post_admin("/api/admin/venues/import?from=pretix&currency=CHF", Some(ADMIN_TOKEN), plan().to_string())
        .await;
    assert_eq!(answer.status, 200, "{answer:?}");
    assert_eq!(answer.body["report"]["publishable"], true, "{answer:?}");
    assert_eq!(answer.body["definition"]["categories"][0]["currency"], "CHF");
    assert_eq!(shows(&app).await, 0, "import created a show");

    let mut definition = answer.body["definition"].clone();
    definition["id"] = json!("studio");
    assert_eq!(app.create_show(&definition).await.status, 201);
    let exported = get_admin(&app, "/api/admin/shows/studio/venue?format=pretix");
    let exported = exported.await;
    assert_eq!(exported.status, 200, "{exported:?}");
    assert_eq!(exported.body, plan());
    let ours = get_admin(&app, "/api/admin/shows/studio/venue").await;
    assert_eq!(ours.body["seats"][0]["id"], "Main-A-1");
    assert_error(&get_admin(&app, "/api/admin/shows/studio/venue?format=xml").await, 400, "bad_request");
    assert_error(&get_admin(&app, "/api/admin/shows/nowhere/venue?format=pretix").await, 404, "unknown_show");
    assert_error(&app.call("GET", "/api/admin/shows/studio/venue", None, None).await, 401, "unauthorized");
}

#[tokio::test]
async fn bad_plans_are_refused_with_what_is_wrong() {
    let app = TestApp::new(Some(ADMIN_TOKEN)).await;
    let answer = import(&app, "?from=pretix", json!({"name": "x", "zones": []}).to_string()).await;
    assert_error(&answer, 422, "invalid_show");
    assert!(answer.body["message"].as_str().unwrap().contains("categories"), "{answer:?}");
    let mut spaced = plan();
    spaced["zones"][0]["rows"][0]["seats"][1]["seat_guid"] = json!("seat two");
    let answer = import(&app, "?from=pretix", spaced.to_string()).await;
    assert_error(&answer, 422, "invalid_show");
    assert!(answer.body["message"].as_str().unwrap().contains("zones[0].rows[0].seats[1]: seat_guid"), "{answer:?}");
    assert_error(&import(&app, "?from=pretix&currency=euro", plan().to_string()).await, 422, "invalid_show");
    assert_error(&import(&app, "?from=seatsio", plan().to_string()).await, 400, "bad_request");
    assert_error(&import(&app, "", plan().to_string()).await, 400, "bad_request");
    assert_error(&import(&app, "?from=pretix", "[]".into()).await, 400, "bad_request");
    assert_eq!(shows(&app).await, 0);
}

#[test]
fn the_demo_venues_validate_clean_and_the_stadium_fast() {
    for show in [demo::theatre(), demo::arena(), demo::club(), demo::stadium()] {
        let input: ShowInput = serde_json::from_value(serde_json::to_value(show.to_wire()).unwrap()).unwrap();
        let started = Instant::now();
        let report = validate(&input, None);
        let took = started.elapsed();
        println!(
            "{}: {} seats validated in {:.1} ms; {} errors, {} warnings",
            show.id,
            report.seats,
            took.as_secs_f64() * 1000.0,
            report.errors,
            report.warnings
        );
        assert!(report.publishable, "{}: {:#?}", show.id, report.issues);
        assert_eq!(report.seats as usize, show.seats.len());
    }
}
