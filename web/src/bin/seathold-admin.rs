//! The operator's page (`/admin`) as a bundle of its own: the customer's
//! wasm (`main.rs`) carries none of its code.

fn main() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(seathold_web::AdminApp);
}
