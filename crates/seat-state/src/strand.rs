//! The orphan rule (API.md "Box office (v3)"): a hold should not leave a
//! single free seat between taken ones. A seat is *stranded* when it is
//! free and neither row neighbour is (a row end or a gap in the numbers is
//! not free). What "free" means is the caller's: for the server, free at
//! its instant and open to the request (not blocked, not a channel's or an
//! access seat the request cannot take); for the browser, the same read off
//! its seat map. Both judge with these functions, so the page warns exactly
//! when the server would refuse.
//!
//! Costs, with k the seats taken and r the seats of one row: a verdict is
//! O(k log k), plus O(r) per row it looks for another block in (lenient).

use std::ops::Range;

/// How a show treats a hold that would leave a seat stranded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum OrphanRule {
    /// Never refused for it (best available still prefers blocks that strand none).
    #[default]
    Off,
    /// Refused when another block of as many seats in the same row strands none.
    Lenient,
    /// Always refused; best available picks only blocks that strand none.
    Strict,
}

impl OrphanRule {
    /// The rule named on the wire; `None` for another name.
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "off" => Some(Self::Off),
            "lenient" => Some(Self::Lenient),
            "strict" => Some(Self::Strict),
            _ => None,
        }
    }

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Off => "off",
            Self::Lenient => "lenient",
            Self::Strict => "strict",
        }
    }
}

/// Is seat `at` free (for the request at hand)?
pub type Free<'a> = &'a dyn Fn(usize) -> bool;

/// The seats of a show by row: each row (a section and a row name) in
/// number order. Seats are named by their index in the show's definition;
/// a seat without a place is in no row and never stranded.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Rows {
    /// Each row's seats in number order; rows ordered by section, then row.
    rows: Vec<Vec<usize>>,
    /// Per seat: its row and its position in that row.
    places: Vec<Option<(usize, usize)>>,
    /// Per seat: its number (0 for a seat without a place).
    numbers: Vec<u32>,
}

