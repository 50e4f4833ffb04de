//! One helper per suite: a show mounted in a fresh element, fed by hand,
//! on a fake local clock that runs an hour behind the server.

#![allow(dead_code)]

use std::sync::atomic::{AtomicI64, Ordering};

use leptos::prelude::*;
use seat_state::sync::Input;
use seat_state::wire::{
    AreaDefinition, ChangeEvent, HoldBody, SeatDefinition, SeatFact, SeatMap, ShowDefinition, ShowOffer,
};
use seat_state::{ClockSample, LocalMillis, ServerMillis};
use seathold_web::components::connection_status::Connection;
use seathold_web::components::show_view::ShowView;
use seathold_web::controller::Controller;
use seathold_web::live_map::LiveMap;
use wasm_bindgen::JsCast;

/// The fake local clock's reading at the start of each test.
pub const LOCAL_START: i64 = 1_000_000;
/// The server's clock when the fake local one reads `LOCAL_START - 50`: the
/// device is an hour behind.
pub const SERVER_START: i64 = 1_764_460_000_000;
/// Half the sample's round trip: the clock estimate's uncertainty.
pub const UNCERTAINTY: i64 = 50;

static FAKE_NOW: AtomicI64 = AtomicI64::new(LOCAL_START);

/// The fake local clock.
pub fn fake_now() -> LocalMillis {
    LocalMillis(FAKE_NOW.load(Ordering::SeqCst))
}

/// Moves the fake local clock forward.
pub fn advance(millis: i64) {
    FAKE_NOW.fetch_add(millis, Ordering::SeqCst);
}

/// Server time now, as the single sample estimates it.
pub fn server_now() -> ServerMillis {
    ServerMillis(SERVER_START + (fake_now().0 - (LOCAL_START - 50)))
}

/// Rows A..`rows` of `per_row` seats, 30 apart, labelled "Row B, seat 7".
pub fn show(rows: usize, per_row: usize, max_seats_per_hold: i64) -> ShowDefinition {
    let seats = (0..rows)
        .flat_map(|row| {
            let letter = row_name(row);
            (1..=per_row).map(move |number| SeatDefinition {
                id: format!("{letter}{number}"),
                x: number as f64 * 30.0,
                y: row as f64 * 34.0,
                label: Some(format!("Row {letter}, seat {number}")),
                category: None,
            })
        })
        .collect();
    ShowDefinition {
        id: "test-show".into(),
        name: "Test Show".into(),
        hold_seconds: 600,
        extension_seconds: 300,
        max_extensions: 2,
        max_seats_per_hold,
        max_active_holds_per_holder: 1,
        late_policy: "reject".into(),
        seats,
        areas: vec![AreaDefinition { id: "standing".into(), name: "Standing".into(), capacity: 10 }],
    }
}

/// "A".."Z", then "AA", "AB", …
pub fn row_name(row: usize) -> String {
    if row < 26 {
        char::from(b'A' + row as u8).to_string()
    } else {
        format!("{}{}", row_name(row / 26 - 1), row_name(row % 26))
    }
}

/// A seat map at `version` with every seat free, then `held` seats held by
/// someone else until `held_until`.
pub fn facts(show: &ShowDefinition, version: i64, held: &[&str], held_until: ServerMillis) -> SeatMap {
    SeatMap {
        show_id: show.id.clone(),
        server_time: server_now().0,
        version,
        seats: show
            .seats
            .iter()
            .map(|seat| SeatFact {
                id: seat.id.clone(),
                sold: false,
                hold_expires_at: held.contains(&seat.id.as_str()).then_some(held_until.0),
                mine: Some(false),
                ..Default::default()
            })
            .collect(),
        areas: vec![],
    }
}

/// A change event with one seat's new facts.
pub fn change(version: i64, seat: &str, sold: bool, hold_expires_at: Option<ServerMillis>) -> ChangeEvent {
    ChangeEvent {
        version,
        server_time: server_now().0,
        since: None,
        seats: vec![SeatFact {
            id: seat.into(),
            sold,
            hold_expires_at: hold_expires_at.map(|at| at.0),
            mine: None,
            ..Default::default()
        }],
        areas: vec![],
    }
}

/// A wire body as JSON text, as the server sends it.
pub fn json_text(body: &impl serde::Serialize) -> String {
    let value = body.serialize(&serde_wasm_bindgen::Serializer::json_compatible()).unwrap();
    js_sys::JSON::stringify(&value).unwrap().into()
}

/// A mounted show page (without network) and its controller.
pub struct Mounted {
    pub root: web_sys::HtmlElement,
    pub controller: Controller,
    _handle: Box<dyn std::any::Any>,
}

