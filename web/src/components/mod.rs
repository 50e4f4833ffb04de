//! One component per file.

pub mod app;
pub mod legend;
pub mod seat_map;
pub mod show_list;
pub mod show_page;
