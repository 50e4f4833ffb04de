//! The demo shows `--demo` creates: a small theatre (rows A–H of 20 seats)
//! and an arena of 20,000 seats with a 5,000-place standing floor, both
//! with price categories, rows for best available and the stage; the
//! theatre keeps G19–G20 for the `presale` channel (code [`PRESALE_CODE`]).
//! A club (rows A–E of 12) sells under the strict orphan rule and keeps
//! wheelchair places with companion seats. A stadium of 200,000 seats is
//! defined with parametric rows.

mod arena;
mod stadium;

use seat_state::wire::{
    AreaDefinition, CategoryDefinition, ChannelDefinition, Focus, SeatDefinition, ShowInput, VenueSeat,
};
use seat_state::{SeatId, Show};

/// The code that unlocks the demo theatre's presale seats.
pub const PRESALE_CODE: &str = "PRESALE";

fn category(id: &str, name: &str, price: i64, color: &str) -> CategoryDefinition {
    CategoryDefinition { id: id.into(), name: name.into(), price, currency: "EUR".into(), color: color.into() }
}

/// A seat at its place in a row.
fn placed(seat: SeatDefinition, section: &str, row: impl ToString, number: u32) -> VenueSeat {
    VenueSeat {
        seat,
        section: Some(section.to_owned()),
        row: Some(row.to_string()),
        number: Some(number.into()),
        access: None,
        companion_of: None,
    }
}

/// The demo theatre's id.
pub const DEMO_SHOW_ID: &str = "demo-theatre";

const ROWS: &str = "ABCDEFGH";
const SEATS_PER_ROW: u32 = 20;

/// Rows A–H facing the stage at the top, an aisle between seats 10 and 11.
pub fn theatre() -> Show {
    let seats = ROWS
        .chars()
        .enumerate()
        .flat_map(|(row_index, row)| {
            (1..=SEATS_PER_ROW).map(move |number| {
                let aisle = if number > SEATS_PER_ROW / 2 { 20.0 } else { 0.0 };
                let seat = SeatDefinition {
                    id: format!("{row}{number}"),
                    x: f64::from(number - 1) * 30.0 + aisle,
                    y: row_index as f64 * 34.0,
                    label: Some(format!("Row {row}, seat {number}")),
                    category: Some(if row_index < 3 { "premium" } else { "standard" }.to_owned()),
                };
                // The aisle splits each row: seats 10 and 11 are not together.
                placed(seat, if number <= SEATS_PER_ROW / 2 { "Left" } else { "Right" }, row, number)
            })
        })
        .collect();
    let input = ShowInput {
        id: Some(DEMO_SHOW_ID.to_owned()),
        name: Some("Demo Theatre — Improv night".to_owned()),
        seats: Some(seats),
        categories: Some(vec![
            category("premium", "Premium", 4500, "#b35900"),
            category("standard", "Standard", 2500, "#1f6feb"),
        ]),
        focus: Some(Focus { x: 295.0, y: -60.0 }),
        channels: Some(vec![ChannelDefinition {
            id: "presale".into(),
            code: Some(PRESALE_CODE.into()),
            seats: vec!["G19".into(), "G20".into()],
        }]),
        ..ShowInput::default()
    };
    Show::parse(&input).expect("the demo theatre is a valid show")
}

/// Seats a new demo show's box office blocks, and why: the theatre's sound
/// desk takes four seats at the back.
pub fn blocked(show_id: &str) -> Option<(Vec<SeatId>, &'static str)> {
    let seats: &[&str] = match show_id {
        DEMO_SHOW_ID => &["H9", "H10", "H11", "H12"],
        _ => return None,
    };
    Some((seats.iter().filter_map(|seat| SeatId::parse(seat).ok()).collect(), "sound desk"))
}

/// The demo arena's id.
pub const ARENA_SHOW_ID: &str = "demo-arena";

/// 20,000 seats in a horseshoe of sections with curved rows around a
/// standing floor of 5,000, the stage at the top (`arena.rs`).
pub fn arena() -> Show {
    let seats = arena::seats();
    let input = ShowInput {
        id: Some(ARENA_SHOW_ID.to_owned()),
        name: Some("Demo Arena — Stadium tour".to_owned()),
        seats: Some(seats),
        areas: Some(vec![AreaDefinition { id: "floor".to_owned(), name: "Standing floor".to_owned(), capacity: 5000 }]),
        categories: Some(vec![
            category("lower", "Lower tier", 8900, "#8250df"),
            category("upper", "Upper tier", 4900, "#1a7f37"),
        ]),
        focus: Some(arena::STAGE),
        ..ShowInput::default()
    };
    Show::parse(&input).expect("the demo arena is a valid show")
}

