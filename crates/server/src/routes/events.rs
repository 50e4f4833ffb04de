//! `GET /api/shows/{id}/events`: the live seat map as server-sent events.

use std::convert::Infallible;
use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use futures_util::stream;
use tokio::sync::broadcast::{self, error::RecvError};

use seat_state::wire::ChangeEvent;
use seat_state::{HolderId, SeatScope, ServerMillis};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::error::AppError;
use crate::extract::{ApiQuery, Now};
use crate::limits::ClientAddress;
use crate::session::MaybeSession;
use crate::state::AppState;
use seathold_core::engine::ShowHandle;
use seathold_core::engine::events::{Frame, Start, event_text};
use seathold_core::engine::view::MapView;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(events))
}

/// Live changes as server-sent events: a `snapshot` (the seat-map body), then
/// `change` events with rising `id`, one per tick, conflated; `Last-Event-ID`
/// resumes. Every stream writes its show's frames as they were encoded once.
#[utoipa::path(get, path = "/shows/{showId}/events", tag = "shows",
    params(("showId" = String, Path, description = "The show's id"),
           ("Last-Event-ID" = Option<i64>, Header, description = "The last version received"),
           ("lastEventId" = Option<i64>, Query, description = "The same, for clients that cannot set headers"),
           ("only" = Option<super::seats::Taken>, Query, description = "`taken`: snapshots list only the seats taken (API.md On-sale (v3))"),
           ("format" = Option<super::seats::Format>, Query, description = "`compact`: `snapshot` data is a CompactMap and `change` data a CompactChange (API.md Live changes (v4))")),
    responses((status = 200, content_type = "text/event-stream", body = ChangeEvent,
               description = "`snapshot` (SeatMap) then `change` (ChangeEvent) events, one per tick (at most 250 ms), conflated: a `change` carries every change after its `since` (its previous event's version), each seat and area in its latest state. With `format=compact`: CompactMap and CompactChange."),
              (status = 400, description = "bad_request: lastEventId or Last-Event-ID is not an integer, `only` is not `taken`, `format` not `json` or `compact`, or an unknown query parameter", body = seat_state::wire::ErrorBody),
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
) -> Result<Response, AppError> {
    let show = state.engines.show(&show_id).await?.ok_or(AppError::UnknownShow)?;
    let form = Form {
        scope: super::seats::scope(query.only),
        compact: query.format == Some(super::seats::Format::Compact),
        viewer: viewer.map(|holder| HolderId::new(holder.as_ref())),
    };
    // Through a GRIP proxy: it holds the stream, we publish the frames.
    if let Some(grip) = state.grip.as_ref().filter(|grip| grip.signed(&headers, now.0)) {
        return grip_hold(grip, &show, &show_id, &query, &headers, form, now).await;
    }
    let slot = state.streams.take(address)?;
    // The header on the browser's own reconnects; the query parameter when a
    // client opens a new EventSource itself (it cannot set headers).
    let after = last_event_id(&headers)?.or(query.last_event_id);
    let subscription = show.subscribe(after).await?;
    let mut feed = Feed { show, form, last: after.unwrap_or(i64::MIN), frames: subscription.frames };
    let first = feed.start(subscription.start, now);
    let stopping = state.stopping.subscribe();
    let events =
        stream::unfold((feed, Some(first), stopping, slot), |(mut feed, first, mut stopping, slot)| async move {
            if let Some(first) = first {
                return Some((Ok::<_, Infallible>(first), (feed, None, stopping, slot)));
            }
            let next = tokio::select! {
                biased;
                _ = stopping.wait_for(|stopping| *stopping) => None,
                next = feed.next() => next,
            };
            // The slot lives as long as the stream does.
            next.map(|bytes| (Ok(bytes), (feed, None, stopping, slot)))
        });
    let mut response = Body::from_stream(events).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    // Proxies (nginx) pass each frame on at once.
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    Ok(response)
}

