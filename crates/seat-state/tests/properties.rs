//! Property tests over random sequences of operations (native only:
//! proptest needs the OS). The deterministic suites run in the browser too.
#![cfg(not(target_arch = "wasm32"))]
// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

mod support;

use proptest::prelude::*;

use seat_state::sync::Input;
use seat_state::wire::{RequestedQuantity, SeatFact, SeatMap};
use seat_state::{
    Change, ClockSample, ClockSync, Countdown, Decision, HoldStatus, LocalMillis, Rejection, SeatMapSync, SeatState,
    ServerMillis, ShowState, SteadyCountdown,
};
use support::{Desk, T0, body, hold_id, holder, random_ops_theatre, theatre};

const SEATS: [&str; 10] = ["A1", "A2", "A3", "A4", "A5", "B1", "B2", "B3", "B4", "B5"];
const HOLDERS: [&str; 3] = ["ann", "bob", "eve"];

#[derive(Debug, Clone)]
enum Op {
    Create { who: usize, id: usize, seats: Vec<usize>, standing: i64 },
    Extend { who: usize, id: usize },
    Confirm { who: usize, id: usize },
    Release { who: usize, id: usize },
    Sweep,
    StaleExpiry { id: usize, shift: i64 },
}

fn op() -> impl Strategy<Value = Op> {
    let who = 0..HOLDERS.len();
    let id = 0..6usize;
    prop_oneof![
        4 => (who.clone(), id.clone(), prop::collection::vec(0..SEATS.len(), 0..4), -1..4i64)
            .prop_map(|(who, id, seats, standing)| Op::Create { who, id, seats, standing }),
        1 => (who.clone(), id.clone()).prop_map(|(who, id)| Op::Extend { who, id }),
        1 => (who.clone(), id.clone()).prop_map(|(who, id)| Op::Confirm { who, id }),
        1 => (who, id.clone()).prop_map(|(who, id)| Op::Release { who, id }),
        1 => Just(Op::Sweep),
        1 => (id, prop_oneof![Just(-1i64), Just(1), Just(-300_000)]).prop_map(|(id, shift)| Op::StaleExpiry { id, shift }),
    ]
}

fn hold_name(id: usize) -> String {
    format!("hold-{id:04}")
}

/// Checks the rules by brute force over every hold, and that the browser's
/// map (fed every event) shows exactly what the server decided.
fn check_invariants(desk: &Desk, browser: &SeatMapSync, now: ServerMillis) {
    let state = &desk.state;
    let max_active = state.show().rules.max_active_holds_per_holder as usize;
    let facts = state.seat_facts(None);
    for (at, seat) in SEATS.iter().enumerate() {
        let covering = |status: HoldStatus| {
            state.holds().filter(|h| h.status_at(now) == status && h.seats.iter().any(|s| s.as_str() == *seat)).count()
        };
        let (held, sold) = (covering(HoldStatus::Held), covering(HoldStatus::Confirmed));
        assert!(held + sold <= 1, "{seat}: {held} active holds, sold {sold} times");
        let truth = match (held, sold) {
            (_, 1) => SeatState::Sold,
            (1, _) => SeatState::Held,
            _ => SeatState::Free,
        };
        let fact = &facts[at];
        assert_eq!(seat_state::seat_state(fact.sold, fact.hold_expires_at.map(ServerMillis), now), truth);
        assert_eq!(browser.seat(seat).map(|v| v.state), Some(truth), "{seat} in the browser");
    }
    let standing = seat_state::PlaceId::parse("standing").unwrap();
    let taken: u32 = state
        .holds()
        .filter(|h| matches!(h.status_at(now), HoldStatus::Held | HoldStatus::Confirmed))
        .flat_map(|h| h.areas.iter().map(|(_, q)| q.get()))
        .sum();
    assert!(taken <= 5, "standing oversold: {taken}");
    assert_eq!(state.availability(&standing, now), 5 - taken);
    assert_eq!(browser.area("standing").map(|a| a.available), Some(5 - taken));
    for who in HOLDERS {
        assert!(state.active_holds_of(&holder(who), now) <= max_active);
    }
    assert_eq!(state.version(), desk.log.len() as i64);
    assert_eq!(browser.version(), Some(state.version()));
}

