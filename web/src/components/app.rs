use leptos::prelude::*;

use crate::components::admin_page::AdminPage;
use crate::components::show_list::ShowListPage;
use crate::components::show_page::ShowPage;
use crate::route::Route;

/// The whole app: picks the page from the location's path.
#[component]
pub fn App() -> impl IntoView {
    let path = window().location().pathname().unwrap_or_default();
    let page = match Route::from_path(&path) {
        Route::ShowList => view! { <ShowListPage/> }.into_any(),
        Route::Show(show_id) => view! { <ShowPage show_id/> }.into_any(),
        Route::Admin => view! { <AdminPage/> }.into_any(),
        Route::NotFound => view! {
            <p class="notice">"There is no page here. " <a href="/">"See every show"</a>"."</p>
        }
        .into_any(),
    };
    view! {
        <header class="top"><a href="/" class="brand">"Seathold"</a></header>
        <main>{page}</main>
    }
}
