//! Best available: `count` adjacent holdable seats in one row, ranked
//! first by not stranding a single free seat, then by distance to the
//! stage, then by row and number (so the answer never depends on order).

use std::collections::BTreeMap;

use super::ShowState;
use crate::ids::SeatId;
use crate::rejection::Rejection;
use crate::request::BestRequest;
use crate::seating::Point;
use crate::show::Show;
use crate::time::ServerMillis;

/// The seats of each row (section and row) in number order, for the rows
/// whose seats have numbers; consecutive numbers are adjacent.
pub(super) fn rows_of(show: &Show) -> Vec<Vec<usize>> {
    let mut rows: BTreeMap<(&str, &str), Vec<(u32, usize)>> = BTreeMap::new();
    for (at, seat) in show.seats.iter().enumerate() {
        if let Some(place) = &seat.place {
            rows.entry((&place.section, &place.row)).or_default().push((place.number, at));
        }
    }
    rows.into_values()
        .map(|mut row| {
            row.sort_unstable();
            row.into_iter().map(|(_, at)| at).collect()
        })
        .collect()
}

/// The stage: the show's focus, else the middle of the front (least y)
/// edge of the seats.
pub(super) fn focus_of(show: &Show) -> Point {
    show.focus.unwrap_or_else(|| {
        let (mut left, mut right, mut front) = (f64::INFINITY, f64::NEG_INFINITY, f64::INFINITY);
        for seat in &show.seats {
            (left, right, front) = (left.min(seat.x), right.max(seat.x), front.min(seat.y));
        }
        if front.is_finite() { Point { x: (left + right) / 2.0, y: front } } else { Point { x: 0.0, y: 0.0 } }
    })
}

/// How a block ranks: lower is better.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BlockRank {
    /// A single free seat left beside the block.
    pub strands: bool,
    /// From the block's centre to the stage.
    pub distance: f64,
}

impl BlockRank {
    fn better_than(self, other: Self) -> bool {
        (self.strands, self.distance).partial_cmp(&(other.strands, other.distance)) == Some(std::cmp::Ordering::Less)
    }
}

impl ShowState {
    /// The best block for `best` at `now` (see the module docs), or
    /// `NoBlock` with the largest block there is. O(n) for n seats.
    pub fn best_block(
        &self,
        best: &BestRequest,
        channel: Option<&str>,
        now: ServerMillis,
    ) -> Result<Vec<SeatId>, Rejection> {
        let count = best.count as usize;
        let holdable = |at: usize| {
            self.seat_free(at, now, None)
                && self.open_to(at, channel)
                && best.category.as_deref().is_none_or(|c| self.show.seats[at].category.as_deref() == Some(c))
        };
        let mut chosen: Option<(BlockRank, &[usize])> = None;
        let mut largest = 0;
        for row in &self.rows {
            let mut start = 0;
            while start < row.len() {
                if !holdable(row[start]) {
                    start += 1;
                    continue;
                }
                let mut end = start + 1;
                while end < row.len() && holdable(row[end]) && self.adjacent(row[end - 1], row[end]) {
                    end += 1;
                }
                largest = largest.max(end - start);
                // Blocks of `count` that fit in this run (none for a zero count).
                let fitting = if count == 0 { 0 } else { (end - start + 1).saturating_sub(count) };
                for first in start..start + fitting {
                    let block = &row[first..first + count];
                    let strands = first - start == 1 || end - (first + count) == 1;
                    let rank = BlockRank { strands, distance: self.distance(block) };
                    if chosen.is_none_or(|(best_rank, _)| rank.better_than(best_rank)) {
                        chosen = Some((rank, block));
                    }
                }
                start = end;
            }
        }
        match chosen {
            Some((_, block)) => Ok(block.iter().map(|&at| self.show.seats[at].id.clone()).collect()),
            None => Err(Rejection::NoBlock { available: u32::try_from(largest).unwrap_or(u32::MAX) }),
        }
    }

    /// The stage the ranking measures from.
    pub fn focus(&self) -> Point {
        self.focus
    }

    /// From the centre of the block's seats to the stage.
    fn distance(&self, block: &[usize]) -> f64 {
        let n = block.len() as f64;
        let (x, y) =
            block.iter().fold((0.0, 0.0), |(x, y), &at| (x + self.show.seats[at].x, y + self.show.seats[at].y));
        (x / n - self.focus.x).hypot(y / n - self.focus.y)
    }

    /// Consecutive numbers (both seats are in one row already).
    fn adjacent(&self, left: usize, right: usize) -> bool {
        let number = |at: usize| self.show.seats[at].place.as_ref().map(|place| place.number);
        matches!((number(left), number(right)), (Some(l), Some(r)) if l.checked_add(1) == Some(r))
    }
}
