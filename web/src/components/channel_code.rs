use leptos::prelude::*;

use crate::components::best_seats::{field_value, submitted};
use crate::controller::Controller;

/// A presale code: entered, the seats kept for a channel are offered and
/// every hold carries the code (the server checks it); emptied, they are
/// not. One piece of markup, read when sent; the controller (context) takes
/// the code.
#[component]
pub fn ChannelCode() -> impl IntoView {
    let controller = expect_context::<Controller>();
    let on_click = move |event: web_sys::MouseEvent| {
        if let Some(root) = submitted(&event) {
            controller.set_code(&field_value(&root, "channel-code"));
        }
    };
    view! {
        <div on:click=on_click inner_html=r#"<form class="code" aria-label="Presale code"><label>Presale code <input type="text" data-field="channel-code" autocomplete="off" spellcheck="false"></label> <button type="submit" data-action="code">Use code</button></form>"#></div>
    }
}
