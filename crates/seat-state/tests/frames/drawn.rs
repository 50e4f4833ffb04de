//! Facts drawn at random: any state after any other.

use super::*;

/// Seats `S0…` with their static channel and access, and areas `G0…`.
#[derive(Debug, Clone)]
pub(crate) struct Venue {
    pub(crate) seats: Vec<SeatFact>,
    /// (id, capacity)
    pub(crate) areas: Vec<(String, i64)>,
}

impl Venue {
    fn order(&self) -> SeatOrder {
        SeatOrder::new(self.seats.iter().map(|seat| (seat.id.clone(), seat.channel.clone(), seat.access.clone())))
    }
}

pub(crate) fn venue() -> impl Strategy<Value = Venue> {
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
pub(crate) enum Drawn {
    Free,
    Held,
    Sold,
}

pub(crate) fn drawn() -> impl Strategy<Value = Drawn> {
    prop_oneof![2 => Just(Drawn::Free), 3 => Just(Drawn::Held), 1 => Just(Drawn::Sold)]
}

/// One seat's new facts: which seat (modulo the venue's count), its state,
/// blocked or not.
pub(crate) type DrawnSeat = (usize, Drawn, bool);
/// One area's new facts: which area (modulo), sold, holds (quantity, deadline − now).
pub(crate) type DrawnArea = (usize, i64, Vec<(i64, i64)>);

#[derive(Debug, Clone)]
pub(crate) struct DrawnChange {
    pub(crate) seats: Vec<DrawnSeat>,
    pub(crate) areas: Vec<DrawnArea>,
    /// The server's tick ends after this change.
    pub(crate) tick_ends: bool,
}

pub(crate) fn drawn_area() -> impl Strategy<Value = DrawnArea> {
    (0..4usize, 0..=12i64, prop::collection::vec((1..=3i64, -3_000..3_000i64), 0..=3))
}

pub(crate) fn drawn_change() -> impl Strategy<Value = DrawnChange> {
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
pub(crate) struct Story {
    pub(crate) venue: Venue,
    /// `maps[i]` is the map at version `V0 + i`: `maps[0]` is a session's
    /// snapshot (`mine` drawn), later ones what a browser that applied the
    /// public events knows (`mine` absent on the seats they touched).
    pub(crate) maps: Vec<SeatMap>,
    /// `events[i]` made version `V0 + i + 1`.
    pub(crate) events: Vec<ChangeEvent>,
    pub(crate) tick_ends: Vec<bool>,
}

impl Story {
    fn last(&self) -> &SeatMap {
        self.maps.last().unwrap()
    }
}

/// A deadline for seat `seat` drawn at step `step`: never the same for
/// two holds (a hold's deadline is its creation instant plus the show's
/// hold time, so another holder's hold never ends in the same millisecond).
pub(crate) fn deadline(step: usize, seat: usize, shift: i64) -> i64 {
    NOW + shift + i64::try_from(step * 64 + seat).unwrap() * 7
}

pub(crate) fn seat_fact(venue: &Venue, seat: usize, state: Drawn, blocked: bool, deadline: i64) -> SeatFact {
    SeatFact {
        sold: matches!(state, Drawn::Sold),
        hold_expires_at: matches!(state, Drawn::Held).then_some(deadline),
        blocked,
        ..venue.seats[seat].clone()
    }
}

pub(crate) fn area_fact(venue: &Venue, (area, sold, holds): &DrawnArea, mine: Option<bool>) -> Option<AreaFact> {
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
pub(crate) fn as_session(map: &SeatMap, mine: &[bool]) -> SeatMap {
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

pub(crate) fn story() -> impl Strategy<Value = Story> {
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
pub(crate) fn browser_after(snapshot: &SeatMap, events: &[ChangeEvent]) -> SeatMapSync {
    let mut sync = browser(NOW);
    sync.handle_input(Input::Snapshot(snapshot.clone()));
    feed_all(&mut sync, events);
    sync
}
