use leptos::prelude::*;

/// The state of the live stream of changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Connection {
    /// Opening for the first time.
    Connecting,
    /// Changes arrive as they happen.
    Live,
    /// The stream broke and is being reopened; the map may be behind.
    Reconnecting,
}

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
