//! A show's page (`GET /shows/{showId}`) with its seat map already drawn:
//! `index.html` with a picture of every seat in its state as of the request
//! (`seat_state::drawing::picture`, the live map's own shapes and layout),
//! so the browser paints the seats while the app and the show's 2.6 MB
//! definition still download. The app replaces the picture with its live
//! map. Any other path, an unknown show or a failure serves `index.html` as
//! it is: the app then draws the map on its own, as before.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::{Arc, RwLock};

use axum::Extension;
use axum::extract::{Path as UrlPath, State};
use axum::http::StatusCode;
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use axum::response::{IntoResponse, Response};
use seat_state::drawing::SeatLook;
use seat_state::drawing::layout::Layout;
use seat_state::drawing::picture::{Picture, PictureSeat};
use seat_state::{HolderId, SeatState, ServerMillis, seat_state};

use crate::error::AppError;
use crate::extract::Now;
use crate::session::MaybeSession;
use crate::state::AppState;

/// `index.html` split where the picture goes, and each show's geometry.
pub struct ShowPages {
    /// The page up to and including `<body…>`, and the rest.
    index: Option<(String, String)>,
    venues: RwLock<HashMap<String, Arc<Venue>>>,
}

/// What never changes about a show's picture: its seats' places, rows,
/// categories and channels (shows never change once created).
struct Venue {
    name: String,
    layout: Layout,
    seats: Vec<PictureSeat>,
    /// Seat id → index in `seats`.
    index: HashMap<String, usize>,
    colors: Vec<String>,
}

impl ShowPages {
    /// Reads `index.html` from the web build once (restart after rebuilding
    /// it, as for the CSP).
    pub fn read(web_dist: &Path) -> Arc<Self> {
        let html = std::fs::read_to_string(web_dist.join("index.html")).ok();
        let index = html.and_then(|html| {
            let body = html.find("<body")?;
            let open = body + html[body..].find('>')? + 1;
            Some((html[..open].to_owned(), html[open..].to_owned()))
        });
        Arc::new(Self { index, venues: RwLock::new(HashMap::new()) })
    }

    /// The show's geometry, worked out once per process.
    async fn venue(&self, state: &AppState, show_id: &str) -> anyhow::Result<Option<Arc<Venue>>> {
        let poisoned = || anyhow::anyhow!("show page cache lock poisoned");
        if let Some(venue) = self.venues.read().map_err(|_| poisoned())?.get(show_id) {
            return Ok(Some(Arc::clone(venue)));
        }
        let Some(show) = state.store.show(show_id).await? else { return Ok(None) };
        let show = show.to_wire();
        let layout = Layout::new(show.seats.iter().map(|venue_seat| {
            let seat = &venue_seat.seat;
            (seat.x, seat.y, seat.label.as_deref().unwrap_or(seat.id.as_str()))
        }));
        let channel: HashSet<&str> = show.channels.iter().flat_map(|c| &c.seats).map(String::as_str).collect();
        let seats = show
            .seats
            .iter()
            .map(|venue_seat| {
                let seat = &venue_seat.seat;
                let category = seat.category.as_deref().and_then(|id| show.categories.iter().position(|c| c.id == id));
                // A channel's seats show barred until a code is entered, as in the app.
                let look = SeatLook { locked: channel.contains(seat.id.as_str()), ..SeatLook::FREE };
                PictureSeat { x: seat.x, y: seat.y, category, look }
            })
            .collect();
        let index = show.seats.iter().enumerate().map(|(at, seat)| (seat.seat.id.clone(), at)).collect();
        let colors = show.categories.iter().map(|category| category.color.clone()).collect();
        let venue = Arc::new(Venue { name: show.name, layout, seats, index, colors });
        self.venues.write().map_err(|_| poisoned())?.insert(show_id.to_owned(), Arc::clone(&venue));
        Ok(Some(venue))
    }

    /// The picture of the show's seats as `viewer` would see them now;
    /// `None` for an unknown show.
    async fn picture(
        &self,
        state: &AppState,
        show_id: &str,
        viewer: Option<HolderId>,
        now: ServerMillis,
    ) -> anyhow::Result<Option<String>> {
        let Some(venue) = self.venue(state, show_id).await? else { return Ok(None) };
        let Some(show) = state.engines.show(show_id).await? else { return Ok(None) };
        let facts = show.seat_map(viewer, now).await?;
        let mut seats = venue.seats.clone();
        for fact in &facts.value.seats {
            let Some(seat) = venue.index.get(&fact.id).and_then(|&at| seats.get_mut(at)) else { continue };
            let state = seat_state(fact.sold, fact.hold_expires_at.map(ServerMillis), facts.at);
            seat.look.state = state;
            seat.look.mine = state != SeatState::Free && fact.mine == Some(true);
            seat.look.blocked = fact.blocked;
        }
        let picture = Picture { name: &venue.name, layout: &venue.layout, seats: &seats, colors: &venue.colors };
        Ok(Some(picture.markup()))
    }
}

/// `GET /shows/{showId}`: the app's page, with the picture when the show
/// exists and its seat map could be read.
pub async fn show_page(
    State(state): State<AppState>,
    Extension(pages): Extension<Arc<ShowPages>>,
    Now(now): Now,
    viewer: Result<MaybeSession, AppError>,
    UrlPath(show_id): UrlPath<String>,
) -> Response {
    let Some((head, rest)) = &pages.index else { return StatusCode::NOT_FOUND.into_response() };
    // An unknown or expired session token only means "mine" is not shown.
    let viewer = viewer.ok().and_then(|session| session.0).map(|holder| HolderId::new(holder.as_ref()));
    let picture = match pages.picture(&state, &show_id, viewer, now).await {
        Ok(picture) => picture.unwrap_or_default(),
        Err(error) => {
            tracing::warn!(%error, show_id, "show page served without its picture");
            String::new()
        }
    };
    let mut html = String::with_capacity(head.len() + picture.len() + rest.len());
    html.push_str(head);
    html.push_str(&picture);
    html.push_str(rest);
    // The seats' states are as of this request: never reuse the page.
    ([(CONTENT_TYPE, "text/html; charset=utf-8"), (CACHE_CONTROL, "no-cache")], html).into_response()
}
