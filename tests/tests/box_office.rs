//! The box office in a real browser against the real binary: the legend's
//! categories and prices, "best N seats" holding an adjacent block (and
//! its refusal in `seat-state`'s words), the hold's total, and a presale
//! channel's seats offered only once its code is entered.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

use seathold_system_tests::{Customer, Server};
use serde_json::{Value, json};

/// The demo theatre: rows A–C premium (45 EUR), D–H standard (25 EUR),
/// G19–G20 kept for the presale channel (code PRESALE).
const THEATRE: &str = "demo-theatre";

/// A demo-like show: two rows of six split by nothing, premium in front
/// (row A, 45.00 EUR) and standard behind (row B, 25.00 EUR), the stage
/// above row A's middle.
fn rows_show() -> Value {
    let seats: Vec<Value> = ["A", "B"]
        .iter()
        .enumerate()
        .flat_map(|(at, row)| {
            (1..=6).map(move |n| {
                json!({"id": format!("{row}{n}"), "x": n * 30, "y": at * 30, "label": format!("Row {row}, seat {n}"),
                       "section": "Stalls", "row": row, "number": n,
                       "category": if at == 0 { "premium" } else { "standard" }})
            })
        })
        .collect();
    json!({
        "id": "rows", "name": "Two rows", "maxSeatsPerHold": 6, "seats": seats,
        "categories": [
            {"id": "premium", "name": "Premium", "price": 4500, "currency": "EUR", "color": "#b35900"},
            {"id": "standard", "name": "Standard", "price": 2500, "currency": "EUR", "color": "#1f6feb"}
        ],
        "focus": {"x": 105, "y": -60}
    })
}

/// Sets a form field of the page (`data-field`) as a customer would, and
/// lets the page hear it (`change`).
async fn fill(customer: &Customer, field: &str, value: &str) -> anyhow::Result<()> {
    let script = format!(
        "(() => {{ const field = document.querySelector('[data-field=\"{field}\"]');
         field.value = {value};
         field.dispatchEvent(new Event('input', {{bubbles: true}}));
         field.dispatchEvent(new Event('change', {{bubbles: true}}));
         return true; }})()",
        value = Value::from(value)
    );
    customer.eval(&script).await?;
    Ok(())
}

/// Presses a button `[data-action=ACTION]` scrolled to the middle of the
/// screen (the selection bar docks over the bottom of the page).
async fn press(customer: &Customer, action: &str) -> anyhow::Result<()> {
    let script = format!("document.querySelector('[data-action=\"{action}\"]').scrollIntoView({{block: 'center'}})");
    customer.eval(&script).await?;
    customer.press(action).await
}

/// Asks for the best `count` seats (of `category`, or any).
async fn ask_best(customer: &Customer, count: u32, category: &str) -> anyhow::Result<()> {
    fill(customer, "best-count", &count.to_string()).await?;
    fill(customer, "best-category", category).await?;
    press(customer, "best").await
}

/// The seats of the customer's newest hold on `show`.
async fn held_seats(customer: &Customer, show: &str) -> anyhow::Result<Vec<String>> {
    let holds = customer.holds().await?;
    let hold = holds.into_iter().find(|hold| hold["showId"] == show).expect("a hold on the show");
    Ok(hold["seats"].as_array().unwrap().iter().map(|seat| seat.as_str().unwrap().to_owned()).collect())
}

#[tokio::test]
async fn best_available_holds_adjacent_seats_shows_the_total_and_words_a_refusal() -> anyhow::Result<()> {
    let server = Server::start_with_show(&rows_show(), &[]).await?;
    let (alice, bob) = tokio::try_join!(Customer::start(&server, "alice"), Customer::start(&server, "bob"))?;
    tokio::try_join!(alice.open("rows"), bob.open("rows"))?;

    ask_best(&alice, 3, "premium").await?;
    alice.wait_for("the hold's countdown", "document.querySelector('[data-countdown]')").await?;
    let mut seats = held_seats(&alice, "rows").await?;
    seats.sort_by_key(|seat| seat[1..].parse::<u32>().unwrap());
    assert_eq!(seats.len(), 3, "three seats held: {seats:?}");
    let numbers: Vec<u32> = seats.iter().map(|seat| seat[1..].parse().unwrap()).collect();
    assert!(seats.iter().all(|seat| seat.starts_with('A')), "one row, the premium one: {seats:?}");
    assert!(numbers.windows(2).all(|pair| pair[1] == pair[0] + 1), "adjacent: {seats:?}");
    for seat in &seats {
        assert!(alice.is_mine(seat).await?, "{seat} shows as alice's");
    }
    let total = alice.text_of("[data-total]").await?;
    assert!(total.contains("135"), "3 × 45.00 EUR: {total:?}");
    alice.screenshot("best-available-held").await?;

    // Row A has 3 seats left, never 4 together: refused in seat-state's words.
    bob.wait_state(&[seats[0].as_str()], "held").await?;
    ask_best(&bob, 4, "premium").await?;
    bob.wait_for("a refusal", "document.querySelector('[role=alert]')?.textContent.includes('adjacent')").await?;
    let alert = bob.alert().await?;
    assert!(alert.contains("the largest has 3"), "the largest block is named: {alert:?}");
    assert!(bob.countdown_text().await?.is_none(), "bob holds nothing");

    tokio::try_join!(alice.close(), bob.close())?;
    Ok(())
}

