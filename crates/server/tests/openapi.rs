//! The OpenAPI document: every API.md endpoint is in it, and everything in it
//! is served by the router (the document is generated from the routes).

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

mod support;

use std::collections::BTreeSet;

use support::{ADMIN_TOKEN, TestApp};

/// API.md's endpoints, plus the document itself, the operator page's
/// minute-by-minute history and the venue designer's validation, import
/// and export (additions API.md does not name).
const CONTRACT: [(&str, &str); 35] = [
    ("post", "/api/sessions"),
    ("post", "/api/admin/shows"),
    ("get", "/api/shows"),
    ("get", "/api/shows/{showId}"),
    ("get", "/api/shows/{showId}/seats"),
    ("get", "/api/shows/{showId}/events"),
    ("post", "/api/shows/{showId}/holds"),
    ("get", "/api/holds"),
    ("get", "/api/holds/{holdId}"),
    ("delete", "/api/holds/{holdId}"),
    ("post", "/api/holds/{holdId}/extend"),
    ("post", "/api/holds/{holdId}/confirm"),
    ("get", "/api/time"),
    ("get", "/api/openapi.json"),
    ("get", "/healthz"),
    ("get", "/metrics"),
    ("get", "/api/admin/shows/{showId}/holds"),
    ("post", "/api/admin/holds/{holdId}/release"),
    ("post", "/api/admin/shows/{showId}/blocked"),
    ("delete", "/api/admin/shows/{showId}/blocked"),
    ("get", "/api/admin/shows/{showId}/stats"),
    ("get", "/api/admin/shows/{showId}/journal"),
    ("get", "/api/admin/shows/{showId}/onsale"),
    ("post", "/api/shows/{showId}/queue"),
    ("get", "/api/shows/{showId}/queue"),
    ("get", "/api/shows/{showId}/queue/events"),
    ("get", "/api/admin/shows/{showId}/queue"),
    ("post", "/api/admin/shows/{showId}/queue"),
    ("post", "/api/admin/webhooks"),
    ("get", "/api/admin/webhooks"),
    ("delete", "/api/admin/webhooks/{webhookId}"),
    ("post", "/api/admin/webhooks/{webhookId}/redeliver"),
    ("post", "/api/admin/venues/validate"),
    ("post", "/api/admin/venues/import"),
    ("get", "/api/admin/shows/{showId}/venue"),
];

#[tokio::test]
async fn the_document_lists_exactly_the_contract_and_every_route_in_it_is_served() {
    let app = TestApp::new(Some(ADMIN_TOKEN)).await;
    let answer = app.get("/api/openapi.json").await;
    assert_eq!(answer.status, 200);
    let document = &answer.body;
    assert!(document["openapi"].as_str().unwrap().starts_with("3."), "{document}");

    let documented: BTreeSet<(String, String)> = document["paths"]
        .as_object()
        .unwrap()
        .iter()
        .flat_map(|(path, item)| item.as_object().unwrap().keys().map(move |method| (method.clone(), path.clone())))
        .collect();
    let contract: BTreeSet<(String, String)> = CONTRACT.iter().map(|(m, p)| (m.to_string(), p.to_string())).collect();
    assert_eq!(documented, contract);

    for (method, path) in &documented {
        let concrete = path.replace("{showId}", "no-such-show").replace("{holdId}", "no-such-hold");
        let served = app.call(&method.to_uppercase(), &concrete, None, None).await;
        assert_ne!(served.status, 405, "{method} {path}");
        assert_ne!(served.body["error"], "not_found", "{method} {path} is documented but not routed");
    }

    for schema in ["HoldBody", "SeatMap", "ErrorBody", "HoldRequestBody", "ShowInput", "ChangeEvent"] {
        assert!(document["components"]["schemas"][schema].is_object(), "{schema} missing");
    }
    assert!(document["components"]["securitySchemes"]["session"].is_object());
}
