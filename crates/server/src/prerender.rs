//! A show's page (`GET /shows/{showId}`) with its seat map already drawn:
//! `index.html` with a picture of every seat in its state
//! (`seat_state::drawing::picture`, the live map's own shapes and layout),
//! so the browser paints the seats while the app and the show's definition
//! still download. The app replaces the picture with its live map and
//! marks the customer's own seats then.
//!
//! The picture is the same for every viewer, so at a sale's opening the
//! page is not drawn per request: each show's page is drawn and compressed
//! at most once per [`REDRAW_EVERY`] (and only when a seat looks
//! different), then answered from memory with an `ETag`. It carries the
//! version it was drawn at (`data-version`). Any other path, an unknown
//! show or a failure serves `index.html` as it is: the app then draws the
//! map on its own.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use axum::Extension;
use axum::body::Bytes;
use axum::extract::{Path as UrlPath, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use seat_state::drawing::SeatLook;
use seat_state::drawing::layout::Layout;
use seat_state::drawing::picture::{Picture, PictureSeat};
use seat_state::{SeatScope, ServerMillis, seat_state};

use crate::encoded::{Effort, Encoded};
use crate::state::AppState;

/// A page is at most this old (its seats as of then), unless drawing it
/// again would draw the same.
pub const REDRAW_EVERY: Duration = Duration::from_millis(500);

/// A page is drawn again up to twice a second per show. The arena's page
/// (259 KB of HTML): brotli 11 gives 24.1 KB in 312 ms, 10 gives 25.1 KB in
/// 109 ms, 9 gives 28.8 KB in 18 ms (Python's brotli, 2 Dec 2026): 9 costs
/// a core under 4 % at the most it can be asked for.
pub const PAGE_EFFORT: Effort = Effort { brotli: 9, brotli_window: 22, gzip: 9 };

/// Pages are validated on every use: they change as seats sell.
const CACHE_CONTROL: &str = "no-cache";

/// `index.html` split where the picture goes, and each show's geometry and page.
pub struct ShowPages {
    /// The page up to and including `<body…>`, and the rest.
    index: Option<(String, String)>,
    venues: RwLock<HashMap<String, Arc<Venue>>>,
    pages: Mutex<HashMap<String, Arc<PageSlot>>>,
}

/// What never changes about a show's picture: its seats' places, rows,
/// categories, channels and access seats (shows never change once created).
struct Venue {
    name: String,
    layout: Layout,
    /// Each seat as it looks free (a channel's or an access seat barred).
    seats: Vec<PictureSeat>,
    /// The access seats, unbarred from `access_release_at` on (unless a
    /// channel's too), as in the app.
    access: Vec<usize>,
    access_release_at: Option<ServerMillis>,
    /// Seat id → index in `seats`.
    index: HashMap<String, usize>,
    colors: Vec<String>,
}

/// One show's latest page, and the right to draw the next one.
#[derive(Default)]
struct PageSlot {
    latest: RwLock<Option<Arc<Drawn>>>,
    drawing: tokio::sync::Mutex<()>,
}

/// A page as drawn.
struct Drawn {
    at: Instant,
    /// Every seat that does not look free, as (index, look): what the page shows.
    looks: Vec<(usize, SeatLook)>,
    page: Arc<Encoded>,
}

impl PageSlot {
    fn latest(&self) -> Option<Arc<Drawn>> {
        self.latest.read().ok().and_then(|latest| latest.clone())
    }

    fn fresh(&self) -> Option<Arc<Drawn>> {
        self.latest().filter(|drawn| drawn.at.elapsed() < REDRAW_EVERY)
    }
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
        Arc::new(Self { index, venues: RwLock::new(HashMap::new()), pages: Mutex::new(HashMap::new()) })
    }

    /// The show's geometry, worked out once per process.
    async fn venue(&self, state: &AppState, show_id: &str) -> anyhow::Result<Option<Arc<Venue>>> {
        let poisoned = || anyhow::anyhow!("show page cache lock poisoned");
        if let Some(venue) = self.venues.read().map_err(|_| poisoned())?.get(show_id) {
            return Ok(Some(Arc::clone(venue)));
        }
        let Some(show) = state.core.shows.definition(show_id).await? else { return Ok(None) };
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
                // A channel's seats show barred until a code is entered, as in
                // the app; access seats until they are released.
                let access = venue_seat.access.is_some();
                let locked = channel.contains(seat.id.as_str()) || access;
                PictureSeat { x: seat.x, y: seat.y, category, look: SeatLook { locked, access, ..SeatLook::FREE } }
            })
            .collect();
        let access = show
            .seats
            .iter()
            .enumerate()
            .filter(|(_, seat)| seat.access.is_some() && !channel.contains(seat.seat.id.as_str()))
            .map(|(at, _)| at)
            .collect();
        let index = show.seats.iter().enumerate().map(|(at, seat)| (seat.seat.id.clone(), at)).collect();
        let colors = show.categories.iter().map(|category| category.color.clone()).collect();
        let access_release_at = show.access_release_at.map(ServerMillis);
        let venue = Arc::new(Venue { name: show.name, layout, seats, access, access_release_at, index, colors });
        self.venues.write().map_err(|_| poisoned())?.insert(show_id.to_owned(), Arc::clone(&venue));
        Ok(Some(venue))
    }

    /// The show's page slot (made on first use: the caller knows the show exists).
    fn slot(&self, show_id: &str) -> anyhow::Result<Arc<PageSlot>> {
        let mut pages = self.pages.lock().map_err(|_| anyhow::anyhow!("show page cache lock poisoned"))?;
        if let Some(slot) = pages.get(show_id) {
            return Ok(Arc::clone(slot));
        }
        Ok(Arc::clone(pages.entry(show_id.to_owned()).or_default()))
    }

    /// The show's page, drawn at most [`REDRAW_EVERY`] ago; while one
    /// request draws it again, the others get the one before. `None` for
    /// an unknown show.
    async fn page(&self, state: &AppState, show_id: &str) -> anyhow::Result<Option<Arc<Encoded>>> {
        let Some(venue) = self.venue(state, show_id).await? else { return Ok(None) };
        let slot = self.slot(show_id)?;
        if let Some(drawn) = slot.fresh() {
            return Ok(Some(Arc::clone(&drawn.page)));
        }
        let _drawing = match slot.drawing.try_lock() {
            Ok(guard) => guard,
            Err(_) => match slot.latest() {
                Some(drawn) => return Ok(Some(Arc::clone(&drawn.page))),
                None => slot.drawing.lock().await,
            },
        };
        if let Some(drawn) = slot.fresh() {
            return Ok(Some(Arc::clone(&drawn.page)));
        }
        let Some(show) = state.engines.show(show_id).await? else { return Ok(None) };
        let facts = show.seat_map(SeatScope::Taken, None, state.clock.now()).await?;
        let looks = looks(&venue, &facts.value, facts.at);
        let previous = slot.latest();
        let page = match previous.filter(|drawn| drawn.looks == looks) {
            Some(same) => Arc::clone(&same.page),
            None => Arc::new(self.draw(&venue, &looks, facts.value.version).await?),
        };
        let drawn = Arc::new(Drawn { at: Instant::now(), looks, page: Arc::clone(&page) });
        *slot.latest.write().map_err(|_| anyhow::anyhow!("show page lock poisoned"))? = Some(drawn);
        Ok(Some(page))
    }

    /// The page with the seats looking as `looks` says, compressed.
    async fn draw(&self, venue: &Venue, looks: &[(usize, SeatLook)], version: i64) -> anyhow::Result<Encoded> {
        let Some((head, rest)) = &self.index else { anyhow::bail!("no index.html") };
        let mut seats = venue.seats.clone();
        for &(at, look) in looks {
            seats[at].look = look;
        }
        let picture =
            Picture { name: &venue.name, layout: &venue.layout, seats: &seats, colors: &venue.colors, version }
                .markup();
        let mut html = String::with_capacity(head.len() + picture.len() + rest.len());
        html.push_str(head);
        html.push_str(&picture);
        html.push_str(rest);
        Ok(tokio::task::spawn_blocking(move || Encoded::new(Bytes::from(html), PAGE_EFFORT)).await??)
    }
}

