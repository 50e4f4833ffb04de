//! Publish-time checks of a venue (issue 38, the designer): what an
//! operator should fix before a definition becomes a show, whose seats
//! never change once published (API.md "On-sale (v3)").
//!
//! [`validate`] reads a definition as sent ([`wire::ShowInput`]: listed
//! seats, then the seats of its parametric rows) and answers a [`Report`]:
//! errors block publishing, warnings do not. Unlike [`crate::Show::parse`],
//! which stops at the first problem, it lists every problem it finds (up to
//! [`MAX_ISSUES`]), and adds what parse accepts but customers would trip on
//! (overlapping seats, equal labels, seats without a price category).
//! Every check is O(n) in the seats.

mod overlap;

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};

use crate::wire::{self, VenueSeat};

/// Centres closer than this (map units) are one seat drawn over another,
/// unless the caller states another minimum. The demo venues' seats are
/// 10 to 12 units apart.
pub const DEFAULT_MIN_DISTANCE: f64 = 5.0;
/// The most issues a report lists; `truncated` counts the rest.
pub const MAX_ISSUES: usize = 500;
/// The most seat ids one issue names.
const MAX_SEATS_PER_ISSUE: usize = 20;

/// Whether an issue blocks publishing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

/// One problem, with the seats (or areas, categories) it is about.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Issue {
    pub severity: Severity,
    /// `invalid_show`, `duplicate_id`, `empty_label`, `duplicate_label`,
    /// `label_is_id`, `uncategorized_seat`, `unknown_category`,
    /// `unused_category`, `overlapping_seats`, `companion_without_wheelchair`.
    pub code: String,
    /// One sentence for the operator.
    pub message: String,
    /// The ids concerned (at most 20).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ids: Vec<String>,
}

/// How many places one price category has.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct CategoryCount {
    /// The category's id; `null` for seats without one.
    pub category: Option<String>,
    pub seats: u64,
}

/// Everything [`validate`] found, and the venue's counts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Report {
    /// No errors: the definition may be published.
    pub publishable: bool,
    pub errors: u64,
    pub warnings: u64,
    /// Errors first, then warnings, each in the order found.
    pub issues: Vec<Issue>,
    /// Issues found beyond [`MAX_ISSUES`] and not listed (at least: the
    /// search for overlapping seats stops once the list is full).
    pub truncated: u64,
    /// Every seat: listed ones and those of `rows`.
    pub seats: u64,
    /// Seats per category: the show's categories in order, then unknown
    /// ones, then (`category: null`) seats without one.
    pub by_category: Vec<CategoryCount>,
    /// General-admission places (areas carry no category).
    pub area_places: u64,
    /// The minimum distance between seat centres that was checked.
    pub min_distance: f64,
}

/// Collects issues, listing at most [`MAX_ISSUES`].
struct Issues {
    errors: Vec<Issue>,
    warnings: Vec<Issue>,
    truncated: u64,
}

impl Issues {
    fn is_full(&self) -> bool {
        self.errors.len() + self.warnings.len() >= MAX_ISSUES
    }

    fn add<'a>(&mut self, severity: Severity, code: &str, message: String, ids: impl IntoIterator<Item = &'a str>) {
        if self.is_full() {
            self.truncated += 1;
            // Still counted as an error, so `publishable` stays honest.
            if severity == Severity::Error && self.errors.iter().all(|issue| issue.code != "truncated") {
                self.errors.push(Issue {
                    severity,
                    code: "truncated".into(),
                    message: "more errors than a report lists".into(),
                    ids: vec![],
                });
            }
            return;
        }
        let ids = ids.into_iter().take(MAX_SEATS_PER_ISSUE).map(str::to_owned).collect();
        let issue = Issue { severity, code: code.to_owned(), message, ids };
        match severity {
            Severity::Error => self.errors.push(issue),
            Severity::Warning => self.warnings.push(issue),
        }
    }
}

/// Checks a definition for publishing; `min_distance` defaults to
/// [`DEFAULT_MIN_DISTANCE`]. Never fails: a definition that
/// [`crate::Show::parse`] refuses gets an `invalid_show` error with parse's
/// sentence, and every other check still runs on what could be read.
pub fn validate(input: &wire::ShowInput, min_distance: Option<f64>) -> Report {
    let min_distance = min_distance.filter(|d| d.is_finite() && *d >= 0.0).unwrap_or(DEFAULT_MIN_DISTANCE);
    let mut issues = Issues { errors: vec![], warnings: vec![], truncated: 0 };
    // The rows are expanded once, and parse reads their seats as listed
    // ones (the same checks): half the time of a stadium's validation.
    let rows = input.rows.as_deref().unwrap_or_default();
    let expanded = match crate::parametric::expand(rows) {
        Ok(seats) => seats,
        Err(invalid) => {
            issues.add(Severity::Error, "invalid_show", invalid.0, []);
            vec![]
        }
    };
    let flat;
    let parsed = if rows.is_empty() {
        input
    } else {
        let listed = input.seats.iter().flatten().cloned();
        flat = wire::ShowInput { seats: Some(listed.chain(expanded).collect()), rows: None, ..input.clone() };
        &flat
    };
    let parses = issues.errors.is_empty() && {
        let parse = crate::Show::parse(parsed);
        parse.map_err(|invalid| issues.add(Severity::Error, "invalid_show", invalid.0, [])).is_ok()
    };
    let seats: Vec<&VenueSeat> = parsed.seats.iter().flatten().collect();
    let areas = input.areas.as_deref().unwrap_or_default();
    // A definition that parses has unique ids: parse checked them.
    if !parses {
        duplicate_ids(&seats, areas, &mut issues);
    }
    labels(&seats, &mut issues);
    let by_category = categories(input.categories.as_deref().unwrap_or_default(), &seats, &mut issues);
    companions(&seats, &mut issues);
    overlap::check(&seats, min_distance, &mut issues);
    let Issues { mut errors, warnings, truncated } = issues;
    let (error_count, warning_count) = (errors.len() as u64, warnings.len() as u64);
    errors.extend(warnings);
    Report {
        publishable: error_count == 0,
        errors: error_count,
        warnings: warning_count,
        issues: errors,
        truncated,
        seats: seats.len() as u64,
        by_category,
        area_places: areas.iter().map(|area| u64::try_from(area.capacity).unwrap_or(0)).sum(),
        min_distance,
    }
}