/// Runs one operation and checks that a refusal or no-op changed nothing.
fn run(desk: &mut Desk, op: &Op, now: ServerMillis) {
    let before = desk.state.clone();
    let result = match op {
        Op::Create { who, id, seats, standing } => {
            let names: Vec<&str> = seats.iter().map(|s| SEATS[*s]).collect();
            let areas: Vec<(&str, i64)> = if *standing == 0 { vec![] } else { vec![("standing", *standing)] };
            let result = desk.hold(HOLDERS[*who], &hold_name(*id), &names, &areas, now);
            check_create(&before, &result, HOLDERS[*who], &names, now);
            if let Ok(Decision::Apply(_)) = result {
                // The same request again changes nothing.
                let again = desk.hold(HOLDERS[*who], &hold_name(*id), &names, &areas, now);
                assert_eq!(again, Ok(Decision::Unchanged));
            }
            result
        }
        Op::Extend { who, id } => desk.extend(HOLDERS[*who], &hold_name(*id), now),
        Op::Confirm { who, id } => {
            let result = desk.confirm(HOLDERS[*who], &hold_name(*id), now);
            if result.is_ok() {
                assert_eq!(desk.confirm(HOLDERS[*who], &hold_name(*id), now), Ok(Decision::Unchanged));
            }
            result
        }
        Op::Release { who, id } => {
            let result = desk.release(HOLDERS[*who], &hold_name(*id), now);
            if result.is_ok() {
                assert_eq!(desk.release(HOLDERS[*who], &hold_name(*id), now), Ok(Decision::Unchanged));
            }
            result
        }
        Op::Sweep => {
            let swept = desk.sweep(now);
            assert_eq!(desk.state.expired_holds(now, usize::MAX), vec![]);
            // Expiring changes no seat's state: the deadline already did.
            assert_eq!(desk.state.seat_facts(None).len(), before.seat_facts(None).len());
            for (a, b) in desk.state.seat_facts(None).iter().zip(before.seat_facts(None)) {
                let state = |f: &seat_state::wire::SeatFact| {
                    seat_state::seat_state(f.sold, f.hold_expires_at.map(ServerMillis), now)
                };
                assert_eq!(state(a), state(&b));
            }
            assert_eq!(desk.state.version(), before.version() + swept as i64);
            return;
        }
        Op::StaleExpiry { id, shift } => {
            let id = hold_id(&hold_name(*id));
            if let Some(hold) = desk.state.hold(&id) {
                let stale = hold.expires_at.plus_millis(*shift);
                assert_eq!(desk.state.decide_expiry(&id, stale, now), Decision::Unchanged);
                if hold.stored_status != HoldStatus::Held || hold.expires_at > now {
                    let exact = desk.state.decide_expiry(&id, hold.expires_at, now);
                    assert_eq!(exact, Decision::Unchanged, "not due");
                }
                desk.state.apply(&Change::Expired { hold: id, deadline: stale });
            }
            Ok(Decision::Unchanged)
        }
    };
    if matches!(result, Err(_) | Ok(Decision::Unchanged)) {
        assert_eq!(desk.state, before, "{op:?} gave {result:?} yet changed the state");
    }
}

/// A refused or accepted create agrees with a brute-force look at the holds.
fn check_create(
    before: &ShowState,
    result: &Result<Decision, Rejection>,
    who: &str,
    seats: &[&str],
    now: ServerMillis,
) {
    let unavailable: Vec<String> = seats
        .iter()
        .filter(|seat| {
            before.holds().any(|h| {
                matches!(h.status_at(now), HoldStatus::Held | HoldStatus::Confirmed)
                    && h.seats.iter().any(|s| s.as_str() == **seat)
            })
        })
        .map(|s| (*s).to_owned())
        .collect();
    match result {
        Ok(Decision::Apply(Change::Created { hold })) => {
            assert!(unavailable.is_empty(), "created over {unavailable:?}");
            assert_eq!(hold.expires_at, now.plus_millis(600_000));
        }
        Err(Rejection::SeatsTaken { seats }) => assert_eq!(*seats, unavailable),
        Err(Rejection::HoldLimit) => {
            let active = before.active_holds_of(&holder(who), now);
            assert_eq!(active, before.show().rules.max_active_holds_per_holder as usize);
        }
        Err(Rejection::NotEnoughSeats { available, .. }) => {
            let standing = seat_state::PlaceId::parse("standing").unwrap();
            assert_eq!(*available, before.availability(&standing, now));
        }
        _ => {}
    }
}