#[tokio::test]
async fn the_legend_lists_categories_with_prices_and_seats_differ_by_pattern() -> anyhow::Result<()> {
    let server = Server::start(&[]).await?;
    let alice = Customer::start(&server, "alice").await?;
    alice.open(THEATRE).await?;

    let prices = alice
        .eval(
            "[...document.querySelectorAll('.legend.prices li')].map(li =>
                [li.dataset.categoryId, li.querySelector('.name').textContent, li.querySelector('.price').textContent])",
        )
        .await?;
    let prices = prices.as_array().unwrap();
    assert_eq!(prices.len(), 2, "two categories: {prices:?}");
    assert_eq!((&prices[0][0], &prices[0][1]), (&json!("premium"), &json!("Premium")));
    assert_eq!((&prices[1][0], &prices[1][1]), (&json!("standard"), &json!("Standard")));
    let (premium, standard) = (prices[0][2].as_str().unwrap(), prices[1][2].as_str().unwrap());
    assert!(premium.contains("45") && (premium.contains('€') || premium.contains("EUR")), "{premium:?}");
    assert!(standard.contains("25") && (standard.contains('€') || standard.contains("EUR")), "{standard:?}");

    // Not by colour alone: each category's free seats have their own dashes.
    let look = |seat: &str| {
        format!(
            "(() => {{ const s = getComputedStyle(document.querySelector('[data-seat-id=\"{seat}\"]'));
                return [s.stroke, s.strokeDasharray]; }})()"
        )
    };
    let (a1, d1) = (alice.eval(&look("A1")).await?, alice.eval(&look("D1")).await?);
    assert_ne!(a1[0], d1[0], "colours differ: {a1} {d1}");
    assert_ne!(a1[1], d1[1], "patterns differ: {a1} {d1}");
    alice.screenshot("legend-prices").await?;

    // Presale seats are not offered without the code…
    let locked = "document.querySelector('[data-seat-id=\"G19\"]').dataset.locked === 'true'";
    assert_eq!(alice.eval(locked).await?, true, "G19 is kept for the presale");
    alice.browser.find("[data-seat-id=\"G19\"]").await?.click().await?;
    assert!(!alice.is_selected("G19").await?, "G19 cannot be picked without the code");
    // …a wrong code unlocks them on the page, and the server refuses…
    fill(&alice, "channel-code", "WRONG").await?;
    press(&alice, "code").await?;
    alice.wait_for("G19 offered", &format!("!({locked})")).await?;
    alice.select("G19").await?;
    alice.press("hold").await?;
    alice.wait_for("a refusal", "document.querySelector('[role=alert]')?.textContent.includes('code')").await?;
    let alert = alice.alert().await?;
    assert!(alert.contains("G19"), "the refused seat is named: {alert:?}");
    // …and the right one holds them, with the price in the total.
    fill(&alice, "channel-code", "PRESALE").await?;
    press(&alice, "code").await?;
    if !alice.is_selected("G19").await? {
        alice.select("G19").await?;
    }
    alice.hold().await?;
    assert_eq!(held_seats(&alice, THEATRE).await?, ["G19"]);
    let total = alice.text_of("[data-total]").await?;
    assert!(total.contains("25"), "one standard seat: {total:?}");
    alice.close().await?;
    Ok(())
}

#[tokio::test]
async fn a_blocked_seat_is_not_for_sale_until_the_box_office_unblocks_it() -> anyhow::Result<()> {
    const TOKEN: &str = "box-office-test-token-long-enough";
    let server = Server::start_with_env(&[], &[("SEATHOLD_ADMIN_TOKEN", TOKEN)]).await?;
    let api = seathold_system_tests::api::Api::new(&server, "A");
    let alice = Customer::start(&server, "alice").await?;
    alice.open(THEATRE).await?;

    // The demo's box office blocked H9–H12 (a sound desk).
    let blocked =
        |seat: &str| format!("document.querySelector('[data-seat-id=\"{seat}\"]').dataset.blocked === 'true'");
    assert_eq!(alice.eval(&blocked("H9")).await?, true, "H9 is blocked");
    assert!(alice.seat_name("H9").await?.contains("not for sale"), "its name says so");
    // Row H is the last: scrolled clear of the selection bar docked at the bottom.
    alice.eval("document.querySelector('[data-seat-id=\"H9\"]').scrollIntoView({block: 'center'})").await?;
    alice.browser.find("[data-seat-id=\"H9\"]").await?.click().await?;
    assert!(!alice.is_selected("H9").await?, "a blocked seat cannot be picked");
    alice.wait_for("why not", "document.querySelector('p[role=status]')?.textContent.includes('not for sale')").await?;
    alice.screenshot("blocked-seats").await?;

    // The box office blocks D5 while alice has it picked: the page drops it, live.
    alice.select("D5").await?;
    let body = json!({"seats": ["D5"], "reason": "camera"});
    let path = format!("/api/admin/shows/{THEATRE}/blocked");
    api.post(&path, Some(TOKEN), Some(&body)).await?.expect(200, "block D5")?;
    alice.wait_for("D5 blocked", &blocked("D5")).await?;
    assert!(!alice.is_selected("D5").await?, "no longer picked");

    // Unblocked, H9 is on sale again and holds.
    let unblock = json!({"seats": ["H9"]});
    let answer = api.call(reqwest::Method::DELETE, &path, Some(TOKEN), Some(&unblock)).await?;
    answer.expect(200, "unblock H9")?;
    alice.wait_for("H9 on sale", &format!("!({})", blocked("H9"))).await?;
    alice.select("H9").await?;
    alice.hold().await?;
    assert_eq!(held_seats(&alice, THEATRE).await?, ["H9"]);
    alice.close().await?;
    Ok(())
}
