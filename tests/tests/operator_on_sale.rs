//! The on-sale panel of the operator's page (`/admin`), in a real browser
//! against the real binary: the waiting room's figures, the last hour's
//! charts and the seat map by state agree with the admin API and move
//! with the queue's progress stream; the rate,
//! pause, resume and close (asked twice) controls change the queue as the
//! API then reports it; axe-core finds nothing.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

use std::time::Duration;

use seathold_system_tests::api::{Api, one_row};
use seathold_system_tests::{Customer, Server};
use serde_json::{Value, json};

const TOKEN: &str = "operator-on-sale-secret";
const SHOW: &str = "opening-night";

fn js(text: &str) -> String {
    Value::from(text).to_string()
}

/// The text of the waiting room's figure `key` on the page.
fn figure(key: &str) -> String {
    format!("document.querySelector('[data-queue=\"{key}\"]')?.textContent.trim()")
}

/// A chart's per-minute values, summed.
fn chart_sum(key: &str) -> String {
    format!(
        "(document.querySelector('[data-chart=\"{key}\"]')?.dataset.values ?? '').split(',').reduce((a, b) => a + Number(b), 0)"
    )
}

async fn queue_status(api: &Api) -> anyhow::Result<Value> {
    let answer = api.get(&format!("/api/admin/shows/{SHOW}/queue"), Some(TOKEN)).await?;
    answer.expect(200, "the queue's status")?;
    Ok(answer.body)
}

/// Twelve seats in a row; the sale opens in 2 s at 600 a minute.
async fn opening_night(api: &Api) -> anyhow::Result<()> {
    let now = api.get("/api/time", None).await?.int("serverTime")?;
    let seats = one_row(12);
    let show = json!({"id": SHOW, "name": "Opening night", "seats": seats,
        "onSale": {"opensAt": now + 2_000, "admitPerMinute": 600}});
    api.post("/api/admin/shows", Some(TOKEN), Some(&show)).await?.expect(201, "the show")
}

/// Three customers wait, are admitted, and two hold: one confirms. The
/// box office blocks A12.
async fn a_sale_under_way(api: &Api) -> anyhow::Result<()> {
    let mut sessions = Vec::new();
    for _ in 0..3 {
        let session = api.session().await?;
        api.post(&format!("/api/shows/{SHOW}/queue"), Some(&session), None).await?.expect(201, "a place")?;
        sessions.push(session);
    }
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while queue_status(api).await?["admittedThrough"] != 3 {
        anyhow::ensure!(std::time::Instant::now() < deadline, "the three were not admitted");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let holds = format!("/api/shows/{SHOW}/holds");
    let first = api.post(&holds, Some(&sessions[0]), Some(&json!({"seats": ["A1"]}))).await?;
    first.expect(201, "the first hold")?;
    api.post(&holds, Some(&sessions[1]), Some(&json!({"seats": ["A2"]}))).await?.expect(201, "the second hold")?;
    let confirm = format!("/api/holds/{}/confirm", first.body["holdId"].as_str().unwrap());
    api.post(&confirm, Some(&sessions[0]), None).await?.expect(200, "the confirmation")?;
    let block = json!({"seats": ["A12"], "reason": "camera position"});
    api.post(&format!("/api/admin/shows/{SHOW}/blocked"), Some(TOKEN), Some(&block)).await?.expect(200, "the block")
}

async fn sign_in_and_pick(operator: &Customer, server: &Server) -> anyhow::Result<()> {
    let page = &operator.browser;
    page.client.goto(&format!("{}/admin", server.base_url)).await?;
    page.wait_for("the token form", "!!document.querySelector('[data-field=\"admin-token\"]')?.offsetParent").await?;
    let fill = format!(
        "(() => {{ document.querySelector('[data-field=admin-token]').value = {}; return true; }})()",
        js(TOKEN)
    );
    page.eval(&fill).await?;
    page.find("[data-action=\"sign-in\"]").await?.click().await?;
    page.wait_for("the show picker", "document.querySelector('[data-field=admin-show]')").await?;
    let pick = format!(
        "(() => {{ const picker = document.querySelector('[data-field=admin-show]'); picker.value = {};
           picker.dispatchEvent(new Event('change', {{bubbles: true}})); return picker.value; }})()",
        js(SHOW)
    );
    anyhow::ensure!(page.eval(&pick).await? == SHOW, "the picker offers {SHOW}");
    Ok(())
}

async fn press(operator: &Customer, action: &str) -> anyhow::Result<()> {
    operator.browser.find(&format!("[data-action=\"{action}\"]")).await?.click().await?;
    Ok(())
}

