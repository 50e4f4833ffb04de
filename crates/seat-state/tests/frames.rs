//! Live changes (v4) as properties (native only: proptest needs the OS).
//! The changes of a tick conflated into one event (`Conflation`) show the
//! browser's map what every change one by one shows, also when its snapshot
//! lies inside a conflated event's versions; a lost conflated event is
//! still a gap; the compact forms (`CompactChange`, `CompactMap`) decode to
//! what they encode. Two sources of changes: facts drawn at random (any
//! state after any other), and a real `ShowState` deciding random requests
//! (holders, a channel, access seats, blocks, extensions, expiry).
#![cfg(not(target_arch = "wasm32"))]
// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

use std::collections::BTreeSet;

use proptest::prelude::*;
use serde_json::json;

use seat_state::sync::{AreaView, Input, Output};
use seat_state::wire::{
    AreaFact, AreaHoldFact, ChangeEvent, CompactChange, CompactMap, Conflation, HoldOrder, SeatFact, SeatMap,
    SeatOrder, ShowInput,
};
use seat_state::{
    ClockSample, Decision, HoldId, HolderId, LocalMillis, PlaceId, SeatMapSync, SeatState, SeatView, ServerMillis,
    Show, ShowState, seat_state,
};

const NOW: i64 = 1_764_460_000_000;
/// The version of the first snapshot of a drawn story.
const V0: i64 = 100;

// ---------------------------------------------------------------------------
// The browser's side.

