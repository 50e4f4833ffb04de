//! The operator's page (`/admin`) in a real browser against the real
//! binary: the admin token asked once (a wrong one asked for again) and
//! kept in the tab, the show's figures and a customer's hold (made through
//! the API), a second hold appearing live, the first released from the
//! page (and gone, on the page and on the server), the journal downloaded
//! in both formats, no accessibility violation, and a phone's width.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

use seathold_system_tests::api::Api;
use seathold_system_tests::{Browser, Customer, Server, screenshot_dir};
use serde_json::{Value, json};

const TOKEN: &str = "operator-page-secret";
const THEATRE: &str = "demo-theatre";

/// A JS string literal.
fn js(text: &str) -> String {
    Value::from(text).to_string()
}

/// Sets a field of the page (`data-field`) as a person typing would.
async fn fill(browser: &Browser, field: &str, value: &str) -> anyhow::Result<()> {
    let script = format!(
        "(() => {{ const field = document.querySelector('[data-field={}]');
         field.value = {};
         field.dispatchEvent(new Event('input', {{bubbles: true}}));
         return true; }})()",
        js(field),
        js(value)
    );
    browser.eval(&script).await?;
    Ok(())
}

/// Clicks the first visible, enabled element matching `css`.
async fn press(browser: &Browser, css: &str) -> anyhow::Result<()> {
    let ready =
        format!("[...document.querySelectorAll({})].find(b => !b.disabled && b.offsetParent !== null)", js(css));
    browser.wait_for(&format!("{css} to press"), &ready).await?;
    browser.eval(&format!("{ready}.scrollIntoView({{block: 'center'}})")).await?;
    browser.find(css).await?.click().await?;
    Ok(())
}

/// The text of the first element matching `css`, or "".
async fn text_of(browser: &Browser, css: &str) -> anyhow::Result<String> {
    let text = browser.eval(&format!("document.querySelector({})?.textContent ?? ''", js(css))).await?;
    Ok(text.as_str().unwrap_or_default().trim().to_owned())
}

/// Waits until the figure `[data-stat=KEY]` (the all-places row) reads `value`.
async fn wait_stat(browser: &Browser, key: &str, value: &str) -> anyhow::Result<()> {
    let css = format!("[data-stat=\"{key}\"]");
    let script = format!("document.querySelector({})?.textContent.trim() === {}", js(&css), js(value));
    browser.wait_for(&format!("{key} = {value}"), &script).await
}

/// The theatre's figures as the server has them (`GET …/stats`).
async fn stats(api: &Api) -> anyhow::Result<Value> {
    let answer =
        api.call(reqwest::Method::GET, &format!("/api/admin/shows/{THEATRE}/stats"), Some(TOKEN), None).await?;
    answer.expect(200, "the stats")?;
    Ok(answer.body)
}

/// The theatre's seats blocked now, by the public seat map, sorted.
async fn blocked_seats(api: &Api) -> anyhow::Result<Vec<String>> {
    let map = api.get(&format!("/api/shows/{THEATRE}/seats"), None).await?;
    let mut seats: Vec<String> = map.body["seats"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|seat| seat["blocked"] == true)
        .map(|seat| seat["id"].as_str().unwrap().to_owned())
        .collect();
    seats.sort();
    Ok(seats)
}

/// The seats the page lists as blocked now, sorted.
async fn listed_blocked(browser: &Browser) -> anyhow::Result<Vec<String>> {
    let text = text_of(browser, "[data-blocked]").await?;
    let list = text.strip_prefix("Blocked now: ").and_then(|rest| rest.strip_suffix('.')).unwrap_or_default();
    let mut seats: Vec<String> = list.split(", ").filter(|id| !id.is_empty()).map(str::to_owned).collect();
    seats.sort();
    Ok(seats)
}

/// A new session on the server: its token and holder id.
async fn session(api: &Api) -> anyhow::Result<(String, String)> {
    let answer = api.post("/api/sessions", None, None).await?;
    answer.expect(201, "a session")?;
    Ok((answer.body["token"].as_str().unwrap().to_owned(), answer.body["holderId"].as_str().unwrap().to_owned()))
}

