use leptos::prelude::*;

/// What each seat shape means; shapes differ, not only colours.
#[component]
pub fn Legend() -> impl IntoView {
    let entry = |state: &'static str, text: &'static str| {
        view! {
            <li>
                <svg width="18" height="18" viewBox="-10 -10 20 20" aria-hidden="true">
                    <g class="seat" data-state=state>
                        <circle r="8"></circle>
                        <path class="mark" d="M -4 -4 L 4 4 M 4 -4 L -4 4"></path>
                    </g>
                </svg>
                {text}
            </li>
        }
    };
    view! {
        <ul class="legend" aria-label="Legend">
            {entry("free", "Available")}
            {entry("held", "Held")}
            {entry("sold", "Sold")}
        </ul>
    }
}
