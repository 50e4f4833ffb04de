//! The storm through the waiting room (`--waiting-room on`; API.md
//! "Waiting room (v3)"): a copy of the arena made through the admin API
//! with `onSale` (`opensAt` `--opens-in` seconds after the first customer
//! arrives, `--admit-per-minute`), every customer joining its queue after
//! opening the live stream and waiting there until admitted, then holding
//! as in the plain storm. A waiting customer polls `GET …/queue` as its
//! page counts down: at the server's `estimatedAdmitAt` (never earlier than
//! the server admits it), or at `opensAt` while its pre-queue place is not
//! drawn. It holds no request connection while it waits (10,000 waiting
//! customers would be 10,000 more sockets beside their streams), and opens
//! no progress stream: the generator's open-file limit holds the 10,000
//! seat streams, not 10,000 more (`bench queue` measures those streams).
//!
//! The figures: join → admission on the server's clock (the join's
//! `serverTime` → the admitted place's `estimatedAdmitAt`, "the instant it
//! was") beside the formula's `max(join, opensAt + position × 60,000 ÷
//! admitPerMinute)`; how far behind the formula each customer heard it was
//! admitted (its poll at the estimate answered `admitted`), and how often a
//! poll at the server's estimate still found it waiting; the customer's wait
//! (join sent → that answer in); and the places admitted per minute as the
//! customers heard them.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use hyper::Method;
use hyper::body::Bytes;
use hyper::header::{AUTHORIZATION, HeaderName, HeaderValue};
use seat_state::wire::ShowDocument;
use serde_json::{Value, json};

use super::customer::{accept_encoding, call};
use super::steps::{Latencies, Step, percentile};
use super::{SHOW, Storm};
use crate::figures::{Figures, Target};
use crate::http::{Connection, bearer};

/// The copy of the arena that has the waiting room.
pub const QUEUED_SHOW: &str = "demo-arena-queued";

/// What the waiting room is asked for.
#[derive(Debug, Clone, Copy)]
pub struct Room {
    pub admit_per_minute: u32,
    /// From the first arrival to `opensAt`: the customers arriving before
    /// it join the pre-queue.
    pub opens_in: Duration,
}

impl Default for Room {
    fn default() -> Self {
        Self { admit_per_minute: 6_000, opens_in: Duration::from_secs(5) }
    }
}

/// The show's waiting room as made.
#[derive(Debug, Clone, Copy)]
pub struct Opening {
    /// Unix (= server) milliseconds.
    pub opens_at_ms: i64,
    pub admit_per_minute: u32,
}

impl Opening {
    /// The formula's admission instant of `position` joined at `joined_ms`
    /// (API.md: admitted once `⌊(t − opensAt) × rate ÷ 60,000⌋ ≥ position`).
    fn formula_ms(&self, position: u64, joined_ms: i64) -> i64 {
        let after = (position * 60_000).div_ceil(u64::from(self.admit_per_minute.max(1)));
        joined_ms.max(self.opens_at_ms + i64::try_from(after).unwrap_or(i64::MAX))
    }
}

/// Leaves the copy's page, definition and map time to warm up on every
/// process before the first customer arrives.
const WARM_UP: Duration = Duration::from_secs(10);

/// Creates the arena's copy with `onSale`, its `opensAt` `WARM_UP` +
/// `opens_in` from now; the first customer is to arrive `opens_in` before it.
pub async fn create(base: &str, admin_token: &str, room: Room) -> anyhow::Result<(Opening, Instant)> {
    let mut connection = Connection::open(base).await?;
    let (status, body) = connection.send(Method::GET, &format!("/api/shows/{SHOW}"), None, None).await?;
    anyhow::ensure!(status == 200, "the arena's definition: status {status}");
    // Customers read default labels left out; a show created without them
    // labels its seats with their ids: the copy names them as the arena does.
    let mut arena: ShowDocument = serde_json::from_slice(&body)?;
    for seat in &mut arena.seats {
        seat.seat.label = Some(seat.seat.label.take().unwrap_or_else(|| seat.default_label()));
    }
    let mut show = serde_json::to_value(arena)?;
    let opens_at_ms = unix_ms() + i64::try_from((WARM_UP + room.opens_in).as_millis())?;
    show["id"] = json!(QUEUED_SHOW);
    show["name"] = json!("Demo arena, through the waiting room");
    show["onSale"] = json!({"opensAt": opens_at_ms, "admitPerMinute": room.admit_per_minute, "preQueueSeconds": 900});
    let auth = bearer(admin_token)?;
    let body = Bytes::from(serde_json::to_vec(&show)?);
    let (status, answer) = connection.send(Method::POST, "/api/admin/shows", Some(&auth), Some(body)).await?;
    anyhow::ensure!(status == 201, "creating {QUEUED_SHOW}: {status} {}", String::from_utf8_lossy(&answer));
    let first_arrival = Instant::now() + WARM_UP;
    Ok((Opening { opens_at_ms, admit_per_minute: room.admit_per_minute }, first_arrival))
}

