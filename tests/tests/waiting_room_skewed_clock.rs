//! The waiting room with device clocks set 10 minutes wrong (API.md
//! "Waiting room (v3)"): three customers wait in one queue, one with a
//! true clock, one 10 minutes ahead, one 10 minutes behind. The skewed
//! pages promise the same wait as the true one, never sooner than the
//! server's `estimatedAdmitAt`; they are admitted live, and the admission
//! window and the hold's countdown they show are the server's, not 10
//! minutes off. The pages learn the time from the server (seat-state's
//! `ClockSync`); the skew replaces `Date` and `performance.timeOrigin`
//! before any page script runs ([`seathold_system_tests::cdp::skew_clock`]).

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

use anyhow::{Context, ensure};
use seathold_system_tests::api::{Api, one_row};
use seathold_system_tests::customer::Customer;
use seathold_system_tests::{Server, real_now_ms};
use serde_json::json;

const TOKEN: &str = "waiting-room-skew-admin-token";
const SHOW: &str = "skewed-recital";
const SKEW_MS: i64 = 10 * 60 * 1000;
/// One admission every 10 s.
const ADMIT_PER_MINUTE: i64 = 6;
const INTERVAL_MS: i64 = 60_000 / ADMIT_PER_MINUTE;
const ADMISSION_SECONDS: i64 = 300;
/// The countdown's safety buffer for the default 600 s hold (seat-state's
/// `Countdown::buffer_for_hold`).
const HOLD_BUFFER_MS: i64 = 5_000;
/// Allowance for the round trips of a page's clock samples and of the
/// queue's progress to it, on 127.0.0.1 (milliseconds on an idle machine).
const ROUND_TRIPS_MS: i64 = 250;
/// How far ahead of the show's creation the sale opens: long enough for
/// three pages to load on a slow machine and join before the draw.
const PRE_QUEUE_MS: i64 = 15_000;

async fn queued_show(server: &Server) -> anyhow::Result<i64> {
    let api = Api::new(server, "server");
    let now = api.get("/api/time", None).await?.int("serverTime")?;
    let opens_at = now + PRE_QUEUE_MS;
    let seats = one_row(8);
    let on_sale =
        json!({"opensAt": opens_at, "admitPerMinute": ADMIT_PER_MINUTE, "admissionSeconds": ADMISSION_SECONDS});
    let show =
        json!({"id": SHOW, "name": "Skewed recital", "seats": seats, "focus": {"x": 180, "y": 0}, "onSale": on_sale});
    api.post("/api/admin/shows", Some(TOKEN), Some(&show)).await?.expect(201, "the queued show")?;
    Ok(opens_at)
}

/// How far the page's clocks are from this machine's (the server's):
/// `Date.now()`, `new Date()` and `performance.timeOrigin + now()`.
async fn page_skew(customer: &Customer) -> anyhow::Result<Vec<i64>> {
    let before = real_now_ms();
    let clocks =
        customer.eval("[Date.now(), new Date().getTime(), performance.timeOrigin + performance.now()]").await?;
    let after = real_now_ms();
    let clocks = clocks.as_array().context("three clocks")?;
    Ok(clocks.iter().map(|clock| clock.as_f64().unwrap_or(f64::NAN) as i64 - (before + after) / 2).collect())
}

/// One look at a waiting page beside the server's answer for its session.
#[derive(Debug)]
struct Look {
    position: i64,
    ahead: i64,
    wait_ms: i64,
    /// This machine's clock just before and just after the page was read.
    read: (i64, i64),
    estimated_admit_at: i64,
}

impl Look {
    /// How much later than the server's estimate the page promises.
    fn lead_ms(&self) -> i64 {
        self.read.1 + self.wait_ms - self.estimated_admit_at
    }
}