/// Seat and area ids share one namespace (API.md "Shows").
fn duplicate_ids(seats: &[&VenueSeat], areas: &[wire::AreaDefinition], issues: &mut Issues) {
    let mut seen: HashSet<&str> = HashSet::with_capacity(seats.len() + areas.len());
    let mut reported: HashSet<&str> = HashSet::new();
    let ids = seats.iter().map(|seat| seat.seat.id.as_str()).chain(areas.iter().map(|area| area.id.as_str()));
    for id in ids {
        if !seen.insert(id) && reported.insert(id) {
            issues.add(Severity::Error, "duplicate_id", format!("id {id:?} is used more than once"), [id]);
        }
    }
}

/// Labels after the default-label rule ([`wire::default_label`]): none
/// blank, none shared by two seats; a seat without label or place shows
/// customers its bare id (a warning).
fn labels(seats: &[&VenueSeat], issues: &mut Issues) {
    let mut first: HashMap<Cow<'_, str>, &str> = HashMap::with_capacity(seats.len());
    let mut bare: Vec<&str> = vec![];
    for seat in seats {
        let id = seat.seat.id.as_str();
        let label = match &seat.seat.label {
            Some(label) if label.trim().is_empty() => {
                issues.add(Severity::Error, "empty_label", format!("seat {id:?} has a blank label"), [id]);
                continue;
            }
            Some(label) => Cow::Borrowed(label.as_str()),
            None => {
                if seat.place_is_missing() {
                    bare.push(id);
                }
                Cow::Owned(seat.default_label())
            }
        };
        if let Some(other) = first.get(&label) {
            let message = format!("seats {other:?} and {id:?} are both labelled {label:?}");
            issues.add(Severity::Error, "duplicate_label", message, [*other, id]);
        } else {
            first.insert(label, id);
        }
    }
    if !bare.is_empty() {
        let message =
            format!("{} seats have no label and no section, row and number: customers see their ids", bare.len());
        issues.add(Severity::Warning, "label_is_id", message, bare);
    }
}

impl VenueSeat {
    fn place_is_missing(&self) -> bool {
        self.section.is_none() || self.row.is_none() || self.number.is_none()
    }
}

/// With categories, every seat needs a known one (else it has no price);
/// a category no seat uses is likely a mistake. Counts seats per category.
fn categories(defined: &[wire::CategoryDefinition], seats: &[&VenueSeat], issues: &mut Issues) -> Vec<CategoryCount> {
    let mut counts: Vec<CategoryCount> =
        defined.iter().map(|c| CategoryCount { category: Some(c.id.clone()), seats: 0 }).collect();
    let mut at: HashMap<&str, usize> = defined.iter().enumerate().map(|(i, c)| (c.id.as_str(), i)).collect();
    let (mut none, mut unknown): (Vec<&str>, Vec<&str>) = (vec![], vec![]);
    for seat in seats {
        let Some(category) = seat.seat.category.as_deref() else {
            none.push(&seat.seat.id);
            continue;
        };
        let slot = *at.entry(category).or_insert_with(|| {
            counts.push(CategoryCount { category: Some(category.to_owned()), seats: 0 });
            counts.len() - 1
        });
        if slot >= defined.len() && !defined.is_empty() {
            unknown.push(&seat.seat.id);
        }
        counts[slot].seats += 1;
    }
    if !none.is_empty() {
        counts.push(CategoryCount { category: None, seats: none.len() as u64 });
    }
    if !defined.is_empty() && !none.is_empty() {
        let message = format!("{} seats have no category: they would have no price", none.len());
        issues.add(Severity::Error, "uncategorized_seat", message, none);
    }
    if !unknown.is_empty() {
        let message = format!("{} seats name a category the show does not define", unknown.len());
        issues.add(Severity::Error, "unknown_category", message, unknown);
    }
    for count in counts.iter().take(defined.len()).filter(|count| count.seats == 0) {
        let id = count.category.as_deref().unwrap_or_default();
        issues.add(Severity::Warning, "unused_category", format!("no seat is in category {id:?}"), [id]);
    }
    counts
}

/// A companion seat goes with a wheelchair place of the same show.
fn companions(seats: &[&VenueSeat], issues: &mut Issues) {
    let wheelchairs: HashSet<&str> = seats
        .iter()
        .filter(|seat| seat.access.as_deref() == Some("wheelchair"))
        .map(|seat| seat.seat.id.as_str())
        .collect();
    for seat in seats.iter().filter(|seat| seat.access.as_deref() == Some("companion")) {
        let id = seat.seat.id.as_str();
        match seat.companion_of.as_deref() {
            Some(of) if wheelchairs.contains(of) => {}
            Some(of) => issues.add(
                Severity::Error,
                "companion_without_wheelchair",
                format!("companion seat {id:?} goes with {of:?}, which is not a wheelchair place"),
                [id],
            ),
            None => issues.add(
                Severity::Error,
                "companion_without_wheelchair",
                format!("companion seat {id:?} names no wheelchair place (companionOf)"),
                [id],
            ),
        }
    }
}
