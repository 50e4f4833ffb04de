//! The box office's part of a show: rows, price categories, the stage and
//! sales channels, validated with errors that name the field at fault.

use std::collections::{BTreeMap, HashMap, HashSet};

use crate::ids::{PlaceId, SeatId};
use crate::show::InvalidShow;
use crate::wire;

/// Where a seat is: adjacency is consecutive numbers in one section and row.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RowPlace {
    pub section: String,
    pub row: String,
    pub number: u32,
}

/// A price category.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Category {
    pub id: String,
    pub name: String,
    /// Minor units of `currency`.
    pub price: u64,
    pub currency: String,
    pub color: String,
}

/// A point on the map.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    pub x: f64,
    pub y: f64,
}

/// Seats that only a hold carrying `code` may take.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Channel {
    pub id: String,
    pub code: String,
    pub seats: Vec<SeatId>,
}

/// Highest seat number accepted.
const MAX_NUMBER: i64 = 1_000_000;
/// Longest section or row name, and channel code.
const MAX_NAME: usize = 64;
const MAX_CODE: usize = 128;
/// Highest price accepted, in minor units.
const MAX_PRICE: i64 = 1_000_000_000_000;

fn invalid(message: String) -> InvalidShow {
    InvalidShow(message)
}

fn id_of(what: &str, raw: &str) -> Result<String, InvalidShow> {
    PlaceId::parse(raw)
        .map(|id| id.as_str().to_owned())
        .map_err(|_| invalid(format!("{what} id {raw:?} must match [A-Za-z0-9][A-Za-z0-9_-]{{0,31}}")))
}

fn name_of(what: &str, raw: &str, max: usize) -> Result<String, InvalidShow> {
    if raw.trim().is_empty() || raw.chars().count() > max {
        Err(invalid(format!("{what} must be 1 to {max} characters, not {raw:?}")))
    } else {
        Ok(raw.to_owned())
    }
}

/// A seat's `section`, `row` and `number`: all three or none.
pub(crate) fn row_place(seat: &wire::VenueSeat) -> Result<Option<RowPlace>, InvalidShow> {
    let id = &seat.seat.id;
    match (&seat.section, &seat.row, seat.number) {
        (None, None, None) => Ok(None),
        (Some(section), Some(row), Some(number)) => {
            let number = u32::try_from(number).ok().filter(|n| i64::from(*n) <= MAX_NUMBER).ok_or_else(|| {
                invalid(format!("seat {id:?} number must be between 0 and {MAX_NUMBER}, not {number}"))
            })?;
            Ok(Some(RowPlace {
                section: name_of(&format!("seat {id:?} section"), section, MAX_NAME)?,
                row: name_of(&format!("seat {id:?} row"), row, MAX_NAME)?,
                number,
            }))
        }
        (section, row, number) => {
            let missing: Vec<&str> =
                [("section", section.is_none()), ("row", row.is_none()), ("number", number.is_none())]
                    .into_iter()
                    .filter_map(|(name, absent)| absent.then_some(name))
                    .collect();
            Err(invalid(format!(
                "seat {id:?} needs section, row and number together or none of them (missing {})",
                missing.join(" and ")
            )))
        }
    }
}

/// No two seats share one place.
pub(crate) fn unique_places<'a>(
    seats: impl Iterator<Item = (&'a SeatId, &'a Option<RowPlace>)>,
) -> Result<(), InvalidShow> {
    let mut seen: HashMap<&RowPlace, &SeatId> = HashMap::new();
    for (id, place) in seats {
        if let Some(place) = place
            && let Some(other) = seen.insert(place, id)
        {
            return Err(invalid(format!(
                "seats {other} and {id} are both section {:?}, row {:?}, number {}",
                place.section, place.row, place.number
            )));
        }
    }
    Ok(())
}

