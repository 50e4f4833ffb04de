//! Webhooks and their lanes (`WebhookStore`): where a lane starts, who
//! holds it, what a step needs, rewinding, deleting, the tally, and the
//! journal read a page at a time.

use seathold_core::store::{Attempt, EventKind, Lane, LaneStep, Webhook};

use super::*;

fn webhook(id: &str, events: &[EventKind]) -> Webhook {
    Webhook {
        id: id.to_owned(),
        url: "http://127.0.0.1:9/hook".to_owned(),
        secret: "s".to_owned(),
        events: events.to_vec(),
        created_at: T0,
    }
}

/// Holds `n` seats of the show one by one (versions `from + 1 ..`).
async fn holds(store: &dyn Store, state: &mut ShowState, show_id: &str, seats: std::ops::Range<usize>) {
    for n in seats {
        let hold = decide(state, "h-1", json!({"seats": [format!("A{n}")]}), &format!("{show_id}-{n:04}"), T0);
        commit(store, show_id, &[hold]).await.unwrap();
    }
}

fn at(seconds: i64) -> ServerMillis {
    T0.plus_millis(seconds * SECOND)
}

/// A step that acknowledged `version` and keeps the lease.
fn acknowledged(version: i64, status: u16) -> LaneStep {
    LaneStep {
        version,
        attempts: 0,
        failing_since: None,
        next_attempt_at: ServerMillis(0),
        attempt: Some(Attempt { at: at(version), status: Some(status), error: None }),
        sent: 1,
        parked: 0,
        lease_until: Some(at(100)),
    }
}

async fn claim(store: &dyn Store, owner: &str, now: ServerMillis) -> Vec<Lane> {
    store.claim_lanes(owner, now, ServerMillis(now.0 + 30 * SECOND), 10).await.unwrap()
}

pub(crate) async fn a_webhook_gets_what_is_committed_after_it_and_all_of_a_later_show(f: Fixture) {
    let store = &*f.store;
    created(store.create_show(&venue("old", "Old", 6, 2), T0).await);
    let mut old = writer(store, &venue("old", "Old", 6, 2)).await;
    holds(store, &mut old, "old", 1..3).await;
    store.create_webhook(&webhook("wh-1", &[EventKind::Held])).await.unwrap();
    assert_eq!(store.webhooks().await.unwrap(), [webhook("wh-1", &[EventKind::Held])]);
    assert_eq!(claim(store, "a", at(1)).await, [], "nothing after its creation yet");
    assert_eq!(store.delivery_tally(&webhook("wh-1", &[EventKind::Held])).await.unwrap().pending, 0);

    holds(store, &mut old, "old", 3..4).await;
    created(store.create_show(&venue("new", "New", 6, 2), T0).await);
    let mut new = writer(store, &venue("new", "New", 6, 2)).await;
    holds(store, &mut new, "new", 1..3).await;
    let tally = store.delivery_tally(&webhook("wh-1", &[EventKind::Held])).await.unwrap();
    assert_eq!(tally.pending, 3, "one hold of the old show, both of the new one");
    let mut lanes = claim(store, "a", at(1)).await;
    lanes.sort_by(|a, b| a.show_id.cmp(&b.show_id));
    let lane = |show: &str, version| Lane {
        webhook_id: "wh-1".to_owned(),
        show_id: show.to_owned(),
        version,
        attempts: 0,
        failing_since: None,
    };
    assert_eq!(lanes, [lane("new", 0), lane("old", 2)]);
    let other_kind = webhook("wh-1", &[EventKind::Confirmed]);
    assert_eq!(store.delivery_tally(&other_kind).await.unwrap().pending, 0, "pending counts the webhook's kinds");
}

pub(crate) async fn a_claimed_lane_is_nobody_elses_until_let_go_or_its_lease_ends(f: Fixture) {
    let store = &*f.store;
    created(store.create_show(&show(), T0).await);
    let mut state = writer(store, &show()).await;
    store.create_webhook(&webhook("wh-1", &EventKind::ALL)).await.unwrap();
    holds(store, &mut state, "conf", 1..3).await;
    let [lane] = <[Lane; 1]>::try_from(claim(store, "a", at(1)).await).unwrap();
    assert_eq!(claim(store, "b", at(2)).await, [], "held by a");
    store.release_lane(&lane, "b").await.unwrap();
    assert_eq!(claim(store, "b", at(2)).await, [], "only its holder lets a lane go");
    store.release_lane(&lane, "a").await.unwrap();
    let [taken] = <[Lane; 1]>::try_from(claim(store, "b", at(2)).await).unwrap();
    assert!(!store.step_lane(&taken, "a", &acknowledged(1, 200)).await.unwrap(), "a no longer holds it");
    // b's lease (until 32 s) runs out: c takes it, and b's step no longer writes.
    let [again] = <[Lane; 1]>::try_from(claim(store, "c", at(40)).await).unwrap();
    assert_eq!(again.version, 0);
    assert!(!store.step_lane(&taken, "b", &acknowledged(1, 200)).await.unwrap());
    assert!(store.step_lane(&again, "c", &acknowledged(1, 200)).await.unwrap());
}

