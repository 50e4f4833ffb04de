//! The demo stadium (issue 36: 200,000 seats as parametric rows) beside
//! the arena: its definition's bytes, its seat map's bytes at half sold
//! in each form, and what the server costs to start with it. Each test
//! prints its figures (docs/benchmarks.md quotes a release run):
//!
//! ```text
//! cargo test --release -p seathold-server --test stadium_figures -- --nocapture --test-threads 1
//! ```

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

use std::io::Write;

use axum::body::Bytes;
use seat_state::wire::{BitsMap, CompactMap, SeatMap, SeatOrder};
use seat_state::{Decision, HoldId, HoldRequest, HolderId, SeatId, ServerMillis, Show, ShowState};
use seathold_server::demo;
use seathold_server::encoded::{Coding, Effort, Encoded};

mod start;

/// Holds under way beside the half sold.
const HOLDS: usize = 500;

/// The issue's targets.
const DEFINITION_BROTLI_MAX: usize = 250_000;
const BITS_MAP_MAX: usize = 25_000;

/// What the server compresses each seat map answer with (`app.rs`).
const PER_REQUEST: Effort = Effort { brotli: 4, brotli_window: 22, gzip: 4 };

/// A body's bytes raw, gzip and brotli.
struct Sizes {
    raw: usize,
    gzip: usize,
    brotli: usize,
}

fn sizes(body: Vec<u8>, effort: Effort) -> Sizes {
    let encoded = Encoded::new(Bytes::from(body), effort).unwrap();
    let size = |coding| encoded.bytes(coding).len();
    Sizes { raw: size(Coding::Identity), gzip: size(Coding::Gzip), brotli: size(Coding::Brotli) }
}

fn print_row(what: &str, seats: usize, sizes: &Sizes) {
    let per_seat = |bytes: usize| bytes as f64 / seats as f64;
    println!(
        "{what:<34} {:>10} B raw ({:>6.2} B/seat) {:>9} B gzip {:>9} B brotli ({:.3} B/seat)",
        sizes.raw,
        per_seat(sizes.raw),
        sizes.gzip,
        sizes.brotli,
        per_seat(sizes.brotli)
    );
}

#[test]
fn the_stadiums_definition_is_about_a_byte_a_seat_with_brotli() {
    let mut stadium_brotli = 0;
    for show in [demo::stadium(), demo::arena()] {
        // What `GET /api/shows/{showId}` sends (definitions.rs), compressed once at brotli's best.
        let body = serde_json::to_vec(&show.to_wire().for_customers()).unwrap();
        let sizes = sizes(body, Effort::MOST);
        print_row(&format!("definition {} ({} seats)", show.id, show.seats.len()), show.seats.len(), &sizes);
        if show.id.as_str() == demo::STADIUM_SHOW_ID {
            stadium_brotli = sizes.brotli;
        }
    }
    assert!(stadium_brotli <= DEFINITION_BROTLI_MAX, "{stadium_brotli} B with brotli");
}

/// SplitMix64: the same draws on every run.
struct Draws(u64);

impl Draws {
    fn below(&mut self, bound: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) % bound as u64) as usize
    }
}

/// How the sold half is spread over the bowl.
#[derive(Debug, Clone, Copy)]
enum Pattern {
    /// Groups of 1–8 seats side by side, as customers buy.
    Groups,
    /// Every seat sold or not on its own: no order for a codec to find.
    Scattered,
}

/// Seat positions in groups of at most 8 (what one hold takes), `seats`
/// seats in all or a few more.
fn drawn_groups(n: usize, seats: usize, pattern: Pattern, draws: &mut Draws) -> Vec<Vec<usize>> {
    let mut taken = vec![false; n];
    let mut groups = Vec::new();
    let mut sold = 0;
    while sold < seats {
        let group: Vec<usize> = match pattern {
            Pattern::Groups => {
                let (start, size) = (draws.below(n), 1 + draws.below(8));
                (start..(start + size).min(n)).take_while(|&at| !taken[at]).collect()
            }
            Pattern::Scattered => (0..8).map(|_| draws.below(n)).filter(|&at| !taken[at]).collect(),
        };
        let mut group = group;
        group.sort_unstable();
        group.dedup();
        for &at in &group {
            taken[at] = true;
        }
        sold += group.len();
        if !group.is_empty() {
            groups.push(group);
        }
    }
    groups
}