async fn look(customer: &Customer) -> anyhow::Result<Look> {
    let before = real_now_ms();
    let facts = customer
        .eval(
            "(() => { const pick = (css, key) => document.querySelector(css)?.dataset[key] ?? null;
                       return { state: pick('[data-queue-state]', 'queueState'), position: pick('[data-position]', 'position'),
                                ahead: pick('[data-ahead]', 'ahead'), waitMs: pick('[data-wait-ms]', 'waitMs') }; })()",
        )
        .await?;
    let after = real_now_ms();
    let place = customer.fetch(&format!("/api/shows/{SHOW}/queue")).await?;
    let number = |key: &str| -> anyhow::Result<i64> {
        let text = facts[key].as_str().with_context(|| format!("{}: no {key}: {facts}", customer.name))?;
        Ok(text.parse()?)
    };
    ensure!(facts["state"] == "waiting" && place["state"] == "waiting", "{}: {facts} {place}", customer.name);
    let estimated_admit_at = place["estimatedAdmitAt"].as_i64().with_context(|| format!("no estimate: {place}"))?;
    let look = Look {
        position: number("position")?,
        ahead: number("ahead")?,
        wait_ms: number("waitMs")?,
        read: (before, after),
        estimated_admit_at,
    };
    ensure!(place["position"] == look.position, "{}: the page's place is the server's: {facts} {place}", customer.name);
    Ok(look)
}

/// "4 min 59 s", "5 min", "45 s" (seat-state's `wait_text`) in seconds.
fn seconds_of(text: &str) -> Option<i64> {
    let words: Vec<&str> = text.split_whitespace().collect();
    words.chunks(2).try_fold(0, |total, pair| match pair {
        [n, "min"] => Some(total + n.parse::<i64>().ok()? * 60),
        [n, "s"] => Some(total + n.parse::<i64>().ok()?),
        _ => None,
    })
}

/// Waits for a skewed customer's admission, then checks the window it
/// shows and the countdown of the hold it makes against the server's.
async fn admitted_on_time(customer: &Customer, estimated_admit_at: i64, seat: &str) -> anyhow::Result<()> {
    let name = &customer.name;
    // Admission is 10 to 30 s away: wait for its instant, then for the page.
    let to_go = estimated_admit_at - 1_000 - real_now_ms();
    tokio::time::sleep(std::time::Duration::from_millis(u64::try_from(to_go).unwrap_or(0))).await;
    customer.wait_for("admission, live", "document.querySelector('[data-queue-state=admitted]')").await?;
    let seen = real_now_ms();
    ensure!(seen >= estimated_admit_at, "{name}: admitted at {seen}, before the estimate {estimated_admit_at}");
    let before = real_now_ms();
    let left = customer.text_of("[data-admission-left]").await?;
    let after = real_now_ms();
    let place = customer.fetch(&format!("/api/shows/{SHOW}/queue")).await?;
    let until = place["admittedUntil"].as_i64().with_context(|| format!("{name}: no window: {place}"))?;
    let shown_ms = seconds_of(&left).with_context(|| format!("{name}: the window reads {left:?}"))? * 1000;
    // Counted from the latest the server's clock can read, rounded up to
    // the second, from a tick up to a second old: from a round trip less
    // than what is left to two seconds more.
    let (least, most) = (until - after - ROUND_TRIPS_MS, until - before + 2_000);
    println!(
        "{name}: admitted {} ms after the estimate; window shown {left:?}, {} s left",
        seen - estimated_admit_at,
        (until - after) / 1000
    );
    ensure!(
        (least..=most).contains(&shown_ms),
        "{name}: the window reads {left:?}, the server's {until} is {} ms away",
        until - after
    );
    customer.screenshot(&format!("skewed-clock-{name}-admitted")).await?;

    customer.until_ready().await?;
    customer.select(seat).await?;
    customer.hold().await?;
    let shown = customer.next_tick().await?;
    let after = real_now_ms();
    let holds = customer.holds().await?;
    let expires_at = holds.first().and_then(|hold| hold["expiresAt"].as_i64()).context("a hold")?;
    // Shown: what is left less the buffer, from a tick at most a second old.
    let gap = expires_at - after - shown;
    println!("{name}: hold countdown {shown} ms, the server's {} ms", expires_at - after);
    ensure!(
        (HOLD_BUFFER_MS - 1_000..=HOLD_BUFFER_MS + ROUND_TRIPS_MS).contains(&gap),
        "{name}: the countdown shows {shown} ms of the server's {} ms",
        expires_at - after
    );
    Ok(())
}

