//! The canvas map's index and sections: a rectangle visits every seat in
//! it (and few others), a point hits the nearest seat within reach, and a
//! section's outline and free count follow its seats.

use wasm_bindgen_test::{wasm_bindgen_test as test, wasm_bindgen_test_configure};

use seathold_web::canvas::grid::SeatGrid;
use seathold_web::canvas::venue::Sections;
use seathold_web::layout::Bounds;

wasm_bindgen_test_configure!(run_in_browser);

fn square(n: usize) -> Vec<(f64, f64)> {
    (0..n * n).map(|at| ((at % n) as f64 * 10.0, (at / n) as f64 * 10.0)).collect()
}

#[test]
fn a_rectangle_visits_every_seat_inside_it() {
    let points = square(30);
    let bounds = Bounds { x: 0.0, y: 0.0, width: 290.0, height: 290.0 };
    let grid = SeatGrid::new(&points, bounds, 25.0);
    let rect = Bounds { x: 42.0, y: 101.0, width: 77.0, height: 50.0 };
    let mut seen = Vec::new();
    grid.visit(rect, |seat| seen.push(seat));
    let inside =
        |&(x, y): &(f64, f64)| x >= rect.x && x <= rect.x + rect.width && y >= rect.y && y <= rect.y + rect.height;
    for (seat, point) in points.iter().enumerate() {
        if inside(point) {
            assert!(seen.contains(&seat), "seat {seat} at {point:?} missed");
        }
    }
    assert!(seen.len() < points.len() / 4, "visited {} of {}", seen.len(), points.len());
}

#[test]
fn a_point_hits_the_nearest_seat_within_reach_only() {
    let points = square(20);
    let grid = SeatGrid::new(&points, Bounds { x: 0.0, y: 0.0, width: 190.0, height: 190.0 }, 20.0);
    assert_eq!(grid.hit(&points, 52.0, 38.0, 4.0), Some(4 * 20 + 5));
    assert_eq!(grid.hit(&points, 55.0, 35.0, 4.0), None);
    assert_eq!(grid.hit(&points, -30.0, -30.0, 4.0), None);
}

#[test]
fn a_section_is_outlined_by_its_outer_seats_and_counts_its_free_ones() {
    let names = vec!["A".to_owned(), "B".to_owned()];
    let points: Vec<(f64, f64)> =
        vec![(0.0, 0.0), (10.0, 0.0), (5.0, 3.0), (10.0, 10.0), (0.0, 10.0), (100.0, 0.0), (110.0, 0.0)];
    let section_of = vec![0, 0, 0, 0, 0, 1, 1];
    let mut sections = Sections::new(&names, &section_of, &points, |seat| seat != 1);
    let a = &sections.list[0];
    assert_eq!(a.hull.len(), 4, "the inner seat is not on the outline: {:?}", a.hull);
    assert!(!a.hull.contains(&(5.0, 3.0)));
    assert_eq!((a.seats, a.free), (5, 4));
    assert_eq!(a.bounds, Bounds { x: 0.0, y: 0.0, width: 10.0, height: 10.0 });
    sections.count(1, false);
    assert_eq!(sections.list[1].free, 1);
}
