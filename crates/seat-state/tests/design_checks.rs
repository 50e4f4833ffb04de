//! Publish-time validation (issue 38): each problem the designer must
//! show, found and named; a clean venue reports none; the overlap grid
//! finds exactly the pairs a comparison of every pair finds.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]
#![cfg(not(target_arch = "wasm32"))]

use proptest::prelude::*;
use seat_state::design::{DEFAULT_MIN_DISTANCE, Report, Severity, validate};
use seat_state::wire::{AreaDefinition, CategoryDefinition, RowDefinition, SeatDefinition, ShowInput, VenueSeat};

fn seat(id: &str, x: f64, y: f64, category: Option<&str>) -> VenueSeat {
    VenueSeat::from(SeatDefinition { id: id.into(), x, y, label: None, category: category.map(Into::into) })
}

fn placed(id: &str, row: &str, number: i64, x: f64, category: &str) -> VenueSeat {
    VenueSeat {
        section: Some("Stalls".into()),
        row: Some(row.into()),
        number: Some(number),
        ..seat(id, x, if row == "A" { 0.0 } else { 20.0 }, Some(category))
    }
}

fn category(id: &str) -> CategoryDefinition {
    CategoryDefinition { id: id.into(), name: id.into(), price: 1000, currency: "EUR".into(), color: "#1f6feb".into() }
}

/// A hall of `seats` with `categories` and a standing area of 40.
fn hall(seats: Vec<VenueSeat>, categories: &[&str]) -> ShowInput {
    ShowInput {
        id: Some("hall".into()),
        name: Some("Hall".into()),
        seats: Some(seats),
        categories: Some(categories.iter().map(|id| category(id)).collect()),
        areas: Some(vec![AreaDefinition { id: "floor".into(), name: "Floor".into(), capacity: 40 }]),
        ..ShowInput::default()
    }
}

fn clean_seats() -> Vec<VenueSeat> {
    (1..=4)
        .flat_map(|n| {
            [
                placed(&format!("A{n}"), "A", n, n as f64 * 10.0, "a"),
                placed(&format!("B{n}"), "B", n, n as f64 * 10.0, "b"),
            ]
        })
        .collect()
}

fn codes(report: &Report, severity: Severity) -> Vec<&str> {
    report.issues.iter().filter(|issue| issue.severity == severity).map(|issue| issue.code.as_str()).collect()
}

#[test]
fn a_clean_hall_is_publishable_with_its_counts() {
    let report = validate(&hall(clean_seats(), &["a", "b"]), None);
    assert!(report.publishable, "{report:#?}");
    assert_eq!((report.errors, report.warnings, report.seats, report.area_places), (0, 0, 8, 40));
    let counts: Vec<(Option<&str>, u64)> =
        report.by_category.iter().map(|count| (count.category.as_deref(), count.seats)).collect();
    assert_eq!(counts, [(Some("a"), 4), (Some("b"), 4)]);
    assert_eq!(report.min_distance, DEFAULT_MIN_DISTANCE);
}

#[test]
fn every_problem_is_named_with_its_seats() {
    let mut seats = clean_seats();
    seats[1].seat.id = "A1".into(); // B1 renamed A1: a duplicate id
    seats[2].seat.label = Some("  ".into()); // A2: blank
    seats[4].seat.label = Some("Section Stalls, row A, seat 4".into()); // A3 says it is A4
    seats[5].seat.category = None; // B3 without a category
    seats[7].seat.category = Some("vip".into()); // B4: unknown
    seats[3].seat.x = seats[2].seat.x + 1.0; // B2 drawn over A2
    seats[3].seat.y = seats[2].seat.y;
    seats.push(VenueSeat {
        access: Some("companion".into()),
        companion_of: Some("A1".into()),
        ..seat("C1", 500.0, 500.0, Some("a"))
    });
    seats.push(VenueSeat { access: Some("companion".into()), ..seat("C2", 600.0, 600.0, Some("a")) });
    seats.push(seat("loose", 700.0, 700.0, Some("a")));
    let report = validate(&hall(seats, &["a", "b", "unused"]), None);
    assert!(!report.publishable);
    let errors = codes(&report, Severity::Error);
    for code in [
        "invalid_show",
        "duplicate_id",
        "empty_label",
        "duplicate_label",
        "uncategorized_seat",
        "unknown_category",
        "overlapping_seats",
        "companion_without_wheelchair",
    ] {
        assert!(errors.contains(&code), "{code} missing from {report:#?}");
    }
    assert_eq!(codes(&report, Severity::Warning), ["label_is_id", "unused_category"]);
    let issue = |code: &str| report.issues.iter().find(|issue| issue.code == code).unwrap();
    assert_eq!(issue("duplicate_id").ids, ["A1"]);
    assert_eq!(issue("empty_label").ids, ["A2"]);
    assert_eq!(issue("duplicate_label").ids, ["A3", "A4"]);
    assert_eq!(issue("uncategorized_seat").ids, ["B3"]);
    assert_eq!(issue("unknown_category").ids, ["B4"]);
    assert_eq!(issue("overlapping_seats").ids, ["A2", "B2"]);
    assert_eq!(issue("label_is_id").ids, ["C1", "C2", "loose"]);
    assert_eq!(issue("unused_category").ids, ["unused"]);
    let companions: Vec<&Vec<String>> =
        report.issues.iter().filter(|issue| issue.code == "companion_without_wheelchair").map(|i| &i.ids).collect();
    assert_eq!(companions, [&vec!["C1".to_owned()], &vec!["C2".to_owned()]]);
    let counts: Vec<(Option<&str>, u64)> =
        report.by_category.iter().map(|count| (count.category.as_deref(), count.seats)).collect();
    assert_eq!(counts, [(Some("a"), 7), (Some("b"), 2), (Some("unused"), 0), (Some("vip"), 1), (None, 1)]);
}

