//! The browser's side: a machine fed events, and the checks every story passes.

use super::*;

/// A browser whose clock agrees with the server's, at server time `now`.
pub(crate) fn browser(now: i64) -> SeatMapSync {
    let mut sync = SeatMapSync::new();
    sync.handle_input(Input::ClockSample(ClockSample {
        sent: LocalMillis(now),
        server: ServerMillis(now),
        received: LocalMillis(now),
    }));
    sync.handle_input(Input::Tick(LocalMillis(now)));
    sync
}

/// Everything the machine asks for until its next timeout.
pub(crate) fn asked(sync: &mut SeatMapSync) -> Vec<Output> {
    let mut asked = Vec::new();
    loop {
        match sync.poll_output() {
            Output::Timeout(_) => return asked,
            output => asked.push(output),
        }
    }
}

pub(crate) fn feed_all(sync: &mut SeatMapSync, events: &[ChangeEvent]) {
    for event in events {
        sync.handle_input(Input::Change(event.clone()));
    }
}

pub(crate) fn seat_views(sync: &SeatMapSync) -> Vec<(String, SeatView)> {
    sync.seats().map(|(id, view)| (id.to_owned(), view)).collect()
}

pub(crate) fn area_views(sync: &SeatMapSync) -> Vec<(String, AreaView)> {
    sync.areas().map(|(id, view)| (id.to_owned(), view)).collect()
}

/// How a browser that knows only `map` shows its seats at `now`.
pub(crate) fn expected_seats(map: &SeatMap, now: i64) -> Vec<(String, SeatView)> {
    map.seats
        .iter()
        .map(|fact| {
            let state = seat_state(fact.sold, fact.hold_expires_at.map(ServerMillis), ServerMillis(now));
            let mine = state != SeatState::Free && fact.mine == Some(true);
            (fact.id.clone(), SeatView { state, mine, blocked: fact.blocked })
        })
        .collect()
}

/// How a browser that knows only `map` shows its areas at `now`.
pub(crate) fn expected_areas(map: &SeatMap, now: i64) -> Vec<(String, AreaView)> {
    map.areas
        .iter()
        .map(|fact| {
            let held: i64 = fact.holds.iter().filter(|hold| hold.expires_at > now).map(|hold| hold.quantity).sum();
            let view = AreaView {
                capacity: u32::try_from(fact.capacity).unwrap(),
                available: u32::try_from((fact.capacity - fact.sold - held).max(0)).unwrap(),
            };
            (fact.id.clone(), view)
        })
        .collect()
}

/// Each seat's state and whether it is blocked, and apart the seats shown as mine.
pub(crate) fn split_mine(views: &[(String, SeatView)]) -> (Vec<(String, SeatState, bool)>, BTreeSet<String>) {
    let states = views.iter().map(|(id, view)| (id.clone(), view.state, view.blocked)).collect();
    let mine = views.iter().filter(|(_, view)| view.mine).map(|(id, _)| id.clone()).collect();
    (states, mine)
}

/// The changes of each tick conflated, as the server's streams send them:
/// a tick ends after event `i` when `ends[i]`, and after the last.
pub(crate) fn conflate(events: &[ChangeEvent], ends: &[bool]) -> Vec<ChangeEvent> {
    let mut frames = Vec::new();
    let mut tick = Conflation::default();
    for (event, &ends) in events.iter().zip(ends.iter().chain(std::iter::repeat(&false))) {
        tick.push(event.clone());
        assert!(!tick.is_empty());
        if ends {
            frames.extend(tick.take());
        }
    }
    frames.extend(tick.take());
    assert!(tick.is_empty() && tick.take().is_none(), "taking empties the conflation");
    frames
}

/// A seat's public state, without `mine`.
pub(crate) fn standing(fact: &SeatFact) -> (bool, Option<i64>, bool) {
    (fact.sold, fact.hold_expires_at, fact.blocked)
}

/// An area's facts as events give them (no `mine`).
pub(crate) fn public(area: &AreaFact) -> AreaFact {
    let holds = area.holds.iter().map(|hold| AreaHoldFact { mine: None, ..hold.clone() }).collect();
    AreaFact { holds, ..area.clone() }
}

