//! The hold rules, decided and applied as the server does. Runs natively
//! and, through wasm-bindgen-test, in headless Chromium.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

mod support;

use seat_state::{Change, Decision, HoldStatus, Rejection, SeatState, ServerMillis, seat_state};
use support::{Desk, at, hold_id, holder, theatre};

fn taken(seats: &[&str]) -> Result<Decision, Rejection> {
    Err(Rejection::SeatsTaken { seats: seats.iter().map(|s| (*s).to_owned()).collect() })
}

/// The state a seat shows at `now`, derived from its facts as a browser would.
fn state_of(desk: &Desk, seat: &str, now: ServerMillis) -> SeatState {
    let fact = desk.state.seat_facts(None).into_iter().find(|f| f.id == seat).expect("known seat");
    seat_state(fact.sold, fact.hold_expires_at.map(ServerMillis), now)
}

#[test]
fn a_new_hold_takes_every_seat_until_its_deadline() {
    let mut desk = Desk::new(theatre(""));
    let decision = desk.hold("ann", "hold-ann-1", &["A1", "A2"], &[("standing", 2)], at(0));
    let Ok(Decision::Apply(Change::Created { hold })) = decision else { panic!("created: {decision:?}") };
    assert_eq!(hold.expires_at, at(600));
    assert_eq!(hold.stored_status, HoldStatus::Held);
    assert_eq!(desk.state.version(), 1);
    assert_eq!(state_of(&desk, "A1", at(599)), SeatState::Held);
    assert_eq!(state_of(&desk, "A1", at(600)), SeatState::Free);
    assert_eq!(desk.state.availability(&"standing".parse_id(), at(599)), 3);
    assert_eq!(desk.state.availability(&"standing".parse_id(), at(600)), 5);
    assert_eq!(desk.status("hold-ann-1", at(600)), "EXPIRED");
}

trait ParseId {
    fn parse_id(&self) -> seat_state::PlaceId;
}

impl ParseId for str {
    fn parse_id(&self) -> seat_state::PlaceId {
        seat_state::PlaceId::parse(self).expect("valid place id")
    }
}

#[test]
fn a_replay_answers_the_hold_as_it_stands_and_takes_nothing_more() {
    let mut desk = Desk::new(theatre(""));
    desk.hold("ann", "hold-ann-1", &["A1", "A2"], &[("standing", 1)], at(0)).unwrap();
    // Same body in another order, at the hold limit, even after the deadline.
    for now in [at(1), at(700)] {
        let replay = desk.hold("ann", "hold-ann-1", &["A2", "A1"], &[("standing", 1)], now);
        assert_eq!(replay, Ok(Decision::Unchanged));
    }
    assert_eq!(desk.state.version(), 1);
    for (who, seats, areas) in [
        ("ann", &["A1"][..], &[("standing", 1)][..]),
        ("ann", &["A1", "A2"][..], &[][..]),
        ("ann", &["A1", "A2"][..], &[("standing", 2)][..]),
        ("bob", &["A1", "A2"][..], &[("standing", 1)][..]),
    ] {
        let mismatch = desk.hold(who, "hold-ann-1", seats, areas, at(2));
        assert_eq!(mismatch, Err(Rejection::IdempotencyMismatch), "{who} {seats:?} {areas:?}");
    }
}

#[test]
fn the_hold_limit_counts_only_unexpired_holds() {
    let mut desk = Desk::new(theatre(""));
    desk.hold("ann", "hold-ann-1", &["A1"], &[], at(0)).unwrap();
    assert_eq!(desk.hold("ann", "hold-ann-2", &["A2"], &[], at(599)), Err(Rejection::HoldLimit));
    assert!(desk.hold("ann", "hold-ann-2", &["A2"], &[], at(600)).is_ok());
    desk.release("ann", "hold-ann-2", at(601)).unwrap();
    assert!(desk.hold("ann", "hold-ann-3", &["A3"], &[], at(602)).is_ok());
    assert_eq!(desk.state.active_holds_of(&holder("ann"), at(602)), 1);
}

