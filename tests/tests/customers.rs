//! Customers in real browsers against the real binary: two browser
//! profiles are two customers with their own session cookies. Every wait
//! polls the DOM with a timeout; instants that matter are recorded in the
//! page itself (`Customer::watch`), so WebDriver's latency does not blur them.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

use std::time::Instant;

use fantoccini::key::Key;
use seathold_system_tests::customer::Violation;
use seathold_system_tests::{Customer, Server};
use serde_json::{Value, json};

/// The demo theatre: rows A–H × 20 seats, 600 s holds, two 300 s extensions.
const THEATRE: &str = "demo-theatre";
const THEATRE_HOLD_MS: i64 = 600_000;
/// The countdown's safety buffer for holds of a minute or more.
const BUFFER_MS: i64 = 5_000;
/// How late, after the server's deadline, another viewer's map may free a seat.
const FLIP_LATENESS_MS: i64 = 250;
/// How early it may: never, as the map derives states from the earliest
/// server time its clock estimate allows (a round trip's middle was 40 ms
/// early once on a loaded machine); 5 ms for the page's `Date.now()`, which
/// stamps the flips, against the map's monotonic clock.
const FLIP_EARLINESS_MS: i64 = 5;

/// A one-row show whose holds last `hold_seconds`.
fn quick_show(hold_seconds: u32) -> Value {
    let seats: Vec<Value> = (1..=6).map(|n| json!({"id": format!("A{n}"), "x": n * 30, "y": 0})).collect();
    json!({"id": "quick", "name": "Quick hold", "holdSeconds": hold_seconds, "seats": seats})
}

/// The local clock, Unix milliseconds (the browsers and the server share it).
fn local_now() -> i64 {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap();
    i64::try_from(now.as_millis()).unwrap()
}

/// The customer's newest hold on `show`, as the server has it.
async fn newest_hold(customer: &Customer, show: &str) -> anyhow::Result<Value> {
    let holds = customer.holds().await?;
    let hold = holds.into_iter().find(|hold| hold["showId"] == show);
    hold.ok_or_else(|| anyhow::anyhow!("{} has no hold on {show}", customer.name))
}

fn millis(value: &Value) -> i64 {
    value.as_i64().unwrap_or_else(|| panic!("not an integer: {value}"))
}

#[tokio::test]
async fn a_live_race_names_the_lost_seat_and_keeps_the_rest_picked() -> anyhow::Result<()> {
    let server = Server::start(&[]).await?;
    let (alice, bob) = tokio::try_join!(Customer::start(&server, "alice"), Customer::start(&server, "bob"))?;
    tokio::try_join!(alice.open(THEATRE), bob.open(THEATRE))?;
    bob.select("B8").await?;
    bob.select("B9").await?;
    bob.eval("window.samePage = true").await?;
    bob.watch(&["B7", "B8"]).await?;

    alice.select("B7").await?;
    alice.select("B8").await?;
    alice.hold().await?;
    let hold = newest_hold(&alice, THEATRE).await?;
    let held_at = millis(&hold["expiresAt"]) - THEATRE_HOLD_MS;
    for seat in ["B7", "B8"] {
        let seen = bob.turned(seat, "held").await? - held_at;
        println!("bob saw {seat} held {seen} ms after alice's hold was made");
        assert!(seen <= 1_000, "bob saw {seat} held {seen} ms after alice's hold");
    }
    assert_eq!(bob.eval("window.samePage === true").await?, true, "bob's page was not reloaded");
    assert_eq!(bob.seat_name("B8").await?, "Row B, seat 8, held", "a held seat never reads as available");

    let alert = bob.alert().await?;
    assert!(alert.contains("B8"), "bob is told B8 was taken: {alert:?}");
    assert!(!alert.contains("B9"), "B9 was not taken: {alert:?}");
    assert!(!bob.is_selected("B8").await?, "the taken seat is unpicked");
    assert!(bob.is_selected("B9").await?, "the rest of bob's selection is kept");
    bob.screenshot("race-bob-told").await?;

    alice.watch(&["B9"]).await?;
    bob.hold().await?;
    let bobs = newest_hold(&bob, THEATRE).await?;
    assert_eq!(bobs["seats"], json!(["B9"]), "bob holds B9 alone");
    assert!(bob.is_mine("B9").await?);
    let seen = alice.turned("B9", "held").await? - (millis(&bobs["expiresAt"]) - THEATRE_HOLD_MS);
    assert!(seen <= 1_000, "alice saw B9 held {seen} ms after bob's hold");
    assert!(!alice.is_mine("B9").await?, "B9 is bob's, not alice's");
    alice.screenshot("race-alice-sees-b9").await?;
    Ok(())
}

