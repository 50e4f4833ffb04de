use leptos::prelude::*;

/// A presale code: entered, the seats kept for a channel are offered and
/// every hold carries the code (the server checks it); emptied, they are
/// not.
#[component]
pub fn ChannelCode(
    /// Takes the code (empty: none).
    on_code: Callback<String>,
) -> impl IntoView {
    let code = RwSignal::new(String::new());
    let on_submit = move |event: leptos::ev::SubmitEvent| {
        event.prevent_default();
        on_code.run(code.get_untracked());
    };
    view! {
        <form class="code" aria-label="Presale code" on:submit=on_submit>
            <label>
                "Presale code "
                <input type="text" data-field="channel-code" autocomplete="off" spellcheck="false"
                    on:input=move |event| code.set(event_target_value(&event))/>
            </label>
            <button type="submit" data-action="code">"Use code"</button>
        </form>
    }
}
