//! The demo stadium: 200,000 seats in a bowl of three tiers around a
//! pitch, every row written as a parametric row (issue 36), so its
//! definition is a few bytes a seat. Each tier is a ring of sections:
//! straight rows along the four sides and arcs about the pitch's corners,
//! sections split by 24-unit aisles. Seats are 12 map units apart along a
//! row and rows 14 apart; ids are the rows' default, `{section}-{row}-{n}`.
//!
//! Sections run clockwise from the top-left corner of the pitch, rows
//! outwards, seats clockwise: the definition's seat order, which the
//! compact and bit-set seat maps index by.

use seat_state::wire::{RowCompanion, RowDefinition, RowGap};

/// Seats along a row, in map units (centre to centre).
const PITCH: f64 = 12.0;
/// From one row to the next.
const ROW_DEPTH: f64 = 14.0;
/// Between two sections, at every row.
const AISLE: f64 = 24.0;
/// Half the pitch's length and width.
const HALF_LENGTH: f64 = 700.0;
const HALF_WIDTH: f64 = 450.0;
/// The first row's distance from the pitch.
const FIRST_ROW: f64 = 60.0;
/// A concourse between two tiers, added to one row's depth.
const CONCOURSE: f64 = 80.0;

/// One tier: its rows, its sections along a long side, a short side and
/// a corner, its first section's number, its category for the long sides
/// and for the rest.
struct Tier {
    rows: u32,
    long: u32,
    short: u32,
    corner: u32,
    first_section: u32,
    sides: &'static str,
    ends: &'static str,
}

const TIERS: [Tier; 3] = [
    Tier { rows: 60, long: 4, short: 3, corner: 2, first_section: 101, sides: "lower-side", ends: "lower-end" },
    Tier { rows: 60, long: 5, short: 4, corner: 3, first_section: 201, sides: "middle", ends: "middle" },
    Tier { rows: 66, long: 6, short: 5, corner: 4, first_section: 301, sides: "upper", ends: "upper" },
];

/// How many seats the bowl holds: the upper tier's last rows are cut to it.
pub const SEATS: usize = 200_000;

/// The pitch's centre: best available ranks by distance to it.
pub const CENTRE: seat_state::wire::Focus = seat_state::wire::Focus { x: 0.0, y: 0.0 };

/// One stretch of a ring: a straight side or a corner's arc.
#[derive(Clone, Copy)]
enum Stretch {
    /// From `(x, y)` heading `angle` degrees for `length`.
    Side { x: f64, y: f64, angle: f64, length: f64, sections: u32, long: bool },
    /// About the pitch corner `(cx, cy)`, from heading `angle` through 90°.
    Corner { cx: f64, cy: f64, angle: f64, sections: u32 },
}

/// The ring's stretches clockwise from the top-left corner: top, top-right
/// corner, right, bottom-right, bottom, bottom-left, left, top-left.
fn stretches(tier: &Tier, offset: f64) -> [Stretch; 8] {
    let (a, b) = (HALF_LENGTH, HALF_WIDTH);
    let side = |x, y, angle, length, long: bool| Stretch::Side {
        x,
        y,
        angle,
        length,
        sections: if long { tier.long } else { tier.short },
        long,
    };
    let corner = |cx, cy, angle| Stretch::Corner { cx, cy, angle, sections: tier.corner };
    [
        side(-a, -b - offset, 0.0, 2.0 * a, true),
        corner(a, -b, 0.0),
        side(a + offset, -b, 90.0, 2.0 * b, false),
        corner(a, b, 90.0),
        side(a, b + offset, 180.0, 2.0 * a, true),
        corner(-a, b, 180.0),
        side(-a - offset, b, 270.0, 2.0 * b, false),
        corner(-a, -b, 270.0),
    ]
}

/// Every row of the bowl, tier by tier, section by section, row outwards.
pub fn rows() -> Vec<RowDefinition> {
    let mut rows = Vec::new();
    let mut first_offset = FIRST_ROW;
    for tier in &TIERS {
        let mut section = tier.first_section;
        for stretch_at in 0..8 {
            let sections = match stretches(tier, 0.0)[stretch_at] {
                Stretch::Side { sections, .. } | Stretch::Corner { sections, .. } => sections,
            };
            for part in 0..sections {
                for row in 1..=tier.rows {
                    let offset = first_offset + f64::from(row - 1) * ROW_DEPTH;
                    let stretch = stretches(tier, offset)[stretch_at];
                    rows.push(section_row(tier, section, row, offset, stretch, part));
                }
                section += 1;
            }
        }
        first_offset += f64::from(tier.rows - 1) * ROW_DEPTH + CONCOURSE;
    }
    cut_to(&mut rows, SEATS);
    rows
}

