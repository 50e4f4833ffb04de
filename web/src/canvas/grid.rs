//! A uniform grid over the map: which seats lie in a rectangle, and which
//! seat is under a point, without a DOM node per seat. Built once per
//! venue with a counting sort (two passes, no per-cell vectors).

use crate::layout::Bounds;

/// The grid stays under this many cells whatever the venue's spread.
const MAX_CELLS: usize = 1 << 16;

/// Seats bucketed by square cells: cell `c`'s seats are
/// `items[starts[c]..starts[c + 1]]`.
#[derive(Debug, Clone)]
pub struct SeatGrid {
    x0: f64,
    y0: f64,
    cell: f64,
    cols: usize,
    rows: usize,
    starts: Vec<u32>,
    items: Vec<u32>,
}

impl SeatGrid {
    /// The grid over `bounds` with cells of about `cell` map units (larger
    /// when that would make too many cells).
    pub fn new(points: &[(f64, f64)], bounds: Bounds, cell: f64) -> Self {
        let area = (bounds.width.max(1.0)) * (bounds.height.max(1.0));
        let cell = cell.max((area / MAX_CELLS as f64).sqrt()).max(1e-3);
        let cols = ((bounds.width / cell).floor() as usize + 1).max(1);
        let rows = ((bounds.height / cell).floor() as usize + 1).max(1);
        let mut grid =
            Self { x0: bounds.x, y0: bounds.y, cell, cols, rows, starts: vec![0; cols * rows + 1], items: vec![] };
        let cells: Vec<usize> = points.iter().map(|&(x, y)| grid.cell_of(x, y)).collect();
        for &c in &cells {
            grid.starts[c + 1] += 1;
        }
        for c in 0..cols * rows {
            grid.starts[c + 1] += grid.starts[c];
        }
        let mut next = grid.starts.clone();
        grid.items = vec![0; points.len()];
        for (seat, &c) in cells.iter().enumerate() {
            grid.items[next[c] as usize] = seat as u32;
            next[c] += 1;
        }
        grid
    }

    fn column(&self, x: f64) -> usize {
        (((x - self.x0) / self.cell).floor().max(0.0) as usize).min(self.cols - 1)
    }

    fn row(&self, y: f64) -> usize {
        (((y - self.y0) / self.cell).floor().max(0.0) as usize).min(self.rows - 1)
    }

    fn cell_of(&self, x: f64, y: f64) -> usize {
        self.row(y) * self.cols + self.column(x)
    }

    /// Calls `visit` with every seat whose cell meets `rect` (a few outside
    /// it too: callers draw or test them anyway).
    pub fn visit(&self, rect: Bounds, mut visit: impl FnMut(usize)) {
        let (c0, c1) = (self.column(rect.x), self.column(rect.x + rect.width));
        let (r0, r1) = (self.row(rect.y), self.row(rect.y + rect.height));
        for r in r0..=r1 {
            let (from, to) = (self.starts[r * self.cols + c0] as usize, self.starts[r * self.cols + c1 + 1] as usize);
            self.items[from..to].iter().for_each(|&seat| visit(seat as usize));
        }
    }

    /// The seat nearest `(x, y)` within `reach` map units, if any.
    pub fn hit(&self, points: &[(f64, f64)], x: f64, y: f64, reach: f64) -> Option<usize> {
        let mut best: Option<(f64, usize)> = None;
        let around = Bounds { x: x - reach, y: y - reach, width: 2.0 * reach, height: 2.0 * reach };
        self.visit(around, |seat| {
            let distance = (points[seat].0 - x).hypot(points[seat].1 - y);
            if distance <= reach && best.is_none_or(|(nearest, _)| distance < nearest) {
                best = Some((distance, seat));
            }
        });
        best.map(|(_, seat)| seat)
    }
}