#[test]
fn rows_are_checked_with_the_listed_seats_and_a_stated_minimum() {
    let row = |row: &str, y: f64| RowDefinition {
        section: Some("S".into()),
        row: Some(row.into()),
        id_prefix: None,
        x: 0.0,
        y,
        angle: None,
        radius: Some(200.0),
        spacing: 6.0,
        count: 30,
        first: None,
        step: None,
        category: Some("a".into()),
        gaps: vec![],
        wheelchair: vec![1],
        companions: vec![seat_state::wire::RowCompanion { number: 2, of: 1 }],
    };
    let input = ShowInput { rows: Some(vec![row("A", 0.0), row("B", 10.0)]), ..hall(vec![], &["a"]) };
    let report = validate(&input, None);
    assert!(report.publishable, "{report:#?}");
    assert_eq!(report.seats, 60);
    // Seats 6 apart along each row overlap once the minimum is 7 (and,
    // where the curve turns, a few across the rows 10 apart).
    let strict = validate(&input, Some(7.0));
    assert!(codes(&strict, Severity::Error).iter().all(|code| *code == "overlapping_seats"));
    assert!((58..=70).contains(&strict.errors), "{strict:#?}");
}

#[test]
fn a_report_lists_at_most_its_limit_and_stays_unpublishable() {
    let seats: Vec<VenueSeat> = (0..2000).map(|n| seat(&format!("s{n}"), 0.0, 0.0, None)).collect();
    let report = validate(&ShowInput { seats: Some(seats), ..hall(vec![], &[]) }, Some(1.0));
    assert!(!report.publishable);
    assert_eq!(report.issues.len(), seat_state::design::MAX_ISSUES + 1);
    assert!(report.truncated > 0);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// The grid finds the same overlapping pairs as comparing every pair.
    #[test]
    fn the_grid_finds_what_every_pair_finds(
        points in prop::collection::vec((-50.0..50.0f64, -50.0..50.0f64), 1..40),
        min in 0.5..15.0f64,
    ) {
        let seats: Vec<VenueSeat> =
            points.iter().enumerate().map(|(n, &(x, y))| seat(&format!("s{n}"), x, y, None)).collect();
        let mut expected = 0;
        for (i, a) in points.iter().enumerate() {
            for b in &points[i + 1..] {
                if (a.0 - b.0).powi(2) + (a.1 - b.1).powi(2) < min * min {
                    expected += 1;
                }
            }
        }
        let report = validate(&ShowInput { seats: Some(seats), ..hall(vec![], &[]) }, Some(min));
        let found = report.issues.iter().filter(|issue| issue.code == "overlapping_seats").count() as u64;
        prop_assert_eq!(found + report.truncated, expected);
    }

    /// A grid of well-spaced, distinct, categorized seats is publishable,
    /// and its counts add up; one seat moved onto another is one overlap.
    #[test]
    fn a_clean_grid_passes_and_one_collision_is_reported(
        rows in 1usize..12, per_row in 1usize..12, spacing in 6.0..40.0f64, moved in any::<prop::sample::Index>(),
    ) {
        let seats: Vec<VenueSeat> = (0..rows)
            .flat_map(|r| (0..per_row).map(move |n| (r, n)))
            .map(|(r, n)| VenueSeat {
                section: Some("S".into()),
                row: Some(format!("R{r}")),
                number: Some(n as i64 + 1),
                ..seat(&format!("r{r}n{n}"), n as f64 * spacing, r as f64 * spacing, Some(if r % 2 == 0 { "a" } else { "b" }))
            })
            .collect();
        let clean = validate(&hall(seats.clone(), &["a", "b"][..rows.min(2)]), None);
        prop_assert!(clean.publishable, "{:#?}", clean);
        prop_assert_eq!(clean.by_category.iter().map(|c| c.seats).sum::<u64>(), (rows * per_row) as u64);
        if seats.len() > 1 {
            let mut moved_seats = seats.clone();
            let at = moved.index(seats.len() - 1) + 1;
            moved_seats[at].seat.x = seats[0].seat.x + 0.5;
            moved_seats[at].seat.y = seats[0].seat.y;
            let report = validate(&hall(moved_seats, &["a", "b"][..rows.min(2)]), None);
            let overlaps: Vec<_> = report.issues.iter().filter(|issue| issue.code == "overlapping_seats").collect();
            prop_assert_eq!(overlaps.len(), 1);
            prop_assert_eq!(&overlaps[0].ids, &vec![seats[0].seat.id.clone(), seats[at].seat.id.clone()]);
        }
    }
}

/// 200,000 seats as 2,000 parametric rows of 100, the size of the demo
/// stadium: the time is printed (`--release --nocapture` for the figure).
#[test]
fn a_200000_seat_venue_validates_clean() {
    let rows: Vec<RowDefinition> = (0..2000)
        .map(|r| RowDefinition {
            section: Some(format!("S{}", r / 50)),
            row: Some(format!("{}", r % 50)),
            id_prefix: None,
            x: 0.0,
            y: f64::from(r) * 14.0,
            angle: None,
            radius: None,
            spacing: 12.0,
            count: 100,
            first: None,
            step: None,
            category: Some("a".into()),
            gaps: vec![],
            wheelchair: vec![],
            companions: vec![],
        })
        .collect();
    let input = ShowInput { rows: Some(rows), ..hall(vec![], &["a"]) };
    let started = std::time::Instant::now();
    let report = validate(&input, None);
    println!("200,000 seats validated in {:.1} ms", started.elapsed().as_secs_f64() * 1000.0);
    assert!(report.publishable, "{:#?}", report.issues);
    assert_eq!(report.seats, 200_000);
}
