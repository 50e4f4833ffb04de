use leptos::prelude::*;

pub use crate::live_show::Connection;

/// A visible badge: "Live", "Connecting…", "Reconnecting…", or, while the
/// server has no room for a live stream, a quiet "Updating every few
/// seconds" (the map is polled: nothing is wrong for the customer).
#[component]
pub fn ConnectionStatus(
    /// The stream's state.
    connection: RwSignal<Connection>,
) -> impl IntoView {
    let (name, text) = (
        move || match connection.get() {
            Connection::Connecting => "connecting",
            Connection::Live => "live",
            Connection::Reconnecting => "reconnecting",
            Connection::Polling => "polling",
        },
        move || match connection.get() {
            Connection::Connecting => "Connecting…",
            Connection::Live => "Live",
            Connection::Reconnecting => "Reconnecting…",
            Connection::Polling => "Updating every few seconds",
        },
    );
    view! {
        <span class="connection" data-connection=name role="status">
            <span class="dot" aria-hidden="true"></span>
            {text}
        </span>
    }
}