#[tokio::test]
async fn an_expired_hold_frees_its_seats_on_every_map_without_a_server_event() -> anyhow::Result<()> {
    // The sweep is held back: only the browsers' own derivation can free the seats.
    let server = Server::start_with_show(&quick_show(3), &["--sweep-interval", "1h"]).await?;
    let (alice, bob) = tokio::try_join!(Customer::start(&server, "alice"), Customer::start(&server, "bob"))?;
    tokio::try_join!(alice.open("quick"), bob.open("quick"))?;
    bob.watch(&["A1", "A2"]).await?;
    alice.watch(&["A1", "A2"]).await?;

    // The page records its own ticks from before the hold: a poll from here
    // may come late on a busy machine, when a 3 s countdown has already
    // ended, and one attached after the first read may see only the end.
    alice
        .eval(
            "(window.seenTicks = [], new MutationObserver(() => { \
               const c = document.querySelector('[data-countdown]'); \
               if (c) window.seenTicks.push([+c.dataset.remainingMs, c.dataset.phase]); \
             }).observe(document.body, {subtree: true, childList: true, attributes: true, \
               attributeFilter: ['data-remaining-ms', 'data-phase']}), true)",
        )
        .await?;
    alice.select("A1").await?;
    alice.select("A2").await?;
    alice.hold().await?;
    let hold = newest_hold(&alice, "quick").await?;
    let deadline = millis(&hold["expiresAt"]);
    let version = server.seat_facts("quick").await?["version"].clone();

    let first = alice.countdown_ms().await?.unwrap();
    assert!((1..3_000).contains(&first), "a 3 s hold starts with time on the clock: {first} ms");
    let text = alice.countdown_text().await?.unwrap();
    assert!(text == "0:02" || text == "0:01", "the countdown reads {text:?}");
    assert!(alice.browser.find("[data-countdown]").await?.is_displayed().await?, "the countdown is visible");
    alice.wait_for("the countdown's end", "document.querySelector('[data-countdown][data-phase=\"expired\"]')").await?;
    let ticks = alice.eval("window.seenTicks").await?;
    // Two running ticks, the later with less time left: it counted down.
    let running: Vec<i64> = ticks
        .as_array()
        .into_iter()
        .flatten()
        .filter(|tick| tick[1] != "expired")
        .filter_map(|tick| tick[0].as_i64())
        .collect();
    let went_down = running.windows(2).any(|pair| pair[1] < pair[0]);
    assert!(went_down, "the countdown went down before it ended: {ticks}");
    let banner = alice.text_of(".hold").await?;
    assert!(banner.contains("Your hold has expired"), "alice's banner: {banner:?}");

    for seat in ["A1", "A2"] {
        let late = bob.turned(seat, "free").await? - deadline;
        println!("bob saw {seat} free {late} ms after the server's deadline");
        assert!(
            (-FLIP_EARLINESS_MS..=FLIP_LATENESS_MS).contains(&late),
            "bob saw {seat} free {late} ms after the deadline"
        );
        let late = alice.turned(seat, "free").await? - deadline;
        assert!((-FLIP_EARLINESS_MS..=FLIP_LATENESS_MS).contains(&late), "alice saw {seat} free {late} ms late");
    }
    alice.screenshot("expired").await?;

    let facts = server.seat_facts("quick").await?;
    assert_eq!(facts["version"], version, "nothing changed on the server: no event was sent");
    assert_eq!(facts["seats"][0]["holdExpiresAt"], deadline, "the expired hold is still stored, unswept");
    Ok(())
}