fn unix_ms() -> i64 {
    i64::try_from(SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default().as_millis()).unwrap_or(i64::MAX)
}

/// One customer's way through the queue.
#[derive(Debug, Clone, Copy)]
pub struct Queued {
    /// The join's `serverTime`.
    pub joined_ms: i64,
    /// Joined before `opensAt` (its place drawn at `opensAt`).
    pub pre_queue: bool,
    pub position: u64,
    /// The admitted place's `estimatedAdmitAt`: the instant it was admitted.
    pub admitted_ms: i64,
    /// The formula's instant for its position.
    pub formula_ms: i64,
    /// Join sent → the answer saying `admitted` in.
    pub known: Duration,
    /// When that answer came in, Unix (= server) milliseconds.
    pub heard_ms: i64,
    /// `GET …/queue` asked after the join.
    pub polls: u32,
    /// Of those, asked at the server's `estimatedAdmitAt` and answered `waiting`.
    pub early: u32,
}

/// The shortest pause between two polls of a customer still waiting.
const LEAST_POLL: Duration = Duration::from_millis(100);

/// Joins the storm's queue and polls until admitted, a connection of
/// customer `n`'s pool taken for each request and given back before a wait.
pub async fn admitted(storm: &Storm, n: usize, token: &str, latencies: &mut Latencies) -> anyhow::Result<Queued> {
    let Some(opening) = storm.opening else { anyhow::bail!("queue: the show has no waiting room") };
    let headers = [accept_encoding(), (AUTHORIZATION, bearer(token)?)];
    let path = format!("/api/shows/{}/queue", storm.show);
    let sent = Instant::now();
    let mut place = ask(storm, n, latencies, Step::Join, Method::POST, &path, &headers, 201).await?;
    let joined_ms = place["serverTime"].as_i64().unwrap_or_default();
    let pre_queue = place["position"].is_null();
    let (mut polls, mut early) = (0, 0);
    while place["state"] != "admitted" {
        anyhow::ensure!(place["state"] == "waiting", "queue: state {}", place["state"]);
        let estimated = place["estimatedAdmitAt"].as_i64();
        let at = estimated.unwrap_or(opening.opens_at_ms);
        let wait = Duration::from_millis(u64::try_from(at - unix_ms()).unwrap_or(0)).max(LEAST_POLL);
        tokio::time::sleep(wait).await;
        place = ask(storm, n, latencies, Step::QueueRead, Method::GET, &path, &headers, 200).await?;
        polls += 1;
        early += u32::from(estimated.is_some() && place["state"] == "waiting");
    }
    let (known, heard_ms) = (sent.elapsed(), unix_ms());
    let position = place["position"].as_u64().ok_or_else(|| anyhow::anyhow!("queue: admitted without a position"))?;
    let admitted_ms = place["estimatedAdmitAt"].as_i64().unwrap_or_default();
    let formula_ms = opening.formula_ms(position, joined_ms);
    Ok(Queued { joined_ms, pre_queue, position, admitted_ms, formula_ms, known, heard_ms, polls, early })
}

/// One request on a connection of customer `n`'s pool; the answer's body.
#[allow(clippy::too_many_arguments)]
async fn ask(
    storm: &Storm,
    n: usize,
    latencies: &mut Latencies,
    step: Step,
    method: Method,
    path: &str,
    headers: &[(HeaderName, HeaderValue)],
    wanted: u16,
) -> anyhow::Result<Value> {
    let pool = storm.pool(n);
    let mut connection = pool.take().await.map_err(|error| anyhow::anyhow!("connect: {error}"))?;
    let answer = call(&mut connection, latencies, step, method, path, headers, None, wanted).await;
    pool.give(connection);
    Ok(answer?.json())
}