impl Mounted {
    /// Feeds inputs to the live map.
    pub fn feed(&self, inputs: Vec<Input>) {
        self.controller.live.update_value(|live| live.feed_all(inputs));
    }

    /// Makes the hold panel follow this hold.
    pub fn focus(&self, hold_id: &str) {
        let hold_id = hold_id.to_owned();
        self.controller.live.update_value(|live| live.focus(Some(hold_id)));
    }

    /// Makes the hold panel follow the newest active hold (as on load).
    pub fn focus_newest_active(&self) {
        self.controller.live.update_value(LiveMap::focus_newest_active);
    }

    /// Brings the live map up to the fake clock's now (as its timer would).
    pub fn tick(&self) {
        self.controller.live.update_value(LiveMap::tick);
    }

    /// The element matching `selector`.
    pub fn find(&self, selector: &str) -> web_sys::Element {
        self.root.query_selector(selector).unwrap().unwrap_or_else(|| panic!("nothing matches {selector}"))
    }

    /// A seat's element.
    pub fn seat(&self, id: &str) -> web_sys::Element {
        self.find(&format!("[data-seat-id=\"{id}\"]"))
    }

    /// An attribute of a seat ("" when absent).
    pub fn seat_attr(&self, id: &str, name: &str) -> String {
        self.seat(id).get_attribute(name).unwrap_or_default()
    }

    /// The text of the `role="alert"` element.
    pub fn alert(&self) -> String {
        self.find("[role=alert]").text_content().unwrap_or_default()
    }
}

/// Mounts `show` with a clock sample (device an hour behind) and `facts`.
pub fn mount(show: ShowDefinition, facts: SeatMap) -> Mounted {
    mount_offer(show, &ShowOffer::default(), facts)
}

/// Mounts `show` with its box office's categories and channels.
pub fn mount_offer(show: ShowDefinition, offer: &ShowOffer, facts: SeatMap) -> Mounted {
    FAKE_NOW.store(LOCAL_START, Ordering::SeqCst);
    let document = document();
    let root: web_sys::HtmlElement = document.create_element("main").unwrap().unchecked_into();
    document.body().unwrap().append_child(&root).unwrap();
    let (controller, model, areas) = Controller::new(&show, offer, fake_now);
    let sample = ClockSample {
        sent: LocalMillis(LOCAL_START - 100),
        server: ServerMillis(SERVER_START),
        received: LocalMillis(LOCAL_START),
    };
    controller.live.update_value(|live| live.feed_all([Input::ClockSample(sample), Input::Snapshot(facts)]));
    let name = show.name.clone();
    let handle = leptos::mount::mount_to(root.clone(), move || {
        provide_context(controller);
        view! {
            <ShowView
                name
                extension_seconds=300
                model
                areas
                connection=RwSignal::new(Connection::Live)
            />
        }
    });
    Mounted { root, controller, _handle: Box::new(handle) }
}

/// Sends a key press to an element, as a browser would.
pub fn press(element: &web_sys::Element, key: &str) {
    let init = web_sys::KeyboardEventInit::new();
    init.set_key(key);
    init.set_bubbles(true);
    init.set_cancelable(true);
    let event = web_sys::KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init).unwrap();
    element.dispatch_event(&event).unwrap();
}

/// Clicks an element (SVG elements have no `click()`).
pub fn click(element: &web_sys::Element) {
    let init = web_sys::MouseEventInit::new();
    init.set_bubbles(true);
    let event = web_sys::MouseEvent::new_with_mouse_event_init_dict("click", &init).unwrap();
    element.dispatch_event(&event).unwrap();
}

/// The `data-seat-id` of the focused element.
pub fn focused_seat() -> String {
    document().active_element().and_then(|element| element.get_attribute("data-seat-id")).unwrap_or_default()
}

/// Waits for real time to pass (for timers).
pub async fn sleep(millis: u32) {
    gloo_timers::future::TimeoutFuture::new(millis).await;
}

/// An active hold of mine on the test show.
pub fn my_hold(hold_id: &str, seats: &[&str], expires_at: ServerMillis) -> HoldBody {
    HoldBody {
        hold_id: hold_id.into(),
        show_id: "test-show".into(),
        seats: seats.iter().map(|seat| (*seat).to_owned()).collect(),
        areas: seat_state::wire::AreaMap::new(),
        status: "HELD".into(),
        expires_at: expires_at.0,
        extensions: 0,
        late: false,
        server_time: server_now().0,
    }
}
