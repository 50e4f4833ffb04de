//! The customer's seat map.
//!
//! `seat-state` decides: its sans-io [`seat_state::SeatMapSync`], driven by
//! [`live_map`], answers every seat's state. [`model`] mirrors the answers in
//! one signal per seat; `components` only render those signals; [`api`] is
//! the only code that knows URLs; [`controller`] turns clicks into calls.

pub mod admin;
pub mod api;
pub mod canvas;
pub mod components;
pub mod controller;
pub mod hold;
pub mod live_link;
pub mod live_map;
pub mod live_show;
pub mod model;
pub mod orphan;
pub mod price;
pub mod route;
pub mod seat_list;
pub mod selection;
pub mod viewport;
pub mod waiting;
pub mod words;

pub use components::app::{AdminApp, App};
/// The map's geometry and numbers, shared with the server's picture of it.
pub use seat_state::drawing::{decimal, layout};