/// Sorted values of one field of every customer's way through the queue.
fn sorted(queued: &[Queued], value: impl Fn(&Queued) -> f64) -> Vec<f64> {
    let mut values: Vec<f64> = queued.iter().map(value).collect();
    values.sort_by(f64::total_cmp);
    values
}

impl Figures {
    /// The queue's figures, after the storm's.
    pub fn waiting_room(&mut self, opening: &Opening, queued: &[Queued]) {
        let customers = self.count() as f64;
        let pre_queue = queued.iter().filter(|queued| queued.pre_queue).count();
        self.add("admittedCustomers", "customers admitted", queued.len() as f64, "", Some(Target::AtLeast(customers)));
        let name = "  of which joined the pre-queue (before opensAt, drawn at it)";
        self.add("preQueueCustomers", name, pre_queue as f64, "", None);
        let waited = sorted(queued, |queued| (queued.admitted_ms - queued.joined_ms) as f64);
        let formula = sorted(queued, |queued| (queued.formula_ms - queued.joined_ms) as f64);
        for (fraction, key, name) in [
            (0.5, "admissionP50Ms", "join → admission p50 (the join's serverTime → the place's estimatedAdmitAt)"),
            (0.99, "admissionP99Ms", "join → admission p99"),
        ] {
            let baseline = ("the formula's, same customers", percentile(&formula, fraction));
            self.add_beside(key, name, percentile(&waited, fraction), "ms", baseline);
        }
        let behind = sorted(queued, |queued| (queued.admitted_ms - queued.formula_ms) as f64);
        let name = "the server's admission instant (estimatedAdmitAt) behind the formula's, max";
        self.add("admissionBehindMaxMs", name, percentile(&behind, 1.0), "ms", None);
        let heard = sorted(queued, |queued| (queued.heard_ms - queued.formula_ms) as f64);
        let name = "the customer heard 'admitted' behind the formula's instant (its GET at the estimate), p50";
        self.add("admissionHeardP50Ms", name, percentile(&heard, 0.5), "ms", None);
        self.add("admissionHeardP99Ms", "  p99", percentile(&heard, 0.99), "ms", None);
        self.add("admissionHeardMaxMs", "  max", percentile(&heard, 1.0), "ms", None);
        let known = sorted(queued, |queued| queued.known.as_secs_f64() * 1000.0);
        let name = "join sent → the customer's GET …/queue answered admitted, p50";
        self.add("admissionKnownP50Ms", name, percentile(&known, 0.5), "ms", None);
        self.add("admissionKnownP99Ms", "  p99", percentile(&known, 0.99), "ms", None);
        let polls = queued.iter().map(|queued| f64::from(queued.polls)).sum::<f64>() / queued.len().max(1) as f64;
        self.add("queuePollsPerCustomer", "GET …/queue per customer, mean", polls, "", None);
        let early = queued.iter().map(|queued| f64::from(queued.early)).sum::<f64>();
        let name = "  of which asked at the server's estimatedAdmitAt and answered waiting (all customers)";
        self.add("queuePollsEarly", name, early, "", Some(Target::AtMost(0.0)));
        let set = ("admitPerMinute", f64::from(opening.admit_per_minute));
        self.add_beside("admittedPerMinute", "admitted per minute, measured", admitted_per_minute(queued), "/min", set);
        self.note(
            "admitted per minute: of the places admitted by the clock (after their join), (the last position − \
             the first) × 60,000 ÷ (the instant the last one's customer heard it was admitted − the first's)"
                .to_owned(),
        );
    }
}

/// Places a minute between the first and the last admitted by the clock
/// (not at their join: the queue was not empty).
fn admitted_per_minute(queued: &[Queued]) -> f64 {
    let by_clock = queued.iter().filter(|queued| queued.formula_ms > queued.joined_ms);
    let first = by_clock.clone().min_by_key(|queued| queued.position);
    let last = by_clock.max_by_key(|queued| queued.position);
    match first.zip(last) {
        Some((first, last)) if last.heard_ms > first.heard_ms => {
            (last.position - first.position) as f64 * 60_000.0 / (last.heard_ms - first.heard_ms) as f64
        }
        _ => 0.0,
    }
}