/// The browser's clock is `skew_ms` behind (or ahead of) the server's.
async fn a_skewed_server_clock_changes_nothing_on_screen(skew_ms: i64) -> anyhow::Result<()> {
    let skew = format!("--clock-skew-ms={skew_ms}");
    let server = Server::start_with_show(&quick_show(4), &["--sweep-interval", "1h", &skew]).await?;
    let alice = Customer::start(&server, "alice").await?;
    alice.open(THEATRE).await?;
    alice.select("B7").await?;
    alice.hold().await?;
    let hold = newest_hold(&alice, THEATRE).await?;
    let server_ahead = millis(&hold["serverTime"]) - local_now();
    assert!((server_ahead - skew_ms).abs() < 1_000, "the server runs {server_ahead} ms ahead");
    let shown = alice.countdown_ms().await?.unwrap();
    let expected = THEATRE_HOLD_MS - BUFFER_MS;
    assert!((shown - expected).abs() <= 1_000, "the countdown starts at {shown} ms, not about {expected}");
    assert_eq!(alice.countdown_phase().await?, "normal");

    alice.open("quick").await?;
    alice.watch(&["A1"]).await?;
    alice.select("A1").await?;
    alice.hold().await?;
    let deadline = millis(&newest_hold(&alice, "quick").await?["expiresAt"]);
    assert_eq!(alice.state_of("A1").await?, "held", "held on screen while the server holds it");
    let late = alice.turned("A1", "free").await? + skew_ms - deadline;
    println!("skew {skew_ms} ms: the countdown started at {shown} ms; A1 turned free {late} ms after the deadline");
    assert!((-FLIP_EARLINESS_MS..=FLIP_LATENESS_MS).contains(&late), "A1 turned free {late} ms after the deadline");
    Ok(())
}

#[tokio::test]
async fn a_server_clock_ten_minutes_ahead_changes_nothing_on_screen() -> anyhow::Result<()> {
    a_skewed_server_clock_changes_nothing_on_screen(600_000).await
}

#[tokio::test]
async fn a_server_clock_ten_minutes_behind_changes_nothing_on_screen() -> anyhow::Result<()> {
    a_skewed_server_clock_changes_nothing_on_screen(-600_000).await
}

#[tokio::test]
async fn a_hold_on_one_show_neither_blocks_nor_claims_seats_on_another() -> anyhow::Result<()> {
    // Both shows have a seat A1; holds are limited to one per customer per show.
    let server = Server::start_with_show(&quick_show(600), &[]).await?;
    let (alice, bob) = tokio::try_join!(Customer::start(&server, "alice"), Customer::start(&server, "bob"))?;
    tokio::try_join!(alice.open(THEATRE), bob.open("quick"))?;
    alice.select("A1").await?;
    alice.hold().await?;
    bob.select("A1").await?;
    bob.hold().await?;

    alice.open("quick").await?;
    alice.wait_state(&["A1"], "held").await?;
    assert!(!alice.is_mine("A1").await?, "bob's A1 on this show is not alice's A1 of the theatre");
    assert_eq!(alice.seat_name("A1").await?, "A1, held");
    assert_eq!(alice.text_of(".hold").await?, "", "no banner for the theatre's hold here");
    alice.select("A2").await?;
    alice.hold().await?;
    assert_eq!(newest_hold(&alice, "quick").await?["seats"], json!(["A2"]));
    assert!(alice.is_mine("A2").await?);
    Ok(())
}

