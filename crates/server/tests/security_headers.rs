//! Security headers: the UI's Content-Security-Policy allows its own inline
//! start-up script (by hash) and wasm, nothing else inline; every answer
//! says nosniff, no referrer, no framing; the cookie is `Secure` only when
//! the server is told it is behind TLS.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

mod support;

use axum::body::Body;
use axum::http::Request;
use support::{ADMIN_TOKEN, Answer, TestApp};
use tower::ServiceExt;

use seathold_server::state::Settings;

/// Trunk's output in miniature: one inline module script, one with `src`.
const INDEX: &str = "<html><head><script type=\"module\">\nimport init from '/app.js';\nawait init();\n</script>\
                     <script src=\"/other.js\"></script></head><body></body></html>";
/// `base64(sha256(the inline script))`, computed apart from the server.
const INLINE_HASH: &str = "'sha256-mStLiw5ufhC4Rn65S+yuobFT1L6YIq0IsINW02YqTpc='";

fn assert_common(answer: &Answer) {
    assert_eq!(answer.headers["x-content-type-options"], "nosniff", "{answer:?}");
    assert_eq!(answer.headers["referrer-policy"], "no-referrer", "{answer:?}");
    assert!(answer.headers["content-security-policy"].to_str().unwrap().contains("frame-ancestors 'none'"));
}

#[tokio::test]
async fn the_ui_gets_a_strict_policy_that_its_wasm_app_works_under() {
    let app = TestApp::new(Some(ADMIN_TOKEN)).await;
    let dist = tempfile::tempdir().unwrap();
    std::fs::write(dist.path().join("index.html"), INDEX).unwrap();
    let ui = seathold_server::app::router(app.state.clone(), Some(dist.path()));
    for path in ["/", "/shows/demo-theatre"] {
        let response = ui.clone().oneshot(Request::get(path).body(Body::empty()).unwrap()).await.unwrap();
        assert_eq!(response.status(), 200, "{path}");
        let policy = response.headers()["content-security-policy"].to_str().unwrap();
        let script_src = policy.split(';').find(|part| part.trim().starts_with("script-src")).unwrap();
        assert_eq!(script_src.trim(), format!("script-src 'self' 'wasm-unsafe-eval' {INLINE_HASH}"), "{policy}");
        assert!(!policy.contains("'unsafe-eval'") && policy.contains("default-src 'self'"), "{policy}");
        assert_eq!(response.headers()["x-content-type-options"], "nosniff");
        assert_eq!(response.headers()["x-frame-options"], "DENY");
    }
}

#[tokio::test]
async fn api_answers_and_errors_carry_the_headers_too() {
    let app = TestApp::new(None).await;
    for answer in [app.get("/api/time").await, app.get("/api/shows/none").await, app.get("/nothing").await] {
        assert_common(&answer);
    }
    assert_eq!(
        app.get("/api/time").await.headers["content-security-policy"],
        "default-src 'none'; frame-ancestors 'none'"
    );
}

#[tokio::test]
async fn the_session_cookie_is_secure_only_behind_tls() {
    let cookie = |answer: Answer| answer.headers["set-cookie"].to_str().unwrap().to_owned();
    let plain = TestApp::new(None).await;
    let plain = cookie(plain.send(Request::post("/api/sessions").body(Body::empty()).unwrap()).await);
    assert!(plain.ends_with("HttpOnly; SameSite=Strict; Path=/"), "{plain}");
    let tls = TestApp::with_settings(Settings { secure_cookie: true, ..Settings::default() }).await;
    let tls = cookie(tls.send(Request::post("/api/sessions").body(Body::empty()).unwrap()).await);
    assert!(tls.ends_with("HttpOnly; SameSite=Strict; Path=/; Secure"), "{tls}");
}
