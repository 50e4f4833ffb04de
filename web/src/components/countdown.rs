use leptos::prelude::*;
use seat_state::{CountdownView, Phase};

/// The phase's name for `data-phase` and styling.
pub fn phase_name(phase: Phase) -> &'static str {
    match phase {
        Phase::Normal => "normal",
        Phase::Warning => "warning",
        Phase::Expired => "expired",
    }
}

/// A hold's countdown, `m:ss`: `seat-state`'s buffered remaining time (a
/// little less than the server allows: a safety buffer plus the clock
/// estimate's uncertainty), so it never shows time the server has taken.
///
/// It writes to the page only when its text changes. The timer itself is
/// not read out every second; a polite live region says once when less
/// than a minute is left and once when the hold has ended.
#[component]
pub fn Countdown(
    /// The countdown as `seat-state` answers it; `None` once the hold is over.
    view: RwSignal<Option<CountdownView>>,
) -> impl IntoView {
    let text =
        Memo::new(move |_| view.with(|view| view.as_ref().map_or_else(|| "0:00".to_owned(), |v| v.text.clone())));
    let phase = Memo::new(move |_| view.with(|view| view.as_ref().map_or(Phase::Expired, |v| v.phase)));
    // Recorded with the text, so it too changes only when the text does.
    let remaining = Memo::new(move |_| {
        let _ = text.get();
        view.with_untracked(|view| view.as_ref().map_or(0, CountdownView::remaining_millis)).to_string()
    });
    let announcement = move || match phase.get() {
        Phase::Normal => "",
        Phase::Warning => "Less than a minute left on your hold. You can extend it or confirm now.",
        Phase::Expired => "Your hold has expired.",
    };
    view! {
        <span
            class="countdown"
            role="timer"
            aria-label="Time left"
            data-countdown=move || text.get()
            data-remaining-ms=move || remaining.get()
            data-phase=move || phase_name(phase.get())
        >
            {move || text.get()}
        </span>
        <span class="visually-hidden" aria-live="polite">{announcement}</span>
    }
}