pub(crate) fn by_id(mut seats: Vec<SeatFact>) -> Vec<SeatFact> {
    seats.sort_by(|a, b| a.id.cmp(&b.id));
    seats
}

/// What `?only=taken` lists of a full seat map: seats sold, blocked, or
/// held past its `serverTime` (API.md "On-sale (v3)").
pub(crate) fn taken(map: &SeatMap) -> SeatMap {
    let t = map.server_time;
    let seats = map.seats.iter().filter(|f| f.sold || f.blocked || f.hold_expires_at.is_some_and(|d| d > t));
    SeatMap { seats: seats.cloned().collect(), ..map.clone() }
}

/// `CompactChange::encode`, through JSON, `decode`: the same event up to
/// the order of its seats; encoding the decoded event gives the same frame.
pub(crate) fn check_compact_change(event: &ChangeEvent, order: &SeatOrder) -> Result<(), TestCaseError> {
    let compact = CompactChange::encode(event, order).unwrap();
    let text = serde_json::to_string(&compact).unwrap();
    let read: CompactChange = serde_json::from_str(&text).unwrap();
    prop_assert_eq!(&read, &compact, "{}", text);
    let decoded = read.decode(order).unwrap();
    prop_assert_eq!(decoded.version, event.version);
    prop_assert_eq!(decoded.since, event.since);
    prop_assert_eq!(decoded.server_time, event.server_time);
    prop_assert_eq!(&decoded.areas, &event.areas);
    prop_assert_eq!(by_id(decoded.seats.clone()), by_id(event.seats.clone()), "{}", text);
    prop_assert_eq!(CompactChange::encode(&decoded, order).unwrap(), compact);
    let json = serde_json::to_string(event).unwrap();
    prop_assert!(text.len() <= json.len(), "compact {} B, JSON {} B: {}", text.len(), json.len(), text);
    Ok(())
}

/// `CompactMap::encode`, through JSON, `decode`: the taken seats of the
/// map, in definition order; with the free ones put back, as `?only=taken`
/// gives them; a browser shows it as it shows the full map.
pub(crate) fn check_compact_map(map: &SeatMap, order: &SeatOrder) -> Result<(), TestCaseError> {
    let compact = CompactMap::encode(map, order).unwrap();
    let text = serde_json::to_string(&compact).unwrap();
    let read: CompactMap = serde_json::from_str(&text).unwrap();
    prop_assert_eq!(&read, &compact, "{}", text);
    let decoded = read.decode(order).unwrap();
    let taken = taken(map);
    prop_assert_eq!(&decoded, &taken, "{}", text);
    let restored = decoded.with_free_seats(order.ids());
    prop_assert_eq!(&restored, &taken.clone().with_free_seats(order.ids()));
    // As with `?only=taken`, a seat left out comes back free with no
    // `mine`, `channel` or `access` (the full map has `mine: false` and the
    // seat's channel and access; seat-state's browser reads neither).
    for (back, full) in restored.seats.iter().zip(&map.seats) {
        if !taken.seats.iter().any(|fact| fact.id == full.id) {
            prop_assert_eq!(back, &SeatFact { id: full.id.clone(), ..SeatFact::default() });
        }
    }
    let full_json = serde_json::to_string(map).unwrap();
    prop_assert!(text.len() <= full_json.len(), "compact {} B, JSON {} B", text.len(), full_json.len());

    let now = map.server_time;
    let mut shown_full = browser(now);
    shown_full.handle_input(Input::Snapshot(map.clone()));
    let mut shown_compact = browser(now);
    shown_compact.handle_input(Input::Snapshot(restored));
    prop_assert_eq!(seat_views(&shown_compact), seat_views(&shown_full));
    prop_assert_eq!(area_views(&shown_compact), area_views(&shown_full));
    prop_assert_eq!(shown_compact.version(), shown_full.version());
    check_bits_map(map, order)
}

