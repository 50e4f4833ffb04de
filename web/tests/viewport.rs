//! The phone's opening view: the seats nearest the stage's middle at the
//! top of the view, rather than the empty middle itself.

use wasm_bindgen_test::{wasm_bindgen_test as test, wasm_bindgen_test_configure};

use seathold_web::layout::Bounds;
use seathold_web::viewport::{Viewport, nearest};

wasm_bindgen_test_configure!(run_in_browser);

#[test]
fn the_nearest_point_is_found() {
    let points = [(0.0, 100.0), (40.0, 10.0), (-30.0, 5.0)];
    assert_eq!(nearest(points.into_iter(), 0.0, 0.0), Some(2));
    assert_eq!(nearest(points.into_iter(), 50.0, 0.0), Some(1));
    assert_eq!(nearest(std::iter::empty(), 0.0, 0.0), None);
}

#[test]
fn a_zoomed_view_opens_with_a_seat_at_its_top_middle() {
    let base = Bounds { x: 0.0, y: 0.0, width: 1000.0, height: 600.0 };
    let zoomed = Viewport::whole(base).zoom(5.0);
    let view = zoomed.top_middle_on(300.0, 200.0, 10.0).visible();
    assert!((view.x + view.width / 2.0 - 300.0).abs() < 1e-9, "centred across: {view:?}");
    assert!((view.y - 190.0).abs() < 1e-9, "the seat 10 below the top: {view:?}");
    // Near an edge the view stays on the map.
    let edge = zoomed.top_middle_on(990.0, 595.0, 10.0).visible();
    assert!(edge.x + edge.width <= 1000.0 + 1e-9 && edge.y + edge.height <= 600.0 + 1e-9, "{edge:?}");
}
