//! The orphan rule against a brute-force oracle on random rows (native
//! only: proptest needs the OS). Seats are free, taken by others, blocked,
//! a channel's or wheelchair places; the request may carry the channel's
//! code and ask for access. A strict hold never strands a seat; lenient
//! refuses exactly when the row has a block of as many seats that strands
//! none; best available under strict picks only such blocks.
#![cfg(not(target_arch = "wasm32"))]
// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

mod support;

use proptest::prelude::*;
use serde_json::{Value, json};

use seat_state::wire::ShowInput;
use seat_state::{
    BestRequest, Decision, Hold, HoldRequest, HoldStatus, OrphanRule, Rejection, Rows, SeatId, Show, ShowState,
};
use support::{at, hold_id, holder};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Free,
    Taken,
    Blocked,
    Channel,
    Wheelchair,
}

/// Rows of `(number, kind)`; numbers may skip (an aisle).
type Venue = Vec<Vec<(u32, Kind)>>;

fn venue() -> impl Strategy<Value = Venue> {
    let kind = prop_oneof![
        10 => Just(Kind::Free), 4 => Just(Kind::Taken), 1 => Just(Kind::Blocked),
        1 => Just(Kind::Channel), 1 => Just(Kind::Wheelchair),
    ];
    let seat = (prop_oneof![6 => Just(1u32), 1 => Just(2u32)], kind);
    prop::collection::vec(prop::collection::vec(seat, 0..10), 1..4).prop_map(|rows| {
        rows.into_iter()
            .map(|row| {
                let mut number = 0;
                row.into_iter()
                    .map(|(step, kind)| {
                        number += step;
                        (number, kind)
                    })
                    .collect()
            })
            .collect()
    })
}

fn id(row: usize, number: u32) -> String {
    format!("R{row}-{number}")
}

/// The venue as a show under `rule`, its taken seats held by someone else
/// and its blocked seats blocked.
fn state(venue: &Venue, rule: OrphanRule) -> ShowState {
    let mut seats: Vec<Value> = Vec::new();
    let (mut channel, mut taken, mut blocked) = (Vec::new(), Vec::new(), Vec::new());
    for (r, row) in venue.iter().enumerate() {
        for &(number, kind) in row {
            let mut seat = json!({"id": id(r, number), "x": number, "y": r, "section": "S", "row": r.to_string(),
                                  "number": number});
            match kind {
                Kind::Wheelchair => seat["access"] = json!("wheelchair"),
                Kind::Channel => channel.push(id(r, number)),
                Kind::Taken => taken.push(SeatId::parse(&id(r, number)).unwrap()),
                Kind::Blocked => blocked.push(SeatId::parse(&id(r, number)).unwrap()),
                Kind::Free => {}
            }
            seats.push(seat);
        }
    }
    seats.push(json!({"id": "spare", "x": 0, "y": 0}));
    let show = json!({"id": "v", "name": "V", "seats": seats, "maxSeatsPerHold": 100, "orphanRule": rule.as_str(),
                      "channels": [{"id": "pre", "code": "CODE", "seats": channel}]});
    let mut state = ShowState::new(Show::parse(&serde_json::from_value::<ShowInput>(show).unwrap()).unwrap());
    if !taken.is_empty() {
        // Restored, not decided: the rule under test may refuse such a hold.
        state.restore(Hold {
            id: hold_id("others-1"),
            holder: holder("others"),
            seats: taken,
            areas: vec![],
            created_at: at(0),
            created_version: 1,
            expires_at: at(600),
            extensions: 0,
            stored_status: HoldStatus::Held,
            late: false,
        });
        state.set_version(1);
    }
    if !blocked.is_empty() {
        let Ok(Decision::Apply(change)) = state.decide_block(&blocked, "test") else { panic!() };
        state.apply(&change);
    }
    state
}

/// The oracle: which seats are free for a request with or without the
/// code and access, and which of them are stranded with `taken` taken.
struct Oracle<'a> {
    venue: &'a Venue,
    code: bool,
    access: bool,
}

