//! The waiting room in headless Chromium (API.md "Waiting room (v3)"): a
//! customer who arrives before the sale waits with a place drawn at
//! `opensAt`, sees how many are ahead and the wait, is admitted live (no
//! reload), holds and confirms; a reload keeps the place; a second customer
//! further back sees a wait no shorter than the server's estimate.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

use anyhow::{Context, ensure};
use seathold_system_tests::Server;
use seathold_system_tests::api::{Api, one_row};
use seathold_system_tests::customer::Customer;
use serde_json::{Value, json};

const TOKEN: &str = "waiting-room-page-admin-token";
const SHOW: &str = "queued-recital";
/// How far ahead of the show's creation the sale opens: long enough for a
/// slow machine to load the page and see the room before the draw.
const PRE_QUEUE_MS: i64 = 20_000;

async fn queued_show(server: &Server) -> anyhow::Result<i64> {
    let api = Api::new(server, "server");
    let now = api.get("/api/time", None).await?.int("serverTime")?;
    let opens_at = now + PRE_QUEUE_MS;
    let seats = one_row(8);
    let show = json!({"id": SHOW, "name": "Queued recital", "seats": seats, "focus": {"x": 180, "y": 0},
        "onSale": {"opensAt": opens_at, "admitPerMinute": 6, "admissionSeconds": 300}});
    api.post("/api/admin/shows", Some(TOKEN), Some(&show)).await?.expect(201, "the queued show")?;
    Ok(opens_at)
}

async fn queue_facts(customer: &Customer) -> anyhow::Result<Value> {
    customer
        .eval(
            "(() => { const room = document.querySelector('[data-queue-state]');
                       const pick = (css, key) => { const el = document.querySelector(css); return el ? el.dataset[key] ?? null : null; };
                       return room && { state: room.dataset.queueState, position: pick('[data-position]', 'position'),
                                        ahead: pick('[data-ahead]', 'ahead'), waitMs: pick('[data-wait-ms]', 'waitMs'),
                                        opensInMs: pick('[data-opens-in-ms]', 'opensInMs') }; })()",
        )
        .await
}

#[tokio::test]
async fn a_customer_waits_is_admitted_live_then_holds_and_confirms() -> anyhow::Result<()> {
    let server = Server::start_with_env(&[], &[("SEATHOLD_ADMIN_TOKEN", TOKEN)]).await?;
    let outcome = async {
        // The browsers start before the show exists, so their start-up does not eat the pre-queue.
        let (alice, bob) = tokio::try_join!(Customer::start(&server, "alice"), Customer::start(&server, "bob"))?;
        let opens_at = queued_show(&server).await?;
        alice.visit(SHOW).await?;
        alice.wait_for("the waiting room", "document.querySelector('[data-queue-state=waiting]')").await?;
        let before_the_draw = queue_facts(&alice).await?;
        let seen_at = alice.fetch("/api/time").await?["serverTime"].as_i64().context("a time")?;
        ensure!(seen_at < opens_at, "the page took until {seen_at} to load, the draw was at {opens_at}");
        ensure!(before_the_draw["position"].is_null(), "no place before the draw: {before_the_draw}");
        // The time to the opening, never less than the server's clock leaves.
        let opens_in: i64 = before_the_draw["opensInMs"].as_str().context("a time to the opening")?.parse()?;
        ensure!(
            opens_in + 1_500 >= opens_at - seen_at,
            "the page says {opens_in} ms, the server {}",
            opens_at - seen_at
        );
        ensure!(opens_in <= PRE_QUEUE_MS, "the page says {opens_in} ms to the opening");
        alice.screenshot("waiting-room-before-the-draw").await?;
        // Bob joins after Alice: at 6 a minute, both are in the pre-queue.
        bob.visit(SHOW).await?;
        bob.wait_for("the waiting room", "document.querySelector('[data-queue-state=waiting]')").await?;

        // At opensAt the draw gives both a place, live.
        alice.wait_for("a drawn place", "document.querySelector('[data-position]')?.dataset.position").await?;
        bob.wait_for("a drawn place", "document.querySelector('[data-position]')?.dataset.position").await?;
        let (a, b) = (queue_facts(&alice).await?, queue_facts(&bob).await?);
        ensure!(a["opensInMs"].is_null() && b["opensInMs"].is_null(), "no time to the opening once drawn: {a} {b}");
        let positions: Vec<i64> = [&a, &b]
            .iter()
            .map(|f| f["position"].as_str().context("position")?.parse().context("a number"))
            .collect::<anyhow::Result<_>>()?;
        ensure!(positions.iter().copied().collect::<std::collections::BTreeSet<_>>() == [1, 2].into(), "{a} {b}");
        let (first, second) = if positions[0] == 1 { (&alice, &bob) } else { (&bob, &alice) };

        // The one further back waits no less than the server would admit it.
        let waiting = queue_facts(second).await?;
        let place = second.fetch(&format!("/api/shows/{SHOW}/queue")).await?;
        let wait_ms: i64 = waiting["waitMs"].as_str().context("a wait")?.parse()?;
        let server_wait = place["estimatedAdmitAt"].as_i64().context("an estimate")?
            - place["serverTime"].as_i64().context("a time")?;
        ensure!(wait_ms + 1_500 >= server_wait, "the page promises {wait_ms} ms, the server {server_wait} ms: {place}");
        ensure!(waiting["ahead"] == "1", "one ahead of the second place: {waiting}");
        second.screenshot("waiting-room-second-place").await?;

        // The first is admitted 10 s after opensAt (6 a minute), without a reload.
        first.wait_for("admission", "document.querySelector('[data-queue-state=admitted]')").await?;
        ensure!(first.fetch("/api/time").await?["serverTime"].as_i64().unwrap_or(0) >= opens_at + 10_000, "not early");
        first.until_ready().await?;
        first.screenshot("waiting-room-admitted").await?;
        first.select("A4").await?;
        first.hold().await?;
        first.press("confirm").await?;
        first.wait_for("the confirmation", "document.querySelector('.hold.confirmed')").await?;

        // The second still waits, and a reload keeps its place.
        second.reload_page().await?;
        second
            .wait_for("the waiting room again", "document.querySelector('[data-queue-state=waiting] [data-position]')")
            .await?;
        let again = queue_facts(second).await?;
        ensure!(again["position"] == waiting["position"], "a reload kept the place: {again} vs {waiting}");
        let refused = second.fetch(&format!("/api/shows/{SHOW}/seats")).await?;
        ensure!(refused["seats"].is_array(), "the seat map stays readable while waiting");
        tokio::try_join!(alice.close(), bob.close())?;
        Ok(())
    }
    .await;
    outcome.map_err(|error: anyhow::Error| error.context(format!("server log:\n{}", server.log())))
}
