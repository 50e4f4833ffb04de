use leptos::prelude::*;
use seat_state::{HoldStatus, Phase};

use crate::components::countdown::{Countdown, phase_name};
use crate::controller::Controller;
use crate::hold::HoldAction;
use crate::words;

/// The banner of the customer's hold: what is held, the countdown, and
/// Confirm, Extend (saying how many extensions remain; disabled at the
/// limit) and Release.
/// When the countdown runs out the hold is shown as expired — before the
/// server would refuse it, thanks to the countdown's buffer. The hold, its
/// countdown and whether a request is under way come from the controller
/// (context), which also runs the buttons.
#[component]
pub fn HoldPanel(
    /// How many seconds one extension adds.
    extension_seconds: i64,
) -> impl IntoView {
    let controller = expect_context::<Controller>();
    let (hold, countdown, busy) = (controller.shown.hold, controller.shown.countdown, controller.busy);
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
    let button = move |action: HoldAction| move |_| controller.act(action);
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
                            {move || {
                                if ended.get() {
                                    view! {
                                        <button type="button" on:click=button(HoldAction::Dismiss)>"Pick seats again"</button>
                                    }
                                    .into_any()
                                } else {
                                    view! {
                                        <button type="button" class="primary" data-action="confirm" disabled=busy
                                            on:click=button(HoldAction::Confirm)>"Confirm"</button>
                                        <button type="button" data-action="extend" disabled=move || busy.get() || left == 0
                                            on:click=button(HoldAction::Extend)>{extend_label(left)}</button>
                                        <button type="button" data-action="release" disabled=busy
                                            on:click=button(HoldAction::Release)>"Release"</button>
                                    }
                                    .into_any()
                                }
                            }}
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