impl Oracle<'_> {
    fn free(&self, r: usize, i: usize) -> bool {
        match self.venue[r][i].1 {
            Kind::Free => true,
            Kind::Channel => self.code,
            Kind::Wheelchair => self.access,
            Kind::Taken | Kind::Blocked => false,
        }
    }

    fn joined(&self, r: usize, i: usize, j: usize) -> bool {
        self.venue[r][j].0 == self.venue[r][i].0 + 1
    }

    fn stranded(&self, r: usize, i: usize, taken: &[(usize, usize)]) -> bool {
        let open = |j: usize| self.free(r, j) && !taken.contains(&(r, j));
        let left = i > 0 && self.joined(r, i - 1, i) && open(i - 1);
        let right = i + 1 < self.venue[r].len() && self.joined(r, i, i + 1) && open(i + 1);
        open(i) && !left && !right
    }

    /// Seats stranded with `taken` taken and not before, in row order.
    fn newly(&self, taken: &[(usize, usize)]) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for (r, row) in self.venue.iter().enumerate() {
            for i in 0..row.len() {
                if self.stranded(r, i, taken) && !self.stranded(r, i, &[]) {
                    out.push((r, i));
                }
            }
        }
        out
    }

    /// The blocks of `count` adjacent free seats of row `r`.
    fn blocks(&self, r: usize, count: usize) -> Vec<Vec<(usize, usize)>> {
        let row = &self.venue[r];
        (0..row.len())
            .filter(|&first| first + count <= row.len())
            .filter(|&first| (first..first + count).all(|i| self.free(r, i)))
            .filter(|&first| (first..first + count - 1).all(|i| self.joined(r, i, i + 1)))
            .map(|first| (first..first + count).map(|i| (r, i)).collect())
            .collect()
    }

    fn name(&self, seats: &[(usize, usize)]) -> Vec<String> {
        seats.iter().map(|&(r, i)| id(r, self.venue[r][i].0)).collect()
    }
}

/// Every seat of the venue, as (row, position).
fn positions(venue: &Venue) -> Vec<(usize, usize)> {
    venue.iter().enumerate().flat_map(|(r, row)| (0..row.len()).map(move |i| (r, i))).collect()
}

fn request(oracle: &Oracle<'_>, seats: &[(usize, usize)]) -> HoldRequest {
    let seats = oracle.name(seats).iter().map(|seat| SeatId::parse(seat).unwrap()).collect();
    let channel = oracle.code.then(|| "CODE".to_owned());
    HoldRequest { hold_id: hold_id("buyer-001"), seats, areas: vec![], best: None, channel, access: oracle.access }
}

/// What the oracle expects of a request for `seats` under `rule`.
fn expected(oracle: &Oracle<'_>, rule: OrphanRule, seats: &[(usize, usize)]) -> Result<(), Rejection> {
    let kind = |&(r, i): &(usize, usize)| oracle.venue[r][i].1;
    let unavailable: Vec<_> =
        seats.iter().copied().filter(|s| !oracle.free(s.0, s.1) && kind(s) != Kind::Taken).collect();
    if !unavailable.is_empty() {
        return Err(Rejection::SeatsUnavailable { seats: oracle.name(&unavailable) });
    }
    let taken: Vec<_> = seats.iter().copied().filter(|s| kind(s) == Kind::Taken).collect();
    if !taken.is_empty() {
        return Err(Rejection::SeatsTaken { seats: oracle.name(&taken) });
    }
    let mut stranded = oracle.newly(seats);
    if rule == OrphanRule::Lenient {
        stranded.retain(|&(r, _)| {
            let count = seats.iter().filter(|s| s.0 == r).count();
            oracle.blocks(r, count).iter().any(|block| oracle.newly(block).is_empty())
        });
    }
    if stranded.is_empty() { Ok(()) } else { Err(Rejection::WouldStrand { seats: oracle.name(&stranded) }) }
}