pub(crate) fn categories(inputs: &[wire::CategoryDefinition]) -> Result<Vec<Category>, InvalidShow> {
    let mut seen = HashSet::new();
    inputs
        .iter()
        .map(|input| {
            let id = id_of("category", &input.id)?;
            if !seen.insert(id.clone()) {
                return Err(invalid(format!("category id {id:?} is used twice")));
            }
            let price = u64::try_from(input.price).ok().filter(|_| input.price <= MAX_PRICE).ok_or_else(|| {
                invalid(format!(
                    "category {id:?} price must be between 0 and {MAX_PRICE} minor units, not {}",
                    input.price
                ))
            })?;
            let currency = &input.currency;
            if !(currency.len() == 3 && currency.chars().all(|c| c.is_ascii_uppercase())) {
                return Err(invalid(format!(
                    "category {id:?} currency must be 3 capital letters (ISO 4217), not {currency:?}"
                )));
            }
            let color = &input.color;
            if !(color.len() == 7 && color.starts_with('#') && color[1..].chars().all(|c| c.is_ascii_hexdigit())) {
                return Err(invalid(format!("category {id:?} color must be #rrggbb, not {color:?}")));
            }
            Ok(Category {
                name: name_of(&format!("category {id:?} name"), &input.name, 200)?,
                id,
                price,
                currency: currency.clone(),
                color: color.clone(),
            })
        })
        .collect()
}

/// With categories defined, every seat's category must be one of them.
pub(crate) fn seat_category(seat: &SeatId, category: Option<&str>, known: &[Category]) -> Result<(), InvalidShow> {
    match category {
        Some(category) if !known.is_empty() && !known.iter().any(|c| c.id == category) => {
            Err(invalid(format!("seat {seat}'s category {category:?} is not one of the show's categories")))
        }
        _ => Ok(()),
    }
}

pub(crate) fn focus(input: Option<wire::Focus>) -> Result<Option<Point>, InvalidShow> {
    match input {
        Some(wire::Focus { x, y }) if !(x.is_finite() && y.is_finite()) => {
            Err(invalid("focus needs finite x and y".into()))
        }
        Some(wire::Focus { x, y }) => Ok(Some(Point { x, y })),
        None => Ok(None),
    }
}

/// Channels with unique ids and codes, naming known seats, each seat in one
/// channel at most.
pub(crate) fn channels(
    inputs: &[wire::ChannelDefinition],
    is_seat: impl Fn(&str) -> bool,
) -> Result<Vec<Channel>, InvalidShow> {
    let mut ids = HashSet::new();
    let mut codes = HashSet::new();
    let mut owner: BTreeMap<String, String> = BTreeMap::new();
    inputs
        .iter()
        .map(|input| {
            let id = id_of("channel", &input.id)?;
            if !ids.insert(id.clone()) {
                return Err(invalid(format!("channel id {id:?} is used twice")));
            }
            let code = input.code.as_deref().ok_or_else(|| invalid(format!("channel {id:?} needs a code")))?;
            let code = name_of(&format!("channel {id:?} code"), code, MAX_CODE)?;
            if !codes.insert(code.clone()) {
                return Err(invalid(format!("channel {id:?} has the same code as another channel")));
            }
            let seats = input
                .seats
                .iter()
                .map(|raw| {
                    let seat = SeatId::parse(raw).ok().filter(|_| is_seat(raw)).ok_or_else(|| {
                        invalid(format!("channel {id:?} names {raw:?}, which is not a seat of the show"))
                    })?;
                    if let Some(other) = owner.insert(raw.clone(), id.clone()) {
                        return Err(invalid(format!("seat {raw} is in channels {other:?} and {id:?}")));
                    }
                    Ok(seat)
                })
                .collect::<Result<Vec<_>, _>>()?;
            Ok(Channel { id, code, seats })
        })
        .collect()
}

impl From<&Category> for wire::CategoryDefinition {
    fn from(category: &Category) -> Self {
        Self {
            id: category.id.clone(),
            name: category.name.clone(),
            // At most MAX_PRICE, so it fits.
            price: i64::try_from(category.price).unwrap_or(i64::MAX),
            currency: category.currency.clone(),
            color: category.color.clone(),
        }
    }
}

impl From<&Channel> for wire::ChannelDefinition {
    fn from(channel: &Channel) -> Self {
        Self {
            id: channel.id.clone(),
            code: Some(channel.code.clone()),
            seats: channel.seats.iter().map(ToString::to_string).collect(),
        }
    }
}
