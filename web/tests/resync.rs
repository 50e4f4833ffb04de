//! A re-sync whose fetch fails, in headless Chromium: the map asks again
//! with back-off (honouring `Retry-After`) until a snapshot arrives, then
//! stops. `fetch` is faked for the seat map's URL; the clock is the fake one.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

mod common;

use common::{advance, change, facts, json_text, mount, show, sleep};
use seat_state::sync::Input;
use seat_state::wire::{CompactMap, ShowOffer};
use seathold_web::live_map::seat_order;
use wasm_bindgen::JsValue;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

/// Replaces `fetch` for URLs containing `path`; everything else goes out.
const FAKE_FETCH: &str = r#"
const real = globalThis.fetch;
const fake = { calls: 0, restore: () => { globalThis.fetch = real; } };
globalThis.fetch = function (request, init) {
    const url = typeof request === "string" ? request : request.url;
    if (!url.includes(path)) return real.call(globalThis, request, init);
    const answer = answers[Math.min(fake.calls, answers.length - 1)];
    fake.calls += 1;
    if (answer === null) return Promise.reject(new TypeError("Failed to fetch"));
    const response = new Response(answer.body, { status: answer.status, headers: answer.headers });
    Object.defineProperty(response, "url", { value: url });
    // The body at once: the whole answer settles before the next task.
    response.text = () => Promise.resolve(answer.body);
    return Promise.resolve(response);
};
return fake;
"#;

/// One answer of the fake `fetch`.
enum Answer {
    NetworkError,
    Json { status: u16, retry_after: Option<&'static str>, body: String },
}

/// `fetch` answering `answers` in turn (the last one repeats) until dropped.
struct FakeFetch(JsValue);

impl FakeFetch {
    fn install(path: &str, answers: Vec<Answer>) -> Self {
        let list = js_sys::Array::new();
        for answer in answers {
            list.push(&match answer {
                Answer::NetworkError => JsValue::NULL,
                Answer::Json { status, retry_after, body } => {
                    let headers = js_sys::Object::new();
                    set(&headers, "Content-Type", &"application/json".into());
                    if let Some(seconds) = retry_after {
                        set(&headers, "Retry-After", &seconds.into());
                    }
                    let answer = js_sys::Object::new();
                    set(&answer, "status", &status.into());
                    set(&answer, "headers", &headers);
                    set(&answer, "body", &body.into());
                    answer.into()
                }
            });
        }
        let install = js_sys::Function::new_with_args("path, answers", FAKE_FETCH);
        Self(install.call2(&JsValue::NULL, &path.into(), &list).unwrap())
    }

    /// How many requests it answered.
    fn calls(&self) -> f64 {
        js_sys::Reflect::get(&self.0, &"calls".into()).unwrap().as_f64().unwrap()
    }
}

impl Drop for FakeFetch {
    fn drop(&mut self) {
        let restore: js_sys::Function = js_sys::Reflect::get(&self.0, &"restore".into()).unwrap().into();
        restore.call0(&JsValue::NULL).unwrap();
    }
}

fn set(object: &js_sys::Object, key: &str, value: &JsValue) {
    js_sys::Reflect::set(object, &key.into(), value).unwrap();
}

/// Lets every queued promise reaction run (the fake answers at once).
async fn settle() {
    sleep(0).await;
}

#[wasm_bindgen_test]
async fn a_failed_resync_is_retried_with_back_off_until_a_snapshot_arrives() {
    let mut show = show(2, 4, 8);
    show.id = "retry-show".into();
    let mut fresh = facts(&show, 3, &[], common::server_now());
    fresh.seats[0].sold = true;
    fresh.seats[1].sold = true;
    // The app asks for the compact form (`?format=compact`).
    let fresh = CompactMap::encode(&fresh, &seat_order(&show, &ShowOffer::default())).unwrap();
    let busy = r#"{"error": "unavailable", "message": "Busy.", "serverTime": 1}"#.to_owned();
    let fetch = FakeFetch::install(
        "/api/shows/retry-show/seats?format=compact",
        vec![
            Answer::NetworkError,
            Answer::Json { status: 503, retry_after: Some("1"), body: busy },
            Answer::Json { status: 200, retry_after: None, body: json_text(&fresh) },
        ],
    );
    let page = mount(show.clone(), facts(&show, 1, &[], common::server_now()));
    // Version 2 is missing: the map asks for a snapshot, which fails.
    page.feed(vec![Input::Change(change(3, "A2", true, None))]);
    settle().await;
    assert_eq!(fetch.calls(), 1.0);
    let step = |millis| {
        advance(millis);
        page.tick();
    };
    // Back-off: 250 ms, plus up to a quarter of jitter.
    step(249);
    settle().await;
    assert_eq!(fetch.calls(), 1.0, "not before the back-off");
    step(64);
    settle().await;
    assert_eq!(fetch.calls(), 2.0, "asked again after the back-off");
    // The 503's Retry-After (1 s) outlasts the next back-off (≤ 625 ms).
    step(999);
    settle().await;
    assert_eq!(fetch.calls(), 2.0, "not before Retry-After");
    step(1);
    settle().await;
    assert_eq!(fetch.calls(), 3.0, "asked again after Retry-After");
    assert_eq!(page.seat_attr("A1", "data-state"), "sold", "the snapshot is shown");
    assert_eq!(page.seat_attr("A2", "data-state"), "sold");
    step(60_000);
    settle().await;
    assert_eq!(fetch.calls(), 3.0, "no more asks once the snapshot arrived");
}