fn rule() -> impl Strategy<Value = OrphanRule> {
    prop_oneof![Just(OrphanRule::Strict), Just(OrphanRule::Lenient)]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 768, ..ProptestConfig::default() })]

    /// Strict: a hold is accepted only if it strands no seat (and then the
    /// state after it has no seat stranded that was free beside it before);
    /// lenient: refused exactly when a block of as many seats in the row
    /// would strand none. Either way, the seats named are the oracle's.
    #[test]
    fn explicit_holds_are_judged_as_the_oracle_judges(
        venue in venue(),
        rule in rule(),
        picks in prop::collection::vec(any::<prop::sample::Index>(), 1..5),
        code in any::<bool>(),
        access in any::<bool>(),
    ) {
        let all = positions(&venue);
        prop_assume!(!all.is_empty());
        let mut seats: Vec<(usize, usize)> = picks.iter().map(|pick| *pick.get(&all)).collect();
        seats.sort_unstable();
        seats.dedup();
        let oracle = Oracle { venue: &venue, code, access };
        let mut state = state(&venue, rule);
        let decided = state.decide_create(&holder("buyer"), &request(&oracle, &seats), at(1));
        let expect = expected(&oracle, rule, &seats);
        match (&decided, &expect) {
            (Ok(Decision::Apply(change)), Ok(())) => {
                state.apply(change);
                if rule == OrphanRule::Strict {
                    prop_assert!(oracle.newly(&seats).is_empty(), "a strict hold stranded a seat");
                }
            }
            (Err(got), Err(want)) => prop_assert_eq!(got, want),
            _ => prop_assert!(false, "decided {:?}, expected {:?}", decided, expect),
        }
    }

    /// Best available under strict never strands, and refuses only when no
    /// block of that size strands none.
    #[test]
    fn strict_best_available_never_strands(
        venue in venue(),
        count in 1u32..5,
        code in any::<bool>(),
        access in any::<bool>(),
    ) {
        let oracle = Oracle { venue: &venue, code, access };
        let state = state(&venue, OrphanRule::Strict);
        let best = BestRequest { count, category: None, wheelchair: 0 };
        let clean: Vec<_> = (0..venue.len())
            .flat_map(|r| oracle.blocks(r, count as usize))
            .filter(|block| oracle.newly(block).is_empty())
            .map(|block| oracle.name(&block))
            .collect();
        match state.best_block(&best, code.then_some("CODE"), access, at(1)) {
            Ok(picked) => {
                let picked: Vec<String> = picked.iter().map(ToString::to_string).collect();
                prop_assert!(clean.contains(&picked), "{:?} is not a block that strands none: {:?}", picked, clean);
            }
            Err(Rejection::NoBlock { .. }) => prop_assert!(clean.is_empty(), "{:?} was there", clean),
            Err(other) => prop_assert!(false, "{other:?}"),
        }
    }

    /// `block_strands` is `newly_stranded` of a block, for every block of
    /// adjacent free seats, and `clean_blocks` lists exactly those that strand none.
    #[test]
    fn a_block_strands_exactly_when_its_seats_would(venue in venue(), count in 1usize..5) {
        let places: Vec<_> = venue.iter().enumerate().flat_map(|(r, row)| row.iter().map(move |&(n, _)| (r, n))).collect();
        let names: Vec<String> = places.iter().map(|(r, _)| r.to_string()).collect();
        let rows = Rows::new(places.iter().zip(&names).map(|(&(_, n), row)| Some(("S", row.as_str(), n))));
        let kinds: Vec<Kind> = venue.iter().flatten().map(|&(_, kind)| kind).collect();
        let free = |at: usize| kinds[at] == Kind::Free;
        for (r, row) in rows.rows().iter().enumerate() {
            let clean: Vec<_> = rows.clean_blocks(r, count, &free).collect();
            for first in 0..row.len().saturating_sub(count - 1) {
                let block = first..first + count;
                let seats = &row[block.clone()];
                let adjacent = seats.windows(2).all(|pair| rows.adjacent(pair[0], pair[1]));
                if !(adjacent && seats.iter().all(|&at| free(at))) {
                    prop_assert!(!clean.contains(&block));
                    continue;
                }
                let strands = rows.block_strands(r, block.clone(), &free);
                prop_assert_eq!(strands, !rows.newly_stranded(seats, &free).is_empty());
                prop_assert_eq!(!strands, clean.contains(&block));
            }
        }
    }
}
