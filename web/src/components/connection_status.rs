use leptos::prelude::*;

pub use crate::live_show::Connection;

/// A visible badge: "Live", "Connecting…" or "Reconnecting…".
#[component]
pub fn ConnectionStatus(
    /// The stream's state.
    #[prop(into)]
    connection: Signal<Connection>,
) -> impl IntoView {
    let (name, text) = (
        move || match connection.get() {
            Connection::Connecting => "connecting",
            Connection::Live => "live",
            Connection::Reconnecting => "reconnecting",
        },
        move || match connection.get() {
            Connection::Connecting => "Connecting…",
            Connection::Live => "Live",
            Connection::Reconnecting => "Reconnecting…",
        },
    );
    view! {
        <span class="connection" data-connection=name role="status">
            <span class="dot" aria-hidden="true"></span>
            {text}
        </span>
    }
}