/// Row `row` of section `section`, `offset` from the pitch, the `part`-th
/// section of its stretch: as many seats as fit between the aisles, centred.
fn section_row(tier: &Tier, section: u32, row: u32, offset: f64, stretch: Stretch, part: u32) -> RowDefinition {
    let (length, sections) = match stretch {
        Stretch::Side { length, sections, .. } => (length, sections),
        // A corner's rows are quarter circles about it, `offset` in radius.
        Stretch::Corner { sections, .. } => (offset * core::f64::consts::FRAC_PI_2, sections),
    };
    let share = length / f64::from(sections);
    let count = ((share - AISLE) / PITCH).floor() + 1.0;
    // From the section's start to its first seat: half an aisle and what is left over.
    let lead = (share - (count - 1.0) * PITCH) / 2.0 + f64::from(part) * share;
    let (x, y, angle, radius, category) = match stretch {
        Stretch::Side { x, y, angle, long, .. } => {
            let (sin, cos) = angle.to_radians().sin_cos();
            let category = if long { tier.sides } else { tier.ends };
            (x + lead * cos, y + lead * sin, angle, None, category)
        }
        Stretch::Corner { cx, cy, angle, .. } => {
            let heading = angle.to_radians() + lead / offset;
            // The corner lies to the right of the heading: the seat is to its left.
            (cx + offset * heading.sin(), cy - offset * heading.cos(), heading.to_degrees(), Some(offset), tier.ends)
        }
    };
    let count = count as i64;
    let mut definition = RowDefinition {
        section: Some(section.to_string()),
        row: Some(row.to_string()),
        id_prefix: None,
        x: tenth(x),
        y: tenth(y),
        angle: Some(hundredth(angle)).filter(|angle| *angle != 0.0),
        radius,
        spacing: PITCH,
        count,
        first: None,
        step: None,
        category: Some(category.to_owned()),
        gaps: Vec::new(),
        wheelchair: Vec::new(),
        companions: Vec::new(),
    };
    let straight = radius.is_none();
    // The middle tier's straight sections have an aisle down their middle.
    if straight && tier.first_section == 201 && count > 8 {
        definition.count -= 2;
        definition.gaps.push(RowGap { after: (count - 2) / 2, space: PITCH * 2.0 });
    }
    // The lower tier's back row on the sides is a platform: a wheelchair
    // place every four seats, its companion seat beside it.
    if straight && tier.first_section == 101 && row == tier.rows {
        definition.wheelchair = (2..definition.count).step_by(4).collect();
        definition.companions = definition.wheelchair.iter().map(|&of| RowCompanion { number: of + 1, of }).collect();
    }
    definition
}

/// Takes seats off the last rows until `rows` stand for `seats` seats.
fn cut_to(rows: &mut Vec<RowDefinition>, seats: usize) {
    let mut over = seat_state::parametric::seat_count(rows).saturating_sub(seats);
    while over > 0 {
        let Some(last) = rows.last_mut() else { return };
        let cut = over.min(usize::try_from(last.count).unwrap_or(0));
        if cut as i64 == last.count {
            rows.pop();
        } else {
            last.count -= cut as i64;
        }
        over -= cut;
    }
}

fn tenth(value: f64) -> f64 {
    (value * 10.0).round() / 10.0
}

fn hundredth(value: f64) -> f64 {
    (value * 100.0).round() / 100.0
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[test]
    fn the_bowl_has_200000_seats_in_three_tiers_with_wheelchair_places() {
        let show = super::super::stadium();
        assert_eq!(show.seats.len(), SEATS);
        let sections: HashSet<&str> =
            show.seats.iter().filter_map(|seat| seat.place.as_ref()).map(|place| place.section.as_str()).collect();
        assert_eq!(sections.len(), 22 + 30 + 38, "a ring of sections per tier");
        let wheelchair = show.seats.iter().filter(|seat| seat.access == Some(seat_state::Access::Wheelchair)).count();
        assert!((50..500).contains(&wheelchair), "{wheelchair} wheelchair places");
        assert_eq!(show.areas.len(), 3);
        // Every seat is at least the first row's distance from the pitch, and within the bowl.
        for seat in &show.seats {
            let beyond = |at: f64, half: f64| (at.abs() - half).max(0.0);
            let from_pitch = beyond(seat.x, HALF_LENGTH).hypot(beyond(seat.y, HALF_WIDTH));
            assert!((FIRST_ROW - 0.5..3000.0).contains(&from_pitch), "{seat:?}");
        }
    }

    #[test]
    fn neighbours_in_a_row_are_a_pitch_apart_except_across_an_aisle() {
        let show = super::super::stadium();
        let mut across_aisle = 0;
        for pair in show.seats.windows(2) {
            let (a, b) = (&pair[0], &pair[1]);
            if a.place.as_ref().map(|p| (&p.section, &p.row)) != b.place.as_ref().map(|p| (&p.section, &p.row)) {
                continue;
            }
            let distance = (a.x - b.x).hypot(a.y - b.y);
            if (distance - PITCH).abs() > 0.3 {
                assert!((distance - 3.0 * PITCH).abs() < 0.3, "{} to {}: {distance}", a.id, b.id);
                across_aisle += 1;
            }
        }
        assert!(across_aisle > 0, "the middle tier's sides have an aisle in each row");
    }
}