pub(crate) async fn a_step_needs_the_cursor_it_started_from_and_is_counted(f: Fixture) {
    let store = &*f.store;
    created(store.create_show(&show(), T0).await);
    let mut state = writer(store, &show()).await;
    let hook = webhook("wh-1", &EventKind::ALL);
    store.create_webhook(&hook).await.unwrap();
    holds(store, &mut state, "conf", 1..4).await;
    let [mut lane] = <[Lane; 1]>::try_from(claim(store, "a", at(1)).await).unwrap();
    assert!(!store.step_lane(&Lane { version: 1, ..lane.clone() }, "a", &acknowledged(2, 200)).await.unwrap());
    assert!(store.step_lane(&lane, "a", &acknowledged(1, 201)).await.unwrap());
    lane.version = 1;
    let failed = LaneStep {
        version: 1,
        attempts: 1,
        failing_since: Some(at(2)),
        next_attempt_at: at(10),
        attempt: Some(Attempt { at: at(2), status: Some(503), error: Some("answered 503".to_owned()) }),
        sent: 1,
        parked: 0,
        lease_until: None,
    };
    assert!(store.step_lane(&lane, "a", &failed).await.unwrap());
    let tally = store.delivery_tally(&hook).await.unwrap();
    assert_eq!((tally.pending, tally.attempts, tally.failed), (2, 2, 0));
    assert_eq!((tally.last_status, tally.last_error.as_deref()), (Some(503), Some("answered 503")));
    assert_eq!(claim(store, "b", at(9)).await, [], "not due before its next attempt");
    let [retry] = <[Lane; 1]>::try_from(claim(store, "b", at(10)).await).unwrap();
    assert_eq!((retry.version, retry.attempts, retry.failing_since), (1, 1, Some(at(2))));
    // One write for several steps: two attempts, the second parking the event.
    let parked = LaneStep { sent: 2, parked: 1, ..acknowledged(2, 500) };
    assert!(store.step_lane(&retry, "b", &parked).await.unwrap());
    let tally = store.delivery_tally(&hook).await.unwrap();
    assert_eq!((tally.pending, tally.attempts, tally.failed, tally.last_status), (1, 4, 1, Some(500)));
    let skipped = LaneStep { attempt: None, sent: 0, ..acknowledged(3, 200) };
    assert!(store.step_lane(&Lane { version: 2, ..retry }, "b", &skipped).await.unwrap());
    let tally = store.delivery_tally(&hook).await.unwrap();
    assert_eq!((tally.pending, tally.attempts, tally.last_status), (0, 4, Some(500)), "no attempt: the latest stays");
}

pub(crate) async fn a_rewound_lane_is_due_at_once_and_a_deleted_webhook_has_none(f: Fixture) {
    let store = &*f.store;
    created(store.create_show(&show(), T0).await);
    let mut state = writer(store, &show()).await;
    let hook = webhook("wh-1", &[EventKind::Held]);
    store.create_webhook(&hook).await.unwrap();
    holds(store, &mut state, "conf", 1..3).await;
    let [lane] = <[Lane; 1]>::try_from(claim(store, "a", at(1)).await).unwrap();
    let retry = LaneStep { next_attempt_at: at(500), lease_until: None, attempts: 4, ..acknowledged(1, 500) };
    assert!(store.step_lane(&lane, "a", &retry).await.unwrap());
    assert!(store.rewind_lane("wh-1", "conf", 0).await.unwrap());
    assert_eq!(store.delivery_tally(&hook).await.unwrap().pending, 2);
    let [rewound] = <[Lane; 1]>::try_from(claim(store, "a", at(2)).await).unwrap();
    assert_eq!((rewound.version, rewound.attempts, rewound.failing_since), (0, 0, None));
    assert!(!store.rewind_lane("wh-none", "conf", 0).await.unwrap());
    assert!(store.delete_webhook("wh-1").await.unwrap());
    assert!(!store.delete_webhook("wh-1").await.unwrap());
    assert!(!store.step_lane(&rewound, "a", &acknowledged(1, 200)).await.unwrap());
    assert_eq!(claim(store, "a", at(100)).await, []);
    assert_eq!(store.webhooks().await.unwrap(), []);
}

pub(crate) async fn the_journal_comes_a_page_at_a_time(f: Fixture) {
    let store = &*f.store;
    created(store.create_show(&show(), T0).await);
    let mut state = writer(store, &show()).await;
    holds(store, &mut state, "conf", 1..4).await;
    let whole = store.journal("conf", 0).await.unwrap();
    assert_eq!(store.journal_page("conf", 0, 2).await.unwrap(), whole[..2]);
    assert_eq!(store.journal_page("conf", 1, 10).await.unwrap(), whole[1..]);
    assert_eq!(store.journal_page("conf", 3, 10).await.unwrap(), []);
    assert_eq!(store.journal_page("no-such-show", 0, 10).await.unwrap(), []);
}
