use leptos::prelude::*;

/// The page's announcements: `alert` is urgent (a conflict, a failure) and
/// read out at once (`role="alert"`); `status` is polite news (a hold made,
/// a seat taken by someone else). Both regions are always present, so that
/// screen readers notice when their text changes.
#[component]
pub fn Messages(
    /// The urgent sentence, if any.
    alert: RwSignal<Option<String>>,
    /// The polite sentence, if any.
    status: RwSignal<Option<String>>,
) -> impl IntoView {
    view! {
        <div class="messages">
            <p role="alert" class="alert" class:empty=move || alert.with(Option::is_none)>
                {move || alert.get()}
            </p>
            <p role="status" class="status" class:empty=move || status.with(Option::is_none)>
                {move || status.get()}
            </p>
        </div>
    }
}
