use std::sync::Arc;

use leptos::prelude::*;

use crate::components::area_picker::AreaPicker;
use crate::components::best_seats::BestSeats;
use crate::components::canvas_map::CanvasMap;
use crate::components::channel_code::ChannelCode;
use crate::components::connection_status::{Connection, ConnectionStatus};
use crate::components::hold_panel::HoldPanel;
use crate::components::legend::Legend;
use crate::components::messages::Messages;
use crate::components::seat::category_colors;
use crate::components::seat_list::SeatList;
use crate::components::seat_map::SeatMap;
use crate::components::selection_bar::SelectionBar;
use crate::controller::Controller;
use crate::model::{AreaCell, MapModel};

/// A show's page once loaded: its name and connection state, the
/// announcements, the hold banner, the stage, the map and its legend,
/// standing areas, and what is picked. It only renders: actions go to the
/// controller (from context), states come from the signals the live map keeps.
#[component]
pub fn ShowView(
    /// The show's name, for the heading.
    name: String,
    /// How many seconds one extension adds.
    extension_seconds: i64,
    /// The stage's place on the map, when the show names it.
    #[prop(default = None)]
    stage: Option<(f64, f64)>,
    /// Every seat with its signal.
    model: Arc<MapModel>,
    /// The general-admission areas.
    areas: Vec<AreaCell>,
    /// The live stream's state.
    connection: RwSignal<Connection>,
) -> impl IntoView {
    let controller = expect_context::<Controller>();
    let shown = controller.shown;
    let has_areas = !areas.is_empty();
    let other_hold_open =
        move || shown.active_holds.get() >= controller.max_active_holds && shown.hold.with(Option::is_none);
    let categories = model.categories.clone();
    let colors = category_colors(categories.iter().map(|category| category.color.clone()));
    let channels = model.seats.iter().any(|cell| cell.channel);
    let access = model.has_access_seats();
    let wheelchair = model.seats.iter().any(|cell| cell.access == Some(seat_state::Access::Wheelchair));
    let has_seats = !model.seats.is_empty();
    let max_places = shown.selection.with_untracked(|s| s.max_places());
    // A large venue on a canvas: then the list's seats carry the seat hooks.
    let canvas = crate::canvas::uses_canvas(model.seats.len());
    let map = if canvas {
        view! { <CanvasMap model=Arc::clone(&model)/> }.into_any()
    } else {
        view! { <SeatMap model=Arc::clone(&model) stage/> }.into_any()
    };
    view! {
        <div class="show-head">
            <h1>{name}</h1>
            <ConnectionStatus connection/>
        </div>
        <Messages alert=shown.alert status=controller.status/>
        <HoldPanel extension_seconds/>
        <div class="stage" aria-hidden="true">"Stage"</div>
        <div class="venue" style=colors>
            {map}
            <Legend categories=categories.clone() channels access/>
            {has_seats.then(|| view! { <BestSeats categories max_places wheelchair/> })}
            {channels.then(|| view! { <ChannelCode/> })}
        </div>
        <SeatList model=Arc::clone(&model) seat_hooks=canvas/>
        {has_areas.then(|| view! { <AreaPicker areas/> })}
        <SelectionBar model=Arc::clone(&model)/>
        {move || other_hold_open().then(|| view! {
            <p class="notice">"You have a hold open in another tab or window. Confirm or release it to hold more."</p>
        })}
    }
}
