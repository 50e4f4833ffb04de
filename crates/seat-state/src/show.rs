//! A show: its seats, its general-admission areas and its hold rules.

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;

use crate::access::{self, Access};
use crate::ids::{AreaId, PlaceId, SeatId, ShowId};
use crate::parametric;
use crate::queue::OnSale;
use crate::seating::{self, Category, Channel, Point, RowPlace};
use crate::strand::OrphanRule;
use crate::time::ServerMillis;
use crate::wire;

/// What happens when a customer confirms after the deadline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LatePolicy {
    /// A late confirm fails.
    Reject,
    /// A late confirm succeeds only if every place of the hold is still free.
    HonorIfFree,
}

impl LatePolicy {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Reject => "reject",
            Self::HonorIfFree => "honorIfFree",
        }
    }
}

/// The per-show limits of holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct HoldRules {
    pub hold_seconds: u32,
    pub extension_seconds: u32,
    pub max_extensions: u32,
    pub max_seats_per_hold: u32,
    pub max_active_holds_per_holder: u32,
    pub late_policy: LatePolicy,
}

impl Default for HoldRules {
    fn default() -> Self {
        Self {
            hold_seconds: 600,
            extension_seconds: 300,
            max_extensions: 2,
            max_seats_per_hold: 8,
            max_active_holds_per_holder: 1,
            late_policy: LatePolicy::Reject,
        }
    }
}

/// One numbered seat.
#[derive(Debug, Clone, PartialEq)]
pub struct Seat {
    pub id: SeatId,
    pub x: f64,
    pub y: f64,
    pub label: String,
    pub category: Option<String>,
    /// Section, row and number, when the venue says.
    pub place: Option<RowPlace>,
    /// A wheelchair place or a companion seat.
    pub access: Option<Access>,
}

/// A general-admission area: places without numbers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Area {
    pub id: AreaId,
    pub name: String,
    pub capacity: u32,
}

/// A validated show definition.
#[derive(Debug, Clone, PartialEq)]
pub struct Show {
    pub id: ShowId,
    pub name: String,
    pub rules: HoldRules,
    /// Every seat: the definition's own, then those of its `rows`.
    pub seats: Vec<Seat>,
    /// The parametric rows the last seats came from, as given (validated):
    /// the definition is written back with them, a few bytes a seat.
    pub rows: Vec<wire::RowDefinition>,
    pub areas: Vec<Area>,
    /// Price categories; when there are any, every seat's category is one.
    pub categories: Vec<Category>,
    /// The stage: best available ranks blocks by distance to it.
    pub focus: Option<Point>,
    pub channels: Vec<Channel>,
    /// The waiting room, when the show has one.
    pub on_sale: Option<OnSale>,
    /// Whether a hold may leave a single free seat between taken ones.
    pub orphan_rule: OrphanRule,
    /// From when access seats are for everyone; `None`: never.
    pub access_release_at: Option<ServerMillis>,
}

/// Why a show definition was refused (`422 invalid_show`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidShow(pub String);

impl fmt::Display for InvalidShow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for InvalidShow {}

/// Longest hold, extension or similar duration accepted: one week.
const MAX_SECONDS: i64 = 7 * 24 * 3600;

fn bounded(field: &str, value: Option<i64>, default: u32, min: i64, max: i64) -> Result<u32, InvalidShow> {
    let Some(value) = value else {
        return Ok(default);
    };
    if (min..=max).contains(&value) {
        // In range of u32 because max is.
        Ok(u32::try_from(value).unwrap_or(default))
    } else {
        Err(InvalidShow(format!("{field} must be between {min} and {max}, not {value}")))
    }
}

