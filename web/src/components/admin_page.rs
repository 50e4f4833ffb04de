use std::sync::Arc;

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::admin::{Admin, Board};
use crate::api::{ApiError, JournalFormat};
use crate::components::admin_charts;
use crate::components::admin_markup::{self, SIGN_IN, TOOLS};
use crate::components::best_seats::field_value;
use crate::components::messages::Messages;
use crate::live_show::load_shows;
use seat_state::wire::QueueSettingsBody;

/// Moves the focus to the element `selector` names once the markup that
/// holds it is redrawn (after the effects of the current click).
fn focus_soon(selector: &'static str) {
    gloo_timers::callback::Timeout::new(0, move || {
        let element = document().query_selector(selector).ok().flatten();
        if let Some(element) = element.and_then(|element| element.dyn_into::<web_sys::HtmlElement>().ok()) {
            let _ = element.focus();
        }
    })
    .forget();
}

/// The element an event happened on.
fn target_of(event: &web_sys::Event) -> Option<web_sys::Element> {
    event.target()?.dyn_into().ok()
}

/// `/admin`, the operator's page: asks for the admin token once (kept in
/// the tab), then a show picker, the show's figures and active holds
/// (loaded with `LocalResource`s, reloaded as the [`Admin`] state says),
/// the webhook log, the journal's downloads and the block form. It renders markup and
/// hands every click (delegated, by `data-action`) to the [`Admin`]
/// state, provided by context.
#[component]
pub fn AdminPage() -> impl IntoView {
    let admin = Admin::new();
    provide_context(admin);
    let signed_in = Memo::new(move |_| admin.token.with(Option::is_some));

    // The very resource the show list uses (one copy of its code in the wasm).
    let shows = LocalResource::new(load_shows);
    Effect::new(move |_| {
        if let Some(Ok(list)) = shows.get()
            && admin.show.get_untracked().is_none()
            && let Some(first) = list.first()
        {
            admin.show.set(Some(first.id.clone()));
        }
    });
    // The picked show stays current while the page shows it.
    Effect::new(move |_| {
        let show = admin.show.get().filter(|_| signed_in.get());
        admin.follow(show.as_deref());
    });
    on_cleanup(move || admin.follow(None));

    let board = LocalResource::new(move || {
        let (show, token) = (admin.show.get(), admin.token.get());
        admin.revision.track();
        async move {
            match (show, token) {
                (Some(show), Some(token)) => admin.load(show, token).await,
                _ => Err(ApiError::Transport("no show or no token".to_owned())),
            }
        }
    });
    // The last good answer stays on screen while the next one loads.
    let latest = Memo::new(move |before: Option<&Option<Arc<Board>>>| match board.get() {
        Some(Ok(board)) => Some(board),
        _ => before.cloned().flatten(),
    });
    let stats = Memo::new(move |_| latest.with(|board| board.as_ref().map(|board| board.stats.clone())));
    let holds = Memo::new(move |_| latest.with(|board| board.as_ref().map(|board| board.holds.clone())));

    let picker = move || match shows.get() {
        None => r#"<p class="notice">Loading shows…</p>"#.to_owned(),
        Some(Err(error)) => format!(r#"<p class="notice">{}</p>"#, error.sentence()),
        Some(Ok(list)) => admin_markup::picker(&list, admin.show.get_untracked().as_deref()),
    };
    let figures = move || {
        stats.with(|stats| match stats {
            Some(stats) => admin_markup::figures(stats),
            None => r#"<p class="notice">Loading the show's figures…</p>"#.to_owned(),
        })
    };
    let on_sale = Memo::new(move |_| latest.with(|board| board.as_ref().map(|board| board.on_sale.clone())));
    // The controls are redrawn only when what they offer changes, so a
    // reload never wipes a rate being typed.
    let controls = Memo::new(move |_| {
        let queue = on_sale.with(|on_sale| on_sale.as_ref().map(|on_sale| on_sale.queue));
        (queue.map(|queue| queue.map(|q| (q.rate_per_minute, q.paused, q.closed))), admin.closing.get())
    });
    let queue_controls = move || {
        let _ = controls.get();
        on_sale.with_untracked(|on_sale| match on_sale {
            Some(on_sale) => admin_charts::queue_controls(
                on_sale.queue.as_ref(),
                admin.closing.get_untracked(),
                admin.busy.get_untracked(),
            ),
            None => String::new(),
        })
    };
    let queue_figures = move || {
        on_sale.with(|on_sale| match on_sale {
            Some(on_sale) => admin_charts::queue_figures(on_sale.queue.as_ref()),
            None => String::new(),
        })
    };
    let charts = move || {
        on_sale.with(|on_sale| match on_sale {
            Some(on_sale) => admin_charts::charts(&on_sale.history.minutes),
            None => r#"<p class="notice">Loading the last hour…</p>"#.to_owned(),
        })
    };
    let map_markup =
        Memo::new(move |_| on_sale.with(|on_sale| on_sale.as_ref().and_then(|on_sale| on_sale.map.clone())));
    let legend = move || {
        map_markup.with(|map| map.as_ref().map_or_else(String::new, |(_, counts)| admin_charts::legend(*counts)))
    };
    let map = move || map_markup.with(|map| map.as_ref().map_or_else(String::new, |(markup, _)| markup.to_string()));
    let hold_count = move || holds.with(|holds| holds.as_ref().map_or(0, Vec::len));
    let webhooks = move || {
        latest.with(|board| match board {
            Some(board) => admin_markup::webhooks(&board.webhooks),
            None => r#"<p class="notice">Loading the webhooks…</p>"#.to_owned(),
        })
    };

    // The hold table is set by hand, so that the Release button that had
    // the focus keeps it across a reload (or, once its hold is gone, the
    // table's heading takes it); ages and deadlines tick in place.
    let table = NodeRef::<leptos::html::Div>::new();
    Effect::new(move |_| {
        let Some(root) = table.get() else { return };
        let markup = holds.with(|holds| match holds {
            Some(holds) => admin_markup::holds(holds, admin.server_now.get_untracked(), admin.busy.get_untracked()),
            None => String::new(),
        });
        let focused = document()
            .active_element()
            .filter(|element| root.contains(Some(element)))
            .and_then(|element| element.get_attribute("data-hold-id"));
        root.set_inner_html(&markup);
        if let Some(hold_id) = focused {
            let again = root.query_selector(&format!("button[data-hold-id=\"{hold_id}\"]")).ok().flatten();
            let heading = document().get_element_by_id("holds-heading");
            if let Some(element) = again.or(heading).and_then(|element| element.dyn_into::<web_sys::HtmlElement>().ok())
            {
                let _ = element.focus();
            }
        }
    });
    Effect::new(move |_| {
        let now = admin.server_now.get();
        if let Some(root) = table.get() {
            admin_markup::tick(&root, now);
        }
    });
    // Actions wait for the one under way.
    let board_root = NodeRef::<leptos::html::Div>::new();
    Effect::new(move |_| {
        let busy = admin.busy.get();
        let Some(root) = board_root.get() else { return };
        let Ok(buttons) = root.query_selector_all("button[data-action]") else { return };
        for at in 0..buttons.length() {
            if let Some(button) = buttons.item(at).and_then(|node| node.dyn_into::<web_sys::Element>().ok()) {
                let _ = if busy { button.set_attribute("disabled", "") } else { button.remove_attribute("disabled") };
            }
        }
    });

    let on_click = move |event: web_sys::MouseEvent| {
        let Some(button) = target_of(&event).and_then(|target| target.closest("button[data-action]").ok().flatten())
        else {
            return;
        };
        let action = button.get_attribute("data-action").unwrap_or_default();
        let form = button.closest("form").ok().flatten();
        if form.is_some() {
            // Enter in a field clicks the form's first submit button too.
            event.prevent_default();
        }
        let field = |name: &str| form.as_ref().map(|form| field_value(form, name)).unwrap_or_default();
        match action.as_str() {
            "sign-in" => {
                admin.sign_in(&field("admin-token"));
                // Kept in storage, not in a field that stays on the page.
                let input =
                    form.as_ref().and_then(|form| form.query_selector("[data-field=\"admin-token\"]").ok().flatten());
                if let Some(input) = input {
                    let _ = js_sys::Reflect::set(&input, &"value".into(), &"".into());
                }
            }
            "sign-out" => admin.sign_out(),
            "force-release" => {
                if let Some(hold_id) = button.get_attribute("data-hold-id") {
                    admin.release(hold_id, button.get_attribute("data-what").unwrap_or_default());
                }
            }
            "journal-jsonl" => admin.export(JournalFormat::JsonLines),
            "journal-csv" => admin.export(JournalFormat::Csv),
            "block" | "unblock" => admin.set_blocked(&field("block-seats"), &field("block-reason"), action == "block"),
            "queue-rate" => admin.set_rate(&field("queue-rate")),
            "queue-pause" => {
                admin.settle_queue(QueueSettingsBody { paused: Some(true), ..Default::default() }, "Admissions paused.")
            }
            "queue-resume" => admin
                .settle_queue(QueueSettingsBody { paused: Some(false), ..Default::default() }, "Admissions resumed."),
            "queue-close" => {
                admin.closing.set(true);
                focus_soon("[data-action=\"queue-close-confirm\"]");
            }
            "queue-close-cancel" => {
                admin.closing.set(false);
                focus_soon("[data-action=\"queue-close\"]");
            }
            "queue-close-confirm" => {
                admin.closing.set(false);
                admin.settle_queue(
                    QueueSettingsBody { closed: Some(true), ..Default::default() },
                    "Waiting room closed.",
                );
            }
            "queue-reopen" => admin.settle_queue(
                QueueSettingsBody { closed: Some(false), ..Default::default() },
                "Waiting room reopened.",
            ),
            _ => {}
        }
    };
    let on_change = move |event: web_sys::Event| {
        let picker = target_of(&event).is_some_and(|target| target.matches("[data-field=\"admin-show\"]") == Ok(true));
        if picker {
            admin.show.set(Some(event_target_value(&event)));
        }
    };
    let blocked = move || {
        admin.blocked.get().map(|seats| {
            if seats.is_empty() {
                "No seat is blocked.".to_owned()
            } else {
                format!("Blocked now: {}.", seats.join(", "))
            }
        })
    };
    view! {
        <div class="admin" on:click=on_click on:change=on_change>
            <div class="show-head">
                <h1>"Box office"</h1>
                <button type="button" data-action="sign-out" hidden=move || !signed_in.get()>"Forget the token"</button>
            </div>
            <Messages alert=admin.alert status=admin.status/>
            <div hidden=move || signed_in.get() inner_html=SIGN_IN></div>
            <div node_ref=board_root hidden=move || !signed_in.get()>
                <div inner_html=picker></div>
                <section class="admin-part" aria-labelledby="figures-heading">
                    <h2 id="figures-heading">"Figures"</h2>
                    <div inner_html=figures></div>
                </section>
                <section class="admin-part" aria-labelledby="onsale-heading" data-part="on-sale">
                    <h2 id="onsale-heading">"On sale"</h2>
                    <div inner_html=queue_figures></div>
                    <div inner_html=queue_controls></div>
                    <div inner_html=charts></div>
                    <h3>"Seats now"</h3>
                    <div inner_html=legend></div>
                    <div class="admin-map" inner_html=map></div>
                </section>
                <section class="admin-part" aria-labelledby="holds-heading">
                    <h2 id="holds-heading" tabindex="-1">"Active holds " <span class="muted" data-hold-count>{hold_count}</span></h2>
                    <div node_ref=table></div>
                </section>
                <section class="admin-part" aria-labelledby="webhooks-heading">
                    <h2 id="webhooks-heading">"Webhooks"</h2>
                    <div inner_html=webhooks></div>
                </section>
                <div inner_html=TOOLS></div>
                <p class="muted" data-blocked>{blocked}</p>
            </div>
        </div>
    }
}