/// How each seat that does not look as it does free looks as of `at`:
/// the taken ones, and the released access seats (the picture is public:
/// nobody's own).
fn looks(venue: &Venue, facts: &seat_state::wire::SeatMap, at: ServerMillis) -> Vec<(usize, SeatLook)> {
    let released = venue.access_release_at.is_some_and(|release| at >= release);
    let base = |index: usize| {
        let look = venue.seats[index].look;
        if released && venue.access.binary_search(&index).is_ok() { SeatLook { locked: false, ..look } } else { look }
    };
    let mut looks: Vec<(usize, SeatLook)> = facts
        .seats
        .iter()
        .filter_map(|fact| {
            let &index = venue.index.get(&fact.id)?;
            let state = seat_state(fact.sold, fact.hold_expires_at.map(ServerMillis), at);
            Some((index, SeatLook { state, blocked: fact.blocked, ..base(index) }))
        })
        .collect();
    if released {
        looks.extend(venue.access.iter().map(|&index| (index, base(index))));
    }
    // A taken seat's look first, so it wins over its released look.
    looks.sort_by_key(|&(index, _)| index);
    looks.dedup_by_key(|(index, _)| *index);
    looks.retain(|&(index, look)| look != venue.seats[index].look);
    looks
}

/// `GET /shows/{showId}`: the app's page, with the picture when the show
/// exists and its seat map could be read.
pub async fn show_page(
    State(state): State<AppState>,
    Extension(pages): Extension<Arc<ShowPages>>,
    UrlPath(show_id): UrlPath<String>,
    headers: HeaderMap,
) -> Response {
    let Some((head, rest)) = &pages.index else { return StatusCode::NOT_FOUND.into_response() };
    match pages.page(&state, &show_id).await {
        Ok(Some(page)) => page.respond(&headers, "text/html; charset=utf-8", CACHE_CONTROL),
        outcome => {
            if let Err(error) = outcome {
                tracing::warn!(%error, show_id, "show page served without its picture");
            }
            let html = format!("{head}{rest}");
            (
                [
                    (axum::http::header::CONTENT_TYPE, "text/html; charset=utf-8"),
                    (axum::http::header::CACHE_CONTROL, CACHE_CONTROL),
                ],
                html,
            )
                .into_response()
        }
    }
}