impl Show {
    /// Validates an admin's definition and fills in defaults.
    pub fn parse(input: &wire::ShowInput) -> Result<Self, InvalidShow> {
        let id = input.id.as_deref().ok_or_else(|| InvalidShow("id is required".into()))?;
        let id = ShowId::parse(id).map_err(|e| InvalidShow(e.to_string()))?;
        let name = input.name.as_deref().ok_or_else(|| InvalidShow("name is required".into()))?;
        if name.trim().is_empty() {
            return Err(InvalidShow("name must not be empty".into()));
        }
        let defaults = HoldRules::default();
        let late_policy = match input.late_policy.as_deref() {
            None | Some("reject") => LatePolicy::Reject,
            Some("honorIfFree") => LatePolicy::HonorIfFree,
            Some(other) => {
                return Err(InvalidShow(format!("latePolicy must be \"reject\" or \"honorIfFree\", not {other:?}")));
            }
        };
        let rules = HoldRules {
            hold_seconds: bounded("holdSeconds", input.hold_seconds, defaults.hold_seconds, 1, MAX_SECONDS)?,
            extension_seconds: bounded(
                "extensionSeconds",
                input.extension_seconds,
                defaults.extension_seconds,
                1,
                MAX_SECONDS,
            )?,
            max_extensions: bounded("maxExtensions", input.max_extensions, defaults.max_extensions, 0, 1000)?,
            max_seats_per_hold: bounded(
                "maxSeatsPerHold",
                input.max_seats_per_hold,
                defaults.max_seats_per_hold,
                1,
                100_000,
            )?,
            max_active_holds_per_holder: bounded(
                "maxActiveHoldsPerHolder",
                input.max_active_holds_per_holder,
                defaults.max_active_holds_per_holder,
                1,
                1000,
            )?,
            late_policy,
        };
        let rows = input.rows.clone().unwrap_or_default();
        // `seats` may be left out when `rows` gives them.
        let own_seats = match (input.seats.as_deref(), rows.is_empty()) {
            (Some(seats), _) => seats,
            (None, false) => &[],
            (None, true) => return Err(InvalidShow("seats is required".into())),
        };
        // The rows' seats follow the definition's own, in one list checked alike.
        let seat_inputs: Cow<'_, [wire::VenueSeat]> = if rows.is_empty() {
            Cow::Borrowed(own_seats)
        } else {
            Cow::Owned(own_seats.iter().cloned().chain(parametric::expand(&rows)?).collect())
        };
        let seat_inputs = &*seat_inputs;
        let area_inputs = input.areas.as_deref().unwrap_or_default();
        if seat_inputs.is_empty() && area_inputs.is_empty() {
            return Err(InvalidShow("a show needs at least one seat or area".into()));
        }
        let mut seen = HashSet::with_capacity(seat_inputs.len() + area_inputs.len());
        let mut unique = |raw: &str| -> Result<PlaceId, InvalidShow> {
            let place = PlaceId::parse(raw).map_err(|e| InvalidShow(e.to_string()))?;
            if seen.insert(place.clone()) {
                Ok(place)
            } else {
                Err(InvalidShow(format!("id {raw:?} is used twice among seats and areas")))
            }
        };
        let categories = seating::categories(input.categories.as_deref().unwrap_or_default())?;
        let mut accesses = access::seat_access(seat_inputs)?.into_iter();
        let seats = seat_inputs
            .iter()
            .map(|venue_seat| {
                let seat = &venue_seat.seat;
                if !(seat.x.is_finite() && seat.y.is_finite()) {
                    return Err(InvalidShow(format!("seat {:?} needs finite x and y", seat.id)));
                }
                let id = unique(&seat.id)?;
                seating::seat_category(&id, seat.category.as_deref(), &categories)?;
                Ok(Seat {
                    id,
                    x: seat.x,
                    y: seat.y,
                    label: seat.label.clone().unwrap_or_else(|| seat.id.clone()),
                    category: seat.category.clone(),
                    place: seating::row_place(venue_seat)?,
                    access: accesses.next().flatten(),
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        seating::unique_places(seats.iter().map(|seat| (&seat.id, &seat.place)))?;
        let areas = area_inputs
            .iter()
            .map(|area| {
                let capacity = u32::try_from(area.capacity)
                    .ok()
                    .filter(|c| *c >= 1)
                    .ok_or_else(|| InvalidShow(format!("area {:?} needs a capacity of at least 1", area.id)))?;
                Ok(Area { id: unique(&area.id)?, name: area.name.clone(), capacity })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let seat_ids: HashSet<&str> = seats.iter().map(|seat| seat.id.as_str()).collect();
        let channels = seating::channels(input.channels.as_deref().unwrap_or_default(), |id| seat_ids.contains(id))?;
        let focus = seating::focus(input.focus)?;
        let on_sale = input.on_sale.as_ref().map(on_sale).transpose()?;
        let orphan_rule = match input.orphan_rule.as_deref() {
            None => OrphanRule::Off,
            Some(name) => OrphanRule::parse(name).ok_or_else(|| {
                InvalidShow(format!("orphanRule must be \"off\", \"lenient\" or \"strict\", not {name:?}"))
            })?,
        };
        let access_release_at = input.access_release_at.map(ServerMillis);
        Ok(Self {
            id,
            name: name.to_owned(),
            rules,
            seats,
            rows,
            areas,
            categories,
            focus,
            channels,
            on_sale,
            orphan_rule,
            access_release_at,
        })
    }

    /// Whether a request may take seat `at` as far as access goes
    /// ([`access::may_take`]); true for an unknown index.
    pub fn access_open(&self, at: usize, asks_access: bool, now: ServerMillis) -> bool {
        let is_access = self.seats.get(at).is_some_and(|seat| seat.access.is_some());
        access::may_take(is_access, asks_access, self.access_release_at, now)
    }

    /// The complete definition as sent on the wire.
    /// (channel codes included: [`wire::ShowDocument::without_codes`] is
    /// what customers may read).
    pub fn to_wire(&self) -> wire::ShowDocument {
        wire::ShowDocument {
            id: self.id.to_string(),
            name: self.name.clone(),
            hold_seconds: self.rules.hold_seconds.into(),
            extension_seconds: self.rules.extension_seconds.into(),
            max_extensions: self.rules.max_extensions.into(),
            max_seats_per_hold: self.rules.max_seats_per_hold.into(),
            max_active_holds_per_holder: self.rules.max_active_holds_per_holder.into(),
            late_policy: self.rules.late_policy.as_str().to_owned(),
            // The rows' seats are written as their rows.
            seats: self.seats[..self.seats.len().saturating_sub(parametric::seat_count(&self.rows))]
                .iter()
                .map(|seat| wire::VenueSeat {
                    seat: wire::SeatDefinition {
                        id: seat.id.to_string(),
                        x: seat.x,
                        y: seat.y,
                        label: Some(seat.label.clone()),
                        category: seat.category.clone(),
                    },
                    section: seat.place.as_ref().map(|place| place.section.clone()),
                    row: seat.place.as_ref().map(|place| place.row.clone()),
                    number: seat.place.as_ref().map(|place| i64::from(place.number)),
                    access: seat.access.as_ref().map(|access| access.as_str().to_owned()),
                    companion_of: seat.access.as_ref().and_then(Access::companion_of).map(ToString::to_string),
                })
                .collect(),
            rows: self.rows.clone(),
            areas: self
                .areas
                .iter()
                .map(|area| wire::AreaDefinition {
                    id: area.id.to_string(),
                    name: area.name.clone(),
                    capacity: area.capacity.into(),
                })
                .collect(),
            categories: self.categories.iter().map(Into::into).collect(),
            focus: self.focus.map(|Point { x, y }| wire::Focus { x, y }),
            channels: self.channels.iter().map(Into::into).collect(),
            on_sale: self.on_sale.map(|on_sale| wire::OnSaleDefinition {
                opens_at: on_sale.opens_at.0,
                admit_per_minute: on_sale.admit_per_minute.into(),
                pre_queue_seconds: on_sale.pre_queue_seconds.into(),
                admission_seconds: on_sale.admission_seconds.into(),
            }),
            orphan_rule: self.orphan_rule.as_str().to_owned(),
            access_release_at: self.access_release_at.map(|at| at.0),
        }
    }
}

/// The highest `admitPerMinute`: a thousand places a second.
const MAX_ADMIT_PER_MINUTE: i64 = 60_000;

/// Validates `onSale` (API.md "Waiting room (v3)") and fills in defaults.
fn on_sale(input: &wire::OnSaleInput) -> Result<OnSale, InvalidShow> {
    let opens_at = input.opens_at.ok_or_else(|| InvalidShow("onSale.opensAt is required".into()))?;
    if opens_at < 0 {
        return Err(InvalidShow(format!("onSale.opensAt must be an instant in epoch milliseconds, not {opens_at}")));
    }
    if input.admit_per_minute.is_none() {
        return Err(InvalidShow("onSale.admitPerMinute is required".into()));
    }
    Ok(OnSale {
        opens_at: ServerMillis(opens_at),
        admit_per_minute: bounded("onSale.admitPerMinute", input.admit_per_minute, 1, 1, MAX_ADMIT_PER_MINUTE)?,
        pre_queue_seconds: bounded("onSale.preQueueSeconds", input.pre_queue_seconds, 900, 1, MAX_SECONDS)?,
        admission_seconds: bounded("onSale.admissionSeconds", input.admission_seconds, 600, 1, MAX_SECONDS)?,
    })
}
