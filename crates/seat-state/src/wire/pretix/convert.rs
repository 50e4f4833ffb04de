//! pretix plan ↔ Seathold definition, losing nothing both can express.
//!
//! What carries over both ways: each seat's id (`seat_guid`), position,
//! category, and place (zone name = `section`, `row_number` = `row`, an
//! integer `seat_number` = `number`); the show's name; each category's key
//! (pretix `name` = our `id`) and colour (`#rrggbb`).
//!
//! What cannot, from pretix to us: zone and row `position`s (folded into
//! each seat's position), `uuid`s, `zone_id`, `row_number_position`,
//! `start_direction`, a seat's drawn `radius`, the plan's `size`, and
//! `areas` (shapes without a capacity: they sell nothing, ours do); a
//! `row_label`/`seat_label` becomes each seat's whole label, as pretix
//! writes it ("Zone, Row 3, Seat 7"), not the templates; a seat_number
//! that is not a plain integer makes a seat without a place, labelled so.
//! Categories get price 0 in the currency the caller names (pretix keeps
//! prices on products, not in the plan) and, without a `#rrggbb` colour,
//! grey. A `seat_guid` that is not a usable id is refused, except a
//! lowercase UUID, which becomes its 32 hex digits (and back on export).
//!
//! From us to pretix: hold rules, `focus`, channels, the waiting room,
//! access (wheelchair and companion places), GA areas (pretix sells
//! standing places as products, outside the plan), category names, prices
//! and currencies, and a seat label other than the default one. Parametric
//! rows are written as the seats they stand for.

use std::collections::HashMap;

use super::{PretixCategory, PretixPlan, PretixPosition, PretixRow, PretixSeat, PretixSize, PretixZone};
use crate::ids::PlaceId;
use crate::show::InvalidShow;
use crate::wire::{CategoryDefinition, SeatDefinition, ShowInput, VenueSeat};

/// The colour of an imported category whose own is not `#rrggbb`.
const GREY: &str = "#888888";
/// pretix's default seat radius: the plan's size leaves room for it.
const RADIUS: f64 = 10.0;

/// The definition a pretix plan stands for (seats, categories, name; no
/// id: the caller gives the show its own). `currency`: the imported
/// categories' (ISO 4217).
pub fn to_show(plan: &PretixPlan, currency: &str) -> Result<ShowInput, InvalidShow> {
    let mut seats = Vec::new();
    for (zi, zone) in plan.zones.iter().enumerate() {
        for (ri, row) in zone.rows.iter().enumerate() {
            for (si, seat) in row.seats.iter().enumerate() {
                let at = || format!("zones[{zi}].rows[{ri}].seats[{si}]");
                seats.push(seat_of(zone, row, seat).map_err(|what| InvalidShow(format!("{}: {what}", at())))?);
            }
        }
    }
    let categories = plan
        .categories
        .iter()
        .enumerate()
        .map(|(at, category)| {
            let id = PlaceId::parse(&category.name).map_err(|error| {
                InvalidShow(format!(
                    "categories[{at}]: name {:?} is not usable as a category id ({error})",
                    category.name
                ))
            })?;
            let color = category.color.clone().filter(|color| is_hex_color(color)).unwrap_or_else(|| GREY.into());
            Ok(CategoryDefinition {
                id: id.to_string(),
                name: category.name.clone(),
                price: 0,
                currency: currency.to_owned(),
                color,
            })
        })
        .collect::<Result<Vec<_>, InvalidShow>>()?;
    Ok(ShowInput {
        name: Some(plan.name.clone()).filter(|name| !name.trim().is_empty()),
        seats: Some(seats),
        categories: Some(categories).filter(|categories| !categories.is_empty()),
        ..ShowInput::default()
    })
}

fn seat_of(zone: &PretixZone, row: &PretixRow, seat: &PretixSeat) -> Result<VenueSeat, String> {
    let id = id_of(&seat.seat_guid)?;
    let row_at = row.position.unwrap_or_default();
    let (x, y) = (zone.position.x + row_at.x + seat.position.x, zone.position.y + row_at.y + seat.position.y);
    let section = zone.name.as_deref().filter(|name| !name.trim().is_empty());
    let row_name = Some(row.row_number.as_str()).filter(|name| !name.trim().is_empty());
    // Only a number that reads back the same: "07" would come back as "7".
    let number = seat.seat_number.parse::<i64>().ok().filter(|n| n.to_string() == seat.seat_number);
    let templates = row.row_label.is_some() || row.seat_label.is_some();
    let place = section.zip(row_name).zip(number);
    let label = match place {
        Some(_) if !templates => None,
        None if section.is_none() && row_name.is_none() && !templates => {
            Some(seat.seat_number.clone()).filter(|number| *number != id && !number.is_empty())
        }
        _ => Some(pretix_label(zone, row, seat)),
    };
    Ok(VenueSeat {
        seat: SeatDefinition {
            id,
            x,
            y,
            label,
            category: Some(seat.category.clone()).filter(|category| !category.is_empty()),
        },
        section: place.map(|((section, _), _)| section.to_owned()),
        row: place.map(|((_, row), _)| row.to_owned()),
        number: place.map(|(_, number)| number),
        access: None,
        companion_of: None,
    })
}

