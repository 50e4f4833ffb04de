//! One component per file.

pub mod admin_charts;
pub mod admin_markup;
pub mod admin_page;
pub mod app;
pub mod area_picker;
pub mod best_seats;
pub mod canvas_map;
pub mod channel_code;
pub mod connection_status;
pub mod countdown;
pub mod gesture;
pub mod hold_panel;
pub mod legend;
pub mod loading;
pub mod messages;
pub mod minimap;
pub mod seat;
pub mod seat_list;
pub mod seat_map;
pub mod selection_bar;
pub mod show_list;
pub mod show_page;
pub mod show_view;
pub mod waiting_room;
pub mod zoom_controls;