/// Holds `seats` of the theatre for a customer; the hold's id.
async fn hold(api: &Api, token: &str, seats: &[&str]) -> anyhow::Result<String> {
    let path = format!("/api/shows/{THEATRE}/holds");
    let answer = api.post(&path, Some(token), Some(&json!({"seats": seats}))).await?;
    answer.expect(201, "a customer's hold")?;
    Ok(answer.body["holdId"].as_str().unwrap().to_owned())
}

/// Collects the page's Content-Security-Policy violations, including
/// those before it was made.
const OBSERVE_POLICY: &str = "(() => { window.cspViolations = []; new ReportingObserver(reports => \
    window.cspViolations.push(...reports.map(r => r.body.effectiveDirective + ' ' + (r.body.blockedURL || ''))), \
    {types: ['csp-violation'], buffered: true}).observe(); return true; })()";

/// Starts recording, in the page, every Blob the page makes a URL for
/// (the journal's downloads), to read them back.
const RECORD_DOWNLOADS: &str = "(() => { window.saved = []; const make = URL.createObjectURL;
    URL.createObjectURL = blob => { window.saved.push(blob); return make.call(URL, blob); }; return true; })()";

/// The text of the `index`th recorded download.
async fn download(browser: &Browser, index: usize) -> anyhow::Result<String> {
    browser.wait_for("a download", &format!("window.saved.length > {index}")).await?;
    let script = format!(
        "const done = arguments[arguments.length - 1]; window.saved[{index}].text().then(done, e => done(String(e)));"
    );
    Ok(browser.client.execute_async(&script, vec![]).await?.as_str().unwrap_or_default().to_owned())
}

