//! `kill -9` at a bad moment loses nothing acknowledged, and expiries that
//! fell due while the server was down take effect after restart.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use std::time::Duration;

use seathold_system_tests::server::{database_url, run_binary};
use seathold_system_tests::{PATIENCE, Server};
use serde_json::{Value, json};

struct Api {
    base: String,
    client: reqwest::Client,
}

impl Api {
    async fn call(&self, method: reqwest::Method, path: &str, token: &str, body: Option<Value>) -> (u16, Value) {
        let mut request = self.client.request(method, format!("{}{path}", self.base)).bearer_auth(token);
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.unwrap();
        let status = response.status().as_u16();
        (status, response.json().await.unwrap_or(Value::Null))
    }

    async fn session(&self) -> String {
        let body: Value =
            self.client.post(format!("{}/api/sessions", self.base)).send().await.unwrap().json().await.unwrap();
        body["token"].as_str().unwrap().to_owned()
    }
}

#[tokio::test]
async fn a_crash_loses_no_sale_hold_or_session_and_overdue_expiries_run_after_restart() -> anyhow::Result<()> {
    let data_dir = Arc::new(tempfile::tempdir()?);
    let venue = data_dir.path().join("venue.json");
    let show = json!({"id": "crash", "name": "Crash test", "holdSeconds": 2, "maxActiveHoldsPerHolder": 2,
                      "seats": [{"id": "A1", "x": 0, "y": 0}, {"id": "A2", "x": 30, "y": 0}, {"id": "A3", "x": 60, "y": 0}]});
    std::fs::write(&venue, show.to_string())?;
    let created =
        run_binary(&["show", "create", venue.to_str().unwrap(), "--database", &database_url(data_dir.path())]).await?;
    assert!(created.contains("created show crash"), "{created}");

    // The sweep is held back, so only the restart can record the expiry.
    let server = Server::start_in(Arc::clone(&data_dir), &["--sweep-interval", "1h"]).await?;
    let api = Api { base: server.base_url.clone(), client: reqwest::Client::new() };
    let (buyer, holder) = (api.session().await, api.session().await);
    let (status, bought) = api
        .call(
            reqwest::Method::POST,
            "/api/shows/crash/holds",
            &buyer,
            Some(json!({"holdId": "bought-seat", "seats": ["A1"]})),
        )
        .await;
    assert_eq!(status, 201, "{bought}");
    assert_eq!(api.call(reqwest::Method::POST, "/api/holds/bought-seat/confirm", &buyer, None).await.0, 200);
    let (status, lapsing) = api
        .call(
            reqwest::Method::POST,
            "/api/shows/crash/holds",
            &holder,
            Some(json!({"holdId": "lapsing-seat", "seats": ["A2"]})),
        )
        .await;
    assert_eq!(status, 201);
    server.kill_9().await?;

    // Down past the hold's deadline.
    let deadline = lapsing["expiresAt"].as_i64().unwrap();
    let wait = deadline - lapsing["serverTime"].as_i64().unwrap() + 200;
    tokio::time::sleep(Duration::from_millis(wait.max(0) as u64)).await;

    let server = Server::start_in(Arc::clone(&data_dir), &["--sweep-interval", "1h"]).await?;
    let api = Api { base: server.base_url.clone(), client: reqwest::Client::new() };
    let (status, mine) = api.call(reqwest::Method::GET, "/api/holds/bought-seat", &buyer, None).await;
    assert_eq!((status, mine["status"].clone()), (200, json!("CONFIRMED")), "the session and the sale survived");
    let (_, lapsed) = api.call(reqwest::Method::GET, "/api/holds/lapsing-seat", &holder, None).await;
    assert_eq!(lapsed["status"], "EXPIRED");

    // The restart's first sweep records the expiry and counts it.
    let started = std::time::Instant::now();
    loop {
        let metrics = api.client.get(format!("{}/metrics", api.base)).send().await?.text().await?;
        if metrics.contains("seathold_holds_expired_total 1") {
            break;
        }
        anyhow::ensure!(started.elapsed() < PATIENCE, "no expiry recorded after restart:\n{}", server.log());
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let map: Value = api.client.get(format!("{}/api/shows/crash/seats", api.base)).send().await?.json().await?;
    assert_eq!(map["seats"][0]["sold"], true);
    assert_eq!(map["seats"][1]["holdExpiresAt"], Value::Null, "the sweep cleared the expired hold");
    assert_eq!(map["version"], 4, "created, confirmed, created, then expired after restart: {map}");
    Ok(())
}
