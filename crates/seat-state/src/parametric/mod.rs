//! Parametric rows (`rows` in a show definition, [`wire::RowDefinition`])
//! expanded to the seats they stand for. [`crate::Show::parse`] appends
//! them after the definition's `seats`, and clients that read a definition
//! call [`expand`] themselves: one function, so both sides get the same
//! seats, ids and positions ([`arc`] keeps the positions bit-identical).
//!
//! Expansion checks only what it needs to place and name seats; the seats
//! it makes then go through every check an explicit seat does (ids, place,
//! category, access).

mod arc;

use crate::show::InvalidShow;
use crate::wire::{self, RowDefinition, SeatDefinition, VenueSeat};

/// The most seats a row may have.
pub const MAX_ROW_SEATS: i64 = 10_000;
/// The most seats all of a definition's rows may stand for together (a
/// few hundred bytes of memory a seat on the server).
pub const MAX_EXPANDED_SEATS: usize = 500_000;
/// Highest seat number a row may give (as explicit seats: `seating.rs`).
const MAX_NUMBER: i64 = 1_000_000;
/// Largest coordinate, angle or distance accepted, in map units or degrees.
const MAX_MAGNITUDE: f64 = 1e7;

/// How many seats `rows` stand for (0 for a count out of range, which
/// [`expand`] refuses).
pub fn seat_count(rows: &[RowDefinition]) -> usize {
    rows.iter().map(|row| usize::try_from(row.count).unwrap_or(0)).sum()
}

/// Every seat of `rows`, row by row, each row from its first seat: ids
/// `idPrefix` + number, default labels, the row's category and place,
/// wheelchair places and companions.
pub fn expand(rows: &[RowDefinition]) -> Result<Vec<VenueSeat>, InvalidShow> {
    let mut seats = Vec::with_capacity(seat_count(rows).min(MAX_EXPANDED_SEATS));
    for (at, row) in rows.iter().enumerate() {
        let fault = |what: &str| InvalidShow(format!("rows[{at}] {}: {what}", name(row)));
        let checked = Checked::of(row).map_err(|what| fault(&what))?;
        if seats.len() + checked.count > MAX_EXPANDED_SEATS {
            return Err(fault(&format!("the rows stand for more than {MAX_EXPANDED_SEATS} seats")));
        }
        let mut distance = 0.0;
        let heading = arc::sin_cos(checked.heading);
        for k in 0..checked.count {
            if k > 0 {
                distance += row.spacing;
                distance += row.gaps.iter().filter(|gap| gap.after == k as i64).map(|gap| gap.space).sum::<f64>();
            }
            let number = checked.first + checked.step * k as i64;
            let (x, y) = arc::along_from(row.x, row.y, checked.heading, heading, row.radius, distance);
            seats.push(seat(row, &checked, number, x, y));
        }
    }
    Ok(seats)
}

/// A row as its errors name it. Quoted by hand and numbers written as
/// integers: `{:?}` of a string and `{}` of an `f64` would add their
/// formatting code (~13 KB gzipped) to every wasm that expands rows.
fn name(row: &RowDefinition) -> String {
    match (&row.section, &row.row, &row.id_prefix) {
        (Some(section), Some(name), _) => format!("(section \"{section}\", row \"{name}\")"),
        (_, _, Some(prefix)) => format!("(idPrefix \"{prefix}\")"),
        _ => "(no place, no idPrefix)".to_owned(),
    }
}

/// What a row's seats are made from, once its numbers check out.
struct Checked {
    count: usize,
    first: i64,
    step: i64,
    /// In radians.
    heading: f64,
    prefix: String,
}

impl Checked {
    fn of(row: &RowDefinition) -> Result<Self, String> {
        let bounded = |value: f64| value.is_finite() && value.abs() <= MAX_MAGNITUDE;
        let angle = row.angle.unwrap_or(0.0);
        if !(bounded(row.x) && bounded(row.y) && bounded(angle)) {
            return Err(format!("x, y and angle must be finite numbers up to {}", MAX_MAGNITUDE as i64));
        }
        if !(bounded(row.spacing) && row.spacing > 0.0) {
            return Err(format!("spacing must be more than 0 and at most {}", MAX_MAGNITUDE as i64));
        }
        if row.radius.is_some_and(|radius| !(bounded(radius) && radius.abs() >= row.spacing / 2.0)) {
            return Err("radius must be a finite number at least half the spacing either way".to_owned());
        }
        if !(1..=MAX_ROW_SEATS).contains(&row.count) {
            return Err(format!("count must be between 1 and {MAX_ROW_SEATS}, not {}", row.count));
        }
        let (first, step) = (row.first.unwrap_or(1), row.step.unwrap_or(1));
        let last = first.saturating_add(step.saturating_mul(row.count - 1));
        if step == 0 || !(0..=MAX_NUMBER).contains(&first) || !(0..=MAX_NUMBER).contains(&last) {
            return Err(format!(
                "numbers from first {first} by step {step} must stay between 0 and {MAX_NUMBER}, and step must not be 0"
            ));
        }
        let numbers =
            |number: i64| (number - first) % step == 0 && (first.min(last)..=first.max(last)).contains(&number);
        for gap in &row.gaps {
            if !((1..row.count).contains(&gap.after) && bounded(gap.space) && gap.space >= 0.0) {
                return Err(format!("a gap must come after seat 1 to {} with a space of at least 0", row.count - 1));
            }
        }
        let access = row.wheelchair.iter().chain(row.companions.iter().flat_map(|c| [&c.number, &c.of]));
        if let Some(number) = access.copied().find(|&number| !numbers(number)) {
            return Err(format!("names seat number {number}, which the row does not have"));
        }
        let prefix = match (&row.id_prefix, &row.section, &row.row) {
            (Some(prefix), _, _) => prefix.clone(),
            (None, Some(section), Some(name)) => format!("{section}-{name}-"),
            _ => return Err("a row without section and row needs an idPrefix".to_owned()),
        };
        let heading = angle * (core::f64::consts::PI / 180.0);
        Ok(Self { count: row.count as usize, first, step, heading, prefix })
    }
}

/// Seat `number` of `row`, at `(x, y)`.
fn seat(row: &RowDefinition, checked: &Checked, number: i64, x: f64, y: f64) -> VenueSeat {
    // Written piece by piece: `format!` was a fifth of a stadium's expansion in the browser.
    let mut id = String::with_capacity(checked.prefix.len() + 4);
    id.push_str(&checked.prefix);
    crate::drawing::decimal::push_uint(&mut id, number.unsigned_abs());
    let label = wire::default_label(&id, row.section.as_deref(), row.row.as_deref(), Some(number));
    let companion = row.companions.iter().find(|companion| companion.number == number);
    let (access, companion_of) = if row.wheelchair.contains(&number) {
        (Some("wheelchair".to_owned()), None)
    } else if let Some(companion) = companion {
        (Some("companion".to_owned()), Some(format!("{}{}", checked.prefix, companion.of)))
    } else {
        (None, None)
    };
    VenueSeat {
        seat: SeatDefinition { id, x, y, label: Some(label), category: row.category.clone() },
        section: row.section.clone(),
        row: row.row.clone(),
        number: row.section.as_ref().and(row.row.as_ref()).map(|_| number),
        access,
        companion_of,
    }
}
