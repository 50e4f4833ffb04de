//! Where seats are and which seat an arrow key leads to.
//!
//! Rows come from the labels when every label reads like "Row B, seat 7"
//! (everything before the last comma names the row); otherwise from the
//! seats' heights on the map. Within a row, seats run left to right.

use std::collections::HashMap;

use crate::order::sort_by_key;

/// Room around the outermost seats, in map units.
const MARGIN: f64 = 24.0;

/// A seat's place in the keyboard order: its row and its position in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slot {
    pub row: usize,
    pub col: usize,
}

/// Which way a key moves the focus.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    Left,
    Right,
    Up,
    Down,
    RowStart,
    RowEnd,
}

impl Step {
    /// The step a key stands for (`ArrowLeft`, `Home`, …), if any.
    pub fn from_key(key: &str) -> Option<Self> {
        Some(match key {
            "ArrowLeft" => Self::Left,
            "ArrowRight" => Self::Right,
            "ArrowUp" => Self::Up,
            "ArrowDown" => Self::Down,
            "Home" => Self::RowStart,
            "End" => Self::RowEnd,
            _ => return None,
        })
    }
}

/// A row's name on the map.
#[derive(Debug, Clone, PartialEq)]
pub struct RowLabel {
    pub text: String,
    pub x: f64,
    pub y: f64,
}

/// The map's rectangle in map units.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounds {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
}

/// Rows of seat indices (into the caller's seat list) and the map's bounds.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    rows: Vec<Vec<usize>>,
    /// Each row's name ("B" for "Row B, seat 7"), when the labels give one.
    names: Vec<Option<String>>,
    slots: Vec<Slot>,
    xs: Vec<f64>,
    /// The usual distance between neighbours in a row.
    pitch: f64,
    pub bounds: Bounds,
}

/// The row part of a label such as "Row B, seat 7".
fn row_name(label: &str) -> Option<&str> {
    label.rsplit_once(',').map(|(row, _)| row.trim())
}

/// What the map writes beside a row: its own name, without "Row " and
/// without what comes before it ("12" for "Section 104, row 12").
fn short_row_name(name: &str) -> &str {
    let own = name.rsplit(", ").next().unwrap_or(name);
    own.strip_prefix("Row ").or_else(|| own.strip_prefix("row ")).unwrap_or(own)
}

impl Layout {
    /// Lays out seats given as `(x, y, label)` in the caller's order.
    pub fn new<'a>(seats: impl ExactSizeIterator<Item = (f64, f64, &'a str)> + Clone) -> Self {
        let count = seats.len();
        let xs: Vec<f64> = seats.clone().map(|(x, _, _)| x).collect();
        let ys: Vec<f64> = seats.clone().map(|(_, y, _)| y).collect();
        let named: Option<Vec<&str>> = seats.map(|(_, _, label)| row_name(label)).collect();
        let (mut groups, mut names): (Vec<Vec<usize>>, Vec<Option<String>>) = match named {
            Some(seat_rows) => {
                let mut by_name: HashMap<&str, usize> = HashMap::new();
                let (mut groups, mut names) = (Vec::new(), Vec::new());
                let mut last: Option<(&str, usize)> = None;
                for (index, name) in seat_rows.into_iter().enumerate() {
                    // A row's seats mostly come together: no hashing of each seat's row.
                    let group = match last {
                        Some((last_name, group)) if last_name == name => group,
                        _ => *by_name.entry(name).or_insert_with(|| {
                            groups.push(Vec::new());
                            names.push(Some(short_row_name(name).to_owned()));
                            groups.len() - 1
                        }),
                    };
                    last = Some((name, group));
                    groups[group].push(index);
                }
                (groups, names)
            }
            None => {
                let groups = rows_by_height(&ys);
                let names = vec![None; groups.len()];
                (groups, names)
            }
        };
        let mean_y = |row: &Vec<usize>| row.iter().map(|&i| ys[i]).sum::<f64>() / row.len() as f64;
        let means: Vec<f64> = groups.iter().map(mean_y).collect();
        let mut order: Vec<usize> = (0..groups.len()).collect();
        sort_by_key(&mut order, &|row| means[row]);
        let names: Vec<Option<String>> = order.iter().map(|&row| names[row].take()).collect();
        let mut groups: Vec<Vec<usize>> = order.into_iter().map(|row| std::mem::take(&mut groups[row])).collect();
        let mut slots = vec![Slot { row: 0, col: 0 }; count];
        for (row, seats) in groups.iter_mut().enumerate() {
            sort_by_key(seats, &|seat| xs[seat]);
            for (col, &seat) in seats.iter().enumerate() {
                slots[seat] = Slot { row, col };
            }
        }
        let pitch = pitch(&groups, &xs, &ys);
        let mut layout = Self { rows: groups, names, slots, pitch, bounds: bounds(&xs, &ys), xs };
        if layout.names.iter().any(Option::is_some) {
            // Room on the left for the row names.
            let room = layout.pitch();
            layout.bounds.x -= room;
            layout.bounds.width += room;
        }
        layout
    }

    /// Where each named row's name goes: a pitch before its first (leftmost)
    /// seat, along the row (left of a straight row; in the aisle beside a
    /// curved one).
    pub fn row_labels(&self, ys: impl Fn(usize) -> f64) -> Vec<RowLabel> {
        let pitch = self.pitch();
        self.rows
            .iter()
            .zip(&self.names)
            .filter_map(|(row, name)| {
                let (name, first) = (name.as_ref()?, *row.first()?);
                let (x, y) = (self.xs[first], ys(first));
                let (dx, dy) = match row.get(1) {
                    Some(&next) => (self.xs[next] - x, ys(next) - y),
                    None => (1.0, 0.0),
                };
                let length = dx.hypot(dy).max(1e-9);
                Some(RowLabel { text: name.clone(), x: x - dx / length * pitch, y: y - dy / length * pitch })
            })
            .collect()
    }

    /// Each row as a line from its first seat to its last, `(x1, y1, x2,
    /// y2)`, for the minimap (a curved row's chord).
    pub fn row_lines(&self, ys: impl Fn(usize) -> f64) -> Vec<(f64, f64, f64, f64)> {
        self.rows
            .iter()
            .filter_map(|row| {
                let (first, last) = (*row.first()?, *row.last()?);
                Some((self.xs[first], ys(first), self.xs[last], ys(last)))
            })
            .collect()
    }

    /// The seat an arrow (or Home/End) key leads to from `from`; `from`
    /// itself at an edge.
    pub fn step(&self, from: usize, step: Step) -> usize {
        let Some(slot) = self.slots.get(from).copied() else {
            return from;
        };
        let row = &self.rows[slot.row];
        match step {
            Step::Left => row[slot.col.saturating_sub(1)],
            Step::Right => row[(slot.col + 1).min(row.len() - 1)],
            Step::RowStart => row[0],
            Step::RowEnd => row[row.len() - 1],
            Step::Up if slot.row > 0 => self.nearest_in(slot.row - 1, self.xs[from]),
            Step::Down if slot.row + 1 < self.rows.len() => self.nearest_in(slot.row + 1, self.xs[from]),
            Step::Up | Step::Down => from,
        }
    }

    /// The seat of row `row` closest to `x` across.
    fn nearest_in(&self, row: usize, x: f64) -> usize {
        let seats = &self.rows[row];
        seats
            .iter()
            .copied()
            .min_by(|&a, &b| (self.xs[a] - x).abs().total_cmp(&(self.xs[b] - x).abs()))
            .unwrap_or(seats[0])
    }

    /// The first seat in keyboard order (top row, leftmost), if any.
    pub fn first(&self) -> Option<usize> {
        self.rows.first().and_then(|row| row.first()).copied()
    }

    /// The usual distance between neighbours in a row (the median gap),
    /// which sizes the seat shapes.
    pub fn pitch(&self) -> f64 {
        self.pitch
    }

    /// How many rows the seats form.
    pub fn row_count(&self) -> usize {
        self.rows.len()
    }
}