#[tokio::test]
async fn extending_adds_time_up_to_the_limit_and_confirming_sells_the_seats() -> anyhow::Result<()> {
    let server = Server::start(&[]).await?;
    let (alice, bob) = tokio::try_join!(Customer::start(&server, "alice"), Customer::start(&server, "bob"))?;
    tokio::try_join!(alice.open(THEATRE), bob.open(THEATRE))?;
    bob.watch(&["C5", "C6"]).await?;
    alice.select("C5").await?;
    alice.select("C6").await?;
    alice.hold().await?;
    let extend = "[data-action=extend]";
    assert!(alice.text_of(extend).await?.contains("2 extensions left"));

    for left in ["1 extension left", "No extensions left"] {
        let before = alice.next_tick().await?;
        let ticked = std::time::Instant::now();
        alice.press("extend").await?;
        alice
            .wait_for(
                "the extended countdown",
                &format!("+document.querySelector('[data-countdown]').dataset.remainingMs > {before} + 200000"),
            )
            .await?;
        let jump = alice.countdown_ms().await?.unwrap() - before;
        // The countdown kept running while the extension went to the server
        // and back: it shows 5 minutes more, less the time that took.
        let waited = i64::try_from(ticked.elapsed().as_millis())?;
        assert!(
            (299_000 - waited..=301_000).contains(&jump),
            "extending added {jump} ms ({waited} ms after the tick), not 5 minutes"
        );
        let label = alice.text_of(extend).await?;
        assert!(label.contains(left), "the extend button says {label:?}");
    }
    alice.wait_for("extend disabled at the limit", "document.querySelector('[data-action=extend]').disabled").await?;
    assert_eq!(newest_hold(&alice, THEATRE).await?["extensions"], 2);
    alice.screenshot("extended-to-the-limit").await?;

    alice.press("confirm").await?;
    alice.wait_for("the confirmation", "document.querySelector('.hold.confirmed')").await?;
    assert_eq!(newest_hold(&alice, THEATRE).await?["status"], "CONFIRMED");
    alice.wait_state(&["C5", "C6"], "sold").await?;
    assert!(alice.is_mine("C5").await? && alice.is_mine("C6").await?);
    for seat in ["C5", "C6"] {
        bob.turned(seat, "sold").await?;
        assert!(!bob.is_mine(seat).await?);
    }
    assert_eq!(bob.seat_name("C5").await?, "Row C, seat 5, sold");
    bob.screenshot("bob-sees-sold").await?;
    Ok(())
}

#[tokio::test]
async fn a_reload_keeps_the_hold_and_its_countdown() -> anyhow::Result<()> {
    let server = Server::start(&[]).await?;
    let alice = Customer::start(&server, "alice").await?;
    alice.open(THEATRE).await?;
    alice.select("D3").await?;
    alice.select("D4").await?;
    alice.hold().await?;
    let hold = newest_hold(&alice, THEATRE).await?;
    let before = alice.next_tick().await?;
    let reloading = Instant::now();

    alice.reload().await?;
    alice.wait_for("the hold's countdown after reload", "document.querySelector('[data-countdown]')").await?;
    let took = i64::try_from(reloading.elapsed().as_millis())?;
    let after = alice.countdown_ms().await?.unwrap();
    assert!(after <= before && after >= before - took - 1_000, "{before} ms before a {took} ms reload, {after} after");
    alice.wait_state(&["D3", "D4"], "held").await?;
    assert!(alice.is_mine("D3").await? && alice.is_mine("D4").await?, "still alice's after the reload");
    let banner = alice.text_of(".hold").await?;
    assert!(banner.contains("Row D, seat 3") && banner.contains("Row D, seat 4"), "{banner:?}");
    assert_eq!(newest_hold(&alice, THEATRE).await?["holdId"], hold["holdId"], "the same hold, not a new one");
    Ok(())
}

#[tokio::test]
async fn a_keyboard_alone_picks_holds_and_confirms() -> anyhow::Result<()> {
    let server = Server::start(&[]).await?;
    let alice = Customer::start(&server, "alice").await?;
    alice.open(THEATRE).await?;

    alice.tab_to("[data-seat-id]", 30).await?;
    assert!(alice.focus_is("[data-seat-id=\"A1\"]").await?, "Tab lands on the first seat");
    alice.keys(&[Key::Right]).await?;
    alice.wait_for("A2 focused", "document.activeElement.dataset.seatId === 'A2'").await?;
    alice.keys(&[Key::Space]).await?;
    alice.wait_for("A2 picked", "document.activeElement.getAttribute('aria-pressed') === 'true'").await?;
    alice.keys(&[Key::Down]).await?;
    alice.wait_for("B2 focused", "document.activeElement.dataset.seatId === 'B2'").await?;
    alice.keys(&[Key::Space]).await?;
    alice.wait_for("B2 picked", "document.activeElement.getAttribute('aria-pressed') === 'true'").await?;
    assert!(alice.is_selected("A2").await?, "A2 stays picked");
    assert_eq!(alice.seat_name("B2").await?, "Row B, seat 2, available, selected");

    alice.tab_to("[data-action=hold]", 30).await?;
    alice.keys(&[Key::Enter]).await?;
    alice.wait_for("the hold's countdown", "document.querySelector('[data-countdown]')").await?;
    alice.wait_state(&["A2", "B2"], "held").await?;
    alice.tab_to("[data-action=confirm]", 60).await?;
    alice.keys(&[Key::Enter]).await?;
    alice.wait_for("the confirmation", "document.querySelector('.hold.confirmed')").await?;
    alice.wait_state(&["A2", "B2"], "sold").await?;
    let hold = newest_hold(&alice, THEATRE).await?;
    assert_eq!((hold["status"].clone(), hold["seats"].clone()), (json!("CONFIRMED"), json!(["A2", "B2"])));
    alice.screenshot("keyboard-confirmed").await?;
    Ok(())
}

