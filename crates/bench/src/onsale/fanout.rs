//! Change to viewer: from the instant a change was made to the arrival of
//! the frame that shows each of its seats in its new state, on each sample
//! stream that was open when the request was sent. A hold's `201` and a
//! confirm's `200` say when the server decided them (their `serverTime`,
//! the change's own); a release's `204` says nothing, so a release is timed
//! from its answer. A frame may carry a tick's changes (API.md "Live
//! changes (v4)"); its `serverTime` is its newest change's, so the frame's
//! age at arrival (`delivery`) is timed apart, and each seat change is
//! timed from its own change, not from its frame's `serverTime`.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use hyper::Method;
use hyper::header::AUTHORIZATION;
use seat_state::wire::SeatOrder;

use super::steps::percentile;
use super::stream::{Seen, WallClock, shows};
use super::viewer::{Arrival, Kind};
use super::{Held, Made, Storm};
use crate::http::bearer;

/// One change whose arrival is timed: its seats, each to come in `kind`.
pub struct Change {
    pub seats: Vec<String>,
    pub kind: Kind,
    pub made: Made,
    pub open_streams: usize,
    pub hold_id: String,
}

/// What the sample streams saw of a set of changes.
#[derive(Debug, Default, Clone)]
pub struct FanOut {
    /// Per change: made → the last of its seats' arrival on the last
    /// sample stream open when it was sent (every viewer has it), ms, sorted.
    pub every_ms: Vec<f64>,
    /// Per (seat change, sample stream): made → arrival, ms, sorted.
    pub pairs_ms: Vec<f64>,
    /// `every_ms` of the changes sent with at least 90 % of the most streams open.
    pub busiest_ms: Vec<f64>,
    /// (seat change, stream) pairs that should have arrived and did not.
    pub missed: usize,
    /// Arrivals before the request's answer did.
    pub before_answer: usize,
    /// Sample streams in the figures.
    pub streams: usize,
}

impl FanOut {
    pub fn every(&self, fraction: f64) -> f64 {
        percentile(&self.every_ms, fraction)
    }

    pub fn pairs(&self, fraction: f64) -> f64 {
        percentile(&self.pairs_ms, fraction)
    }
}

