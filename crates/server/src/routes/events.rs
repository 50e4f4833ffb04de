//! `GET /api/shows/{id}/events`: the live seat map as server-sent events.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::time::Duration;

use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::sse::{Event, KeepAlive, Sse};
use futures_util::stream::{self, Stream};
use tokio::sync::broadcast::error::RecvError;

use seat_state::wire::ChangeEvent;
use seat_state::{HolderId, SeatScope};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::clock::SharedClock;
use crate::engine::ShowHandle;
use crate::engine::events::{Published, Start, Subscription};
use crate::error::AppError;
use crate::extract::{ApiQuery, Now};
use crate::limits::ClientAddress;
use crate::session::MaybeSession;
use crate::state::AppState;

/// Comment lines keep proxies from closing a quiet stream (API.md: ≤ 15 s).
const KEEP_ALIVE: Duration = Duration::from_secs(10);

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(events))
}

/// Live changes as server-sent events: a `snapshot` (the seat-map body), then
/// `change` events with rising `id`; `Last-Event-ID` resumes.
#[utoipa::path(get, path = "/shows/{showId}/events", tag = "shows",
    params(("showId" = String, Path, description = "The show's id"),
           ("Last-Event-ID" = Option<i64>, Header, description = "The last version received"),
           ("lastEventId" = Option<i64>, Query, description = "The same, for clients that cannot set headers"),
           ("only" = Option<super::seats::Taken>, Query, description = "`taken`: snapshots list only the seats taken (API.md On-sale (v3))")),
    responses((status = 200, content_type = "text/event-stream", body = ChangeEvent,
               description = "`snapshot` (SeatMap) then `change` (ChangeEvent) events"),
              (status = 400, description = "bad_request: lastEventId or Last-Event-ID is not an integer, `only` is not `taken`, or an unknown query parameter", body = seat_state::wire::ErrorBody),
              (status = 404, description = "unknown_show", body = seat_state::wire::ErrorBody),
              (status = 503, description = "unavailable: too many live streams (Retry-After); poll the seat map", body = seat_state::wire::ErrorBody)))]
async fn events(
    address: ClientAddress,
    MaybeSession(viewer): MaybeSession,
    State(state): State<AppState>,
    Now(now): Now,
    Path(show_id): Path<String>,
    ApiQuery(query): ApiQuery<Resume>,
    headers: HeaderMap,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, AppError> {
    let show = state.engines.show(&show_id).await?.ok_or(AppError::UnknownShow)?;
    let scope = super::seats::scope(query.only);
    let slot = state.streams.take(address)?;
    // The header on the browser's own reconnects; the query parameter when a
    // client opens a new EventSource itself (it cannot set headers).
    let after = last_event_id(&headers)?.or(query.last_event_id);
    let viewer = viewer.map(|holder| HolderId::new(holder.as_ref()));
    let subscription = show.subscribe(scope, viewer.clone(), after, now).await?;
    let feed = Feed {
        show,
        scope,
        viewer,
        clock: std::sync::Arc::clone(&state.clock),
        stopping: state.stopping.subscribe(),
        pending: VecDeque::new(),
        last: after.unwrap_or(i64::MIN),
        changes: None,
    };
    let feed = feed.start(subscription);
    // The slot lives as long as the stream does.
    let events = stream::unfold((feed, slot), |(mut feed, slot)| async move {
        feed.next().await.map(|event| (Ok(event), (feed, slot)))
    });
    Ok(Sse::new(events).keep_alive(KeepAlive::new().interval(KEEP_ALIVE)))
}

/// The `Last-Event-ID` header: a version, or absent; anything else → 400.
fn last_event_id(headers: &HeaderMap) -> Result<Option<i64>, AppError> {
    let Some(value) = headers.get("last-event-id") else { return Ok(None) };
    // Browsers send it only with a non-empty id; anything else is not ours.
    let text = value.to_str().map(str::trim).unwrap_or("?");
    text.parse().map(Some).map_err(|_| AppError::BadRequest("Last-Event-ID must be an integer version".into()))
}

/// `?lastEventId=N`: resume after version N.
#[derive(Debug, serde::Deserialize, utoipa::IntoParams)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Resume {
    last_event_id: Option<i64>,
    only: Option<super::seats::Taken>,
}

/// One viewer's position in a show's stream of changes.
struct Feed {
    show: ShowHandle,
    /// The seats a fresh snapshot lists.
    scope: SeatScope,
    viewer: Option<HolderId>,
    clock: SharedClock,
    stopping: tokio::sync::watch::Receiver<bool>,
    pending: VecDeque<Event>,
    /// The version the viewer has; older or equal changes are skipped.
    last: i64,
    changes: Option<tokio::sync::broadcast::Receiver<std::sync::Arc<Published>>>,
}

fn event(kind: &str, version: i64, data: &impl serde::Serialize) -> Event {
    let json = serde_json::to_string(data).unwrap_or_else(|_| "{}".to_owned());
    Event::default().event(kind).id(version.to_string()).data(json)
}

/// A change's event, from the JSON its hub wrote once for every viewer.
fn change_event(change: &Published) -> Event {
    Event::default().event("change").id(change.version.to_string()).data(&change.json)
}

impl Feed {
    fn start(mut self, subscription: Subscription) -> Self {
        match subscription.start {
            Start::Snapshot(map) => {
                self.last = map.version;
                self.pending.push_back(event("snapshot", map.version, &map));
            }
            Start::Replay(changes) => {
                for change in changes {
                    if change.version > self.last {
                        self.last = change.version;
                        self.pending.push_back(change_event(&change));
                    }
                }
            }
        }
        self.changes = Some(subscription.changes);
        self
    }

    async fn next(&mut self) -> Option<Event> {
        loop {
            if let Some(event) = self.pending.pop_front() {
                return Some(event);
            }
            let changes = self.changes.as_mut()?;
            let received = tokio::select! {
                biased;
                _ = self.stopping.wait_for(|stopping| *stopping) => return None,
                received = changes.recv() => received,
            };
            match received {
                Ok(change) if change.version > self.last => {
                    self.last = change.version;
                    return Some(change_event(&change));
                }
                Ok(_) => {}
                // Too slow to keep up: catch up from the replay window or a fresh snapshot.
                Err(RecvError::Lagged(_)) => {
                    let subscription = self
                        .show
                        .subscribe(self.scope, self.viewer.clone(), Some(self.last), self.clock.now())
                        .await
                        .ok()?;
                    let feed = std::mem::replace(self, self.empty_copy());
                    *self = feed.start(subscription);
                }
                Err(RecvError::Closed) => return None,
            }
        }
    }

    fn empty_copy(&self) -> Self {
        Feed {
            show: self.show.clone(),
            scope: self.scope,
            viewer: self.viewer.clone(),
            clock: std::sync::Arc::clone(&self.clock),
            stopping: self.stopping.clone(),
            pending: VecDeque::new(),
            last: self.last,
            changes: None,
        }
    }
}