/// Each frame follows the one before (the first follows `first`), its
/// seats are listed once each, and every seat and area it lists is in its
/// state as of its version (`maps[version − first]`).
pub(crate) fn check_frames(frames: &[ChangeEvent], maps: &[SeatMap], first: i64) -> Result<(), TestCaseError> {
    let mut follows = first;
    for frame in frames {
        prop_assert_eq!(frame.follows(), follows);
        prop_assert!(frame.version > follows);
        let map = &maps[usize::try_from(frame.version - first).unwrap()];
        let ids: BTreeSet<&str> = frame.seats.iter().map(|fact| fact.id.as_str()).collect();
        prop_assert_eq!(ids.len(), frame.seats.len(), "a seat listed twice");
        for fact in &frame.seats {
            let now = map.seats.iter().find(|seat| seat.id == fact.id).unwrap();
            prop_assert_eq!(standing(fact), standing(now), "{} as of {}", fact.id, frame.version);
        }
        for fact in &frame.areas {
            let now = map.areas.iter().find(|area| area.id == fact.id).unwrap();
            prop_assert_eq!(fact, &public(now), "{} as of {}", fact.id, frame.version);
        }
        follows = frame.version;
    }
    prop_assert_eq!(follows, first + i64::try_from(maps.len()).unwrap() - 1);
    Ok(())
}

/// A snapshot at `at` (an index into `maps`, whose `mine` it says), then
/// every raw event and every frame: the raw stream and the conflated one
/// (fed after the snapshot, or before it and waiting) agree on every state,
/// area and version, and with the map at the end. `mine`: the raw stream
/// keeps what the snapshot said for the seats no change touched after it;
/// the conflated one keeps at least those, and never one whose facts
/// changed since the snapshot. Returns the seats the conflated stream shows
/// as mine.
pub(crate) fn check_snapshot_inside(
    snapshot: &SeatMap,
    events: &[ChangeEvent],
    frames: &[ChangeEvent],
    last: &SeatMap,
    now: i64,
) -> Result<BTreeSet<String>, TestCaseError> {
    let mut raw = browser(now);
    raw.handle_input(Input::Snapshot(snapshot.clone()));
    feed_all(&mut raw, events);
    let mut conflated = browser(now);
    conflated.handle_input(Input::Snapshot(snapshot.clone()));
    feed_all(&mut conflated, frames);
    let mut early = browser(now);
    feed_all(&mut early, frames);
    early.handle_input(Input::Snapshot(snapshot.clone()));
    for sync in [&mut raw, &mut conflated, &mut early] {
        prop_assert_eq!(asked(sync), vec![]);
        prop_assert_eq!(sync.version(), Some(last.version));
        prop_assert_eq!(area_views(sync), expected_areas(last, now));
    }
    let (truth, _) = split_mine(&expected_seats(last, now));
    let (raw_states, raw_mine) = split_mine(&seat_views(&raw));
    let (conflated_states, conflated_mine) = split_mine(&seat_views(&conflated));
    prop_assert_eq!(&raw_states, &truth);
    prop_assert_eq!(&conflated_states, &truth);
    prop_assert_eq!(seat_views(&early), seat_views(&conflated));

    let touched: BTreeSet<&str> = events
        .iter()
        .filter(|event| event.version > snapshot.version)
        .flat_map(|event| event.seats.iter().map(|fact| fact.id.as_str()))
        .collect();
    let said_mine = |fact: &SeatFact, shown: SeatState| fact.mine == Some(true) && shown != SeatState::Free;
    for ((fact, later), (id, shown, _)) in snapshot.seats.iter().zip(&last.seats).zip(&truth) {
        prop_assert_eq!(&fact.id, id);
        let kept = said_mine(fact, *shown) && !touched.contains(id.as_str());
        prop_assert_eq!(raw_mine.contains(id), kept, "{}: the raw stream's mine", id);
        if kept {
            prop_assert!(conflated_mine.contains(id), "{}: the snapshot's mine was forgotten", id);
        }
        if conflated_mine.contains(id) {
            prop_assert!(
                said_mine(fact, *shown) && standing(fact) == standing(later),
                "{}: mine kept over a change",
                id
            );
        }
    }
    Ok(conflated_mine)
}
