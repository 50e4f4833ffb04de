//! Fan-out: from a change's answer (a hold's `201`, a release's `204`) to
//! that change arriving on each sample stream that was open when the
//! request was sent.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use hyper::Method;
use hyper::header::AUTHORIZATION;

use super::steps::percentile;
use super::stream::Seen;
use super::{Held, Storm};
use crate::http::bearer;

/// One change whose arrival is timed.
pub struct Change {
    pub seat: String,
    pub sent: Instant,
    pub answered: Instant,
    pub open_streams: usize,
    pub hold_id: String,
}

/// What the sample streams saw of a set of changes.
#[derive(Debug, Default, Clone)]
pub struct FanOut {
    /// Answer → arrival, ms, sorted (0 when it arrived first).
    pub ms: Vec<f64>,
    /// The same for the changes sent with at least 90 % of the most streams open.
    pub busiest_ms: Vec<f64>,
    /// (change, stream) pairs that should have arrived and did not.
    pub missed: usize,
    /// Arrivals before the request's answer did.
    pub before_answer: usize,
    /// Sample streams in the figures.
    pub streams: usize,
    pub changes: usize,
}

impl FanOut {
    pub fn p(&self, fraction: f64) -> f64 {
        percentile(&self.ms, fraction)
    }
}

/// Releases up to `count` unconfirmed holds one at a time, 200 ms apart,
/// while every stream is open.
pub async fn probe(storm: &Storm, count: usize) -> Vec<Change> {
    let chosen: Vec<Held> = storm.told.lock().map_or_else(
        |_| Vec::new(),
        |told| {
            told.holds.iter().filter(|held| !held.confirmed && !held.seats.is_empty()).take(count).cloned().collect()
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
            probes.push(Change { seat: held.seats[0].clone(), sent, answered, open_streams, hold_id: held.hold_id });
        } else if let Ok(mut told) = storm.told.lock() {
            *told.errors.entry("probe: release not answered 204".to_owned()).or_default() += 1;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    probes
}

/// The storm's holds, each by its first seat.
pub fn of_holds(holds: &[Held], seen: &[Seen], seats: &HashMap<String, u32>) -> FanOut {
    let changes: Vec<Change> = holds
        .iter()
        .filter(|held| !held.seats.is_empty())
        .map(|held| Change {
            seat: held.seats[0].clone(),
            sent: held.sent,
            answered: held.answered,
            open_streams: held.open_streams,
            hold_id: held.hold_id.clone(),
        })
        .collect();
    fan_out(&changes, seen, seats)
}

pub fn of_probes(probes: &[Change], seen: &[Seen], seats: &HashMap<String, u32>) -> FanOut {
    fan_out(probes, seen, seats)
}

fn fan_out(changes: &[Change], seen: &[Seen], seats: &HashMap<String, u32>) -> FanOut {
    let mut out = FanOut { changes: changes.len(), ..FanOut::default() };
    let most_open = changes.iter().map(|change| change.open_streams).max().unwrap_or(0);
    for stream in seen.iter().filter(|stream| stream.sample) {
        let Some(opened) = stream.opened else { continue };
        out.streams += 1;
        let mut by_seat: HashMap<u32, Vec<Instant>> = HashMap::new();
        for (seat, at) in &stream.arrivals {
            by_seat.entry(*seat).or_default().push(*at);
        }
        for change in changes.iter().filter(|change| opened < change.sent) {
            let arrived = seats
                .get(&change.seat)
                .and_then(|seat| by_seat.get(seat))
                .and_then(|times| times.iter().find(|at| **at >= change.sent));
            let Some(arrived) = arrived else {
                out.missed += 1;
                continue;
            };
            if *arrived < change.answered {
                out.before_answer += 1;
            }
            let ms = arrived.saturating_duration_since(change.answered).as_secs_f64() * 1000.0;
            out.ms.push(ms);
            if change.open_streams * 10 >= most_open * 9 {
                out.busiest_ms.push(ms);
            }
        }
    }
    out.ms.sort_by(f64::total_cmp);
    out.busiest_ms.sort_by(f64::total_cmp);
    out
}
