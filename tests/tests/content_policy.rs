//! The release web build works under the server's Content-Security-Policy
//! in headless Chromium: the app starts (its inline start-up script and
//! wasm are allowed), its styles apply, and nothing it does is blocked;
//! an injected inline script is blocked and reported, which shows the
//! policy is in force and that its reports reach the observer.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

use seathold_system_tests::{Browser, Server};

/// Collects CSP violation reports, including those before it was made.
const OBSERVE: &str = "(() => { window.cspViolations = []; new ReportingObserver(reports => \
    window.cspViolations.push(...reports.map(r => r.body.effectiveDirective + ' ' + (r.body.blockedURL || ''))), \
    {types: ['csp-violation'], buffered: true}).observe(); return true; })()";

/// An inline script the policy must stop.
const INJECT: &str = "(() => { const s = document.createElement('script'); s.textContent = 'window.injectedRan = true'; \
    document.head.append(s); return true; })()";

#[tokio::test]
async fn the_app_runs_under_its_content_security_policy() -> anyhow::Result<()> {
    let server = Server::start(&[]).await?;
    let page = reqwest::get(format!("{}/shows/demo-theatre", server.base_url)).await?;
    let policy = page.headers()["content-security-policy"].to_str()?.to_owned();
    assert!(policy.contains("'wasm-unsafe-eval'") && policy.contains("frame-ancestors 'none'"), "{policy}");

    let browser = Browser::start().await?;
    browser.client.goto(&format!("{}/shows/demo-theatre", server.base_url)).await?;
    browser.wait_for("160 seats", "document.querySelectorAll('[data-seat-id]').length === 160").await?;
    let ratio = browser.eval("getComputedStyle(document.querySelector('svg.seat-map')).aspectRatio").await?;
    assert_ne!(ratio, "auto", "the map's style attribute applies");

    browser.eval(OBSERVE).await?;
    browser.eval(INJECT).await?;
    browser.wait_for("the injected script's report", "window.cspViolations.length > 0").await?;
    assert_eq!(browser.eval("window.injectedRan === undefined").await?, true, "inline scripts are blocked");
    let violations = browser.eval("window.cspViolations").await?;
    assert_eq!(violations, serde_json::json!(["script-src-elem inline"]), "only the injected script was blocked");
    browser.close().await?;
    Ok(())
}
