//! The waiting room in front of a show's map (API.md "Waiting room (v3)"):
//! the customer's place, how many are ahead and a wait that never promises
//! sooner than the server admits, moving live with the queue's progress;
//! once admitted, the map, with the time left to make a first hold.

use leptos::prelude::*;
use seat_state::queue::{estimate_from_progress, wait_millis, wait_text};
use seat_state::wire::QueueState;
use seat_state::{ClockOffset, ServerMillis};

use crate::waiting::Waiting;

/// At most one spoken update of the place this often: a screen reader
/// hears the queue move, not every second of it.
const ANNOUNCE_EVERY_MS: i64 = 60_000;

/// Joins the show's queue (a reload finds the same place) and shows the
/// wait, or `children` (the map) once admitted or when the queue is closed.
#[component]
pub fn WaitingRoom(
    show_id: String,
    /// The show's name, for the heading.
    name: String,
    /// Server time minus local time, from the page's clock samples.
    offset: ClockOffset,
    /// When the sale opens and the pre-queue's places are drawn.
    opens_at: ServerMillis,
    /// The show's map.
    children: ChildrenFn,
) -> impl IntoView {
    let waiting = Waiting::start(&show_id);
    let Waiting { place, problem, progress, now, .. } = waiting;
    let spoken = RwSignal::new((String::new(), i64::MIN));
    let join = move || waiting.join();

    // The admission instant: the server's, or later as progress implies.
    let admit_at = move || {
        let place = place.get()?;
        let position = place.position?;
        let server = place.estimated_admit_at.map(ServerMillis);
        let heard = progress.get().and_then(|progress| estimate_from_progress(position, &progress));
        server.into_iter().chain(heard).max()
    };
    let wait = move || admit_at().map(|at| wait_millis(at, offset, now.get()));
    // Until the draw, the time to it: counted from the earliest the server's
    // clock can read, so it never reaches zero before the server does.
    let opens_in = move || match place.get().and_then(|place| place.position) {
        Some(_) => None,
        None => Some(wait_millis(opens_at, offset, now.get())),
    };
    let ahead = move || {
        let place = place.get()?;
        let through = progress.get().map_or(0, |progress| progress.admitted_through);
        let position = place.position?;
        Some(place.ahead.unwrap_or(0).min(position.saturating_sub(through + 1)))
    };
    let announcement = move || {
        let text = match ahead() {
            Some(0) => "You are next.".to_owned(),
            Some(ahead) => format!("{ahead} people ahead of you."),
            None => "You are in the queue; places are drawn when the sale opens.".to_owned(),
        };
        let at = now.get().0;
        let (said, when) = spoken.get_untracked();
        if said != text && at - when >= ANNOUNCE_EVERY_MS {
            spoken.set((text.clone(), at));
            return text;
        }
        said
    };
    let window_left = move || {
        let until = place.get()?.admitted_until?;
        Some(wait_text(wait_millis_until(until, offset, now.get())))
    };

    // Only a change of state redraws: the map is not rebuilt when the place is read again.
    let shown = Memo::new(move |_| (place.with(|place| place.as_ref().map(|place| place.state)), problem.get()));
    move || {
        match shown.get() {
            (Some(QueueState::Admitted), _) => view! {
                <p class="notice admitted" data-queue-state="admitted">
                    "It's your turn. Choose your seats and hold them within "
                    <span data-admission-left=window_left>{window_left}</span> "."
                </p>
                {children()}
            }
            .into_any(),
            (Some(QueueState::Closed), _) => children().into_any(),
            (Some(QueueState::Lapsed), _) => view! {
                <section class="waiting-room" data-queue-state="lapsed">
                    <h1 class="show-name">{name.clone()}</h1>
                    <h2>"Your turn has passed"</h2>
                    <p>"You were admitted but made no hold in time. You can join the queue again, at the back."</p>
                    <button type="button" data-action="join-queue" on:click=move |_| join()>"Join the queue again"</button>
                </section>
            }
            .into_any(),
            (Some(QueueState::Waiting), _) | (None, None) => view! {
                <section class="waiting-room" data-queue-state="waiting" aria-labelledby="waiting-heading">
                    <h1 class="show-name">{name.clone()}</h1>
                    <h2 id="waiting-heading">"You are in the queue"</h2>
                    <p>"Keep this page open: when it is your turn, the seat map opens here. Reloading keeps your place."</p>
                    <dl class="queue-facts">
                        <dt>"Your place"</dt>
                        <dd data-position=move || place.get().and_then(|p| p.position).map(|p| p.to_string())>
                            {move || place.get().and_then(|p| p.position).map_or_else(|| "drawn when the sale opens".to_owned(), |p| p.to_string())}
                        </dd>
                        {move || opens_in().map(|left| view! {
                            <dt>"The sale opens in"</dt>
                            <dd role="timer" data-opens-in-ms=left.to_string()>
                                {if left > 0 { wait_text(left) } else { "any moment now".to_owned() }}
                            </dd>
                        })}
                        <dt>"People ahead of you"</dt>
                        <dd data-ahead=move || ahead().map(|a| a.to_string())>
                            {move || ahead().map_or_else(|| "–".to_owned(), |a| a.to_string())}
                        </dd>
                        <dt>"Estimated wait"</dt>
                        <dd role="timer" data-wait-ms=move || wait().map(|w| w.to_string())>
                            {move || wait().map_or_else(|| "from the sale's opening".to_owned(), |w| format!("about {}", wait_text(w)))}
                        </dd>
                    </dl>
                    <p class="visually-hidden" aria-live="polite">{announcement}</p>
                </section>
            }
            .into_any(),
            (None, Some(problem)) => view! {
                <section class="waiting-room" data-queue-state="unavailable">
                    <p role="alert">{problem}</p>
                    <button type="button" data-action="join-queue" on:click=move |_| join()>"Try again"</button>
                </section>
            }
            .into_any(),
        }
    }
}

/// Time left of an admission's window, counted the hold's way: from the
/// latest the server's clock can read, so it never shows time already gone.
fn wait_millis_until(until: i64, offset: ClockOffset, local: seat_state::LocalMillis) -> i64 {
    let latest = offset.earliest().server_now(local).0 + 2 * offset.uncertainty_millis;
    (until - latest).max(0)
}
