//! Best available: `count` adjacent holdable seats in one row, ranked
//! first by not stranding a seat (the orphan rule's test, `strand.rs`;
//! under `strict` a block that strands is never picked), then by distance
//! to the stage, then by row and number (so the answer never depends on
//! order). With `wheelchair: K`, a block holds exactly K wheelchair places,
//! each with a companion seat of its own.

use std::ops::Range;

use super::{Reach, ShowState};
use crate::access::Access;
use crate::ids::SeatId;
use crate::rejection::Rejection;
use crate::request::BestRequest;
use crate::seating::Point;
use crate::show::Show;
use crate::strand::{OrphanRule, Rows};
use crate::time::ServerMillis;

/// The rows of the show's seats that have places.
pub(super) fn rows_of(show: &Show) -> Rows {
    Rows::new(
        show.seats
            .iter()
            .map(|seat| seat.place.as_ref().map(|place| (place.section.as_str(), place.row.as_str(), place.number))),
    )
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
    /// The best block for `best` at `now` (see the module docs) for a
    /// request with this channel code that asks for access or not, or
    /// `NoBlock` with the size of the largest block it could offer. O(n)
    /// for n seats, times the count for wheelchair places; a refusal under
    /// `strict` or with wheelchair places looks again, O(n·r).
    pub fn best_block(
        &self,
        best: &BestRequest,
        channel: Option<&str>,
        access: bool,
        now: ServerMillis,
    ) -> Result<Vec<SeatId>, Rejection> {
        let reach = Reach { code: channel, access };
        let free = |at: usize| self.free_for(at, reach, now);
        let holdable = |at: usize| {
            free(at) && best.category.as_deref().is_none_or(|c| self.show.seats[at].category.as_deref() == Some(c))
        };
        let strict = self.show.orphan_rule == OrphanRule::Strict;
        // The rank of a block of a run, if it may be offered at all.
        let offer = |row: usize, block: Range<usize>| -> Option<BlockRank> {
            let seats = &self.rows.rows()[row][block.clone()];
            if !self.has_wheelchairs(seats, best.wheelchair) {
                return None;
            }
            let strands = self.rows.block_strands(row, block, &free);
            (!(strands && strict)).then(|| BlockRank { strands, distance: self.distance(seats) })
        };
        let count = best.count as usize;
        let runs = self.runs(&holdable);
        let mut chosen: Option<(BlockRank, usize, Range<usize>)> = None;
        for (row, run) in &runs {
            for first in run.start..(run.end + 1).saturating_sub(count).max(run.start) {
                let Some(rank) = offer(*row, first..first + count) else { continue };
                if chosen.as_ref().is_none_or(|(best_rank, _, _)| rank.better_than(*best_rank)) {
                    chosen = Some((rank, *row, first..first + count));
                }
            }
        }
        if let Some((_, row, block)) = chosen {
            return Ok(self.rows.rows()[row][block].iter().map(|&at| self.show.seats[at].id.clone()).collect());
        }
        let largest = if strict || best.wheelchair > 0 {
            // The longest block in a run that could be offered.
            runs.iter().fold(0, |largest, (row, run)| {
                (largest + 1..=run.len())
                    .rev()
                    .find(|&size| (run.start..=run.end - size).any(|first| offer(*row, first..first + size).is_some()))
                    .unwrap_or(largest)
            })
        } else {
            runs.iter().map(|(_, run)| run.len()).max().unwrap_or(0)
        };
        Err(Rejection::NoBlock { available: u32::try_from(largest).unwrap_or(u32::MAX) })
    }

    /// The runs of adjacent holdable seats, per row, as positions.
    fn runs(&self, holdable: &dyn Fn(usize) -> bool) -> Vec<(usize, Range<usize>)> {
        let mut runs = Vec::new();
        for (r, row) in self.rows.rows().iter().enumerate() {
            let mut start = 0;
            while start < row.len() {
                if !holdable(row[start]) {
                    start += 1;
                    continue;
                }
                let mut end = start + 1;
                while end < row.len() && holdable(row[end]) && self.rows.adjacent(row[end - 1], row[end]) {
                    end += 1;
                }
                runs.push((r, start..end));
                start = end;
            }
        }
        runs
    }

    /// Whether `seats` hold exactly `wheelchair` wheelchair places, each
    /// with a companion seat of its own among them (any seats for none).
    fn has_wheelchairs(&self, seats: &[usize], wheelchair: u32) -> bool {
        if wheelchair == 0 {
            return true;
        }
        let places: Vec<&SeatId> = seats
            .iter()
            .map(|&at| &self.show.seats[at])
            .filter(|seat| seat.access == Some(Access::Wheelchair))
            .map(|seat| &seat.id)
            .collect();
        places.len() == wheelchair as usize
            && places.iter().all(|&place| {
                seats
                    .iter()
                    .any(|&at| self.show.seats[at].access.as_ref().and_then(Access::companion_of) == Some(place))
            })
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
}
