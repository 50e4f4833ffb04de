//! A real show deciding random requests.

use super::*;

pub(crate) const HOLDERS: [&str; 3] = ["ann", "bob", "eve"];

/// W1 (companion of W2), W2 (wheelchair), A1..A6, P1 and P2 (channel
/// `presale`, code SECRET); area `standing` of 4. Holds last 60 s, an
/// extension adds 300 s: a story's clock moves less than that in all, so
/// two holds of a seat never share a deadline (see `deadline`).
pub(crate) fn real_show() -> ShowState {
    let mut seats = vec![
        json!({"id": "W1", "x": 0, "y": 0, "access": "companion", "companionOf": "W2"}),
        json!({"id": "W2", "x": 10, "y": 0, "access": "wheelchair"}),
    ];
    seats.extend((1..=6).map(|n| json!({"id": format!("A{n}"), "x": n * 10, "y": 10})));
    seats.extend((1..=2).map(|n| json!({"id": format!("P{n}"), "x": n * 10, "y": 20})));
    let show = json!({
        "id": "real", "name": "Real", "holdSeconds": 60, "extensionSeconds": 300, "maxExtensions": 2,
        "maxSeatsPerHold": 4, "maxActiveHoldsPerHolder": 3, "seats": seats,
        "areas": [{"id": "standing", "name": "Standing", "capacity": 4}],
        "channels": [{"id": "presale", "code": "SECRET", "seats": ["P1", "P2"]}],
    });
    ShowState::new(Show::parse(&serde_json::from_value::<ShowInput>(show).unwrap()).unwrap())
}

pub(crate) const REAL_SEATS: [&str; 10] = ["W1", "W2", "A1", "A2", "A3", "A4", "A5", "A6", "P1", "P2"];

#[derive(Debug, Clone)]
pub(crate) enum Op {
    Hold { who: usize, id: usize, seats: Vec<usize>, standing: i64, code: bool, access: bool },
    Extend { who: usize, id: usize },
    Confirm { who: usize, id: usize },
    Release { who: usize, id: usize },
    OperatorRelease { id: usize },
    Block { seats: Vec<usize> },
    Unblock { seats: Vec<usize> },
    Sweep,
}

pub(crate) fn op() -> impl Strategy<Value = Op> {
    let who = 0..HOLDERS.len();
    let id = 0..8usize;
    let seats = prop::collection::vec(0..REAL_SEATS.len(), 1..4);
    prop_oneof![
        6 => (who.clone(), id.clone(), seats.clone(), 0..3i64, prop::bool::weighted(0.3), prop::bool::weighted(0.3))
            .prop_map(|(who, id, seats, standing, code, access)| Op::Hold { who, id, seats, standing, code, access }),
        1 => (who.clone(), id.clone()).prop_map(|(who, id)| Op::Extend { who, id }),
        2 => (who.clone(), id.clone()).prop_map(|(who, id)| Op::Confirm { who, id }),
        2 => (who, id.clone()).prop_map(|(who, id)| Op::Release { who, id }),
        1 => id.prop_map(|id| Op::OperatorRelease { id }),
        1 => seats.clone().prop_map(|seats| Op::Block { seats }),
        1 => seats.prop_map(|seats| Op::Unblock { seats }),
        2 => Just(Op::Sweep),
    ]
}

/// A real show's history, as [`Story`] (`mine` answered for ann).
pub(crate) struct RealStory {
    pub(crate) state: ShowState,
    /// Ann's seat map after each version, and its `?only=taken` form.
    pub(crate) maps: Vec<(SeatMap, SeatMap)>,
    pub(crate) events: Vec<ChangeEvent>,
    pub(crate) now: i64,
}

pub(crate) fn hold_name(id: usize) -> HoldId {
    HoldId::parse(&format!("hold-{id:04}")).unwrap()
}

pub(crate) fn seat_ids(seats: &[usize]) -> Vec<PlaceId> {
    seats.iter().map(|&at| PlaceId::parse(REAL_SEATS[at]).unwrap()).collect()
}

pub(crate) fn decide(state: &ShowState, op: &Op, now: ServerMillis) -> Vec<Decision> {
    let holder = |who: usize| HolderId::new(HOLDERS[who]);
    let decided = match op {
        Op::Hold { who, id, seats, standing, code, access } => {
            let mut body = json!({"holdId": format!("hold-{id:04}"),
                "seats": seats.iter().map(|&at| REAL_SEATS[at]).collect::<Vec<_>>()});
            if *standing > 0 {
                body["areas"] = json!({"standing": standing});
            }
            if *code {
                body["channel"] = json!("SECRET");
            }
            if *access {
                body["access"] = json!(true);
            }
            let order: HoldOrder = serde_json::from_value(body).unwrap();
            state
                .parse_order(&order, hold_name(99))
                .and_then(|request| state.decide_create(&holder(*who), &request, now))
        }
        Op::Extend { who, id } => state.decide_extend(&holder(*who), &hold_name(*id), now),
        Op::Confirm { who, id } => state.decide_confirm(&holder(*who), &hold_name(*id), now),
        Op::Release { who, id } => state.decide_release(&holder(*who), &hold_name(*id), now),
        Op::OperatorRelease { id } => state.decide_operator_release(&hold_name(*id), now),
        Op::Block { seats } => state.decide_block(&seat_ids(seats), "test"),
        Op::Unblock { seats } => state.decide_unblock(&seat_ids(seats)),
        Op::Sweep => {
            let due = state.expired_holds(now, usize::MAX);
            return due.iter().map(|(id, deadline)| state.decide_expiry(id, *deadline, now)).collect();
        }
    };
    decided.into_iter().collect()
}