/// The show with `groups` sold, then `active` more groups held (each by
/// its own holder, created a second apart: deadlines differ).
fn sold_state(show: &Show, groups: &[Vec<usize>], active: &[Vec<usize>], now: ServerMillis) -> ShowState {
    let mut state = ShowState::new(show.clone());
    let mut take = |holder: &HolderId, hold: String, seats: &[usize], at: ServerMillis, confirm: bool| {
        let request = HoldRequest {
            hold_id: HoldId::parse(&hold).unwrap(),
            seats: seats.iter().map(|&seat| SeatId::parse(show.seats[seat].id.as_str()).unwrap()).collect(),
            areas: vec![],
            best: None,
            channel: None,
            access: true,
        };
        let Ok(Decision::Apply(change)) = state.decide_create(holder, &request, at) else { panic!("{hold}") };
        state.apply(&change);
        if confirm {
            let Ok(Decision::Apply(change)) = state.decide_confirm(holder, &request.hold_id, at) else { panic!() };
            state.apply(&change);
        }
    };
    let buyer = HolderId::new("buyer");
    for (at, seats) in groups.iter().enumerate() {
        take(&buyer, format!("sold-{at:08}"), seats, now, true);
    }
    for (at, seats) in active.iter().enumerate() {
        let held_at = ServerMillis(now.0 - 1_000 * at as i64);
        take(&HolderId::new(format!("holder-{at}")), format!("held-{at:08}"), seats, held_at, false);
    }
    state
}

#[test]
fn the_bit_set_map_at_half_sold_beside_the_compact_and_json_maps() {
    let show = demo::stadium();
    let n = show.seats.len();
    let now = ServerMillis(1_764_460_000_000);
    let order = SeatOrder::of_document(&show.to_wire().for_customers());
    for pattern in [Pattern::Groups, Pattern::Scattered] {
        let mut groups = drawn_groups(n, n / 2 + 8 * HOLDS, pattern, &mut Draws(36));
        // Half the seats sold, then a sale under way: holds of the groups after them.
        let mut sold = 0;
        let half = groups.iter().position(|group| {
            sold += group.len();
            sold >= n / 2
        });
        let active = groups.split_off(half.unwrap() + 1);
        let state = sold_state(&show, &groups, &active[..HOLDS.min(active.len())], now);
        let map: SeatMap = state.seat_map(None, now);
        let compact = CompactMap::encode(&map, &order).unwrap();
        let bits = BitsMap::encode(&map, &order).unwrap();
        // The bit sets read back as the compact form does.
        assert_eq!(bits.decode_every(&order).unwrap(), compact.decode_every(&order).unwrap());
        let sold = map.seats.iter().filter(|fact| fact.sold).count();
        let held =
            map.seats.iter().filter(|fact| fact.hold_expires_at.is_some_and(|d| d > now.0) && !fact.sold).count();
        println!(
            "stadium at {:.2} % sold, {held} seats in {HOLDS} holds under way, sold in {pattern:?}:",
            100.0 * sold as f64 / n as f64
        );
        let bits_sizes = sizes(serde_json::to_vec(&bits).unwrap(), PER_REQUEST);
        print_row("  seats?format=bits", n, &bits_sizes);
        print_row("  seats?format=compact", n, &sizes(serde_json::to_vec(&compact).unwrap(), PER_REQUEST));
        print_row("  seats (JSON)", n, &sizes(serde_json::to_vec(&map).unwrap(), PER_REQUEST));
        if let Pattern::Groups = pattern {
            assert!(bits_sizes.brotli <= BITS_MAP_MAX, "{} B with brotli", bits_sizes.brotli);
        }
        // Scattered, half the seats is 200,000 bits of news: 25,000 B at best.
        assert!(bits_sizes.brotli <= n / 8 + n / 16, "{} B with brotli", bits_sizes.brotli);
    }
}

#[test]
fn the_server_starts_with_the_stadium_and_holds_on_it() {
    let figures = start::run();
    let mut out = std::io::stdout().lock();
    writeln!(out, "{figures}").unwrap();
}
