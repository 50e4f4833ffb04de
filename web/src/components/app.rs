use leptos::prelude::*;

use crate::components::admin_page::AdminPage;
use crate::components::show_list::ShowListPage;
use crate::components::show_page::ShowPage;
use crate::route::Route;

/// The customer's app: picks the page from the location's path.
#[component]
pub fn App() -> impl IntoView {
    let path = window().location().pathname().unwrap_or_default();
    let page = match Route::from_path(&path) {
        Route::ShowList => view! { <ShowListPage/> }.into_any(),
        Route::Show(show_id) => view! { <ShowPage show_id/> }.into_any(),
        Route::Admin => admin_here(),
        Route::NotFound => view! {
            <p class="notice">"There is no page here. " <a href="/">"See every show"</a>"."</p>
        }
        .into_any(),
    };
    frame(page)
}

/// The operator's page on its own (`/admin`): the `seathold-admin` bundle,
/// so that the customer's wasm carries none of its code.
#[component]
pub fn AdminApp() -> impl IntoView {
    frame(view! { <AdminPage/> }.into_any())
}

/// A debug build (`trunk serve`, one bundle) shows the operator's page too.
#[cfg(debug_assertions)]
fn admin_here() -> AnyView {
    view! { <AdminPage/> }.into_any()
}

/// A release build leaves `/admin` to its own bundle (the start-up script
/// `cargo xtask` writes loads it there).
#[cfg(not(debug_assertions))]
fn admin_here() -> AnyView {
    view! { <p class="notice">"The operator's page has its own bundle, which this build does not start."</p> }
        .into_any()
}

fn frame(page: AnyView) -> impl IntoView {
    view! {
        <header class="top"><a href="/" class="brand">"Seathold"</a></header>
        <main>{page}</main>
    }
}