#[test]
fn the_limit_comes_before_availability() {
    let mut desk = Desk::new(theatre(""));
    desk.hold("ann", "hold-ann-1", &["A1"], &[], at(0)).unwrap();
    assert_eq!(desk.hold("ann", "hold-ann-2", &["A1"], &[], at(1)), Err(Rejection::HoldLimit));
}

#[test]
fn seats_taken_names_every_held_or_sold_seat_and_takes_none() {
    let mut desk = Desk::new(theatre(r#""maxActiveHoldsPerHolder": 3"#));
    desk.hold("ann", "hold-ann-1", &["A1"], &[], at(0)).unwrap();
    desk.hold("ann", "hold-ann-2", &["A3"], &[], at(0)).unwrap();
    desk.confirm("ann", "hold-ann-2", at(1)).unwrap();
    let version = desk.state.version();
    let refused = desk.hold("bob", "hold-bob-1", &["A3", "A2", "A1"], &[], at(2));
    assert_eq!(refused, taken(&["A3", "A1"]));
    assert_eq!(refused.unwrap_err().message(), "A3 and A1 were just taken.");
    assert_eq!(desk.state.version(), version);
    assert_eq!(state_of(&desk, "A2", at(2)), SeatState::Free);
    // The hold on A1 ends at its deadline; the sale of A3 never does.
    assert_eq!(desk.hold("bob", "hold-bob-1", &["A3", "A1"], &[], at(600)), taken(&["A3"]));
    assert!(desk.hold("bob", "hold-bob-1", &["A1", "A2"], &[], at(600)).is_ok());
}

#[test]
fn an_area_without_enough_places_says_how_many_are_left() {
    let mut desk = Desk::new(theatre(r#""maxActiveHoldsPerHolder": 3"#));
    desk.hold("ann", "hold-ann-1", &[], &[("standing", 3)], at(0)).unwrap();
    desk.hold("ann", "hold-ann-2", &[], &[("standing", 1)], at(0)).unwrap();
    desk.confirm("ann", "hold-ann-2", at(1)).unwrap();
    let refused = desk.hold("bob", "hold-bob-1", &["B1"], &[("standing", 2)], at(2));
    assert_eq!(refused, Err(Rejection::NotEnoughSeats { area: "standing".into(), available: 1 }));
    assert_eq!(refused.unwrap_err().message(), "Only 1 place is left in standing.");
    assert!(desk.hold("bob", "hold-bob-1", &["B1"], &[("standing", 4)], at(600)).is_ok());
    let area = &desk.state.area_facts(None)[0];
    assert_eq!((area.sold, area.holds.len()), (1, 2));
}

#[test]
fn extend_adds_to_the_stored_deadline_a_bounded_number_of_times() {
    let mut desk = Desk::new(theatre(""));
    desk.hold("ann", "hold-ann-1", &["A1"], &[("standing", 1)], at(0)).unwrap();
    let first = desk.extend("ann", "hold-ann-1", at(100));
    assert_eq!(
        first,
        Ok(Decision::Apply(Change::Extended {
            hold: hold_id("hold-ann-1"),
            from: at(600),
            to: at(900),
            extensions: 1
        }))
    );
    assert!(desk.extend("ann", "hold-ann-1", at(899)).is_ok());
    assert_eq!(desk.extend("ann", "hold-ann-1", at(1000)), Err(Rejection::ExtensionLimit));
    let hold = desk.state.hold(&hold_id("hold-ann-1")).unwrap();
    assert_eq!((hold.expires_at, hold.extensions), (at(1200), 2));
    assert_eq!(desk.state.availability(&"standing".parse_id(), at(1199)), 4);
    assert_eq!(desk.state.expired_holds(at(1199), 10), vec![]);
    assert_eq!(desk.extend("ann", "hold-ann-1", at(1200)), Err(Rejection::HoldExpired));
}

#[test]
fn extend_refuses_by_status() {
    let mut desk = Desk::new(theatre(r#""maxActiveHoldsPerHolder": 3"#));
    for id in ["hold-ann-1", "hold-ann-2", "hold-ann-3"] {
        desk.hold("ann", id, &[], &[("standing", 1)], at(0)).unwrap();
    }
    desk.confirm("ann", "hold-ann-1", at(1)).unwrap();
    desk.release("ann", "hold-ann-2", at(1)).unwrap();
    assert_eq!(desk.extend("ann", "hold-ann-1", at(2)), Err(Rejection::AlreadyConfirmed));
    assert_eq!(desk.extend("ann", "hold-ann-2", at(2)), Err(Rejection::HoldReleased));
    assert_eq!(desk.extend("ann", "hold-ann-3", at(600)), Err(Rejection::HoldExpired));
    assert_eq!(desk.extend("bob", "hold-ann-3", at(2)), Err(Rejection::NoHold));
    assert_eq!(desk.extend("ann", "hold-unknown", at(2)), Err(Rejection::NoHold));
}

#[test]
fn confirm_sells_and_a_second_confirm_is_the_same_confirmation() {
    let mut desk = Desk::new(theatre(""));
    desk.hold("ann", "hold-ann-1", &["A1"], &[("standing", 2)], at(0)).unwrap();
    let confirmed = desk.confirm("ann", "hold-ann-1", at(599));
    assert!(matches!(confirmed, Ok(Decision::Apply(Change::Confirmed { late: false, .. }))));
    assert_eq!(desk.confirm("ann", "hold-ann-1", at(5000)), Ok(Decision::Unchanged));
    assert_eq!(desk.status("hold-ann-1", at(5000)), "CONFIRMED");
    let fact = &desk.state.seat_facts(Some(&holder("ann")))[0];
    assert_eq!((fact.sold, fact.hold_expires_at, fact.mine), (true, None, Some(true)));
    assert_eq!(desk.state.seat_facts(Some(&holder("bob")))[0].mine, Some(false));
    assert_eq!(desk.state.availability(&"standing".parse_id(), at(5000)), 3);
    assert_eq!(desk.confirm("bob", "hold-ann-1", at(1)), Err(Rejection::NoHold));
    assert_eq!(desk.release("ann", "hold-ann-1", at(1)), Err(Rejection::AlreadyConfirmed));
}

#[test]
fn a_late_confirm_fails_under_reject() {
    let mut desk = Desk::new(theatre(""));
    desk.hold("ann", "hold-ann-1", &["A1"], &[], at(0)).unwrap();
    assert_eq!(desk.confirm("ann", "hold-ann-1", at(600)), Err(Rejection::HoldExpired));
}

#[test]
fn honor_if_free_confirms_late_only_when_every_place_is_still_free() {
    let mut desk = Desk::new(theatre(r#""latePolicy": "honorIfFree", "maxActiveHoldsPerHolder": 2"#));
    desk.hold("ann", "hold-ann-1", &["A1", "A2"], &[("standing", 4)], at(0)).unwrap();
    desk.hold("ann", "hold-ann-2", &["A3"], &[], at(0)).unwrap();
    // A2 re-held by bob: ann's late confirm fails while bob's hold lasts.
    desk.hold("bob", "hold-bob-1", &["A2"], &[], at(700)).unwrap();
    assert_eq!(desk.confirm("ann", "hold-ann-1", at(800)), Err(Rejection::HoldExpired));
    let late = desk.confirm("ann", "hold-ann-1", at(1300));
    assert!(matches!(late, Ok(Decision::Apply(Change::Confirmed { late: true, .. }))), "{late:?}");
    let hold = desk.state.hold(&hold_id("hold-ann-1")).unwrap();
    assert!(hold.late);
    assert_eq!(state_of(&desk, "A2", at(1300)), SeatState::Sold);
    assert_eq!(desk.state.availability(&"standing".parse_id(), at(1300)), 1);
    // The sweep ran before the late confirm: it still works.
    assert_eq!(desk.sweep(at(1300)), 2);
    assert!(desk.confirm("ann", "hold-ann-2", at(1400)).is_ok());
    // Bob's expired hold never takes A2 back.
    assert_eq!(desk.confirm("bob", "hold-bob-1", at(1400)), Err(Rejection::HoldExpired));
    assert_eq!(state_of(&desk, "A2", at(1400)), SeatState::Sold);
}

#[test]
fn release_frees_the_places_and_releasing_again_changes_nothing() {
    let mut desk = Desk::new(theatre(r#""latePolicy": "honorIfFree""#));
    desk.hold("ann", "hold-ann-1", &["A1"], &[("standing", 2)], at(0)).unwrap();
    assert!(matches!(
        desk.release("ann", "hold-ann-1", at(10)),
        Ok(Decision::Apply(Change::Released { previous: HoldStatus::Held, .. }))
    ));
    assert_eq!(desk.release("ann", "hold-ann-1", at(11)), Ok(Decision::Unchanged));
    assert_eq!(state_of(&desk, "A1", at(11)), SeatState::Free);
    assert_eq!(desk.state.seat_facts(None)[0].hold_expires_at, None);
    assert_eq!(desk.state.availability(&"standing".parse_id(), at(11)), 5);
    assert_eq!(desk.confirm("ann", "hold-ann-1", at(12)), Err(Rejection::HoldReleased));
    assert_eq!(desk.state.expired_holds(at(5000), 10), vec![]);
}

#[test]
fn releasing_an_expired_hold_makes_a_late_confirm_impossible() {
    let mut desk = Desk::new(theatre(r#""latePolicy": "honorIfFree""#));
    desk.hold("ann", "hold-ann-1", &["A1"], &[], at(0)).unwrap();
    desk.hold("bob", "hold-bob-1", &["A2"], &[], at(0)).unwrap();
    desk.sweep(at(600));
    for who in ["ann", "bob"] {
        let id = format!("hold-{who}-1");
        let released = desk.release(who, &id, at(601 + i64::from(who == "bob")));
        let Ok(Decision::Apply(Change::Released { previous, .. })) = released else { panic!("{released:?}") };
        assert_eq!(previous, HoldStatus::Expired);
        assert_eq!(desk.confirm(who, &id, at(700)), Err(Rejection::HoldReleased));
    }
}

#[test]
fn a_stale_expiry_changes_nothing() {
    let mut desk = Desk::new(theatre(r#""maxActiveHoldsPerHolder": 3"#));
    desk.hold("ann", "hold-ann-1", &["A1"], &[], at(0)).unwrap();
    desk.hold("ann", "hold-ann-2", &["A2"], &[], at(0)).unwrap();
    desk.hold("ann", "hold-ann-3", &["A3"], &[], at(0)).unwrap();
    let (one, two, three) = (hold_id("hold-ann-1"), hold_id("hold-ann-2"), hold_id("hold-ann-3"));
    assert_eq!(desk.state.decide_expiry(&one, at(600), at(599)), Decision::Unchanged);
    desk.extend("ann", "hold-ann-1", at(1)).unwrap();
    desk.confirm("ann", "hold-ann-2", at(1)).unwrap();
    desk.release("ann", "hold-ann-3", at(1)).unwrap();
    for id in [&one, &two, &three, &hold_id("hold-unknown")] {
        assert_eq!(desk.state.decide_expiry(id, at(600), at(601)), Decision::Unchanged);
    }
    let before = desk.state.clone();
    for id in [one.clone(), two, three] {
        desk.state.apply(&Change::Expired { hold: id, deadline: at(600) });
    }
    assert_eq!(desk.state, before);
    assert!(matches!(desk.state.decide_expiry(&one, at(900), at(900)), Decision::Apply(_)));
}

#[test]
fn stale_changes_are_ignored_by_apply() {
    let mut desk = Desk::new(theatre(""));
    desk.hold("ann", "hold-ann-1", &["A1"], &[], at(0)).unwrap();
    let Some(Change::Created { hold }) = desk.log.first().cloned() else { panic!("logged") };
    desk.extend("ann", "hold-ann-1", at(1)).unwrap();
    let before = desk.state.clone();
    let id = hold_id("hold-ann-1");
    for stale in [
        Change::Created { hold },
        Change::Extended { hold: id.clone(), from: at(600), to: at(900), extensions: 1 },
        Change::Confirmed { hold: id.clone(), deadline: at(600), late: false },
        Change::Released { hold: id.clone(), previous: HoldStatus::Expired },
        Change::Expired { hold: id, deadline: at(600) },
    ] {
        desk.state.apply(&stale);
        assert_eq!(desk.state, before, "{stale:?}");
    }
}

#[test]
fn a_journal_replays_entry_by_entry_and_names_the_one_that_does_not_apply() {
    let mut desk = Desk::new(theatre(""));
    desk.hold("ann", "hold-ann-1", &["A1"], &[], at(0)).unwrap();
    desk.extend("ann", "hold-ann-1", at(1)).unwrap();
    let mut replayed = seat_state::ShowState::new(desk.state.show().clone());
    for (version, change) in (1..).zip(&desk.log) {
        replayed.apply_next(version, change).unwrap();
    }
    assert_eq!(replayed, desk.state, "the log replays to the state that wrote it");
    let first = desk.log[0].clone();
    assert_eq!(replayed.apply_next(5, &first).unwrap_err(), "at version 2, the next entry is 5");
    assert_eq!(replayed.apply_next(3, &first).unwrap_err(), "entry 3 does not apply to the show as it stood");
    assert_eq!(replayed, desk.state, "a refused entry changes nothing");
}

#[test]
fn the_sweep_sees_due_holds_earliest_first_and_bounded() {
    let mut desk = Desk::new(theatre(r#""maxActiveHoldsPerHolder": 5"#));
    for (n, seat) in ["A1", "A2", "A3"].iter().enumerate() {
        let id = format!("hold-ann-{n}");
        desk.hold("ann", &id, &[seat], &[], at(10 - n as i64)).unwrap();
    }
    assert_eq!(desk.state.next_deadline(), Some(at(608)));
    let due = desk.state.expired_holds(at(700), 2);
    assert_eq!(due, vec![(hold_id("hold-ann-2"), at(608)), (hold_id("hold-ann-1"), at(609))]);
    assert_eq!(desk.state.expired_holds(at(608), 10).len(), 1);
    assert_eq!(desk.sweep(at(700)), 3);
    assert_eq!(desk.status("hold-ann-0", at(0)), "EXPIRED");
    assert_eq!(desk.state.next_deadline(), None);
}

#[test]
fn holds_of_lists_newest_first() {
    let mut desk = Desk::new(theatre(r#""maxActiveHoldsPerHolder": 5"#));
    desk.hold("ann", "hold-ann-1", &["A1"], &[], at(0)).unwrap();
    desk.hold("bob", "hold-bob-1", &["A2"], &[], at(1)).unwrap();
    desk.hold("ann", "hold-ann-2", &["A3"], &[], at(2)).unwrap();
    let ids: Vec<String> = desk.state.holds_of(&holder("ann")).map(|h| h.id.to_string()).collect();
    assert_eq!(ids, ["hold-ann-2", "hold-ann-1"]);
    assert_eq!(desk.state.holds_of(&holder("eve")).count(), 0);
}

#[test]
fn a_restored_state_decides_like_the_original() {
    let mut desk = Desk::new(theatre(r#""maxActiveHoldsPerHolder": 5, "latePolicy": "honorIfFree""#));
    desk.hold("ann", "hold-ann-1", &["A1", "A2"], &[("standing", 2)], at(0)).unwrap();
    desk.hold("bob", "hold-bob-1", &["A1"], &[("standing", 1)], at(600)).unwrap();
    desk.hold("ann", "hold-ann-2", &["B1"], &[("standing", 1)], at(601)).unwrap();
    desk.confirm("ann", "hold-ann-2", at(602)).unwrap();
    desk.hold("eve", "hold-eve-1", &["B2"], &[], at(603)).unwrap();
    desk.release("eve", "hold-eve-1", at(604)).unwrap();
    desk.hold("eve", "hold-eve-2", &["B3"], &[], at(605)).unwrap();
    desk.sweep(at(1300));
    let mut stored: Vec<_> = desk.state.holds().cloned().collect();
    for order in 0..2 {
        stored.reverse();
        let mut restored =
            seat_state::ShowState::new(theatre(r#""maxActiveHoldsPerHolder": 5, "latePolicy": "honorIfFree""#));
        for hold in stored.iter().cloned() {
            restored.restore(hold);
        }
        restored.set_version(desk.state.version());
        for viewer in [None, Some(&holder("ann")), Some(&holder("bob"))] {
            assert_eq!(restored.seat_map(viewer, at(1300)), desk.state.seat_map(viewer, at(1300)), "{order}");
        }
        for who in ["ann", "bob", "eve"] {
            let ids = |s: &seat_state::ShowState| s.holds_of(&holder(who)).map(|h| h.id.clone()).collect::<Vec<_>>();
            assert_eq!(ids(&restored), ids(&desk.state));
        }
        assert_eq!(
            restored.decide_confirm(&holder("ann"), &hold_id("hold-ann-1"), at(1400)),
            desk.state.decide_confirm(&holder("ann"), &hold_id("hold-ann-1"), at(1400))
        );
    }
}

#[test]
fn change_events_carry_public_facts_at_the_new_version() {
    let mut desk = Desk::new(theatre(""));
    desk.hold("ann", "hold-ann-1", &["A2", "A1"], &[("standing", 2)], at(0)).unwrap();
    let change = desk.log[0].clone();
    let event = desk.state.change_event(&change, at(0));
    assert_eq!(event.version, 1);
    assert_eq!(event.seats.iter().map(|s| s.id.as_str()).collect::<Vec<_>>(), ["A2", "A1"]);
    assert!(event.seats.iter().all(|s| s.mine.is_none() && s.hold_expires_at == Some(at(600).0)));
    assert_eq!(event.areas[0].holds[0].quantity, 2);
    assert_eq!(event.areas[0].holds[0].mine, None);
    let wire = desk.state.hold(&hold_id("hold-ann-1")).unwrap().to_wire(&desk.state.show().id, at(3));
    assert_eq!((wire.status.as_str(), wire.server_time, wire.areas["standing"]), ("HELD", at(3).0, 2));
}

/// Two holds of one seat in one millisecond (a batch is decided at one
/// instant): the seat belongs to the one decided last, whatever the ids'
/// order, so a third customer can never take it while it is held.
#[test]
fn holds_in_one_millisecond_are_ordered_by_decision_not_by_id() {
    let mut desk = Desk::new(theatre("\"maxActiveHoldsPerHolder\": 5"));
    desk.hold("ann", "hold-zzz-1", &["A1"], &[], at(0)).unwrap();
    desk.release("ann", "hold-zzz-1", at(0)).unwrap();
    desk.hold("bob", "hold-aaa-1", &["A1"], &[], at(0)).unwrap();
    assert_eq!(state_of(&desk, "A1", at(0)), SeatState::Held);
    assert_eq!(desk.hold("cid", "hold-ccc-1", &["A1"], &[], at(0)), taken(&["A1"]));
    // The same state rebuilt from storage, in any order, agrees.
    let mut restored = seat_state::ShowState::new(theatre("\"maxActiveHoldsPerHolder\": 5"));
    for hold in desk.state.holds().rev() {
        restored.restore(hold.clone());
    }
    assert_eq!(restored.seat_facts(None), desk.state.seat_facts(None));
}