/// A GRIP proxy's request (API.md "Live changes"; `crate::grip`): the
/// snapshot, or the frames after `Grip-Last` (the proxy recovering a
/// missed publish), `Last-Event-ID` or `lastEventId`, and the instructions
/// to hold the stream on the show's channel from the version they end at
/// (`prev-id`: the proxy passes on only a frame that follows it), to ask
/// the same URL when a publish is missing, and to send the keep-alive
/// comment.
async fn grip_hold(
    grip: &crate::grip::Grip,
    show: &ShowHandle,
    show_id: &str,
    query: &Resume,
    headers: &HeaderMap,
    form: Form,
    now: ServerMillis,
) -> Result<Response, AppError> {
    let channel = grip.channel(show_id, form.compact);
    // The proxy asking for what its held viewer missed (on the same
    // connection) names the version it has, maybe on another process's channel.
    let asked = crate::grip::last_id(headers, show_id, form.compact);
    let after = match asked {
        Some(last) => {
            grip.held("grip_last");
            Some(last)
        }
        None => {
            let after = last_event_id(headers)?.or(query.last_event_id);
            grip.held(if after.is_some() { "last_event_id" } else { "start" });
            after
        }
    };
    let held = show.grip_held(after, asked.is_some()).await?;
    let mut body = Vec::new();
    if let Some(view) = &held.snapshot {
        body.extend_from_slice(&snapshot(&form, view, now));
    }
    for frame in &held.frames {
        body.extend_from_slice(&frame.bytes(form.compact));
    }
    // The same stream again, without a resume point: Grip-Last says where.
    let mut next = Vec::new();
    if form.compact {
        next.push("format=compact");
    }
    if query.only.is_some() {
        next.push("only=taken");
    }
    let next = if next.is_empty() { String::new() } else { format!("?{}", next.join("&")) };
    let keep_alive = seathold_core::engine::events::Ticks::default().keep_alive.as_secs();
    let grip_headers = [
        ("grip-hold", "stream".to_owned()),
        // Held where the body ends: the proxy passes on only a frame that follows it.
        ("grip-channel", format!("{channel}; prev-id={}", held.last)),
        ("grip-link", format!("</api/shows/{show_id}/events{next}>; rel=next")),
        // The comment `:` and a blank line, C-escaped.
        ("grip-keep-alive", format!(":\\n\\n; format=cstring; timeout={keep_alive}")),
    ];
    let mut response = Body::from(body).into_response();
    let response_headers = response.headers_mut();
    response_headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    response_headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    for (name, value) in grip_headers {
        let value = HeaderValue::from_str(&value).map_err(|error| AppError::Internal(error.into()))?;
        response_headers.insert(name, value);
    }
    Ok(response)
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
    format: Option<super::seats::Format>,
}

/// What a stream's snapshots look like.
struct Form {
    /// The seats a JSON snapshot lists.
    scope: SeatScope,
    compact: bool,
    viewer: Option<HolderId>,
}

/// One viewer's position in a show's frames: all a stream keeps.
struct Feed {
    show: ShowHandle,
    form: Form,
    /// The version the viewer has; frames at or below it are skipped.
    last: i64,
    frames: broadcast::Receiver<Arc<Frame>>,
}

/// A viewer's first bytes: a snapshot, or the frames after `last` (the
/// version it has); and the version they bring it to.
fn opening(form: &Form, start: Start, last: i64, now: ServerMillis) -> (Bytes, i64) {
    match start {
        Start::Snapshot(view) => (snapshot(form, &view, now), view.version),
        Start::Replay(frames) => {
            let (mut replay, mut last) = (Vec::new(), last);
            for frame in &frames {
                if frame.version > last {
                    last = frame.version;
                    replay.extend_from_slice(&frame.bytes(form.compact));
                }
            }
            // An empty first chunk still sends the headers.
            (Bytes::from(replay), last)
        }
    }
}

/// The whole map, in the stream's form.
fn snapshot(form: &Form, view: &MapView, now: ServerMillis) -> Bytes {
    let viewer = form.viewer.as_ref();
    let data = if form.compact {
        serde_json::to_string(&view.compact_map(viewer, now))
    } else {
        serde_json::to_string(&view.seat_map(form.scope, viewer, now))
    };
    event_text("snapshot", view.version, &data.unwrap_or_else(|_| "{}".to_owned()))
}

impl Feed {
    /// The first bytes: a snapshot, or the frames since `Last-Event-ID`.
    fn start(&mut self, start: Start, now: ServerMillis) -> Bytes {
        let (bytes, last) = opening(&self.form, start, self.last, now);
        self.last = last;
        bytes
    }

    fn snapshot(&mut self, view: &MapView, now: ServerMillis) -> Bytes {
        self.last = view.version;
        snapshot(&self.form, view, now)
    }

    /// The next bytes to write: the next frame this viewer lacks (shared,
    /// not copied), or a snapshot when it fell too far behind.
    async fn next(&mut self) -> Option<Bytes> {
        loop {
            match self.frames.recv().await {
                Ok(frame) if frame.is_keep_alive() => return Some(frame.bytes(self.form.compact)),
                Ok(frame) if frame.version > self.last => {
                    self.last = frame.version;
                    return Some(frame.bytes(self.form.compact));
                }
                Ok(_) => {}
                // Too slow to keep up: skip to the newest map.
                Err(RecvError::Lagged(_)) => {
                    let view = self.show.published_view();
                    let now = view.at;
                    return Some(self.snapshot(&view, now));
                }
                Err(RecvError::Closed) => return None,
            }
        }
    }
}