#[tokio::test]
async fn the_operator_sees_a_customers_hold_live_releases_it_and_downloads_the_journal() -> anyhow::Result<()> {
    let server = Server::start_with_env(&[], &[("SEATHOLD_ADMIN_TOKEN", TOKEN)]).await?;
    let api = Api::new(&server, "server");
    let (bob, bob_holder) = session(&api).await?;
    let bobs_hold = hold(&api, &bob, &["C5", "C6"]).await?;

    let operator = Customer::start(&server, "operator").await?;
    let page = &operator.browser;
    page.client.goto(&format!("{}/admin", server.base_url)).await?;

    // A wrong token is refused and asked for again.
    let form_shown = "!!document.querySelector('[data-field=\"admin-token\"]')?.offsetParent";
    page.wait_for("the token form", form_shown).await?;
    page.eval(OBSERVE_POLICY).await?;
    fill(page, "admin-token", "not-the-token").await?;
    press(page, "[data-action=\"sign-in\"]").await?;
    page.wait_for("the refusal", "document.querySelector('[role=alert]')?.textContent.includes('not accepted')")
        .await?;
    page.wait_for("the token form again", form_shown).await?;

    // The right one: the show's figures and bob's hold.
    fill(page, "admin-token", TOKEN).await?;
    press(page, "[data-action=\"sign-in\"]").await?;
    let bobs_row = format!("tr[data-hold-id=\"{bobs_hold}\"]");
    page.wait_for("bob's hold listed", &format!("document.querySelector({})", js(&bobs_row))).await?;
    wait_stat(page, "held", "2").await?;
    wait_stat(page, "created", "1").await?;
    // The rest as the server counts them (the demo may block some seats).
    let figures = stats(&api).await?;
    for key in ["free", "sold", "blocked"] {
        wait_stat(page, key, &figures[key].to_string()).await?;
    }
    let row = text_of(page, &bobs_row).await?;
    assert!(row.contains(&bob_holder) && row.contains("C5, C6"), "holder and seats: {row:?}");
    assert!(row.contains("left"), "a deadline still ahead: {row:?}");
    assert_eq!(operator.alert().await?, "", "nothing went wrong");
    operator.screenshot("admin-signed-in").await?;
    assert_eq!(page.eval("window.cspViolations").await?, json!([]), "the policy blocked nothing");

    // Kept in the tab: a reload asks for nothing.
    page.client.refresh().await?;
    page.wait_for("bob's hold after a reload", &format!("document.querySelector({})", js(&bobs_row))).await?;
    assert_eq!(page.eval(form_shown).await?, false, "no token asked again");
    page.eval(OBSERVE_POLICY).await?;

    // Another customer's hold appears without a reload (the live stream).
    let (carol, _) = session(&api).await?;
    let carols_hold = hold(&api, &carol, &["D1"]).await?;
    page.wait_for("carol's hold listed live", &format!("document.querySelector('tr[data-hold-id=\"{carols_hold}\"]')"))
        .await?;
    wait_stat(page, "held", "3").await?;

    // Released from the page: gone from the list, the figures and the server.
    assert_eq!(page.eval("window.cspViolations").await?, json!([]), "the policy blocked nothing");
    page.eval(RECORD_DOWNLOADS).await?;
    press(page, &format!("button[data-action=\"force-release\"][data-hold-id=\"{bobs_hold}\"]")).await?;
    page.wait_for("bob's hold gone", &format!("!document.querySelector({})", js(&bobs_row))).await?;
    wait_stat(page, "held", "1").await?;
    wait_stat(page, "released", "1").await?;
    let status = text_of(page, "[role=status]").await?;
    assert!(status.contains("Released the hold of") && status.contains("C5, C6"), "{status:?}");
    let bobs = api.get(&format!("/api/holds/{bobs_hold}"), Some(&bob)).await?;
    assert_eq!(bobs.body["status"], "RELEASED", "the server released it: {bobs:?}");
    let map = api.get(&format!("/api/shows/{THEATRE}/seats"), None).await?;
    assert!(map.seat_is_free("C5")? && map.seat_is_free("C6")?, "C5 and C6 are free again");

    // The journal, as JSON Lines and as CSV.
    press(page, "[data-action=\"journal-jsonl\"]").await?;
    let lines = download(page, 0).await?;
    let entries: Vec<Value> = lines.lines().map(serde_json::from_str).collect::<Result<_, _>>()?;
    // The holds' entries (the demo's own blocked seats, if any, come first).
    let actions: Vec<(&str, &str)> =
        entries.iter().filter_map(|e| Some((e["holdId"].as_str()?, e["action"].as_str().unwrap()))).collect();
    assert_eq!(
        actions,
        [(bobs_hold.as_str(), "created"), (carols_hold.as_str(), "created"), (bobs_hold.as_str(), "released")],
        "{lines}"
    );
    let released = entries.iter().find(|e| e["holdId"] == bobs_hold.as_str() && e["action"] == "released").unwrap();
    assert_eq!(released["holder"], "operator", "journaled as the operator's: {released}");
    press(page, "[data-action=\"journal-csv\"]").await?;
    let csv = download(page, 1).await?;
    assert!(csv.starts_with("version,at,holdId,holder,action,"), "{csv}");
    assert_eq!(csv.lines().count(), entries.len() + 1, "a header and the same entries: {csv}");
    let saved = format!("{} entries", entries.len());
    page.wait_for(
        "the saved news",
        &format!("document.querySelector('[role=status]')?.textContent.includes({})", js(&saved)),
    )
    .await?;

    let violations = operator.audit().await?;
    assert!(
        violations.is_empty(),
        "axe-core found:\n{}",
        violations.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n")
    );
    operator.screenshot("admin-released").await?;
    operator.close().await?;
    Ok(())
}

