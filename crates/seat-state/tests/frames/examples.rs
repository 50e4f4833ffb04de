//! Examples: gaps, `mine` kept, sizes, frames that do not fit.

use super::*;

pub(crate) fn seat(id: &str, hold_expires_at: Option<i64>, sold: bool) -> SeatFact {
    SeatFact { id: id.into(), sold, hold_expires_at, ..SeatFact::default() }
}

pub(crate) fn change(version: i64, since: Option<i64>, seats: Vec<SeatFact>) -> ChangeEvent {
    ChangeEvent { version, server_time: NOW, since, seats, areas: Vec::new() }
}

#[test]
pub(crate) fn a_coalesced_event_waits_for_its_since_and_closes_a_gap() {
    let mut sync = browser(NOW);
    let free = vec![seat("A1", None, false), seat("A2", None, false), seat("A3", None, false)];
    sync.handle_input(Input::Snapshot(SeatMap {
        show_id: "s".into(),
        server_time: NOW,
        version: 5,
        seats: free,
        areas: Vec::new(),
    }));
    let state = |sync: &SeatMapSync, id: &str| sync.seat(id).unwrap().state;

    // (7, 9] arrives before (5, 7]: it waits, and the gap after 5 is named once.
    let nine = change(9, Some(7), vec![seat("A2", None, true), seat("A3", None, true)]);
    sync.handle_input(Input::Change(nine.clone()));
    assert_eq!(asked(&mut sync), vec![Output::ResyncNeeded { last_version: 5 }]);
    sync.handle_input(Input::Change(change(8, None, vec![seat("A3", None, true)])));
    assert_eq!(asked(&mut sync), vec![], "still the same gap");
    assert_eq!((sync.version(), state(&sync, "A2")), (Some(5), SeatState::Free));

    // (5, 7] closes it: 7, 8 and 9 apply in turn.
    sync.handle_input(Input::Change(change(7, Some(5), vec![seat("A1", Some(NOW + 60_000), false)])));
    assert_eq!(asked(&mut sync), vec![]);
    assert_eq!(sync.version(), Some(9));
    let states = |sync: &SeatMapSync| ["A1", "A2", "A3"].map(|id| state(sync, id));
    assert_eq!(states(&sync), [SeatState::Held, SeatState::Sold, SeatState::Sold]);

    // Stale and duplicate events change nothing; one starting before the
    // version known applies at once.
    sync.handle_input(Input::Change(nine));
    sync.handle_input(Input::Change(change(6, None, vec![seat("A3", None, false)])));
    sync.handle_input(Input::Change(change(9, Some(5), vec![seat("A1", None, false)])));
    assert_eq!((sync.version(), states(&sync)), (Some(9), [SeatState::Held, SeatState::Sold, SeatState::Sold]));
    sync.handle_input(Input::Change(change(12, Some(8), vec![seat("A3", None, false)])));
    assert_eq!(asked(&mut sync), vec![]);
    assert_eq!((sync.version(), state(&sync, "A3")), (Some(12), SeatState::Free));
}

#[test]
pub(crate) fn a_session_snapshot_inside_a_conflated_event_keeps_my_seats_mine() {
    // Ann holds A1 at version 1 and A2 at 2, in one tick; her page's
    // snapshot was taken at 1, and the tick's event (0, 2] lists A1 again.
    let mut sync = browser(NOW);
    let deadline = NOW + 60_000;
    let mine = |id: &str, at: Option<i64>, mine: bool| SeatFact { mine: Some(mine), ..seat(id, at, false) };
    sync.handle_input(Input::Snapshot(SeatMap {
        show_id: "s".into(),
        server_time: NOW,
        version: 1,
        seats: vec![mine("A1", Some(deadline), true), mine("A2", None, false)],
        areas: Vec::new(),
    }));
    let tick = change(2, Some(0), vec![seat("A1", Some(deadline), false), seat("A2", Some(deadline + 1), false)]);
    sync.handle_input(Input::Change(tick));
    assert_eq!(sync.version(), Some(2));
    assert_eq!(sync.seat("A1"), Some(SeatView { state: SeatState::Held, mine: true, blocked: false }));
    assert_eq!(sync.seat("A2"), Some(SeatView { state: SeatState::Held, mine: false, blocked: false }));
}