/// The median distance between neighbours in a row (straight or curved;
/// 30 when no row has two seats).
fn pitch(rows: &[Vec<usize>], xs: &[f64], ys: &[f64]) -> f64 {
    let gaps: Vec<f64> = rows
        .iter()
        .flat_map(|row| row.windows(2).map(|pair| (xs[pair[1]] - xs[pair[0]]).hypot(ys[pair[1]] - ys[pair[0]])))
        .filter(|gap| *gap > 1e-6)
        .collect();
    median(gaps).unwrap_or(30.0)
}

/// The upper median of `values`: selected, not sorted (sorting a
/// stadium's 200,000 gaps was a tenth of its page's start).
fn median(mut values: Vec<f64>) -> Option<f64> {
    let middle = values.len() / 2;
    (middle < values.len()).then(|| *values.select_nth_unstable_by(middle, f64::total_cmp).1)
}

/// Groups seats whose heights are within half the usual row spacing.
fn rows_by_height(ys: &[f64]) -> Vec<Vec<usize>> {
    let mut order: Vec<usize> = (0..ys.len()).collect();
    sort_by_key(&mut order, &|seat| ys[seat]);
    let gaps: Vec<f64> = order.windows(2).map(|pair| ys[pair[1]] - ys[pair[0]]).filter(|gap| *gap > 1e-6).collect();
    let tolerance = median(gaps).map_or(1.0, |median| median / 2.0);
    let mut rows: Vec<Vec<usize>> = Vec::new();
    let mut row_top = f64::NEG_INFINITY;
    for index in order {
        if ys[index] - row_top > tolerance || rows.is_empty() {
            rows.push(Vec::new());
            row_top = ys[index];
        }
        if let Some(row) = rows.last_mut() {
            row.push(index);
        }
    }
    rows
}

fn bounds(xs: &[f64], ys: &[f64]) -> Bounds {
    if xs.is_empty() {
        return Bounds { x: 0.0, y: 0.0, width: 100.0, height: 100.0 };
    }
    let min = |values: &[f64]| values.iter().copied().fold(f64::INFINITY, f64::min);
    let max = |values: &[f64]| values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let (min_x, min_y) = (min(xs), min(ys));
    Bounds {
        x: min_x - MARGIN,
        y: min_y - MARGIN,
        width: max(xs) - min_x + 2.0 * MARGIN,
        height: max(ys) - min_y + 2.0 * MARGIN,
    }
}
