//! What a canvas map draws when zoomed out: each section as one shape (the
//! convex hull of its seats) with how many of its seats are free, counted
//! once and then kept by each seat's change.

use crate::layout::Bounds;

/// One section of the venue.
#[derive(Debug, Clone)]
pub struct Section {
    pub name: String,
    /// Its outline, in map units, clockwise.
    pub hull: Vec<(f64, f64)>,
    /// The rectangle around its seats.
    pub bounds: Bounds,
    pub seats: u32,
    /// Seats a customer could pick now.
    pub free: u32,
}

/// Every section with its outline and counts.
#[derive(Debug, Clone, Default)]
pub struct Sections {
    pub list: Vec<Section>,
}

impl Sections {
    /// The sections of seats at `points` (`section_of[seat]` its section;
    /// `free(seat)` whether it is free now).
    pub fn new(names: &[String], section_of: &[u32], points: &[(f64, f64)], free: impl Fn(usize) -> bool) -> Self {
        let mut members: Vec<Vec<(f64, f64)>> = vec![Vec::new(); names.len()];
        let mut counts = vec![0_u32; names.len()];
        for (seat, &section) in section_of.iter().enumerate() {
            members[section as usize].push(points[seat]);
            counts[section as usize] += u32::from(free(seat));
        }
        let list = names
            .iter()
            .zip(members)
            .zip(counts)
            .map(|((name, mut points), free)| {
                let bounds = bounds_of(&points);
                let seats = points.len() as u32;
                Section { name: name.clone(), hull: hull(&mut points), bounds, seats, free }
            })
            .collect();
        Self { list }
    }

    /// One seat of `section` became free (`true`) or stopped being.
    pub fn count(&mut self, section: u32, free: bool) {
        if let Some(section) = self.list.get_mut(section as usize) {
            section.free = if free { section.free + 1 } else { section.free.saturating_sub(1) };
        }
    }
}

/// The rectangle around points (empty at the origin for none).
pub fn bounds_of(points: &[(f64, f64)]) -> Bounds {
    let Some(&(x, y)) = points.first() else {
        return Bounds { x: 0.0, y: 0.0, width: 0.0, height: 0.0 };
    };
    let (mut x0, mut y0, mut x1, mut y1) = (x, y, x, y);
    for &(x, y) in points {
        (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
    }
    Bounds { x: x0, y: y0, width: x1 - x0, height: y1 - y0 }
}

/// The convex hull (Andrew's monotone chain); sorts `points`.
fn hull(points: &mut [(f64, f64)]) -> Vec<(f64, f64)> {
    points.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    if points.len() < 3 {
        return points.to_vec();
    }
    let turn = |o: (f64, f64), a: (f64, f64), b: (f64, f64)| (a.0 - o.0) * (b.1 - o.1) - (a.1 - o.1) * (b.0 - o.0);
    let mut out: Vec<(f64, f64)> = Vec::with_capacity(64);
    for pass in 0..2 {
        let start = out.len();
        let chain = |point: (f64, f64), out: &mut Vec<(f64, f64)>| {
            while out.len() >= start + 2 && turn(out[out.len() - 2], out[out.len() - 1], point) <= 0.0 {
                out.pop();
            }
            out.push(point);
        };
        if pass == 0 {
            points.iter().for_each(|&p| chain(p, &mut out));
        } else {
            points.iter().rev().for_each(|&p| chain(p, &mut out));
        }
        out.pop();
    }
    out
}