/// A show of 20 rows of 20 seats, ids such as `S1-R12-7`.
pub(crate) fn big_order() -> SeatOrder {
    SeatOrder::new((1..=20).flat_map(|row| (1..=20).map(move |n| (format!("S1-R{row}-{n}"), None, None))))
}

#[test]
pub(crate) fn compact_frames_are_a_fraction_of_the_json() {
    let order = big_order();
    let deadline = NOW + 600_000;
    let held = vec![seat("S1-R12-7", Some(deadline), false), seat("S1-R12-8", Some(deadline), false)];
    let event = ChangeEvent { version: 48_211, server_time: NOW, since: None, seats: held, areas: Vec::new() };
    let json = serde_json::to_string(&event).unwrap();
    let compact = serde_json::to_string(&CompactChange::encode(&event, &order).unwrap()).unwrap();
    // Positions as gaps: 226, then 227 one after it.
    assert_eq!(compact, r#"{"v":48211,"t":1764460000000,"h":[[600000,226,1]]}"#);
    assert!(compact.len() * 3 < json.len(), "{} B against {} B: {json}", compact.len(), json.len());

    // A map with a tenth of the seats taken: 20 holds of 2, sold seats.
    let mut seats: Vec<SeatFact> =
        order.ids().map(|id| SeatFact { mine: Some(false), ..seat(id, None, false) }).collect();
    for (at, fact) in seats.iter_mut().enumerate().filter(|(at, _)| at % 10 < 1 || at % 50 == 1) {
        if at % 20 == 0 {
            fact.sold = true;
        } else {
            fact.hold_expires_at = Some(NOW + 1_000 * i64::try_from(at).unwrap());
        }
    }
    let map = SeatMap { show_id: "big".into(), server_time: NOW, version: 48_211, seats, areas: Vec::new() };
    let only_taken = serde_json::to_string(&taken(&map)).unwrap();
    let compact = serde_json::to_string(&CompactMap::encode(&map, &order).unwrap()).unwrap();
    assert!(compact.len() * 3 < only_taken.len(), "{} B against {} B", compact.len(), only_taken.len());
}

#[test]
pub(crate) fn compact_frames_that_do_not_fit_the_show_are_refused() {
    let order = SeatOrder::new(["A1", "A2"].map(|id| (id.to_owned(), None, None)));
    let change =
        |json: &str| serde_json::from_str::<CompactChange>(json).unwrap().decode(&order).map_err(|e| e.to_string());
    assert_eq!(change(r#"{"v": 2, "t": 0, "s": [2]}"#), Err("seat 2 is not in the show".into()));
    assert_eq!(change(r#"{"v": 2, "t": 0, "h": [[5, -1]]}"#), Err("a seat gap -1 out of range".into()));
    assert_eq!(change(r#"{"v": 2, "t": 0, "s": [1, 4294967295]}"#), Err("a seat position past the end".into()));
    assert_eq!(change(r#"{"v": 2, "t": 0, "h": [[]]}"#), Err("an empty hold group".into()));
    assert_eq!(change(r#"{"v": 2, "t": 0, "f": [0], "b": [1]}"#), Err("blocked seat 1 has no state".into()));
    let decoded = change(r#"{"v": 2, "p": 0, "t": 10, "f": [1], "h": [[5, 0]], "b": [1]}"#).unwrap();
    assert_eq!(decoded.since, Some(0));
    assert_eq!(
        by_id(decoded.seats),
        vec![seat("A1", Some(15), false), SeatFact { blocked: true, ..seat("A2", None, false) }]
    );

    let map = |json: &str| serde_json::from_str::<CompactMap>(json).unwrap().decode(&order).map_err(|e| e.to_string());
    let base = r#""showId": "s", "serverTime": 10, "version": 3"#;
    assert_eq!(map(&format!(r#"{{{base}, "m": [0], "b": [7]}}"#)), Err("seat 7 is not in the show".into()));
    let decoded = map(&format!(r#"{{{base}, "b": [1], "m": [1]}}"#)).unwrap();
    assert_eq!(decoded.seats, vec![SeatFact { blocked: true, mine: Some(true), ..seat("A2", None, false) }]);

    let unknown = change("{\"v\": 1, \"t\": 0}").map(|mut event| {
        event.seats.push(seat("Z9", None, true));
        CompactChange::encode(&event, &order).map_err(|e| e.to_string())
    });
    assert_eq!(unknown.unwrap(), Err("seat Z9 is not in the show".into()));
}
