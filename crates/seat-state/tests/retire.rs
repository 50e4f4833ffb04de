//! Evicting settled holds changes no decision and no seat map: a state that
//! lets every settled hold go (and recalls one from "storage" when a request
//! names it, as the server does) decides exactly as one that keeps them
//! all, and its checkpoint (kept holds and retired sales) restores the same
//! map for every viewer.
#![cfg(not(target_arch = "wasm32"))]
// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

mod support;

use proptest::prelude::*;

use seat_state::{HoldStatus, ServerMillis, ShowState};
use support::{Desk, T0, hold_id, holder, random_ops_theatre, theatre};

const SEATS: [&str; 6] = ["A1", "A2", "A3", "B1", "B2", "B3"];
const HOLDERS: [&str; 2] = ["ann", "bob"];

#[derive(Debug, Clone)]
enum Op {
    Create { who: usize, id: usize, seats: Vec<usize>, standing: i64 },
    Extend { who: usize, id: usize },
    Confirm { who: usize, id: usize },
    Release { who: usize, id: usize },
    Sweep,
}

fn op() -> impl Strategy<Value = Op> {
    let (who, id) = (0..HOLDERS.len(), 0..5usize);
    prop_oneof![
        4 => (who.clone(), id.clone(), prop::collection::vec(0..SEATS.len(), 0..3), 0..3i64)
            .prop_map(|(who, id, seats, standing)| Op::Create { who, id, seats, standing }),
        1 => (who.clone(), id.clone()).prop_map(|(who, id)| Op::Extend { who, id }),
        2 => (who.clone(), id.clone()).prop_map(|(who, id)| Op::Confirm { who, id }),
        1 => (who, id).prop_map(|(who, id)| Op::Release { who, id }),
        1 => Just(Op::Sweep),
    ]
}

fn name(id: usize) -> String {
    format!("hold-{id:04}")
}

fn run(desk: &mut Desk, op: &Op, now: ServerMillis) -> String {
    let result = match op {
        Op::Create { who, id, seats, standing } => {
            let seats: Vec<&str> = seats.iter().map(|&s| SEATS[s]).collect();
            let areas: Vec<(&str, i64)> = if *standing > 0 { vec![("standing", *standing)] } else { vec![] };
            desk.hold(HOLDERS[*who], &name(*id), &seats, &areas, now)
        }
        Op::Extend { who, id } => desk.extend(HOLDERS[*who], &name(*id), now),
        Op::Confirm { who, id } => desk.confirm(HOLDERS[*who], &name(*id), now),
        Op::Release { who, id } => desk.release(HOLDERS[*who], &name(*id), now),
        Op::Sweep => return format!("swept {}", desk.sweep(now)),
    };
    format!("{result:?}")
}

/// Every viewer's map: the public one and each holder's own.
fn maps(state: &ShowState, now: ServerMillis) -> Vec<String> {
    let mut maps = vec![format!("{:?}", state.seat_map(None, now))];
    maps.extend(HOLDERS.iter().map(|who| format!("{:?}", state.seat_map(Some(&holder(who)), now))));
    maps
}

proptest! {
    #[test]
    fn evicting_settled_holds_changes_no_decision_and_no_map(
        honor in any::<bool>(),
        steps in prop::collection::vec((op(), 0..400i64), 1..40),
    ) {
        let show = random_ops_theatre(honor);
        let (mut full, mut lean) = (Desk::new(show.clone()), Desk::new(show.clone()));
        let mut now = T0;
        for (op, advance) in &steps {
            now = now.plus_millis(advance * 1000);
            // The server recalls a hold a request names from storage, which
            // has it as the keeping state does.
            for id in 0..5 {
                if let Some(hold) = full.state.hold(&hold_id(&name(id))) {
                    lean.state.recall(hold.clone());
                }
            }
            prop_assert_eq!(run(&mut full, op, now), run(&mut lean, op, now), "{:?}", op);
            prop_assert_eq!(full.state.version(), lean.state.version());
            prop_assert_eq!(maps(&full.state, now), maps(&lean.state, now));
            for id in 0..5 {
                let id = hold_id(&name(id));
                let settled = lean.state.hold(&id).is_some_and(|h| h.stored_status != HoldStatus::Held);
                prop_assert_eq!(lean.state.evict(&id), settled, "only settled holds leave");
            }
            prop_assert_eq!(maps(&full.state, now), maps(&lean.state, now));
            prop_assert_eq!(full.state.expired_holds(now, usize::MAX), lean.state.expired_holds(now, usize::MAX));
            // A checkpoint of the lean state (its held holds, every sale and
            // the seats' floors) restores every viewer's map.
            let mut restored = ShowState::new(show.clone());
            restored.restore_retired(&lean.state.sales());
            for hold in lean.state.checkpoint_holds() {
                restored.restore(hold);
            }
            restored.set_version(lean.state.version());
            prop_assert_eq!(maps(&restored, now), maps(&full.state, now));
        }
        prop_assert!(lean.state.kept_holds() <= full.state.kept_holds());
    }
}

#[test]
fn a_sold_seat_stays_sold_and_mine_once_its_hold_is_evicted_and_recalled() {
    let show = theatre(r#""maxActiveHoldsPerHolder": 2"#);
    let mut desk = Desk::new(show);
    desk.hold("ann", "hold-0001", &["A1"], &[("standing", 2)], T0).unwrap();
    desk.confirm("ann", "hold-0001", T0).unwrap();
    let kept = desk.state.hold(&hold_id("hold-0001")).unwrap().clone();
    let before = maps(&desk.state, T0);
    assert!(desk.state.evict(&hold_id("hold-0001")));
    assert_eq!(desk.state.kept_holds(), 0);
    assert_eq!(maps(&desk.state, T0), before, "sold and mine, without the hold in memory");
    desk.state.recall(kept);
    assert_eq!(maps(&desk.state, T0), before, "a recalled sale is not counted twice");
    assert!(desk.state.evict(&hold_id("hold-0001")));
    assert_eq!(maps(&desk.state, T0), before, "nor when it leaves again");
    let sales = desk.state.sales();
    assert_eq!(sales.seats, [(seat_state::SeatId::parse("A1").unwrap(), holder("ann"))]);
    assert_eq!(sales.areas[0].1, 2);
}
