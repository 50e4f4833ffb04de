//! Seats drawn over one another: centres closer than a minimum, found with
//! a grid of cells as wide as that minimum, so each seat is compared only
//! with those of its own and the eight neighbouring cells (O(n) for any
//! venue whose seats are not piled up).

use std::collections::HashMap;

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
    let mut cells: HashMap<(i64, i64), Vec<u32>> = HashMap::with_capacity(seats.len());
    for (at, seat) in seats.iter().enumerate() {
        cells.entry(cell_of(seat)).or_default().push(at as u32);
    }
    let limit = min_distance * min_distance;
    for (at, seat) in seats.iter().enumerate() {
        // A pile of seats on one spot would make this quadratic: once the
        // report is full, one more truncated issue stands for the rest.
        if issues.is_full() {
            issues.add(Severity::Error, "overlapping_seats", String::new(), []);
            return;
        }
        let (cx, cy) = cell_of(seat);
        for dx in -1..=1 {
            for dy in -1..=1 {
                let Some(others) = cells.get(&(cx.saturating_add(dx), cy.saturating_add(dy))) else { continue };
                // Each pair once: only with seats listed later.
                for &other in others.iter().filter(|&&other| other as usize > at) {
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
}
