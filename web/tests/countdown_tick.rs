//! A countdown tick re-renders only the countdown: every DOM mutation a
//! second's tick makes is inside the countdown element.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

mod common;

use std::cell::RefCell;
use std::rc::Rc;

use common::{advance, facts, mount, my_hold, server_now, show};
use leptos::task::tick;
use seat_state::sync::Input;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::Closure;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use web_sys::{MutationObserver, MutationObserverInit, MutationRecord, Node};

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
async fn a_countdown_tick_changes_nothing_but_the_countdown() {
    let show = show(4, 6, 8);
    let deadline = server_now().plus_millis(600_000);
    let page = mount(show.clone(), facts(&show, 1, &["B2"], deadline));
    page.feed(vec![Input::MyHolds(vec![my_hold("hold-0001", &["B2"], deadline)])]);
    page.focus("hold-0001");
    tick().await;
    let countdown: Node = page.find("[data-countdown]").unchecked_into();
    let before = countdown.text_content().unwrap();

    // Records reach the callback at the next microtask checkpoint; keep them all.
    let seen = Rc::new(RefCell::new(Vec::<MutationRecord>::new()));
    let keep = {
        let seen = Rc::clone(&seen);
        Closure::<dyn FnMut(js_sys::Array)>::new(move |records: js_sys::Array| {
            seen.borrow_mut().extend(records.iter().map(JsCast::unchecked_into));
        })
    };
    let observer = MutationObserver::new(keep.as_ref().unchecked_ref()).unwrap();
    let everything = MutationObserverInit::new();
    everything.set_subtree(true);
    everything.set_attributes(true);
    everything.set_child_list(true);
    everything.set_character_data(true);
    observer.observe_with_options(&page.root, &everything).unwrap();
    advance(1_000);
    page.tick();
    tick().await;
    seen.borrow_mut().extend(observer.take_records().iter().map(JsCast::unchecked_into));
    observer.disconnect();

    assert_ne!(countdown.text_content().unwrap(), before, "the second went down");
    let records = seen.borrow();
    assert!(!records.is_empty(), "the tick wrote something");
    for record in records.iter() {
        let target = record.target().unwrap();
        assert!(
            countdown.contains(Some(&target)),
            "a tick touched {:?} (attribute {:?}) outside the countdown",
            target.node_name(),
            record.attribute_name()
        );
    }
}
