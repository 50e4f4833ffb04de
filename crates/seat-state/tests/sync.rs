//! The browser's live map replaying recorded server events: in order,
//! reordered, duplicated and with gaps. Runs natively and, through
//! wasm-bindgen-test, in headless Chromium.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

mod support;

use seat_state::sync::{Changed, Input, Output};
use seat_state::wire::{ChangeEvent, SeatFact, SeatMap};
use seat_state::{
    ClockSample, HoldStatus, LocalMillis, Phase, PlaceId, SeatMapSync, SeatState, ServerMillis, seat_state,
};
use support::{Desk, at, hold_id, holder, theatre};

/// A session on the server, recorded: the map before it, and every event.
struct Recording {
    desk: Desk,
    snapshot: SeatMap,
    /// The seat map after each version (index = version).
    maps: Vec<SeatMap>,
}

fn record() -> Recording {
    let mut desk = Desk::new(theatre(r#""maxActiveHoldsPerHolder": 3"#));
    let snapshot = desk.state.seat_map(None, at(0));
    let mut maps = vec![snapshot.clone()];
    let mut step = |desk: &mut Desk, now, act: &dyn Fn(&mut Desk, ServerMillis)| {
        act(desk, now);
        maps.push(desk.state.seat_map(None, now));
    };
    step(&mut desk, at(0), &|d, now| {
        d.hold("ann", "hold-ann-1", &["A1", "A2"], &[("standing", 2)], now).unwrap();
    });
    step(&mut desk, at(10), &|d, now| {
        d.hold("bob", "hold-bob-1", &["B1"], &[("standing", 1)], now).unwrap();
    });
    step(&mut desk, at(20), &|d, now| {
        d.extend("ann", "hold-ann-1", now).unwrap();
    });
    step(&mut desk, at(30), &|d, now| {
        d.confirm("bob", "hold-bob-1", now).unwrap();
    });
    step(&mut desk, at(40), &|d, now| {
        d.hold("eve", "hold-eve-1", &["A3"], &[], now).unwrap();
    });
    step(&mut desk, at(50), &|d, now| {
        d.release("eve", "hold-eve-1", now).unwrap();
    });
    step(&mut desk, at(60), &|d, now| {
        d.hold("eve", "hold-eve-2", &["A4", "A5"], &[("standing", 1)], now).unwrap();
    });
    step(&mut desk, at(700), &|d, now| {
        assert_eq!(d.sweep(now), 1);
    });
    step(&mut desk, at(710), &|d, now| {
        d.hold("bob", "hold-bob-2", &["A4"], &[], now).unwrap();
    });
    assert_eq!(desk.events.len(), 9);
    Recording { desk, snapshot, maps }
}

/// A browser whose clock agrees with the server's, at server time `now`.
fn browser(snapshot: &SeatMap, now: ServerMillis) -> SeatMapSync {
    let mut sync = SeatMapSync::new();
    sync.handle_input(Input::ClockSample(ClockSample {
        sent: LocalMillis(now.0),
        server: now,
        received: LocalMillis(now.0),
    }));
    sync.handle_input(Input::Tick(LocalMillis(now.0)));
    sync.handle_input(Input::Snapshot(snapshot.clone()));
    sync
}

fn feed(sync: &mut SeatMapSync, events: &[&ChangeEvent]) -> Vec<Output> {
    let mut outputs = Vec::new();
    for event in events {
        sync.handle_input(Input::Change((*event).clone()));
        loop {
            match sync.poll_output() {
                Output::Timeout(_) => break,
                other => outputs.push(other),
            }
        }
    }
    outputs
}

/// What a seat map says each seat and area is at `now`.
/// Each seat's state and each area's availability, by id.
type Looks = (Vec<(String, SeatState)>, Vec<(String, u32)>);

fn expected(map: &SeatMap, now: ServerMillis) -> Looks {
    let state = |f: &SeatFact| seat_state(f.sold, f.hold_expires_at.map(ServerMillis), now);
    let seats = map.seats.iter().map(|f| (f.id.clone(), state(f))).collect();
    let areas = map
        .areas
        .iter()
        .map(|a| {
            let held: i64 = a.holds.iter().filter(|h| h.expires_at > now.0).map(|h| h.quantity).sum();
            (a.id.clone(), u32::try_from(a.capacity - a.sold - held).unwrap())
        })
        .collect();
    (seats, areas)
}

fn shown(sync: &SeatMapSync) -> Looks {
    let seats = sync.seats().map(|(id, view)| (id.to_owned(), view.state)).collect();
    let areas = sync.areas().map(|(id, view)| (id.to_owned(), view.available)).collect();
    (seats, areas)
}

#[test]
fn in_order_the_map_shows_what_the_server_decided() {
    let rec = record();
    let mut sync = browser(&rec.snapshot, at(710));
    assert_eq!(feed(&mut sync, &rec.desk.events.iter().collect::<Vec<_>>()), vec![]);
    assert_eq!(sync.version(), Some(9));
    for now in [710, 899, 900, 1309, 1310] {
        sync.handle_input(Input::Tick(LocalMillis(at(now).0)));
        assert_eq!(shown(&sync), expected(&rec.maps[9], at(now)), "at {now}");
    }
    // The server's own decisions agree: after 900 ann's seats are free.
    assert_eq!(sync.seat("A1").map(|v| v.state), Some(SeatState::Free));
    assert_eq!(rec.desk.state.availability(&PlaceId::parse("standing").unwrap(), at(1310)), 4);
}

#[test]
fn duplicates_and_stale_events_are_ignored() {
    let rec = record();
    let mut sync = browser(&rec.snapshot, at(710));
    let events: Vec<&ChangeEvent> = rec.desk.events.iter().flat_map(|e| [e, e]).collect();
    assert_eq!(feed(&mut sync, &events), vec![]);
    assert_eq!(feed(&mut sync, &[&rec.desk.events[2], &rec.desk.events[0]]), vec![]);
    assert_eq!(sync.version(), Some(9));
    assert_eq!(shown(&sync), expected(&rec.maps[9], at(710)));
}

#[test]
fn reordered_events_wait_for_their_turn() {
    let rec = record();
    let e = &rec.desk.events;
    let mut sync = browser(&rec.snapshot, at(710));
    let outputs = feed(&mut sync, &[&e[1], &e[0], &e[3], &e[4], &e[2], &e[8], &e[7], &e[6], &e[5]]);
    assert_eq!(
        outputs,
        vec![
            Output::ResyncNeeded { last_version: 0 },
            Output::ResyncNeeded { last_version: 2 },
            Output::ResyncNeeded { last_version: 5 },
        ]
    );
    assert_eq!(sync.version(), Some(9));
    assert_eq!(shown(&sync), expected(&rec.maps[9], at(710)));
}

#[test]
fn a_gap_asks_for_a_resync_once_and_a_snapshot_closes_it() {
    let rec = record();
    let e = &rec.desk.events;
    let mut sync = browser(&rec.snapshot, at(710));
    let outputs = feed(&mut sync, &[&e[0], &e[1], &e[2], &e[3], &e[5], &e[6], &e[7]]);
    assert_eq!(outputs, vec![Output::ResyncNeeded { last_version: 4 }]);
    assert_eq!(sync.version(), Some(4));
    assert_eq!(shown(&sync), expected(&rec.maps[4], at(710)));
    // The reconnect's fresh snapshot at version 6, then what waited applies.
    sync.handle_input(Input::Snapshot(rec.maps[6].clone()));
    assert_eq!(sync.version(), Some(8));
    assert_eq!(feed(&mut sync, &[&e[8]]), vec![]);
    assert_eq!(shown(&sync), expected(&rec.maps[9], at(710)));
    // A late, older snapshot changes nothing.
    sync.handle_input(Input::Snapshot(rec.maps[3].clone()));
    assert_eq!((sync.version(), shown(&sync)), (Some(9), expected(&rec.maps[9], at(710))));
}

#[test]
fn events_before_the_snapshot_wait_for_it() {
    let rec = record();
    let mut sync = SeatMapSync::new();
    feed(&mut sync, &rec.desk.events[3..].iter().collect::<Vec<_>>());
    assert_eq!(sync.version(), None);
    sync.handle_input(Input::Tick(LocalMillis(at(710).0)));
    sync.handle_input(Input::Snapshot(rec.maps[3].clone()));
    assert_eq!(sync.version(), Some(9));
    assert_eq!(shown(&sync), expected(&rec.maps[9], at(710)));
}

#[test]
fn seats_free_themselves_at_their_deadline_and_the_timer_knows_when() {
    let rec = record();
    let mut sync = browser(&rec.maps[9], at(710));
    let first = sync.drain_changed();
    assert_eq!((first.seats.len(), first.areas.len()), (10, 1));
    assert_eq!(sync.drain_changed(), Changed::default());
    assert_eq!(sync.poll_output(), Output::Timeout(Some(LocalMillis(at(900).0))));
    sync.handle_input(Input::Tick(LocalMillis(at(899).0)));
    assert_eq!(sync.drain_changed(), Changed::default());
    sync.handle_input(Input::Tick(LocalMillis(at(900).0)));
    let changed = sync.drain_changed();
    assert_eq!((changed.seats, changed.areas), (vec!["A1".into(), "A2".into()], vec!["standing".into()]));
    assert_eq!(sync.poll_output(), Output::Timeout(Some(LocalMillis(at(1310).0))));
    sync.handle_input(Input::Tick(LocalMillis(at(5000).0)));
    assert_eq!(sync.drain_changed().seats, vec!["A4".to_owned()]);
    assert_eq!(sync.poll_output(), Output::Timeout(None));
}

#[test]
fn a_browser_clock_a_minute_behind_still_flips_at_the_server_deadline_never_before() {
    let rec = record();
    let behind = 60_000;
    let mut sync = SeatMapSync::new();
    let local = |server: ServerMillis| LocalMillis(server.0 - behind);
    sync.handle_input(Input::ClockSample(ClockSample {
        sent: local(at(700)),
        server: at(700).plus_millis(20),
        received: local(at(700)).plus(40),
    }));
    sync.handle_input(Input::Tick(local(at(710))));
    sync.handle_input(Input::Snapshot(rec.maps[9].clone()));
    // The middle of the 40 ms round trip says server 710; the server may
    // have read its clock as late as the answer's arrival, 20 ms later on
    // the local clock, so server now is at least 690.
    assert_eq!(sync.server_now(), Some(at(710).plus_millis(-20)));
    let flip = local(at(900)).plus(20);
    assert_eq!(sync.poll_output(), Output::Timeout(Some(flip)));
    sync.handle_input(Input::Tick(flip.plus(-1)));
    assert_eq!(sync.seat("A1").unwrap().state, SeatState::Held);
    sync.handle_input(Input::Tick(flip));
    assert_eq!(sync.seat("A1").unwrap().state, SeatState::Free);
}

#[test]
fn without_a_clock_sample_the_snapshot_anchors_server_time() {
    let rec = record();
    let mut sync = SeatMapSync::new();
    sync.handle_input(Input::Snapshot(rec.maps[9].clone()));
    assert_eq!(sync.server_now(), Some(at(710)));
    assert_eq!(sync.seat("A1").unwrap().state, SeatState::Held);
    sync.handle_input(Input::Tick(LocalMillis(5)));
    sync.handle_input(Input::Tick(LocalMillis(5 + 190_000)));
    assert_eq!(sync.server_now(), Some(at(900)));
    assert_eq!(sync.seat("A1").unwrap().state, SeatState::Free);
}

#[test]
fn my_holds_show_as_mine_with_a_buffered_countdown() {
    let rec = record();
    let ann_hold = |now| rec.desk.state.hold(&hold_id("hold-ann-1")).unwrap().to_wire(&rec.desk.state.show().id, now);
    let mut sync = browser(&rec.maps[9], at(710));
    sync.handle_input(Input::MyHolds(vec![ann_hold(at(705))]));
    assert!(sync.seat("A1").unwrap().mine);
    assert!(!sync.seat("B1").unwrap().mine);
    let changed = sync.drain_changed();
    assert!(changed.my_holds);
    let view = sync.my_holds().next().unwrap();
    assert_eq!(view.status, HoldStatus::Held);
    let countdown = view.countdown.unwrap();
    // 190 s left, minus the 5 s buffer.
    assert_eq!((countdown.text.as_str(), countdown.phase), ("3:05", Phase::Normal));
    assert_eq!(sync.poll_output(), Output::Timeout(Some(LocalMillis(at(710).0 + 1))));
    sync.handle_input(Input::Tick(LocalMillis(at(840).0 + 1)));
    let view = sync.my_holds().next().unwrap();
    assert_eq!(view.countdown.unwrap().phase, Phase::Warning);
    // An older answer about the same hold is ignored.
    sync.handle_input(Input::MyHolds(vec![{
        let mut old = ann_hold(at(700));
        old.status = "RELEASED".into();
        old
    }]));
    assert!(sync.seat("A1").unwrap().mine);
    sync.handle_input(Input::Tick(LocalMillis(at(900).0)));
    let view = sync.my_holds().next().unwrap();
    assert_eq!((view.status, view.countdown), (HoldStatus::Expired, None));
    assert_eq!(sync.seat("A1").unwrap(), seat_state::SeatView { state: SeatState::Free, mine: false, blocked: false });
    assert_eq!(rec.desk.state.holds_of(&holder("ann")).count(), 1);
}

#[test]
fn twenty_thousand_seats_touch_only_what_changes() {
    let seats = 20_000;
    let map = SeatMap {
        show_id: "arena".into(),
        server_time: at(0).0,
        version: 7,
        seats: (0..seats)
            .map(|n| SeatFact {
                id: format!("S{n}"),
                sold: n % 3 == 0,
                hold_expires_at: (n % 3 == 1).then_some(at(100 + n).0),
                mine: None,
                ..Default::default()
            })
            .collect(),
        areas: vec![],
    };
    let mut sync = browser(&map, at(0));
    assert_eq!(sync.drain_changed().seats.len(), seats as usize);
    let event = ChangeEvent {
        version: 8,
        server_time: at(1).0,
        since: None,
        seats: vec![
            SeatFact {
                id: "S2".into(),
                sold: false,
                hold_expires_at: Some(at(50).0),
                mine: None,
                ..Default::default()
            },
            SeatFact { id: "S4".into(), sold: true, hold_expires_at: None, mine: None, ..Default::default() },
        ],
        areas: vec![],
    };
    feed(&mut sync, &[&event]);
    assert_eq!(sync.drain_changed().seats, ["S2", "S4"]);
    // 110 s pass: S2's new hold ends, and those of S1, S7 and S10 (at 101,
    // 107, 110 s); S4's would have, but it is sold now.
    sync.handle_input(Input::Tick(LocalMillis(at(110).0)));
    assert_eq!(sync.drain_changed().seats, ["S1", "S2", "S7", "S10"]);
    // The same seat list again keeps the index: nothing looks different.
    let mut again = map.clone();
    again.version = 8;
    again.seats[2] = event.seats[0].clone();
    again.seats[4] = event.seats[1].clone();
    sync.handle_input(Input::Snapshot(again));
    assert_eq!(sync.drain_changed(), Changed::default());
}

#[test]
fn my_holds_keep_the_servers_newest_first_order() {
    let rec = record();
    let answer = |id: &str| rec.desk.state.hold(&hold_id(id)).unwrap().to_wire(&rec.desk.state.show().id, at(710));
    let ids = |sync: &SeatMapSync| sync.my_holds().map(|view| view.hold.hold_id.clone()).collect::<Vec<_>>();
    let mut sync = browser(&rec.maps[9], at(710));
    // `GET /api/holds` answers newest first.
    sync.handle_input(Input::MyHolds(vec![answer("hold-bob-2"), answer("hold-bob-1")]));
    assert_eq!(ids(&sync), ["hold-bob-2", "hold-bob-1"]);
    // A hold just made goes in front.
    let mut made = answer("hold-bob-2");
    made.hold_id = "hold-bob-3".into();
    sync.handle_input(Input::MyHolds(vec![made.clone()]));
    assert_eq!(ids(&sync), ["hold-bob-3", "hold-bob-2", "hold-bob-1"]);
    // The whole list again keeps the order; an answer about one keeps its place.
    sync.handle_input(Input::MyHolds(vec![made, answer("hold-bob-2"), answer("hold-bob-1")]));
    sync.handle_input(Input::MyHolds(vec![answer("hold-bob-1")]));
    assert_eq!(ids(&sync), ["hold-bob-3", "hold-bob-2", "hold-bob-1"]);
}

/// The browser of `browser(…, at(710))` reads this, `millis` later.
fn local(millis: i64) -> LocalMillis {
    LocalMillis(at(710).0 + millis)
}

/// Feeds a failed re-sync fetch at `now`; returns when to tick next.
fn fail_resync(sync: &mut SeatMapSync, now: i64, retry_after_millis: Option<i64>, jitter_permille: u16) -> Output {
    sync.handle_input(Input::Tick(local(now)));
    sync.handle_input(Input::ResyncFailed { retry_after_millis, jitter_permille });
    sync.poll_output()
}

#[test]
fn a_failed_resync_is_asked_for_again_with_back_off_until_a_snapshot_arrives() {
    let rec = record();
    let e = &rec.desk.events;
    let mut sync = browser(&rec.snapshot, at(710));
    let asked = Output::ResyncNeeded { last_version: 4 };
    assert_eq!(feed(&mut sync, &[&e[0], &e[1], &e[2], &e[3], &e[5]]), vec![asked]);
    let doubling = [250, 500, 1_000, 2_000, 4_000, 8_000, 10_000, 10_000].map(|wait| (None, 0, wait));
    // Jitter lengthens a wait by up to a quarter; a longer Retry-After wins.
    let others = [(None, 1_000, 12_500), (Some(30_000), 1_000, 30_000), (Some(3_000), 0, 10_000)];
    let mut now = 0;
    for (n, (retry_after, jitter, wait)) in doubling.into_iter().chain(others).enumerate() {
        assert_eq!(fail_resync(&mut sync, now, retry_after, jitter), Output::Timeout(Some(local(now + wait))));
        sync.handle_input(Input::Tick(local(now + wait - 1)));
        assert_eq!(sync.poll_output(), Output::Timeout(Some(local(now + wait))), "failure {n}: not yet");
        now += wait;
        sync.handle_input(Input::Tick(local(now)));
        assert_eq!(sync.poll_output(), asked, "failure {n}: asked again");
    }
    // A snapshot past the gap ends it: a late failure asks for nothing more.
    sync.handle_input(Input::Snapshot(rec.maps[6].clone()));
    let ann_expires = Output::Timeout(Some(local(190_000)));
    assert_eq!(fail_resync(&mut sync, now, None, 0), ann_expires);
    sync.handle_input(Input::Tick(local(now + 60_000)));
    assert_eq!(sync.poll_output(), ann_expires);
    assert_eq!((sync.version(), shown(&sync)), (Some(6), expected(&rec.maps[6], at(710).plus_millis(now + 60_000))));
}

#[test]
fn a_gap_the_stream_fills_itself_is_not_asked_for_again() {
    let rec = record();
    let e = &rec.desk.events;
    let mut sync = browser(&rec.snapshot, at(710));
    assert_eq!(feed(&mut sync, &[&e[0], &e[2]]), vec![Output::ResyncNeeded { last_version: 1 }]);
    assert_eq!(fail_resync(&mut sync, 0, None, 0), Output::Timeout(Some(local(250))));
    assert_eq!(feed(&mut sync, &[&e[1]]), vec![]);
    sync.handle_input(Input::Tick(local(250)));
    assert_eq!(sync.poll_output(), Output::Timeout(Some(local(190_000))));
    assert_eq!(sync.version(), Some(3));
}

#[test]
fn a_snapshot_not_past_the_gap_counts_as_a_failed_fetch() {
    let rec = record();
    let e = &rec.desk.events;
    let mut sync = browser(&rec.snapshot, at(710));
    assert_eq!(feed(&mut sync, &[&e[0], &e[2]]), vec![Output::ResyncNeeded { last_version: 1 }]);
    sync.handle_input(Input::Snapshot(rec.maps[1].clone()));
    assert_eq!(sync.poll_output(), Output::Timeout(Some(local(250))));
    sync.handle_input(Input::Tick(local(250)));
    assert_eq!(sync.poll_output(), Output::ResyncNeeded { last_version: 1 });
}

#[test]
fn a_waiting_change_that_arrives_twice_applies_once() {
    let rec = record();
    let e = &rec.desk.events;
    let mut sync = browser(&rec.snapshot, at(710));
    let outputs = feed(&mut sync, &[&e[2], &e[2], &e[1], &e[2], &e[1], &e[0]]);
    assert_eq!(outputs, vec![Output::ResyncNeeded { last_version: 0 }]);
    assert_eq!(sync.version(), Some(3));
    assert_eq!(shown(&sync), expected(&rec.maps[3], at(710)));
    assert_eq!(feed(&mut sync, &[&e[3]]), vec![], "nothing of them still waits");
    assert_eq!(sync.version(), Some(4));
}

#[test]
fn a_seat_two_of_my_holds_claim_is_mine_by_the_stronger_claim() {
    let rec = record();
    let answer = |id: &str| rec.desk.state.hold(&hold_id(id)).unwrap().to_wire(&rec.desk.state.show().id, at(710));
    let mut sync = browser(&rec.maps[9], at(710));
    // An older hold of mine that names A4 (held by hold-bob-2, which ends
    // later) and B1 (sold to me by hold-bob-1).
    let mut older = answer("hold-bob-2");
    older.hold_id = "hold-bob-0".into();
    older.seats = vec!["B1".into(), "A4".into()];
    older.expires_at = at(720).0;
    assert!(older.expires_at < answer("hold-bob-2").expires_at);
    sync.handle_input(Input::MyHolds(vec![answer("hold-bob-2"), answer("hold-bob-1"), older]));
    assert_eq!(sync.seat("B1").unwrap(), seat_state::SeatView { state: SeatState::Sold, mine: true, blocked: false });
    assert_eq!(sync.seat("A4").unwrap(), seat_state::SeatView { state: SeatState::Held, mine: true, blocked: false });
    // Past the older hold's deadline A4 is still mine by the later one.
    sync.handle_input(Input::Tick(LocalMillis(at(730).0)));
    assert_eq!(sync.seat("A4").unwrap(), seat_state::SeatView { state: SeatState::Held, mine: true, blocked: false });
    assert_eq!(sync.seat("B1").unwrap(), seat_state::SeatView { state: SeatState::Sold, mine: true, blocked: false });
    assert!(!sync.seat("A1").unwrap().mine);
}
