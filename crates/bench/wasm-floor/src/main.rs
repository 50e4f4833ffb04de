//! A counter; with the `reqwest` feature it also shows the server time read
//! with one reqwest GET and serde-wasm-bindgen, as the UI's `api.rs` does.

use leptos::prelude::*;

#[cfg(feature = "reqwest")]
#[derive(serde::Deserialize)]
struct TimeBody {
    #[serde(rename = "serverTime")]
    server_time: i64,
}

#[cfg(feature = "reqwest")]
async fn server_time() -> Option<i64> {
    let origin = web_sys::window()?.location().origin().ok()?;
    let request = reqwest::Client::new().get(format!("{origin}/api/time"));
    let response = request.fetch_credentials_same_origin().send().await.ok()?;
    let text = response.text().await.ok()?;
    let body: TimeBody = serde_wasm_bindgen::from_value(js_sys::JSON::parse(&text).ok()?).ok()?;
    Some(body.server_time)
}

fn main() {
    mount_to_body(|| {
        let (count, set_count) = signal(0_i64);
        #[cfg(feature = "reqwest")]
        leptos::task::spawn_local(async move {
            if let Some(time) = server_time().await {
                set_count.set(time);
            }
        });
        view! { <button on:click=move |_| set_count.update(|count| *count += 1)>{count}</button> }
    })
}