#[tokio::test]
async fn the_on_sale_panel_shows_the_sale_and_controls_the_waiting_room() -> anyhow::Result<()> {
    let server = Server::start_with_env(&[], &[("SEATHOLD_ADMIN_TOKEN", TOKEN)]).await?;
    let api = Api::new(&server, "server");
    opening_night(&api).await?;
    a_sale_under_way(&api).await?;

    let operator = Customer::start(&server, "on-sale-operator").await?;
    sign_in_and_pick(&operator, &server).await?;
    let page = &operator.browser;
    page.wait_for("the queue's length", &format!("{} === '3'", figure("length"))).await?;
    assert_eq!(page.eval(&figure("admitted")).await?, "3");
    assert_eq!(page.eval(&figure("state")).await?, "admitting");
    assert_eq!(page.eval(&figure("rate")).await?, "600 a minute");
    let seed = queue_status(&api).await?["drawSeed"].as_u64().unwrap().to_string();
    assert_eq!(page.eval(&figure("seed")).await?, seed.as_str(), "the seed an audit recomputes the draw from");

    // The last hour: every hold, confirmation and admission is in a minute.
    assert_eq!(page.eval(&chart_sum("holds")).await?, 2);
    assert_eq!(page.eval(&chart_sum("confirms")).await?, 1);
    assert_eq!(page.eval(&chart_sum("expiries")).await?, 0);
    assert_eq!(page.eval(&chart_sum("admitted")).await?, 3);
    let label = page.eval("document.querySelector('[data-chart=holds] svg').getAttribute('aria-label')").await?;
    assert!(label.as_str().is_some_and(|label| label.starts_with("Holds a minute, last hour:")), "{label}");

    // The map by state, drawn by the picture code, with the legend's counts.
    let legend = |state: &str| format!("document.querySelector('[data-legend=\"{state}\"] strong')?.textContent");
    for (state, count) in [("free", "9"), ("held", "1"), ("sold", "1"), ("blocked", "1")] {
        assert_eq!(page.eval(&legend(state)).await?, count, "{state} seats");
    }
    for class in ["pic.held", "pic.sold", "pic.free.blocked", "pic.free"] {
        let drawn = format!("!!document.querySelector('.admin-map svg.seat-picture path.{class}')");
        assert_eq!(page.eval(&drawn).await?, true, "a {class} path on the map");
    }
    page.eval("(() => { document.querySelector('[data-part=on-sale] .charts').scrollIntoView(); return true; })()")
        .await?;
    operator.screenshot("admin-on-sale").await?;

    // A late arrival is admitted within a second at 600 a minute: the
    // queue's progress stream moves the panel, long before its 15 s reload.
    let late = api.session().await?;
    let heard = std::time::Instant::now();
    api.post(&format!("/api/shows/{SHOW}/queue"), Some(&late), None).await?.expect(201, "a late place")?;
    page.wait_for("the late arrival admitted", &format!("{} === '4'", figure("admitted"))).await?;
    assert!(heard.elapsed() < Duration::from_secs(5), "admitted on the page after {:?}", heard.elapsed());
    assert_eq!(page.eval(&figure("length")).await?, "4");

    // The rate: typed, then set (Enter or the button).
    page.eval("(() => { document.querySelector('[data-field=queue-rate]').value = '120'; return true; })()").await?;
    press(&operator, "queue-rate").await?;
    page.wait_for("the new rate", &format!("{} === '120 a minute'", figure("rate"))).await?;
    assert_eq!(queue_status(&api).await?["ratePerMinute"], 120);

    press(&operator, "queue-pause").await?;
    page.wait_for("paused", &format!("{} === 'paused'", figure("state"))).await?;
    assert_eq!(queue_status(&api).await?["paused"], true);
    press(&operator, "queue-resume").await?;
    page.wait_for("admitting again", &format!("{} === 'admitting'", figure("state"))).await?;
    assert_eq!(queue_status(&api).await?["paused"], false);

    // Closing asks first, with the focus on the confirmation.
    press(&operator, "queue-close").await?;
    page.wait_for("the question", "document.activeElement?.dataset.action === 'queue-close-confirm'").await?;
    assert_eq!(queue_status(&api).await?["closed"], false, "nothing closed before the confirmation");
    let violations = operator.audit().await?;
    assert!(
        violations.is_empty(),
        "axe-core found:\n{}",
        violations.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n")
    );
    press(&operator, "queue-close-confirm").await?;
    page.wait_for("closed", &format!("{} === 'closed'", figure("state"))).await?;
    assert_eq!(queue_status(&api).await?["closed"], true);
    page.wait_for("the reopen button", "document.querySelector('[data-action=queue-reopen]')").await?;
    let news = page.eval("document.querySelector('[role=status]')?.textContent").await?;
    assert!(news.as_str().is_some_and(|news| news.contains("Waiting room closed.")), "{news}");
    assert_eq!(operator.alert().await?, "", "nothing went wrong on the page");
    operator.screenshot("admin-on-sale-closed").await?;
    operator.close().await?;
    Ok(())
}
