use leptos::prelude::*;
use seat_state::{CountdownView, HoldStatus, Phase};

use crate::components::countdown::{Countdown, phase_name};
use crate::hold::{HoldAction, HoldSummary};
use crate::words;

/// The banner of the customer's hold: what is held, the countdown, and
/// Confirm, Extend (saying how many extensions remain; disabled at the
/// limit) and Release.
/// When the countdown runs out the hold is shown as expired — before the
/// server would refuse it, thanks to the countdown's buffer.
#[component]
pub fn HoldPanel(
    /// The hold, or nothing.
    #[prop(into)]
    hold: Signal<Option<HoldSummary>>,
    /// Its countdown, as `seat-state` answers it.
    #[prop(into)]
    countdown: Signal<Option<CountdownView>>,
    /// How many seconds one extension adds.
    extension_seconds: i64,
    /// A request is under way: the buttons wait.
    #[prop(into)]
    busy: Signal<bool>,
    /// Runs a button's action.
    on_action: Callback<HoldAction>,
) -> impl IntoView {
    let phase = Memo::new(move |_| countdown.with(|view| view.as_ref().map_or(Phase::Expired, |v| v.phase)));
    let ended = Memo::new(move |_| {
        phase.get() == Phase::Expired || hold.with(|h| h.as_ref().is_some_and(|h| h.status != HoldStatus::Held))
    });
    let extend_label = move |left: u32| {
        let by = if extension_seconds % 60 == 0 {
            format!("{} min", extension_seconds / 60)
        } else {
            format!("{extension_seconds} s")
        };
        format!("Extend by {by} ({})", words::extensions_left(left))
    };
    let button = move |action: HoldAction| move |_| on_action.run(action);
    move || {
        let summary = hold.get()?;
        let view = match summary.status {
            HoldStatus::Confirmed => view! {
                <section class="hold confirmed" aria-label="Your tickets">
                    <p><strong>"Confirmed: "</strong>{summary.places}". Enjoy the show!"</p>
                    {total(summary.total.clone())}
                    <div class="actions">
                        <button type="button" on:click=button(HoldAction::Dismiss)>"Done"</button>
                    </div>
                </section>
            }
            .into_any(),
            _ => {
                let left = summary.extensions_left;
                view! {
                    <section class="hold" data-phase=move || phase_name(phase.get()) aria-label="Your hold">
                        <p class="held-places"><strong>"Held for you: "</strong>{summary.places}</p>
                        {total(summary.total.clone())}
                        <p class="time-left">
                            {move || if ended.get() { "Your hold has expired: " } else { "Time left: " }}
                            <Countdown view=countdown/>
                        </p>
                        <div class="actions">
                            <Show
                                when=move || !ended.get()
                                fallback=move || view! {
                                    <button type="button" on:click=button(HoldAction::Dismiss)>"Pick seats again"</button>
                                }
                            >
                                <button type="button" class="primary" data-action="confirm" disabled=busy
                                    on:click=button(HoldAction::Confirm)>"Confirm"</button>
                                <button type="button" data-action="extend" disabled=move || busy.get() || left == 0
                                    on:click=button(HoldAction::Extend)>{extend_label(left)}</button>
                                <button type="button" data-action="release" disabled=busy
                                    on:click=button(HoldAction::Release)>"Release"</button>
                            </Show>
                        </div>
                    </section>
                }
                .into_any()
            }
        };
        Some(view)
    }
}

/// "Total: €90.00", when the hold has a total.
fn total(total: Option<String>) -> impl IntoView {
    total.map(|total| view! { <p class="total"><strong>"Total: "</strong><span data-total="">{total}</span></p> })
}