/// Releases up to `count` unconfirmed holds one at a time, 200 ms apart,
/// while every stream is open.
pub async fn probe(storm: &Storm, count: usize) -> Vec<Change> {
    let chosen: Vec<Held> = storm.told.lock().map_or_else(
        |_| Vec::new(),
        |told| {
            told.holds
                .iter()
                .filter(|held| held.confirm.is_none() && !held.seats.is_empty())
                .take(count)
                .cloned()
                .collect()
        },
    );
    let mut probes = Vec::new();
    for (n, held) in chosen.into_iter().enumerate() {
        let pool = storm.pool(n);
        let Ok(mut connection) = pool.take().await else { continue };
        let Ok(auth) = bearer(&held.token) else { continue };
        let open_streams = storm.open.load(std::sync::atomic::Ordering::Relaxed);
        let sent = Instant::now();
        let path = format!("/api/holds/{}", held.hold_id);
        let answer = connection.send_with(Method::DELETE, &path, &[(AUTHORIZATION, auth)], None).await;
        let answered = Instant::now();
        pool.give(connection);
        if answer.is_ok_and(|answer| answer.status == 204) {
            let (seats, hold_id, made) = (held.seats, held.hold_id, Made { sent, answered, decided_ms: None });
            probes.push(Change { seats, kind: Kind::Free, made, open_streams, hold_id });
        } else if let Ok(mut told) = storm.told.lock() {
            *told.errors.entry("probe: release not answered 204".to_owned()).or_default() += 1;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    probes
}

/// The storm's changes: every hold (its seats held) and every confirm
/// (its seats sold).
pub fn of_storm(holds: &[Held], seen: &[Seen], order: &SeatOrder, clock: &WallClock) -> FanOut {
    let mut changes = Vec::with_capacity(holds.len() * 2);
    for held in holds.iter().filter(|held| !held.seats.is_empty()) {
        let change = |kind, made| Change {
            seats: held.seats.clone(),
            kind,
            made,
            open_streams: held.open_streams,
            hold_id: held.hold_id.clone(),
        };
        changes.push(change(Kind::Held, held.made));
        if let Some(made) = held.confirm {
            changes.push(change(Kind::Sold, made));
        }
    }
    fan_out(&changes, seen, order, clock)
}

pub fn of_probes(probes: &[Change], seen: &[Seen], order: &SeatOrder, clock: &WallClock) -> FanOut {
    fan_out(probes, seen, order, clock)
}

/// When each (seat, state) arrived on one stream, in order.
fn arrivals_of(stream: &Seen) -> HashMap<u32, Vec<Instant>> {
    let mut by_key: HashMap<u32, Vec<Instant>> = HashMap::new();
    for arrival in &stream.arrivals {
        if let Some(frame) = stream.frames.get(arrival.frame as usize) {
            by_key.entry(arrival.key()).or_default().push(frame.at);
        }
    }
    by_key
}

fn fan_out(changes: &[Change], seen: &[Seen], order: &SeatOrder, clock: &WallClock) -> FanOut {
    let mut out = FanOut::default();
    let most_open = changes.iter().map(|change| change.open_streams).max().unwrap_or(0);
    let streams: Vec<(Instant, HashMap<u32, Vec<Instant>>)> = seen
        .iter()
        .filter(|stream| stream.sample)
        .filter_map(|stream| Some((stream.opened?, arrivals_of(stream))))
        .collect();
    out.streams = streams.len();
    let kinds = [Kind::Free, Kind::Held, Kind::Sold];
    for change in changes {
        let made = change.made;
        let made_ms = made.decided_ms.map_or_else(|| clock.ms(made.answered), |decided| decided as f64);
        let mut every: Option<f64> = Some(0.0);
        for (_, by_key) in streams.iter().filter(|(opened, _)| *opened < made.sent) {
            for seat in &change.seats {
                let arrived = order.position(seat).and_then(|at| {
                    kinds
                        .iter()
                        .filter(|arrived| shows(change.kind, **arrived))
                        .filter_map(|arrived| by_key.get(&Arrival::key_of(at, *arrived)))
                        .filter_map(|times| times.iter().find(|time| **time >= made.sent))
                        .min()
                });
                let Some(arrived) = arrived else {
                    out.missed += 1;
                    every = None;
                    continue;
                };
                if *arrived < made.answered {
                    out.before_answer += 1;
                }
                // Never below 0: the server's clock and this one are the machine's.
                let ms = (clock.ms(*arrived) - made_ms).max(0.0);
                out.pairs_ms.push(ms);
                every = every.map(|every| every.max(ms));
            }
        }
        if let Some(every) = every {
            out.every_ms.push(every);
            if change.open_streams * 10 >= most_open * 9 {
                out.busiest_ms.push(every);
            }
        }
    }
    for list in [&mut out.every_ms, &mut out.pairs_ms, &mut out.busiest_ms] {
        list.sort_by(f64::total_cmp);
    }
    out
}

/// What the sample streams' frames were like before `until` (the storm).
#[derive(Debug, Default, Clone)]
pub struct Frames {
    /// `change` events per sample stream, mean.
    pub per_stream: f64,
    /// Seats listed per `change` event, mean (the tick's conflation).
    pub seats_per_frame: f64,
    /// A frame's `serverTime` (its newest change) → its arrival, ms, sorted.
    pub delivery_ms: Vec<f64>,
}

pub fn frames(seen: &[Seen], clock: &WallClock, until: Instant) -> Frames {
    let (mut streams, mut frames, mut seats) = (0usize, 0usize, 0u64);
    let mut delivery_ms = Vec::new();
    for stream in seen.iter().filter(|stream| stream.sample && stream.opened.is_some()) {
        streams += 1;
        for frame in stream.frames.iter().filter(|frame| !frame.snapshot && frame.at <= until) {
            frames += 1;
            seats += u64::from(frame.seats);
            delivery_ms.push(clock.ms(frame.at) - frame.server_time as f64);
        }
    }
    delivery_ms.sort_by(f64::total_cmp);
    Frames {
        per_stream: frames as f64 / streams.max(1) as f64,
        seats_per_frame: seats as f64 / frames.max(1) as f64,
        delivery_ms,
    }
}
