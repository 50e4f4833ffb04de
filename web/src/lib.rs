//! The customer's seat map. Components only render; `api` is the only code
//! that knows URLs; `seat-state` decides what every seat shows.

pub mod api;
pub mod components;
pub mod route;

pub use components::app::App;