#[tokio::test]
async fn clocks_ten_minutes_ahead_and_behind_see_the_servers_wait_window_and_countdown() -> anyhow::Result<()> {
    let server = Server::start_with_env(&[], &[("SEATHOLD_ADMIN_TOKEN", TOKEN)]).await?;
    let outcome = async {
        let (steady, ahead, behind) = tokio::try_join!(
            Customer::start(&server, "steady"),
            Customer::start_with_clock_skew(&server, "ahead", SKEW_MS),
            Customer::start_with_clock_skew(&server, "behind", -SKEW_MS),
        )?;
        let opens_at = queued_show(&server).await?;
        tokio::try_join!(steady.visit(SHOW), ahead.visit(SHOW), behind.visit(SHOW))?;
        for (customer, skew) in [(&steady, 0), (&ahead, SKEW_MS), (&behind, -SKEW_MS)] {
            customer.wait_for("the waiting room", "document.querySelector('[data-queue-state=waiting]')").await?;
            let seen = page_skew(customer).await?;
            println!("{}: page clocks off by {seen:?} ms", customer.name);
            ensure!(
                seen.iter().all(|&off| (off - skew).abs() < 1_000),
                "{}: clocks {seen:?}, not {skew}",
                customer.name
            );
        }

        // At opensAt the draw gives each a place and a wait, live.
        for customer in [&steady, &ahead, &behind] {
            customer
                .wait_for("a drawn place and a wait", "document.querySelector('[data-wait-ms]')?.dataset.waitMs")
                .await?;
        }
        ahead.screenshot("skewed-clock-ahead-waiting").await?;
        let (plain, early, late) = tokio::try_join!(look(&steady), look(&ahead), look(&behind))?;
        let span = [&plain, &early, &late].iter().map(|l| l.read.1 - l.read.0).max().unwrap_or(0);
        let read_at = [&plain, &early, &late].iter().map(|l| l.read.1).max().unwrap_or(0);
        // Before the first admission every progress message says "none
        // admitted yet", so every page's lead over the server is alike.
        ensure!(read_at < opens_at + INTERVAL_MS, "the pages showed the draw {} ms after opensAt", read_at - opens_at);
        let mut positions: Vec<i64> = [&plain, &early, &late].iter().map(|l| l.position).collect();
        positions.sort_unstable();
        ensure!(positions == [1, 2, 3], "three places: {plain:?} {early:?} {late:?}");
        // Each page's wait is up to a tick (a second) and a progress message
        // (one a second) old, and counts from the earliest the server's clock
        // can read: two pages read together agree within those and the reads.
        let tolerance = 2_000 + ROUND_TRIPS_MS + span;
        for (name, seen) in [("steady", &plain), ("ahead", &early), ("behind", &late)] {
            println!(
                "{name}: place {}, {} ahead, wait {} ms; the server's {} ms; lead {} ms (tolerance {tolerance})",
                seen.position,
                seen.ahead,
                seen.wait_ms,
                seen.estimated_admit_at - seen.read.1,
                seen.lead_ms()
            );
            ensure!(seen.ahead == seen.position - 1, "{name}: {seen:?}");
            // Whole milliseconds on both sides: at most one off.
            ensure!(seen.lead_ms() >= -1, "{name} is promised admission before the server's estimate: {seen:?}");
            ensure!((seen.lead_ms() - plain.lead_ms()).abs() <= tolerance, "{name}: {seen:?} vs steady {plain:?}");
        }

        // Admission comes in place order, 10 s apart, without a reload.
        let mut skewed = [(&ahead, &early, "A2"), (&behind, &late, "A7")];
        skewed.sort_by_key(|(_, seen, _)| seen.position);
        for (customer, seen, seat) in skewed {
            admitted_on_time(customer, seen.estimated_admit_at, seat).await?;
        }
        tokio::try_join!(steady.close(), ahead.close(), behind.close())?;
        Ok(())
    }
    .await;
    outcome.map_err(|error: anyhow::Error| error.context(format!("server log:\n{}", server.log())))
}
