//! The phone's opening view: the block of seats around the seat nearest
//! the stage, rather than the empty space at the stage itself.

use wasm_bindgen_test::{wasm_bindgen_test as test, wasm_bindgen_test_configure};

use seathold_web::viewport::{middle_near, nearest};

wasm_bindgen_test_configure!(run_in_browser);

#[test]
fn the_nearest_point_is_found() {
    let points = [(0.0, 100.0), (40.0, 10.0), (-30.0, 5.0)];
    assert_eq!(nearest(points.into_iter(), 0.0, 0.0), Some(2));
    assert_eq!(nearest(points.into_iter(), 50.0, 0.0), Some(1));
    assert_eq!(nearest(std::iter::empty(), 0.0, 0.0), None);
}

#[test]
fn the_middle_of_the_points_near_a_seat_lies_in_their_block() {
    // A 3×3 block to the right of the seat at the origin, one far away.
    let mut points: Vec<(f64, f64)> = (0..9).map(|k| (f64::from(k % 3), f64::from(k / 3))).collect();
    points.push((100.0, 100.0));
    let (x, y) = middle_near(points.iter().copied(), 0.0, 0.0, 3.0);
    assert!((x - 1.0).abs() < 1e-9 && (y - 1.0).abs() < 1e-9, "the block's middle: ({x}, {y})");
    assert_eq!(middle_near(points.iter().copied(), 50.0, 50.0, 3.0), (50.0, 50.0), "none near: the point itself");
}