proptest! {
    #[test]
    fn random_operations_never_break_the_rules(
        honor in any::<bool>(),
        steps in prop::collection::vec((op(), 0..400i64), 1..40),
    ) {
        let show = random_ops_theatre(honor);
        let mut desk = Desk::new(show.clone());
        let mut browser = SeatMapSync::new();
        browser.handle_input(Input::ClockSample(ClockSample { sent: LocalMillis(T0.0), server: T0, received: LocalMillis(T0.0) }));
        browser.handle_input(Input::Snapshot(desk.state.seat_map(None, T0)));
        let mut now = T0;
        for (op, advance) in &steps {
            now = now.plus_millis(advance * 1000);
            let published = desk.events.len();
            run(&mut desk, op, now);
            for event in &desk.events[published..] {
                browser.handle_input(Input::Change(event.clone()));
            }
            browser.handle_input(Input::Tick(LocalMillis(now.0)));
            check_invariants(&desk, &browser, now);
        }
        // A restart: the stored holds, in any order, give the same state.
        let mut restored = ShowState::new(show);
        for hold in desk.state.holds().rev().cloned() {
            restored.restore(hold);
        }
        restored.set_version(desk.state.version());
        prop_assert_eq!(restored.seat_map(None, now), desk.state.seat_map(None, now));
        let mut due = desk.state.expired_holds(now, usize::MAX);
        let mut due_restored = restored.expired_holds(now, usize::MAX);
        due.sort();
        due_restored.sort();
        prop_assert_eq!(due, due_restored);
    }

    #[test]
    fn a_rejected_request_changes_nothing(
        seats in prop::collection::vec("[A-C][0-6]", 0..5),
        standing in prop_oneof![Just(None), (-2..8i64).prop_map(Some)],
    ) {
        let mut desk = Desk::new(theatre(r#""maxActiveHoldsPerHolder": 2"#));
        desk.hold("ann", "hold-seed-1", &["A1", "B5"], &[("standing", 3)], T0).unwrap();
        let before = desk.state.clone();
        let names: Vec<&str> = seats.iter().map(String::as_str).collect();
        let mut request = body("hold-bob-1", &names, &[]);
        if let Some(n) = standing {
            request.areas.insert("standing".into(), RequestedQuantity::Integer(n));
        }
        let decided = desk
            .state
            .parse_request(&request, hold_id("generated"))
            .and_then(|r| desk.state.decide_create(&holder("bob"), &r, T0));
        if decided.is_err() {
            prop_assert_eq!(&desk.state, &before);
        } else {
            prop_assert!(matches!(decided, Ok(Decision::Apply(_))));
        }
    }

    #[test]
    fn the_countdown_never_shows_more_than_the_server_allows(
        remaining in -10_000..2_000_000i64,
        uncertainty in 0..5_000i64,
        buffer in 0..10_000i64,
        later in 0..100_000i64,
    ) {
        let deadline = ServerMillis(10_000_000);
        let now = ServerMillis(deadline.0 - remaining);
        let view = Countdown::at(deadline, now, uncertainty, buffer);
        prop_assert!(i64::from(view.remaining_secs) * 1000 <= (remaining - buffer - uncertainty).max(0));
        let after = Countdown::at(deadline, now.plus_millis(later), uncertainty, buffer);
        prop_assert!(after.remaining_secs <= view.remaining_secs);
        if let Some(next) = view.next_change_in_millis {
            let just_before = Countdown::at(deadline, now.plus_millis(next - 1), uncertainty, buffer);
            let at_change = Countdown::at(deadline, now.plus_millis(next), uncertainty, buffer);
            prop_assert_eq!(just_before.remaining_secs, view.remaining_secs);
            prop_assert_eq!(at_change.remaining_secs, view.remaining_secs - 1);
        } else {
            prop_assert_eq!(view.remaining_secs, 0);
        }
    }

    #[test]
    fn a_steady_countdown_never_goes_up_while_the_estimate_wobbles(
        steps in prop::collection::vec((0..3_000i64, -1_000..1_000i64), 1..50),
    ) {
        let deadline = ServerMillis(1_000_000);
        let mut steady = SteadyCountdown::default();
        let (mut now, mut last) = (ServerMillis(0), u32::MAX);
        for (advance, wobble) in steps {
            now = now.plus_millis(advance);
            let shown = steady.view(deadline, now.plus_millis(wobble), 300, 5_000).remaining_secs;
            prop_assert!(shown <= last);
            last = shown;
        }
    }

    #[test]
    fn the_clock_estimate_stays_within_its_uncertainty(
        trips in prop::collection::vec((0..5_000i64, 1..2_000i64, 0.0..=1.0f64), 1..20),
        jump_at in 0..20usize,
        jump in -600_000..600_000i64,
    ) {
        let mut sync = ClockSync::new();
        let (mut local, mut true_offset) = (1_000_000i64, 42_000i64);
        for (n, (pause, round_trip, read_at)) in trips.into_iter().enumerate() {
            if n == jump_at {
                local += jump;
                true_offset -= jump;
            }
            local += pause;
            let read = (read_at * round_trip as f64) as i64;
            let sample = ClockSample {
                sent: LocalMillis(local),
                server: ServerMillis(local + read + true_offset),
                received: LocalMillis(local + round_trip),
            };
            local += round_trip;
            sync.add(sample);
            let estimate = sync.offset().unwrap();
            let newest = (round_trip + 1) / 2;
            let error = (estimate.offset_millis - true_offset).abs();
            if n < jump_at {
                prop_assert!(error <= estimate.uncertainty_millis, "{error} > {estimate:?}");
            }
            prop_assert!(
                error <= estimate.uncertainty_millis + 2 * newest + ClockSync::JUMP_TOLERANCE_MILLIS,
                "{error} after a jump of {jump}"
            );
        }
    }

    #[test]
    fn a_seat_never_frees_on_screen_before_the_server_frees_it(
        trips in prop::collection::vec((1..2_000i64, 0.0..=1.0f64), 1..6),
        true_offset in -600_000..600_000i64,
        until_deadline in 0..5_000i64,
        ticks in prop::collection::vec(0..6_000i64, 1..30),
    ) {
        // The local clock reads `local`, the server's `local + true_offset`;
        // each sample's server read falls anywhere within its round trip.
        let mut sync = SeatMapSync::new();
        let mut local = 1_000_000i64;
        let mut widest = 0;
        for (round_trip, read_at) in trips {
            let read = (read_at * round_trip as f64) as i64;
            sync.handle_input(Input::ClockSample(ClockSample {
                sent: LocalMillis(local),
                server: ServerMillis(local + read + true_offset),
                received: LocalMillis(local + round_trip),
            }));
            local += round_trip;
            widest = widest.max(round_trip);
        }
        let deadline = local + true_offset + until_deadline;
        let seat = SeatFact { id: "A1".into(), hold_expires_at: Some(deadline), ..SeatFact::default() };
        sync.handle_input(Input::Tick(LocalMillis(local)));
        sync.handle_input(Input::Snapshot(SeatMap {
            show_id: "show".into(),
            server_time: local + true_offset,
            version: 1,
            seats: vec![seat],
            areas: Vec::new(),
        }));
        for pause in ticks {
            local += pause;
            sync.handle_input(Input::Tick(LocalMillis(local)));
            let state = sync.seat("A1").unwrap().state;
            prop_assert!(state == SeatState::Held || local + true_offset >= deadline, "free {} ms early", deadline - local - true_offset);
            // Late by at most the best sample's whole round trip.
            if local + true_offset >= deadline + widest {
                prop_assert_eq!(state, SeatState::Free);
            }
        }
    }
}