/// A seat as pretix describes it: zone, row, seat, each when present.
fn pretix_label(zone: &PretixZone, row: &PretixRow, seat: &PretixSeat) -> String {
    let fill = |template: &Option<String>, value: &str, fallback: &str| match template {
        Some(template) if !template.is_empty() => Some(template.replace("%s", value)),
        _ => Some(format!("{fallback} {value}")).filter(|_| !value.is_empty()),
    };
    let parts: Vec<String> = [
        zone.name.clone().filter(|name| !name.is_empty()),
        fill(&row.row_label, &row.row_number, "Row"),
        fill(&row.seat_label, &seat.seat_number, "Seat"),
    ]
    .into_iter()
    .flatten()
    .collect();
    if parts.is_empty() { seat.seat_guid.clone() } else { parts.join(", ") }
}

/// A `seat_guid` as a seat id: as it is, or a lowercase UUID's hex digits.
fn id_of(guid: &str) -> Result<String, String> {
    if let Ok(id) = PlaceId::parse(guid) {
        return Ok(id.to_string());
    }
    let hex: String = guid.chars().filter(|c| *c != '-').collect();
    if is_uuid(guid) {
        return Ok(hex);
    }
    Err(format!(
        "seat_guid {guid:?} is not usable as a seat id ([A-Za-z0-9][A-Za-z0-9_-]{{0,31}}, or a lowercase UUID)"
    ))
}

fn is_uuid(guid: &str) -> bool {
    let groups: Vec<&str> = guid.split('-').collect();
    groups.iter().map(|group| group.len()).eq([8, 4, 4, 4, 12])
        && groups.iter().all(|group| group.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)))
}

/// An id of 32 lowercase hex digits as the UUID it came from.
fn guid_of(id: &str) -> String {
    let hex = id.len() == 32 && id.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    if !hex {
        return id.to_owned();
    }
    [&id[..8], &id[8..12], &id[12..16], &id[16..20], &id[20..]].join("-")
}

fn is_hex_color(color: &str) -> bool {
    color.len() == 7 && color.starts_with('#') && color[1..].chars().all(|c| c.is_ascii_hexdigit())
}

/// The pretix plan of a definition: its listed seats and its rows' seats.
pub fn from_show(input: &ShowInput) -> Result<PretixPlan, InvalidShow> {
    let rows = input.rows.as_deref().map(crate::parametric::expand).transpose()?.unwrap_or_default();
    let seats: Vec<VenueSeat> = input.seats.iter().flatten().cloned().chain(rows).collect();
    let name = input.name.clone().or_else(|| input.id.clone()).unwrap_or_default();
    Ok(from_seats(&name, &seats, input.categories.as_deref().unwrap_or_default()))
}

/// The pretix plan of `seats`: a zone per section, a row per row (in the
/// order they first appear; seats without a place in a zone with no name
/// and a row `""`, numbered by their label), every position on the seat.
pub fn from_seats(name: &str, seats: &[VenueSeat], categories: &[CategoryDefinition]) -> PretixPlan {
    let mut zones: Vec<PretixZone> = Vec::new();
    let mut zone_at: HashMap<Option<&str>, usize> = HashMap::new();
    let mut row_at: HashMap<(usize, &str), usize> = HashMap::new();
    let (mut width, mut height) = (0.0_f64, 0.0_f64);
    for seat in seats {
        let placed = seat.section.as_deref().zip(seat.row.as_deref()).zip(seat.number);
        let section = placed.map(|((section, _), _)| section);
        let zone = *zone_at.entry(section).or_insert_with(|| {
            zones.push(PretixZone {
                name: section.map(str::to_owned),
                zone_id: None,
                uuid: None,
                displayed: None,
                position: PretixPosition::default(),
                rows: vec![],
                areas: vec![],
            });
            zones.len() - 1
        });
        let row_name = placed.map_or("", |((_, row), _)| row);
        let row = *row_at.entry((zone, row_name)).or_insert_with(|| {
            zones[zone].rows.push(PretixRow {
                row_number: row_name.to_owned(),
                row_label: None,
                seat_label: None,
                uuid: None,
                seats: vec![],
                row_number_position: None,
                position: None,
                number_of_seats: None,
                seats_spacing: None,
            });
            zones[zone].rows.len() - 1
        });
        let seat_number = match placed {
            Some((_, number)) => number.to_string(),
            None => seat.seat.label.clone().unwrap_or_else(|| seat.seat.id.clone()),
        };
        zones[zone].rows[row].seats.push(PretixSeat {
            seat_guid: guid_of(&seat.seat.id),
            seat_number,
            uuid: None,
            start_direction: None,
            radius: None,
            position: PretixPosition { x: seat.seat.x, y: seat.seat.y },
            category: seat.seat.category.clone().unwrap_or_default(),
        });
        width = width.max(seat.seat.x + RADIUS);
        height = height.max(seat.seat.y + RADIUS);
    }
    PretixPlan {
        name: name.to_owned(),
        zones,
        categories: categories
            .iter()
            .map(|category| PretixCategory { name: category.id.clone(), color: Some(category.color.clone()) })
            .collect(),
        size: Some(PretixSize { width: width.ceil() as i64, height: height.ceil() as i64 }),
    }
}