/// The demo stadium's id.
pub const STADIUM_SHOW_ID: &str = "demo-stadium";

/// 200,000 seats in three tiers of sections around a pitch, as parametric
/// rows (`stadium.rs`), with wheelchair places, and three standing areas.
pub fn stadium() -> Show {
    let area = |id: &str, name: &str, capacity| AreaDefinition { id: id.into(), name: name.into(), capacity };
    let input = ShowInput {
        id: Some(STADIUM_SHOW_ID.to_owned()),
        name: Some("Demo Stadium — Cup final".to_owned()),
        seats: Some(Vec::new()),
        rows: Some(stadium::rows()),
        areas: Some(vec![
            area("north-terrace", "North terrace (standing)", 6000),
            area("south-terrace", "South terrace (standing)", 6000),
            area("family-enclosure", "Family enclosure (standing)", 1500),
        ]),
        categories: Some(vec![
            category("lower-side", "Lower tier, sides", 12900, "#b35900"),
            category("lower-end", "Lower tier, ends", 9900, "#8250df"),
            category("middle", "Middle tier", 6900, "#1f6feb"),
            category("upper", "Upper tier", 3900, "#1a7f37"),
        ]),
        focus: Some(stadium::CENTRE),
        ..ShowInput::default()
    };
    Show::parse(&input).expect("the demo stadium is a valid show")
}

/// The demo club's id.
pub const CLUB_SHOW_ID: &str = "demo-club";

/// Rows A–E of 12 seats under `orphanRule: strict` (no hold may leave a
/// single seat alone in its row); row E's seats 1 and 12 are wheelchair
/// places, each with the companion seat beside it (E2, E11), kept for
/// requests that ask for access (the club sets no release time).
pub fn club() -> Show {
    let seats = "ABCDE"
        .chars()
        .enumerate()
        .flat_map(|(row_index, row)| {
            (1..=12).map(move |number| {
                let seat = SeatDefinition {
                    id: format!("{row}{number}"),
                    x: f64::from(number - 1) * 30.0,
                    y: row_index as f64 * 34.0,
                    label: Some(format!("Row {row}, seat {number}")),
                    category: None,
                };
                let mut seat = placed(seat, "Club", row, number);
                let access = |kind: &str, of: Option<&str>| (Some(kind.to_owned()), of.map(ToOwned::to_owned));
                (seat.access, seat.companion_of) = match (row, number) {
                    ('E', 1 | 12) => access("wheelchair", None),
                    ('E', 2) => access("companion", Some("E1")),
                    ('E', 11) => access("companion", Some("E12")),
                    _ => (None, None),
                };
                seat
            })
        })
        .collect();
    let input = ShowInput {
        id: Some(CLUB_SHOW_ID.to_owned()),
        name: Some("Demo Club — Jazz trio".to_owned()),
        seats: Some(seats),
        focus: Some(Focus { x: 165.0, y: -60.0 }),
        orphan_rule: Some("strict".to_owned()),
        ..ShowInput::default()
    };
    Show::parse(&input).expect("the demo club is a valid show")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_demo_shows_have_priced_categories_rows_and_a_stage() {
        for show in [theatre(), arena()] {
            assert!(show.categories.iter().all(|category| category.price > 0), "{}", show.id);
            assert!(show.seats.iter().all(|seat| seat.place.is_some()), "{}", show.id);
            assert!(show.focus.is_some(), "{}", show.id);
        }
        let club = club();
        assert_eq!(club.orphan_rule, seat_state::OrphanRule::Strict);
        assert_eq!(club.seats.iter().filter(|seat| seat.access.is_some()).count(), 4, "two places, two companions");
        let presale = &theatre().channels[0];
        assert_eq!((presale.code.as_str(), presale.seats.len()), (PRESALE_CODE, 2));
    }

    #[test]
    fn the_theatre_blocks_a_block_of_its_own_seats_outside_the_presale() {
        let (seats, _) = blocked(DEMO_SHOW_ID).unwrap_or_default();
        let theatre = theatre();
        assert_eq!(seats.len(), 4);
        assert!(seats.iter().all(|seat| theatre.seats.iter().any(|known| known.id == *seat)));
        assert!(seats.iter().all(|seat| !theatre.channels[0].seats.contains(seat)));
    }
}