impl Rows {
    /// The rows of seats given as `(section, row, number)` in definition
    /// order (`None`: no place). O(n log n), with the crate's one sort (the
    /// browser's wasm carries a single copy of it).
    pub fn new<'a>(places: impl IntoIterator<Item = Option<(&'a str, &'a str, u32)>>) -> Self {
        let given: Vec<Option<(&str, &str, u32)>> = places.into_iter().collect();
        let mut order: Vec<usize> = (0..given.len()).filter(|&at| given[at].is_some()).collect();
        crate::order::sort_by(&mut order, &|a, b| given[a].cmp(&given[b]));
        let mut rows: Vec<Vec<usize>> = Vec::new();
        let mut places = vec![None; given.len()];
        let mut previous = None;
        for at in order {
            let Some((section, row, _)) = given[at] else { continue };
            if previous != Some((section, row)) {
                rows.push(Vec::new());
                previous = Some((section, row));
            }
            // A row was pushed above, for this seat or one before it.
            let row = rows.len() - 1;
            places[at] = Some((row, rows[row].len()));
            rows[row].push(at);
        }
        let numbers = given.iter().map(|place| place.map_or(0, |(_, _, number)| number)).collect();
        Self { rows, places, numbers }
    }

    /// Every row's seats in number order.
    pub fn rows(&self) -> &[Vec<usize>] {
        &self.rows
    }

    /// The row a seat is in, and its position there.
    pub fn place(&self, seat: usize) -> Option<(usize, usize)> {
        self.places.get(seat).copied().flatten()
    }

    /// Whether seat `right` has the next number after seat `left`'s.
    pub fn adjacent(&self, left: usize, right: usize) -> bool {
        self.numbers[left].checked_add(1) == Some(self.numbers[right])
            && matches!((self.place(left), self.place(right)), (Some((a, _)), Some((b, _))) if a == b)
    }

    /// The seat numbered one lower in the same row, if there is one.
    pub fn left(&self, seat: usize) -> Option<usize> {
        let (row, position) = self.place(seat)?;
        let left = *self.rows[row].get(position.checked_sub(1)?)?;
        self.adjacent(left, seat).then_some(left)
    }

    /// The seat numbered one higher in the same row, if there is one.
    pub fn right(&self, seat: usize) -> Option<usize> {
        let (row, position) = self.place(seat)?;
        let right = *self.rows[row].get(position + 1)?;
        self.adjacent(seat, right).then_some(right)
    }

    /// Whether `seat` is stranded: in a row, free, and neither neighbour free.
    pub fn stranded(&self, seat: usize, free: Free<'_>) -> bool {
        self.place(seat).is_some()
            && free(seat)
            && !self.left(seat).is_some_and(free)
            && !self.right(seat).is_some_and(free)
    }

    /// The seats that taking `taken` (free seats) would strand that are not
    /// stranded now, in row order. Only a neighbour of a taken seat can be.
    pub fn newly_stranded(&self, taken: &[usize], free: Free<'_>) -> Vec<usize> {
        let mut sorted = taken.to_vec();
        crate::order::sort_ascending(&mut sorted);
        let after = |seat: usize| free(seat) && sorted.binary_search(&seat).is_err();
        let mut stranded: Vec<usize> = taken
            .iter()
            .flat_map(|&seat| [self.left(seat), self.right(seat)])
            .flatten()
            .filter(|&seat| self.stranded(seat, &after) && !self.stranded(seat, free))
            .collect();
        crate::order::sort_by(&mut stranded, &|a, b| self.places[a].cmp(&self.places[b]));
        stranded.dedup();
        stranded
    }

    /// Whether taking the seats of `row` at `positions` (adjacent free
    /// seats) strands one: [`Self::newly_stranded`] of a block, in O(1).
    /// Only the seat just outside each end can be stranded, and only when
    /// nothing free is beyond it (before, the block beside it was free).
    pub fn block_strands(&self, row: usize, positions: Range<usize>, free: Free<'_>) -> bool {
        let seats = &self.rows[row];
        let (Some(&first), Some(&last)) =
            (seats.get(positions.start), positions.end.checked_sub(1).and_then(|p| seats.get(p)))
        else {
            return false;
        };
        let alone = |outside: Option<usize>, beyond: fn(&Self, usize) -> Option<usize>| {
            outside.is_some_and(|seat| free(seat) && !beyond(self, seat).is_some_and(free))
        };
        alone(self.left(first), Self::left) || alone(self.right(last), Self::right)
    }

    /// The blocks of `count` adjacent free seats in `row` whose taking
    /// strands none, as positions in the row, left to right. O(r).
    pub fn clean_blocks<'a>(
        &'a self,
        row: usize,
        count: usize,
        free: Free<'a>,
    ) -> impl Iterator<Item = Range<usize>> + 'a {
        let seats = &self.rows[row];
        // The length of the run of adjacent free seats ending at each position.
        let mut run = 0;
        let ends: Vec<usize> = (0..seats.len())
            .filter(move |&p| {
                let joined = p > 0 && self.adjacent(seats[p - 1], seats[p]);
                run = if free(seats[p]) { if joined { run + 1 } else { 1 } } else { 0 };
                count > 0 && run >= count
            })
            .collect();
        ends.into_iter()
            .map(move |end| end + 1 - count..end + 1)
            .filter(move |block| !self.block_strands(row, block.clone(), free))
    }

    /// What `rule` says of taking `taken` (free seats): `Err` with the seats
    /// to name in `409 would_strand`, in row order. Under `lenient` a row's
    /// stranded seats are named only when that row has another block of as
    /// many seats as are taken there that strands none.
    pub fn verdict(&self, rule: OrphanRule, taken: &[usize], free: Free<'_>) -> Result<(), Vec<usize>> {
        if rule == OrphanRule::Off {
            return Ok(());
        }
        let mut stranded = self.newly_stranded(taken, free);
        if rule == OrphanRule::Lenient {
            let avoidable = |row: usize| {
                let count = taken.iter().filter(|&&seat| self.place(seat).is_some_and(|(r, _)| r == row)).count();
                self.clean_blocks(row, count, free).next().is_some()
            };
            let mut answered: Vec<(usize, bool)> = Vec::new();
            stranded.retain(|&seat| {
                let Some((row, _)) = self.place(seat) else { return false };
                if let Some(&(_, avoid)) = answered.iter().find(|(r, _)| *r == row) {
                    return avoid;
                }
                let avoid = avoidable(row);
                answered.push((row, avoid));
                avoid
            });
        }
        if stranded.is_empty() { Ok(()) } else { Err(stranded) }
    }

    /// For a page's warning: where the taken seats of `stranded`'s row
    /// could go instead, as the block of as many seats in that row that
    /// strands none and moves least (by position; ties to the left). `None`
    /// for a seat in no row, or when no such block exists.
    pub fn shift(&self, stranded: usize, taken: &[usize], free: Free<'_>) -> Option<Shift> {
        let (row, _) = self.place(stranded)?;
        let mut positions: Vec<usize> =
            taken.iter().filter_map(|&seat| self.place(seat)).filter(|(r, _)| *r == row).map(|(_, p)| p).collect();
        crate::order::sort_ascending(&mut positions);
        let from = positions.first().copied()?;
        let (by, block) = self
            .clean_blocks(row, positions.len(), free)
            .map(|block| (block.start as i64 - from as i64, block))
            .min_by_key(|(by, block)| (by.unsigned_abs(), block.start))?;
        let from = positions.into_iter().map(|p| self.rows[row][p]).collect();
        Some(Shift { from, to: self.rows[row][block].to_vec(), by })
    }
}

/// A way out of stranding a seat: hold `to` instead of `from`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shift {
    /// The taken seats of the row, in number order.
    pub from: Vec<usize>,
    /// As many adjacent seats of that row that strand none.
    pub to: Vec<usize>,
    /// How many positions along the row the first seat moves (negative:
    /// towards lower numbers).
    pub by: i64,
}
