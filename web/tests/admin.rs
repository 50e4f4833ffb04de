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