/// A browser whose clock agrees with the server's, at server time `now`.
fn browser(now: i64) -> SeatMapSync {
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
fn asked(sync: &mut SeatMapSync) -> Vec<Output> {
    let mut asked = Vec::new();
    loop {
        match sync.poll_output() {
            Output::Timeout(_) => return asked,
            output => asked.push(output),
        }
    }
}

fn feed_all(sync: &mut SeatMapSync, events: &[ChangeEvent]) {
    for event in events {
        sync.handle_input(Input::Change(event.clone()));
    }
}

fn seat_views(sync: &SeatMapSync) -> Vec<(String, SeatView)> {
    sync.seats().map(|(id, view)| (id.to_owned(), view)).collect()
}

fn area_views(sync: &SeatMapSync) -> Vec<(String, AreaView)> {
    sync.areas().map(|(id, view)| (id.to_owned(), view)).collect()
}

/// How a browser that knows only `map` shows its seats at `now`.
fn expected_seats(map: &SeatMap, now: i64) -> Vec<(String, SeatView)> {
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
fn expected_areas(map: &SeatMap, now: i64) -> Vec<(String, AreaView)> {
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
fn split_mine(views: &[(String, SeatView)]) -> (Vec<(String, SeatState, bool)>, BTreeSet<String>) {
    let states = views.iter().map(|(id, view)| (id.clone(), view.state, view.blocked)).collect();
    let mine = views.iter().filter(|(_, view)| view.mine).map(|(id, _)| id.clone()).collect();
    (states, mine)
}

/// The changes of each tick conflated, as the server's streams send them:
/// a tick ends after event `i` when `ends[i]`, and after the last.
fn conflate(events: &[ChangeEvent], ends: &[bool]) -> Vec<ChangeEvent> {
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
fn standing(fact: &SeatFact) -> (bool, Option<i64>, bool) {
    (fact.sold, fact.hold_expires_at, fact.blocked)
}

/// An area's facts as events give them (no `mine`).
fn public(area: &AreaFact) -> AreaFact {
    let holds = area.holds.iter().map(|hold| AreaHoldFact { mine: None, ..hold.clone() }).collect();
    AreaFact { holds, ..area.clone() }
}

fn by_id(mut seats: Vec<SeatFact>) -> Vec<SeatFact> {
    seats.sort_by(|a, b| a.id.cmp(&b.id));
    seats
}

/// What `?only=taken` lists of a full seat map: seats sold, blocked, or
/// held past its `serverTime` (API.md "On-sale (v3)").
fn taken(map: &SeatMap) -> SeatMap {
    let t = map.server_time;
    let seats = map.seats.iter().filter(|f| f.sold || f.blocked || f.hold_expires_at.is_some_and(|d| d > t));
    SeatMap { seats: seats.cloned().collect(), ..map.clone() }
}

/// `CompactChange::encode`, through JSON, `decode`: the same event up to
/// the order of its seats; encoding the decoded event gives the same frame.
fn check_compact_change(event: &ChangeEvent, order: &SeatOrder) -> Result<(), TestCaseError> {
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
fn check_compact_map(map: &SeatMap, order: &SeatOrder) -> Result<(), TestCaseError> {
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
    Ok(())
}

/// Each frame follows the one before (the first follows `first`), its
/// seats are listed once each, and every seat and area it lists is in its
/// state as of its version (`maps[version − first]`).
fn check_frames(frames: &[ChangeEvent], maps: &[SeatMap], first: i64) -> Result<(), TestCaseError> {
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
fn check_snapshot_inside(
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

// ---------------------------------------------------------------------------
// Facts drawn at random.

/// Seats `S0…` with their static channel and access, and areas `G0…`.
#[derive(Debug, Clone)]
struct Venue {
    seats: Vec<SeatFact>,
    /// (id, capacity)
    areas: Vec<(String, i64)>,
}

impl Venue {
    fn order(&self) -> SeatOrder {
        SeatOrder::new(self.seats.iter().map(|seat| (seat.id.clone(), seat.channel.clone(), seat.access.clone())))
    }
}

fn venue() -> impl Strategy<Value = Venue> {
    let channel = prop_oneof![4 => Just(None), 1 => Just(Some("presale")), 1 => Just(Some("partner"))];
    let access = prop_oneof![6 => Just(None), 1 => Just(Some("wheelchair")), 1 => Just(Some("companion"))];
    (prop::collection::vec((channel, access), 1..=30), prop::collection::vec(1..=12i64, 0..=2)).prop_map(
        |(seats, areas)| Venue {
            seats: seats
                .into_iter()
                .enumerate()
                .map(|(at, (channel, access))| SeatFact {
                    id: format!("S{at}"),
                    channel: channel.map(str::to_owned),
                    access: access.map(str::to_owned),
                    ..SeatFact::default()
                })
                .collect(),
            areas: areas.into_iter().enumerate().map(|(at, capacity)| (format!("G{at}"), capacity)).collect(),
        },
    )
}

#[derive(Debug, Clone, Copy)]
enum Drawn {
    Free,
    Held,
    Sold,
}

fn drawn() -> impl Strategy<Value = Drawn> {
    prop_oneof![2 => Just(Drawn::Free), 3 => Just(Drawn::Held), 1 => Just(Drawn::Sold)]
}

/// One seat's new facts: which seat (modulo the venue's count), its state,
/// blocked or not.
type DrawnSeat = (usize, Drawn, bool);
/// One area's new facts: which area (modulo), sold, holds (quantity, deadline − now).
type DrawnArea = (usize, i64, Vec<(i64, i64)>);

#[derive(Debug, Clone)]
struct DrawnChange {
    seats: Vec<DrawnSeat>,
    areas: Vec<DrawnArea>,
    /// The server's tick ends after this change.
    tick_ends: bool,
}

fn drawn_area() -> impl Strategy<Value = DrawnArea> {
    (0..4usize, 0..=12i64, prop::collection::vec((1..=3i64, -3_000..3_000i64), 0..=3))
}

fn drawn_change() -> impl Strategy<Value = DrawnChange> {
    (
        prop::collection::vec((0..64usize, drawn(), prop::bool::weighted(0.15)), 0..=4),
        prop::collection::vec(drawn_area(), 0..=1),
        prop::bool::weighted(0.3),
    )
        .prop_map(|(seats, areas, tick_ends)| DrawnChange { seats, areas, tick_ends })
}

/// A show's history: the map at each version from `V0` on, and the change
/// event that made each next one.
#[derive(Debug, Clone)]
struct Story {
    venue: Venue,
    /// `maps[i]` is the map at version `V0 + i`: `maps[0]` is a session's
    /// snapshot (`mine` drawn), later ones what a browser that applied the
    /// public events knows (`mine` absent on the seats they touched).
    maps: Vec<SeatMap>,
    /// `events[i]` made version `V0 + i + 1`.
    events: Vec<ChangeEvent>,
    tick_ends: Vec<bool>,
}

impl Story {
    fn last(&self) -> &SeatMap {
        self.maps.last().unwrap()
    }
}

/// A deadline for seat `seat` drawn at step `step`: never the same for
/// two holds (a hold's deadline is its creation instant plus the show's
/// hold time, so another holder's hold never ends in the same millisecond).
fn deadline(step: usize, seat: usize, shift: i64) -> i64 {
    NOW + shift + i64::try_from(step * 64 + seat).unwrap() * 7
}

fn seat_fact(venue: &Venue, seat: usize, state: Drawn, blocked: bool, deadline: i64) -> SeatFact {
    SeatFact {
        sold: matches!(state, Drawn::Sold),
        hold_expires_at: matches!(state, Drawn::Held).then_some(deadline),
        blocked,
        ..venue.seats[seat].clone()
    }
}

fn area_fact(venue: &Venue, (area, sold, holds): &DrawnArea, mine: Option<bool>) -> Option<AreaFact> {
    let (id, capacity) = venue.areas.get(area % venue.areas.len().max(1))?;
    Some(AreaFact {
        id: id.clone(),
        capacity: *capacity,
        sold: (*sold).min(*capacity),
        holds: holds
            .iter()
            .map(|&(quantity, offset)| AreaHoldFact { quantity, expires_at: NOW + offset, mine })
            .collect(),
    })
}

/// `mine` as a session's map says it: only of a seat sold or held.
fn as_session(map: &SeatMap, mine: &[bool]) -> SeatMap {
    let mut map = map.clone();
    for (fact, &bit) in map.seats.iter_mut().zip(mine.iter().cycle()) {
        fact.mine = Some(bit && (fact.sold || fact.hold_expires_at.is_some()));
    }
    for area in &mut map.areas {
        for hold in &mut area.holds {
            hold.mine.get_or_insert(false);
        }
    }
    map
}

fn story() -> impl Strategy<Value = Story> {
    (
        venue(),
        prop::collection::vec((drawn(), prop::bool::weighted(0.15), any::<bool>()), 30),
        prop::collection::vec(drawn_area(), 2),
        prop::collection::vec(drawn_change(), 1..=40),
        -15_000..=0i64,
    )
        .prop_map(|(venue, first, first_areas, changes, shift)| {
            let n = venue.seats.len();
            let seats = (0..n).map(|at| seat_fact(&venue, at, first[at].0, first[at].1, deadline(0, at, shift)));
            let areas = venue.areas.iter().enumerate().map(|(at, _)| {
                let (_, sold, holds) = &first_areas[at];
                area_fact(&venue, &(at, *sold, holds.clone()), None).unwrap()
            });
            let snapshot = SeatMap {
                show_id: "drawn".into(),
                server_time: NOW - 30_000,
                version: V0,
                seats: seats.collect(),
                areas: areas.collect(),
            };
            let mine: Vec<bool> = first.iter().map(|&(_, _, mine)| mine).collect();
            let mut maps = vec![as_session(&snapshot, &mine)];
            let mut events = Vec::new();
            for (at, change) in changes.iter().enumerate() {
                let step = at + 1;
                let mut seats: Vec<SeatFact> = Vec::new();
                for &(seat, state, blocked) in &change.seats {
                    let seat = seat % n;
                    if !seats.iter().any(|fact| fact.id == venue.seats[seat].id) {
                        seats.push(seat_fact(&venue, seat, state, blocked, deadline(step, seat, shift)));
                    }
                }
                let areas: Vec<AreaFact> =
                    change.areas.iter().filter_map(|drawn| area_fact(&venue, drawn, None)).collect();
                let event = ChangeEvent {
                    version: V0 + i64::try_from(step).unwrap(),
                    server_time: NOW - 30_000 + i64::try_from(step).unwrap() * 100,
                    since: None,
                    seats,
                    areas,
                };
                let mut map = maps.last().unwrap().clone();
                map.version = event.version;
                map.server_time = event.server_time;
                for fact in &event.seats {
                    *map.seats.iter_mut().find(|seat| seat.id == fact.id).unwrap() = fact.clone();
                }
                for fact in &event.areas {
                    *map.areas.iter_mut().find(|area| area.id == fact.id).unwrap() = fact.clone();
                }
                maps.push(map);
                events.push(event);
            }
            let tick_ends = changes.iter().map(|change| change.tick_ends).collect();
            Story { venue, maps, events, tick_ends }
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// Conflated ticks: each frame holds each seat and area once, in its
    /// state as of the frame's version; fed from the first snapshot, the
    /// frames show exactly what every change one by one shows, which is
    /// the map built by applying every fact directly.
    #[test]
    fn a_conflated_stream_shows_what_every_change_shows(story in story()) {
        let frames = conflate(&story.events, &story.tick_ends);
        check_frames(&frames, &story.maps, V0)?;
        prop_assert_eq!(frames.len(), 1 + story.tick_ends[..story.events.len() - 1].iter().filter(|e| **e).count());
        for frame in &frames {
            let last = story.events.iter().find(|event| event.version == frame.version).unwrap();
            prop_assert_eq!(frame.server_time, last.server_time);
        }

        let mut raw = browser(NOW);
        raw.handle_input(Input::Snapshot(story.maps[0].clone()));
        feed_all(&mut raw, &story.events);
        let mut conflated = browser(NOW);
        conflated.handle_input(Input::Snapshot(story.maps[0].clone()));
        feed_all(&mut conflated, &frames);
        for sync in [&mut raw, &mut conflated] {
            prop_assert_eq!(asked(sync), vec![]);
            prop_assert_eq!(sync.version(), Some(story.last().version));
            prop_assert_eq!(seat_views(sync), expected_seats(story.last(), NOW));
            prop_assert_eq!(area_views(sync), expected_areas(story.last(), NOW));
        }
    }

    /// A snapshot at any version, fed before or after the frames: where it
    /// lies inside a frame's `(since, version]`, the frame still applies.
    #[test]
    fn a_snapshot_inside_a_conflated_event_converges(
        story in story(),
        at in any::<prop::sample::Index>(),
        mine in prop::collection::vec(any::<bool>(), 30),
    ) {
        let frames = conflate(&story.events, &story.tick_ends);
        let snapshot = as_session(&story.maps[at.index(story.maps.len())], &mine);
        check_snapshot_inside(&snapshot, &story.events, &frames, story.last(), NOW)?;
    }

    /// One frame lost: the next one waits, one re-sync is asked for from
    /// the version before the loss, and the lost frame arriving late
    /// closes the gap. Duplicates and stale events change nothing.
    #[test]
    fn a_lost_conflated_event_is_a_gap(story in story(), lost in any::<prop::sample::Index>()) {
        let frames = conflate(&story.events, &story.tick_ends);
        prop_assume!(frames.len() >= 2);
        let lost = lost.index(frames.len() - 1);
        let before = frames[lost].follows();
        let mut sync = browser(NOW);
        sync.handle_input(Input::Snapshot(story.maps[0].clone()));
        feed_all(&mut sync, &frames[..lost]);
        prop_assert_eq!(asked(&mut sync), vec![]);
        feed_all(&mut sync, &frames[lost + 1..]);
        prop_assert_eq!(asked(&mut sync), vec![Output::ResyncNeeded { last_version: before }]);
        prop_assert_eq!(sync.version(), Some(before));
        let known = &story.maps[usize::try_from(before - V0).unwrap()];
        prop_assert_eq!(seat_views(&sync), expected_seats(known, NOW));

        sync.handle_input(Input::Change(frames[lost].clone()));
        prop_assert_eq!(asked(&mut sync), vec![]);
        prop_assert_eq!(sync.version(), Some(story.last().version));
        let shown = seat_views(&sync);
        prop_assert_eq!(&shown, &expected_seats(story.last(), NOW));
        prop_assert_eq!(sync.next_timeout(), browser_after(&story.maps[0], &story.events).next_timeout());

        feed_all(&mut sync, &frames);
        feed_all(&mut sync, &story.events);
        prop_assert_eq!(asked(&mut sync), vec![]);
        prop_assert_eq!(sync.version(), Some(story.last().version));
        prop_assert_eq!(seat_views(&sync), shown);
        prop_assert_eq!(area_views(&sync), expected_areas(story.last(), NOW));
    }

    /// Every raw and conflated event of a story through its compact form.
    #[test]
    fn compact_changes_decode_to_what_they_encode(story in story()) {
        let order = story.venue.order();
        let frames = conflate(&story.events, &story.tick_ends);
        for event in story.events.iter().chain(&frames) {
            check_compact_change(event, &order)?;
        }
    }

    /// Session maps of a story through the compact form, read at server
    /// times before, among and after their deadlines.
    #[test]
    fn compact_maps_decode_to_their_taken_seats(
        story in story(),
        at in any::<prop::sample::Index>(),
        mine in prop::collection::vec(any::<bool>(), 30),
        server_time in -20_000..20_000i64,
    ) {
        let order = story.venue.order();
        let map = SeatMap { server_time: NOW + server_time, ..as_session(&story.maps[at.index(story.maps.len())], &mine) };
        check_compact_map(&map, &order)?;
    }
}

/// A browser fed the snapshot and every raw event.
fn browser_after(snapshot: &SeatMap, events: &[ChangeEvent]) -> SeatMapSync {
    let mut sync = browser(NOW);
    sync.handle_input(Input::Snapshot(snapshot.clone()));
    feed_all(&mut sync, events);
    sync
}

// ---------------------------------------------------------------------------
// A real show deciding random requests.

const HOLDERS: [&str; 3] = ["ann", "bob", "eve"];

/// W1 (companion of W2), W2 (wheelchair), A1..A6, P1 and P2 (channel
/// `presale`, code SECRET); area `standing` of 4. Holds last 60 s, an
/// extension adds 300 s: a story's clock moves less than that in all, so
/// two holds of a seat never share a deadline (see `deadline`).
fn real_show() -> ShowState {
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

const REAL_SEATS: [&str; 10] = ["W1", "W2", "A1", "A2", "A3", "A4", "A5", "A6", "P1", "P2"];

#[derive(Debug, Clone)]
enum Op {
    Hold { who: usize, id: usize, seats: Vec<usize>, standing: i64, code: bool, access: bool },
    Extend { who: usize, id: usize },
    Confirm { who: usize, id: usize },
    Release { who: usize, id: usize },
    OperatorRelease { id: usize },
    Block { seats: Vec<usize> },
    Unblock { seats: Vec<usize> },
    Sweep,
}

fn op() -> impl Strategy<Value = Op> {
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
struct RealStory {
    state: ShowState,
    /// Ann's seat map after each version, and its `?only=taken` form.
    maps: Vec<(SeatMap, SeatMap)>,
    events: Vec<ChangeEvent>,
    now: i64,
}

fn hold_name(id: usize) -> HoldId {
    HoldId::parse(&format!("hold-{id:04}")).unwrap()
}

fn seat_ids(seats: &[usize]) -> Vec<PlaceId> {
    seats.iter().map(|&at| PlaceId::parse(REAL_SEATS[at]).unwrap()).collect()
}

fn decide(state: &ShowState, op: &Op, now: ServerMillis) -> Vec<Decision> {
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

fn real_story(ops: &[(Op, i64)]) -> RealStory {
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

// ---------------------------------------------------------------------------
// Examples.

fn seat(id: &str, hold_expires_at: Option<i64>, sold: bool) -> SeatFact {
    SeatFact { id: id.into(), sold, hold_expires_at, ..SeatFact::default() }
}

fn change(version: i64, since: Option<i64>, seats: Vec<SeatFact>) -> ChangeEvent {
    ChangeEvent { version, server_time: NOW, since, seats, areas: Vec::new() }
}

#[test]
fn a_coalesced_event_waits_for_its_since_and_closes_a_gap() {
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
fn a_session_snapshot_inside_a_conflated_event_keeps_my_seats_mine() {
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
fn big_order() -> SeatOrder {
    SeatOrder::new((1..=20).flat_map(|row| (1..=20).map(move |n| (format!("S1-R{row}-{n}"), None, None))))
}

#[test]
fn compact_frames_are_a_fraction_of_the_json() {
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
fn compact_frames_that_do_not_fit_the_show_are_refused() {
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