pub(crate) fn real_story(ops: &[(Op, i64)]) -> RealStory {
    let mut state = real_show();
    let ann = HolderId::new("ann");
    let mut now = NOW;
    let mut maps =
        vec![(state.seat_map(Some(&ann), ServerMillis(now)), state.taken_seat_map(Some(&ann), ServerMillis(now)))];
    let mut events = Vec::new();
    for (op, wait) in ops {
        // The clock always moves: see `real_show`.
        now += wait;
        for decision in decide(&state, op, ServerMillis(now)) {
            let Decision::Apply(change) = decision else { continue };
            let before = state.version();
            state.apply(&change);
            assert_eq!(state.version(), before + 1, "a decided change applies: {change:?}");
            events.push(state.change_event(&change, ServerMillis(now)));
            let at = ServerMillis(now);
            maps.push((state.seat_map(Some(&ann), at), state.taken_seat_map(Some(&ann), at)));
        }
    }
    RealStory { state, maps, events, now }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// The server's own events and maps: conflated at random tick ends,
    /// compact, and with a session's snapshot (ann's `mine`) at any version.
    #[test]
    fn a_real_show_conflated_and_compact(
        ops in prop::collection::vec((op(), 1..5_000i64), 1..40),
        ends in prop::collection::vec(prop::bool::weighted(0.3), 40),
        at in any::<prop::sample::Index>(),
    ) {
        let story = real_story(&ops);
        prop_assume!(!story.events.is_empty());
        let document = story.state.show().to_wire();
        let order = SeatOrder::of_document(&document.clone().for_customers());
        prop_assert_eq!(&order, &SeatOrder::of_document(&document));
        prop_assert_eq!(order.ids().collect::<Vec<_>>(), REAL_SEATS.to_vec());
        let first = story.maps[0].0.version;
        let frames = conflate(&story.events, &ends);
        let maps: Vec<SeatMap> = story.maps.iter().map(|(map, _)| map.clone()).collect();
        check_frames(&frames, &maps, first)?;

        for event in story.events.iter().chain(&frames) {
            check_compact_change(event, &order)?;
        }
        for (map, taken) in &story.maps {
            prop_assert_eq!(&CompactMap::encode(map, &order).unwrap().decode(&order).unwrap(), taken);
            check_compact_map(map, &order)?;
        }
        for viewer in HOLDERS.iter().map(|who| Some(HolderId::new(*who))).chain([None]) {
            let at = ServerMillis(story.now);
            let map = story.state.seat_map(viewer.as_ref(), at);
            let compact = CompactMap::encode(&map, &order).unwrap();
            prop_assert_eq!(compact.decode(&order).unwrap(), story.state.taken_seat_map(viewer.as_ref(), at));
            // The whole map: the JSON one, but a seat held past its deadline
            // (not yet swept), neither sold nor blocked, is not listed, so it
            // comes back free.
            let mut whole = map.clone();
            for fact in &mut whole.seats {
                if !fact.sold && !fact.blocked && fact.hold_expires_at.is_some_and(|deadline| deadline <= at.0) {
                    fact.hold_expires_at = None;
                    fact.mine = Some(fact.sold && fact.mine == Some(true));
                }
            }
            prop_assert_eq!(compact.decode_every(&order).unwrap(), whole);
        }

        // Ann's browser from the first snapshot: the two streams agree.
        let last = story.state.seat_map(Some(&HolderId::new("ann")), ServerMillis(story.now));
        let mut raw = browser(story.now);
        raw.handle_input(Input::Snapshot(maps[0].clone()));
        feed_all(&mut raw, &story.events);
        let mut conflated = browser(story.now);
        conflated.handle_input(Input::Snapshot(maps[0].clone()));
        feed_all(&mut conflated, &frames);
        prop_assert_eq!(seat_views(&raw), seat_views(&conflated));
        prop_assert_eq!(area_views(&raw), area_views(&conflated));
        prop_assert_eq!(split_mine(&seat_views(&raw)).0, split_mine(&expected_seats(&last, story.now)).0);

        // From a snapshot at any version: states as the server's, and
        // `mine` only where the server says so.
        let snapshot = &maps[at.index(maps.len())];
        let shown_mine = check_snapshot_inside(snapshot, &story.events, &frames, &last, story.now)?;
        let (_, truly_mine) = split_mine(&expected_seats(&last, story.now));
        prop_assert!(shown_mine.is_subset(&truly_mine), "mine: {:?}, truly: {:?}", shown_mine, truly_mine);
    }
}
