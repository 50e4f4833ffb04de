//! The demo arena's bowl: a horseshoe of sections around a standing floor,
//! open at the top, where the stage is. Two tiers of curved rows: the lower
//! (sections 101–110, rows 1–24) and, past a concourse, the upper (sections
//! 201–212, rows 1–33). Rows follow circles about the floor's centre with
//! seats 12 map units apart along them and rows 14 apart, so outer rows hold
//! more seats, as in a real bowl; sections are split by 30-unit aisles.
//!
//! Seat ids stay those of the earlier grid, `R1-1` … `R80-250` (the load
//! tools and tests address seats by them), handed out in order of section,
//! row and seat: an id is opaque, the label and `section`/`row`/`number`
//! say where a seat is.

use seat_state::wire::{Focus, SeatDefinition, VenueSeat};

use super::placed;

/// Seats along a row, in map units (centre to centre).
const PITCH: f64 = 12.0;
/// From one row to the next, in map units.
const ROW_DEPTH: f64 = 14.0;
/// Between two sections, in map units, at every row.
const AISLE: f64 = 30.0;
/// The innermost row's radius: the floor lies inside it.
const FLOOR_RADIUS: f64 = 560.0;
/// The concourse between the tiers, added to one row's depth.
const CONCOURSE: f64 = 60.0;
/// The bowl runs this far each way from the bottom, in degrees; the stage
/// fills the opening at the top.
const HALF_SPAN_DEGREES: f64 = 135.0;

/// One tier: its category, how many rows and sections, its first section's number.
struct Tier {
    category: &'static str,
    rows: u32,
    sections: u32,
    first_section: u32,
}

const TIERS: [Tier; 2] = [
    Tier { category: "lower", rows: 24, sections: 10, first_section: 101 },
    Tier { category: "upper", rows: 33, sections: 12, first_section: 201 },
];

/// Seats of one id row (`R{n}-…`), kept from the earlier grid.
const IDS_PER_ROW: usize = 250;

/// The stage, at the top of the floor: best available ranks by distance to it.
pub const STAGE: Focus = Focus { x: 0.0, y: -420.0 };

/// Every seat of the bowl, 20,000 of them, tier by tier, section by
/// section (anticlockwise from the stage's left), row by row outwards.
pub fn seats() -> Vec<VenueSeat> {
    let half_span = HALF_SPAN_DEGREES.to_radians();
    let mut seats = Vec::with_capacity(20_000);
    let mut first_radius = FLOOR_RADIUS;
    for tier in &TIERS {
        let section_span = 2.0 * half_span / f64::from(tier.sections);
        for section in 0..tier.sections {
            let middle = -half_span + (f64::from(section) + 0.5) * section_span;
            let name = (tier.first_section + section).to_string();
            for row in 1..=tier.rows {
                let radius = first_radius + f64::from(row - 1) * ROW_DEPTH;
                // As many seats as the row's arc holds, centred in the section.
                let count = ((section_span * radius - AISLE) / PITCH).floor() as u32;
                let step = PITCH / radius;
                for number in 1..=count {
                    let angle = middle + (f64::from(number) - (f64::from(count) + 1.0) / 2.0) * step;
                    let at = seats.len();
                    let seat = SeatDefinition {
                        id: format!("R{}-{}", at / IDS_PER_ROW + 1, at % IDS_PER_ROW + 1),
                        // Angle 0 points down, away from the stage at the top.
                        x: round_tenth(radius * angle.sin()),
                        y: round_tenth(radius * angle.cos()),
                        label: Some(format!("Section {name}, row {row}, seat {number}")),
                        category: Some(tier.category.to_owned()),
                    };
                    seats.push(placed(seat, &name, row, number));
                }
            }
        }
        first_radius += f64::from(tier.rows - 1) * ROW_DEPTH + CONCOURSE;
    }
    seats
}

/// Map units to a tenth: shorter JSON, no visible difference.
fn round_tenth(value: f64) -> f64 {
    (value * 10.0).round() / 10.0
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, HashSet};

    use super::*;

    #[test]
    fn the_bowl_has_20000_seats_with_the_grids_ids_and_no_two_in_one_place() {
        let seats = seats();
        assert_eq!(seats.len(), 20_000);
        let ids: HashSet<&str> = seats.iter().map(|seat| seat.seat.id.as_str()).collect();
        assert_eq!(ids.len(), 20_000, "ids are unique");
        assert!(ids.contains("R1-1") && ids.contains("R80-250"), "the grid's ids, first to last");
        // Neighbours in a row are a pitch apart; no seat is nearer another than that.
        let mut cells: BTreeMap<(i64, i64), Vec<(f64, f64)>> = BTreeMap::new();
        for seat in &seats {
            let (x, y) = (seat.seat.x, seat.seat.y);
            cells.entry(((x / PITCH).floor() as i64, (y / PITCH).floor() as i64)).or_default().push((x, y));
        }
        for (&(cx, cy), members) in &cells {
            for (x, y) in members {
                for dx in -1..=1 {
                    for dy in -1..=1 {
                        for (ox, oy) in cells.get(&(cx + dx, cy + dy)).into_iter().flatten() {
                            let distance = (x - ox).hypot(y - oy);
                            assert!(
                                distance == 0.0 && (x, y) == (ox, oy) || distance > PITCH * 0.9,
                                "({x}, {y}) and ({ox}, {oy})"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn rows_curve_around_the_stage_and_the_stage_faces_the_opening() {
        let seats = seats();
        let row: Vec<&VenueSeat> = seats
            .iter()
            .filter(|seat| seat.section.as_deref() == Some("105") && seat.row.as_deref() == Some("1"))
            .collect();
        assert!(row.len() > 5, "a row of section 105: {}", row.len());
        // Every seat of a row is as far from the floor's centre: a curve, not a line.
        let radii: Vec<f64> = row.iter().map(|seat| seat.seat.x.hypot(seat.seat.y)).collect();
        assert!(radii.iter().all(|r| (r - radii[0]).abs() < 0.2), "{radii:?}");
        let ys: Vec<f64> = row.iter().map(|seat| seat.seat.y).collect();
        assert!(ys.iter().any(|y| (y - ys[0]).abs() > 1.0), "not a straight horizontal row");
        // No seat stands between the stage and the floor's centre.
        assert!(seats.iter().all(|seat| seat.seat.y > STAGE.y || seat.seat.x.abs() > 150.0));
        let sections: HashSet<&str> = seats.iter().filter_map(|seat| seat.section.as_deref()).collect();
        assert_eq!(sections.len(), 22, "10 lower and 12 upper sections");
    }
}