#[tokio::test]
async fn the_operators_page_fits_a_phone() -> anyhow::Result<()> {
    let server = Server::start_with_env(&[], &[("SEATHOLD_ADMIN_TOKEN", TOKEN)]).await?;
    let api = Api::new(&server, "server");
    let (bob, _) = session(&api).await?;
    let bobs_hold = hold(&api, &bob, &["A1", "A2", "A3", "A4"]).await?;

    let phone = Browser::start_phone().await?;
    phone.client.goto(&format!("{}/admin", server.base_url)).await?;
    phone.wait_for("the token form", "!!document.querySelector('[data-field=\"admin-token\"]')?.offsetParent").await?;
    fill(&phone, "admin-token", TOKEN).await?;
    press(&phone, "[data-action=\"sign-in\"]").await?;
    phone.wait_for("bob's hold listed", &format!("document.querySelector('tr[data-hold-id=\"{bobs_hold}\"]')")).await?;
    let sideways = phone.eval("document.documentElement.scrollWidth - document.documentElement.clientWidth").await?;
    assert_eq!(sideways, 0, "no sideways scroll at 390 px");
    let button = "document.querySelector('[data-action=\"force-release\"]').getBoundingClientRect()";
    let size = phone.eval(&format!("[{button}.width, {button}.height]")).await?;
    assert!(size[0].as_f64().unwrap() >= 24.0 && size[1].as_f64().unwrap() >= 24.0, "a tap target: {size}");
    phone.screenshot(&screenshot_dir().join("admin-phone.png")).await?;
    phone.close().await?;
    Ok(())
}

#[tokio::test]
async fn the_operator_blocks_and_unblocks_seats_from_the_page() -> anyhow::Result<()> {
    let server = Server::start_with_env(&[], &[("SEATHOLD_ADMIN_TOKEN", TOKEN)]).await?;
    let api = Api::new(&server, "server");
    let before = blocked_seats(&api).await?;
    assert!(!before.contains(&"E9".to_owned()) && !before.contains(&"E10".to_owned()), "E9 and E10 start on sale");
    let operator = Customer::start(&server, "operator").await?;
    let page = &operator.browser;
    page.client.goto(&format!("{}/admin", server.base_url)).await?;
    page.wait_for("the token form", "!!document.querySelector('[data-field=\"admin-token\"]')?.offsetParent").await?;
    fill(page, "admin-token", TOKEN).await?;
    press(page, "[data-action=\"sign-in\"]").await?;
    wait_stat(page, "blocked", &before.len().to_string()).await?;

    // Two seats blocked for a camera position: listed, counted, unholdable.
    fill(page, "block-seats", "E9, E10").await?;
    fill(page, "block-reason", "camera position").await?;
    press(page, "[data-action=\"block\"]").await?;
    page.wait_for("the blocked list", "document.querySelector('[data-blocked]')?.textContent.includes('E10')").await?;
    let status = text_of(page, "[role=status]").await?;
    assert_eq!(status, "Blocked E9 and E10.");
    let after = blocked_seats(&api).await?;
    assert_eq!(after.len(), before.len() + 2, "{after:?}");
    assert_eq!(listed_blocked(page).await?, after, "the page lists every blocked seat, as the seat map has them");
    wait_stat(page, "blocked", &after.len().to_string()).await?;
    let (carol, _) = session(&api).await?;
    let refused =
        api.post(&format!("/api/shows/{THEATRE}/holds"), Some(&carol), Some(&json!({"seats": ["E9"]}))).await?;
    refused.expect_error(409, "seats_unavailable", "holding a blocked seat")?;
    operator.screenshot("admin-blocked").await?;

    // One unblocked again; an unknown seat is refused in words.
    fill(page, "block-seats", "E9").await?;
    press(page, "[data-action=\"unblock\"]").await?;
    page.wait_for("E9 unblocked", "document.querySelector('[role=status]')?.textContent === 'Unblocked E9.'").await?;
    let now = blocked_seats(&api).await?;
    assert_eq!(now.len(), before.len() + 1, "{now:?}");
    assert_eq!(listed_blocked(page).await?, now);
    wait_stat(page, "blocked", &now.len().to_string()).await?;
    fill(page, "block-seats", "Z99").await?;
    press(page, "[data-action=\"block\"]").await?;
    page.wait_for("the refusal", "document.querySelector('[role=alert]')?.textContent.includes('Z99')").await?;
    assert_eq!(listed_blocked(page).await?, now, "nothing changed");
    assert_eq!(blocked_seats(&api).await?, now, "nothing changed on the server");
    hold(&api, &carol, &["E9"]).await?;
    operator.close().await?;
    Ok(())
}
