//! Seats drawn over one another: centres closer than a minimum, found with
//! a grid of cells as wide as that minimum, so each seat is compared only
//! with those of its own and the eight neighbouring cells: O(n log n) for
//! the sort and the searches, O(n) comparisons for any venue whose seats
//! are not piled up (a pile stops at the report's limit).

use super::{Issues, Severity};
use crate::wire::VenueSeat;

pub(super) fn check(seats: &[&VenueSeat], min_distance: f64, issues: &mut Issues) {
    if min_distance <= 0.0 {
        return;
    }
    let cell_of = |seat: &VenueSeat| {
        let (x, y) = (seat.seat.x / min_distance, seat.seat.y / min_distance);
        // Non-finite positions are parse's error; they share one cell here.
        if x.is_finite() && y.is_finite() { (x.floor() as i64, y.floor() as i64) } else { (i64::MIN, i64::MIN) }
    };
    // Seats sorted by cell (column, then row): a column's three cells
    // around a seat are one run of that order, found by binary search.
    let keys: Vec<(i64, i64)> = seats.iter().map(|seat| cell_of(seat)).collect();
    let mut order: Vec<u32> = (0..seats.len() as u32).collect();
    order.sort_unstable_by_key(|&at| (keys[at as usize], at));
    let sorted: Vec<(i64, i64)> = order.iter().map(|&at| keys[at as usize]).collect();
    let limit = min_distance * min_distance;
    for (at, seat) in seats.iter().enumerate() {
        // A pile of seats on one spot would make this quadratic: once the
        // report is full, one more truncated issue stands for the rest.
        if issues.is_full() {
            issues.add(Severity::Error, "overlapping_seats", String::new(), []);
            return;
        }
        let (cx, cy) = keys[at];
        for dx in -1..=1 {
            let column = cx.saturating_add(dx);
            let from = sorted.partition_point(|&key| key < (column, cy.saturating_sub(1)));
            let to = sorted.partition_point(|&key| key <= (column, cy.saturating_add(1)));
            // Each pair once: only with seats listed later.
            for &other in order[from..to].iter().filter(|&&other| other as usize > at) {
                let other = seats[other as usize];
                let (ex, ey) = (other.seat.x - seat.seat.x, other.seat.y - seat.seat.y);
                if ex * ex + ey * ey < limit {
                    let (a, b) = (seat.seat.id.as_str(), other.seat.id.as_str());
                    let message = format!("seats {a:?} and {b:?} are closer than {min_distance} map units");
                    issues.add(Severity::Error, "overlapping_seats", message, [a, b]);
                }
            }
        }
    }
}
