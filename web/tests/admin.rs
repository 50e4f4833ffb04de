//! The operator's page's small readings: seat ids typed, ages and deadlines, the webhook log.

use wasm_bindgen_test::{wasm_bindgen_test as test, wasm_bindgen_test_configure};

use seathold_web::admin::{duration, seat_ids};

wasm_bindgen_test_configure!(run_in_browser);

#[test]
fn seat_ids_split_on_commas_and_spaces() {
    assert_eq!(seat_ids(" A1, A2,,B7  C3 "), ["A1", "A2", "B7", "C3"]);
    assert!(seat_ids(" , ").is_empty());
}

#[test]
fn durations_read_as_a_clock() {
    assert_eq!(duration(0), "0:00");
    assert_eq!(duration(61_900), "1:01");
    assert_eq!(duration(3_723_000), "1:02:03");
    assert_eq!(duration(-5_000), "0:00");
}

#[test]
fn the_webhook_log_shows_each_webhooks_deliveries() {
    use seat_state::wire::{DeliveryCounts, WebhookStatus};
    use seathold_web::components::admin_markup::webhooks;

    assert!(webhooks(&[]).contains("No webhooks"));
    let failing = WebhookStatus {
        id: "wh_1".to_owned(),
        url: "https://hooks.example.com/a?b=1&c=<2>".to_owned(),
        events: vec!["held".to_owned(), "confirmed".to_owned()],
        deliveries: DeliveryCounts {
            pending: 3,
            failed: 1,
            attempts: 17,
            last_status: Some(500),
            last_error: Some("answered 500 Internal Server Error".to_owned()),
        },
    };
    let markup = webhooks(&[failing]);
    for expected in [
        r#"data-webhook-id="wh_1""#,
        "https://hooks.example.com/a?b=1&amp;c=&lt;2&gt;",
        "held, confirmed",
        r#"data-delivery="pending">3<"#,
        r#"data-delivery="failed">1<"#,
        r#"data-delivery="attempts">17<"#,
        r#"data-delivery="last-status">500<"#,
        r#"data-delivery="last-error">answered 500 Internal Server Error<"#,
    ] {
        assert!(markup.contains(expected), "{expected} in {markup}");
    }
}

fn minute(at: i64, queue: Option<(u64, u64)>, holds: u64) -> seat_state::wire::OnSaleMinute {
    seat_state::wire::OnSaleMinute {
        at,
        queue_length: queue.map(|(length, _)| length),
        admitted_through: queue.map(|(_, through)| through),
        holds,
        confirms: 0,
        expiries: 0,
    }
}

#[test]
fn the_charts_count_each_minute_and_scale_to_the_busiest() {
    use seathold_web::components::admin_charts::charts;

    let queued = [minute(0, Some((0, 0)), 0), minute(60_000, Some((40, 10)), 4), minute(120_000, Some((50, 30)), 1)];
    let markup = charts(&queued);
    assert!(markup.contains(r#"data-chart="queue" data-values="0,10,30""#), "{markup}");
    assert!(markup.contains(r#"data-chart="admitted" data-values="0,10,20""#), "admissions a minute: {markup}");
    assert!(markup.contains(r#"data-chart="holds" data-values="0,4,1""#), "{markup}");
    assert!(markup.contains("<strong data-latest>20 waiting, 30 admitted</strong>"), "{markup}");
    // The busiest minute's bar is the chart's full height (60); a quiet one still shows.
    assert!(markup.contains("M11,60v-60h8v60z"), "holds peak at 4: {markup}");
    assert!(markup.contains("M21,60v-15h8v15z"), "1 of 4: {markup}");
    assert!(markup.contains(r#"aria-label="Holds a minute, last hour: 1 now, at most 4 at"#), "{markup}");

    let plain = charts(&[minute(0, None, 0), minute(60_000, None, 0)]);
    assert!(!plain.contains(r#"data-chart="queue""#), "no waiting room, no queue chart: {plain}");
    assert!(plain.contains("none in the last hour"), "{plain}");
}

#[test]
fn closing_the_waiting_room_asks_first_and_a_closed_one_offers_to_reopen() {
    use seat_state::wire::QueueStatus;
    use seathold_web::components::admin_charts::{queue_controls, queue_figures};

    let open = QueueStatus {
        length: 7,
        admitted_through: 2,
        rate_per_minute: 60,
        paused: false,
        closed: false,
        draw_seed: Some(42),
        server_time: 0,
    };
    assert!(queue_figures(None).contains("no waiting room"));
    assert!(queue_figures(Some(&open)).contains(r#"data-queue="seed">42<"#));
    let asked = queue_controls(Some(&open), false, false);
    assert!(asked.contains(r#"data-action="queue-pause""#) && asked.contains(r#"data-action="queue-close""#));
    assert!(!asked.contains("queue-close-confirm"));
    let confirming = queue_controls(Some(&open), true, false);
    assert!(confirming.contains(r#"data-action="queue-close-confirm""#) && confirming.contains("data-closing"));
    let paused = queue_controls(Some(&QueueStatus { paused: true, ..open }), false, true);
    assert!(paused.contains(r#"data-action="queue-resume" disabled"#), "{paused}");
    let closed = queue_controls(Some(&QueueStatus { closed: true, ..open }), false, false);
    assert!(closed.contains("queue-reopen") && !closed.contains("queue-pause"), "{closed}");
}