/// Runs axe-core and prints what it finds; the serious or critical findings.
async fn audit(customer: &Customer, state: &str) -> anyhow::Result<Vec<String>> {
    let found = customer.audit().await?;
    println!("axe, {state}: {} violations", found.len());
    for violation in &found {
        println!("axe, {state}: {violation}");
    }
    Ok(found.iter().filter(|v| v.is_barrier()).map(|v: &Violation| format!("{state}: {v}")).collect())
}

#[tokio::test]
async fn the_seat_map_has_no_serious_accessibility_violation_in_any_state() -> anyhow::Result<()> {
    let server = Server::start(&[]).await?;
    let alice = Customer::start(&server, "alice").await?;
    alice.open(THEATRE).await?;
    let mut barriers = audit(&alice, "fresh").await?;
    alice.select("E10").await?;
    alice.select("E11").await?;
    barriers.extend(audit(&alice, "seats selected").await?);
    alice.hold().await?;
    barriers.extend(audit(&alice, "held with countdown").await?);
    alice.press("confirm").await?;
    alice.wait_for("the confirmation", "document.querySelector('.hold.confirmed')").await?;
    barriers.extend(audit(&alice, "confirmed").await?);
    assert!(barriers.is_empty(), "serious or critical accessibility violations:\n{}", barriers.join("\n"));
    Ok(())
}

#[tokio::test]
async fn screenshots_show_every_state() -> anyhow::Result<()> {
    let server = Server::start_with_show(&quick_show(3), &[]).await?;
    let (alice, bob) = tokio::try_join!(Customer::start(&server, "alice"), Customer::start(&server, "bob"))?;
    tokio::try_join!(alice.open(THEATRE), bob.open(THEATRE))?;
    let mut shots = vec![alice.screenshot("1-fresh").await?];
    alice.select("F7").await?;
    alice.select("F8").await?;
    shots.push(alice.screenshot("2-selected").await?);
    alice.hold().await?;
    shots.push(alice.screenshot("3-held").await?);
    bob.wait_state(&["F7", "F8"], "held").await?;
    shots.push(bob.screenshot("4-held-by-someone-else").await?);
    alice.press("confirm").await?;
    alice.wait_for("the confirmation", "document.querySelector('.hold.confirmed')").await?;
    shots.push(alice.screenshot("5-confirmed").await?);
    bob.wait_state(&["F7", "F8"], "sold").await?;
    shots.push(bob.screenshot("6-sold-to-someone-else").await?);

    alice.open("quick").await?;
    alice.select("A3").await?;
    alice.hold().await?;
    alice.wait_for("the countdown's end", "document.querySelector('[data-countdown][data-phase=\"expired\"]')").await?;
    alice.wait_state(&["A3"], "free").await?;
    shots.push(alice.screenshot("7-expired").await?);

    bob.browser.client.set_window_size(390, 844).await?;
    bob.wait_for("a phone-sized window", "window.innerWidth <= 400").await?;
    shots.push(bob.screenshot("8-phone").await?);

    for shot in shots {
        let png = std::fs::read(&shot)?;
        assert!(png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 2_000, "{} is not a picture", shot.display());
    }
    Ok(())
}
