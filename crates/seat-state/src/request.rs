//! A hold request, validated against a show before any rule is applied.

use crate::hold::Quantity;
use crate::ids::{AreaId, HoldId, PlaceId, SeatId};
use crate::rejection::Rejection;
use crate::show::{HoldRules, Show};
use crate::wire::{BestRequestBody, HoldRequestBody, RequestedQuantity};

/// A checked request for a hold: known, distinct seats; known areas with
/// quantities of at least one; at most `maxSeatsPerHold` places in all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HoldRequest {
    pub hold_id: HoldId,
    /// Seats in the order asked for.
    pub seats: Vec<SeatId>,
    /// Places per area, sorted by area id.
    pub areas: Vec<(AreaId, Quantity)>,
    /// Instead of `seats` and `areas`: let the show pick adjacent seats.
    pub best: Option<BestRequest>,
    /// A channel code: that channel's seats may be held.
    pub channel: Option<String>,
    /// Asks for access seats (`"access": true`, or `best.wheelchair`).
    pub access: bool,
}

/// "The best `count` adjacent seats in one row", of one category if named,
/// with `wheelchair` wheelchair places among them, each with one of its
/// companion seats.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BestRequest {
    pub count: u32,
    pub category: Option<String>,
    pub wheelchair: u32,
}

/// Checks a `best` request: alone (no seats, no areas), a count from 1 to
/// `maxSeatsPerHold`, a category the show has, wheelchair places from 0 to
/// half the count.
pub(crate) fn parse_best(
    best: &BestRequestBody,
    body: &HoldRequestBody,
    show: &Show,
) -> Result<BestRequest, Rejection> {
    let invalid = |reason: String| Rejection::InvalidBest { reason };
    if !body.seats.is_empty() || !body.areas.is_empty() {
        return Err(invalid("best picks the seats itself: send best, or seats and areas, not both.".into()));
    }
    let max = show.rules.max_seats_per_hold;
    let count = match best.count {
        RequestedQuantity::Integer(n) => u32::try_from(n).ok().filter(|n| (1..=max).contains(n)),
        RequestedQuantity::NotInteger => None,
    }
    .ok_or_else(|| invalid(format!("best.count must be a whole number from 1 to {max}.")))?;
    if let Some(category) = &best.category {
        let known = if show.categories.is_empty() {
            show.seats.iter().any(|seat| seat.category.as_deref() == Some(category))
        } else {
            show.categories.iter().any(|known| known.id == *category)
        };
        if !known {
            return Err(invalid(format!("This show has no category {category:?}.")));
        }
    }
    let wheelchair = match best.wheelchair {
        None => Some(0),
        Some(RequestedQuantity::Integer(n)) => u32::try_from(n).ok().filter(|k| k.saturating_mul(2) <= count),
        Some(RequestedQuantity::NotInteger) => None,
    }
    .ok_or_else(|| invalid(format!("best.wheelchair must be a whole number from 0 to {}.", count / 2)))?;
    Ok(BestRequest { count, category: best.category.clone(), wheelchair })
}

impl HoldRequest {
    /// Validates a body (API.md's `422` rows), in this order: `holdId`
    /// (`InvalidHoldId`; `generated_id` is used when the body has none),
    /// unknown or duplicate seats (`InvalidSeats` naming each once, in request
    /// order), area quantities (`InvalidQuantity` for the first bad area by
    /// id: unknown, below 1, or not an integer — a string counts as not an
    /// integer, so it is `422`, not `400`), an empty request (`InvalidSeats`
    /// with no ids), then more than `maxSeatsPerHold` places, seats plus
    /// quantities (`InvalidSeats` naming every requested seat).
    ///
    /// Cost: O(k log k + n log k) for k requested seats and n seats in the
    /// show; [`crate::ShowState::parse_request`] does it in O(k log n).
    pub fn parse(body: &HoldRequestBody, show: &Show, generated_id: HoldId) -> Result<Self, Rejection> {
        parse_with(
            body,
            &show.rules,
            generated_id,
            |ids| {
                let mut known = vec![false; ids.len()];
                if !ids.is_empty() {
                    for seat in &show.seats {
                        if let Ok(at) = ids.binary_search(&seat.id.as_str()) {
                            known[at] = true;
                        }
                    }
                }
                known
            },
            |area| show.areas.iter().any(|a| a.id.as_str() == area),
        )
    }
}

/// The validation itself. `seats_known` answers, for sorted distinct ids,
/// which are seats of the show; `area_known` whether an id is an area.
pub(crate) fn parse_with(
    body: &HoldRequestBody,
    rules: &HoldRules,
    generated_id: HoldId,
    seats_known: impl FnOnce(&[&str]) -> Vec<bool>,
    area_known: impl Fn(&str) -> bool,
) -> Result<HoldRequest, Rejection> {
    let hold_id = match &body.hold_id {
        Some(raw) => HoldId::parse(raw).map_err(|_| Rejection::InvalidHoldId)?,
        None => generated_id,
    };

    let mut sorted: Vec<&str> = body.seats.iter().map(String::as_str).collect();
    sorted.sort_unstable();
    let mut duplicated: Vec<&str> = sorted.windows(2).filter(|pair| pair[0] == pair[1]).map(|pair| pair[0]).collect();
    duplicated.dedup();
    sorted.dedup();
    let known = seats_known(&sorted);
    let offending = |id: &str| {
        duplicated.binary_search(&id).is_ok()
            || sorted.binary_search(&id).is_ok_and(|at| !known.get(at).copied().unwrap_or(false))
    };
    let mut bad: Vec<String> = Vec::new();
    for id in &body.seats {
        if offending(id) && !bad.contains(id) {
            bad.push(id.clone());
        }
    }
    if !bad.is_empty() {
        return Err(Rejection::InvalidSeats { seats: bad });
    }

    let mut areas = Vec::with_capacity(body.areas.len());
    for (raw, quantity) in &body.areas {
        let invalid = || Rejection::InvalidQuantity { area: Some(raw.clone()) };
        let area = PlaceId::parse(raw).ok().filter(|_| area_known(raw)).ok_or_else(invalid)?;
        match *quantity {
            RequestedQuantity::Integer(n) if n >= 1 => areas.push((area, n)),
            _ => return Err(invalid()),
        }
    }

    if body.seats.is_empty() && areas.is_empty() {
        return Err(Rejection::InvalidSeats { seats: Vec::new() });
    }
    let places = areas.iter().fold(body.seats.len() as u64, |sum, (_, n)| sum.saturating_add(n.unsigned_abs()));
    if places > u64::from(rules.max_seats_per_hold) {
        return Err(Rejection::InvalidSeats { seats: body.seats.clone() });
    }

    let seats = body
        .seats
        .iter()
        .map(|id| PlaceId::parse(id).map_err(|_| Rejection::InvalidSeats { seats: vec![id.clone()] }))
        .collect::<Result<Vec<_>, _>>()?;
    let areas = areas
        .into_iter()
        .map(|(area, n)| {
            let quantity = u32::try_from(n).ok().and_then(Quantity::new);
            // Every n is in 1..=maxSeatsPerHold, a u32, by the checks above.
            quantity.map(|q| (area.clone(), q)).ok_or(Rejection::InvalidQuantity { area: Some(area.to_string()) })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(HoldRequest { hold_id, seats, areas, best: None, channel: None, access: false })
}
