//! A flash sale against one or more running `seathold` processes: many
//! sessions, many concurrent connections, then the final state audited on
//! every process (nothing sold twice or beyond capacity, every map agrees
//! with what the clients were told). Prints a table and one JSON line.
//!
//! `flash-sale BASE_URL[,BASE_URL…] ADMIN_TOKEN [--workload sale|churn|time]
//! [--sessions N] [--concurrency N] [--seconds N]`
//!
//! - `sale` (the default): each request holds 1–2 random seats or floor
//!   places, 30 % of successes confirmed; seats sell out as it runs.
//! - `churn`: each request holds one random seat, 5 % of successes
//!   confirmed, the rest expire after their 1 s: most decisions are writes
//!   (holds, then their expiries), as on sale day.
//! - `--webhook on` (with `sale` or `churn`): a webhook of every kind to a
//!   receiver here (`webhook.rs`); after the storm, deliveries per second
//!   and their lag behind commit.
//! - `time`: `GET /api/time` only, over the same connections: the ceiling
//!   HTTP alone puts on this machine, for the others to be read against.
//! - `onsale`: issue 26's on-sale minute on the demo arena (`onsale/mod.rs`):
//!   `--customers N` arriving over `--seconds`, each keeping a live stream
//!   open; `--pids P[,P…]` names the server processes (CPU, memory),
//!   `--label`, `--save FILE` and `--beside FILE` put two runs side by side,
//!   `--sample-every N`, `--alone-seconds N`, `--alone-bases URL[,URL…]`,
//!   `--probes N`, `--format compact|json` (the customers' seat maps and
//!   streams; compact, as the web app, by default), `--tick MS` (the
//!   servers' tick, for the change-to-viewer targets; 250), `--waiting-room
//!   on` (the storm through a waiting room, `onsale/waiting.rs`) with
//!   `--admit-per-minute N` (6,000) and `--opens-in S` (5: seconds from the
//!   first arrival to `opensAt`).
//! - `edge`: issue 35's live streams at the edge (`onsale/edge.rs`):
//!   `--viewers N` arena viewers connected through `--stream-bases
//!   URL[,URL…]` (Pushpin instances; none: the processes) at
//!   `--connects-per-second N`, a write storm of `--holds-per-second N`
//!   for `--seconds` at none, half and all of them; `--edge-pids P[,P…]`
//!   names the proxies' processes, and `--pids`, `--label`, `--save`,
//!   `--beside` as for `onsale`.
//! - `queue`: issue 28's waiting room under a sale's opening (`queue/mod.rs`):
//!   `--sessions N` join a show's pre-queue, `--streams N` listen to its
//!   progress across `opensAt`; `--join-seconds N` (the joins' time before
//!   `opensAt`) or `--join-cost N` (a join's cost in `GET /api/time`, which
//!   sets that time from the run's baseline), and `--pids`, `--label`,
//!   `--save`, `--beside`, `--alone-seconds` as for `onsale`.
//!
//! With several base URLs (processes on one database) connection `i` sends
//! every request to base `i mod n`: a session made on one process is used on
//! the others, and the audit reads every process.

mod audit;
mod figures;
mod http;
mod load;
mod metrics;
mod onsale;
mod queue;
mod sold;
mod webhook;

use std::time::Duration;

use serde_json::json;

/// What each request does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Workload {
    /// 1–2 seats or floor places per hold, 30 % confirmed.
    Sale,
    /// One random seat per hold, 5 % confirmed, the rest expire.
    Churn,
    /// Plain `GET /api/time`: no decision, no show, no session.
    Time,
    /// The on-sale minute on the demo arena (`onsale`).
    Onsale,
    /// The waiting room across a sale's opening (`queue`).
    Queue,
    /// Live streams through proxies under writes (`edge`).
    Edge,
}

impl Workload {
    fn name(self) -> &'static str {
        match self {
            Self::Sale => "sale",
            Self::Churn => "churn",
            Self::Time => "time",
            Self::Onsale => "onsale",
            Self::Queue => "queue",
            Self::Edge => "edge",
        }
    }

    /// Out of 100 successful holds, how many are confirmed.
    fn confirm_percent(self) -> u8 {
        match self {
            Self::Sale => 30,
            Self::Churn => 5,
            Self::Time | Self::Onsale | Self::Queue | Self::Edge => 0,
        }
    }
}

/// What one run is asked to do.
#[derive(Debug, Clone)]
pub struct Plan {
    /// One base URL per process; connection `i` uses `bases[i % len]`.
    pub bases: Vec<String>,
    pub workload: Workload,
    pub sessions: usize,
    pub concurrency: usize,
    pub duration: Duration,
    pub seats: usize,
    pub floor: u32,
    pub onsale: onsale::Options,
    pub queue: queue::Options,
    /// A webhook of every kind to a receiver here, timed after the storm.
    pub webhook: bool,
}

impl Plan {
    /// The process connection (or session-making worker) `worker` talks to.
    pub fn base(&self, worker: usize) -> &str {
        &self.bases[worker % self.bases.len()]
    }
}

const SHOW_ID: &str = "flash-sale";
const USAGE: &str = "usage: flash-sale BASE_URL[,BASE_URL…] ADMIN_TOKEN [--workload sale|churn|time|onsale|queue] \
                     [--sessions N | --customers N] [--concurrency N] [--seconds N] [--webhook on] [--pids P,P] [--label L] \
                     [--save FILE] [--beside FILE] [--sample-every N] [--alone-seconds N] [--alone-bases URLS] [--probes N] [--format compact|json] [--tick MS] \
                     [--waiting-room on|off] [--admit-per-minute N] [--opens-in S] \
                     [--viewers N] [--stream-bases URLS] [--edge-pids P,P] [--holds-per-second N] [--connects-per-second N] \
                     [--streams N] [--join-seconds N] [--join-cost N]";

fn parse_args() -> anyhow::Result<(Plan, String)> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [bases, token, rest @ ..] = args.as_slice() else { anyhow::bail!(USAGE) };
    let bases: Vec<String> =
        bases.split(',').filter(|base| !base.is_empty()).map(|base| base.trim_end_matches('/').to_owned()).collect();
    anyhow::ensure!(!bases.is_empty(), USAGE);
    let mut plan = Plan {
        bases,
        workload: Workload::Sale,
        sessions: 10_000,
        concurrency: 64,
        duration: Duration::from_secs(10),
        seats: 20_000,
        floor: 5_000,
        onsale: onsale::Options::default(),
        queue: queue::Options::default(),
        webhook: false,
    };
    for pair in rest.chunks(2) {
        let [flag, value] = pair else { anyhow::bail!("{pair:?} needs a value") };
        match flag.as_str() {
            "--workload" => {
                plan.workload = match value.as_str() {
                    "sale" => Workload::Sale,
                    "churn" => Workload::Churn,
                    "time" => Workload::Time,
                    "onsale" => Workload::Onsale,
                    "queue" => Workload::Queue,
                    "edge" => Workload::Edge,
                    other => anyhow::bail!("--workload is sale, churn, time, onsale, queue or edge, not {other:?}"),
                }
            }
            "--sessions" | "--customers" => plan.sessions = value.parse()?,
            "--pids" => {
                plan.onsale.pids = value.split(',').map(str::parse).collect::<Result<_, _>>()?;
            }
            "--label" => plan.onsale.label = value.clone(),
            "--save" => plan.onsale.save = Some(value.into()),
            "--beside" => plan.onsale.beside = Some(value.into()),
            "--sample-every" => plan.onsale.sample_every = value.parse()?,
            "--alone-seconds" => plan.onsale.alone_seconds = value.parse()?,
            "--probes" => plan.onsale.probes = value.parse()?,
            "--format" => plan.onsale.form = onsale::viewer::Form::parse(value)?,
            "--tick" => plan.onsale.tick_ms = value.parse()?,
            "--alone-bases" => {
                let bases = value.split(',').map(|base| base.trim_end_matches('/').to_owned()).collect();
                plan.onsale.alone_bases = Some(bases);
            }
            "--waiting-room" => {
                plan.onsale.waiting_room = match value.as_str() {
                    "on" => Some(plan.onsale.waiting_room.unwrap_or_default()),
                    "off" => None,
                    other => anyhow::bail!("--waiting-room is on or off, not {other:?}"),
                }
            }
            "--admit-per-minute" => room(&mut plan).admit_per_minute = value.parse()?,
            "--opens-in" => room(&mut plan).opens_in = Duration::from_secs(value.parse()?),
            "--streams" => plan.queue.streams = value.parse()?,
            "--viewers" => plan.onsale.edge.viewers = value.parse()?,
            "--stream-bases" => {
                plan.onsale.edge.stream_bases =
                    value.split(',').map(|base| base.trim_end_matches('/').to_owned()).collect();
            }
            "--edge-pids" => {
                plan.onsale.edge.edge_pids = value.split(',').map(str::parse).collect::<Result<_, _>>()?;
            }
            "--holds-per-second" => plan.onsale.edge.holds_per_second = value.parse()?,
            "--connects-per-second" => plan.onsale.edge.connects_per_second = value.parse()?,
            "--join-seconds" => plan.queue.join_seconds = Some(value.parse()?),
            "--join-cost" => plan.queue.join_cost = value.parse()?,
            "--webhook" => {
                plan.webhook = match value.as_str() {
                    "on" => true,
                    "off" => false,
                    other => anyhow::bail!("--webhook is on or off, not {other:?}"),
                }
            }
            "--concurrency" => plan.concurrency = value.parse()?,
            "--seconds" => plan.duration = Duration::from_secs(value.parse()?),
            other => anyhow::bail!("unknown flag {other}\n{USAGE}"),
        }
    }
    anyhow::ensure!(plan.concurrency > 0 && plan.sessions > 0, "--concurrency and --sessions must be positive");
    Ok((plan, token.clone()))
}

/// The on-sale storm's waiting room, on once one of its settings is given.
fn room(plan: &mut Plan) -> &mut onsale::waiting::Room {
    plan.onsale.waiting_room.get_or_insert_default()
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let (plan, admin_token) = parse_args()?;
    let client = reqwest::Client::builder().pool_max_idle_per_host(plan.concurrency).build()?;
    if plan.workload == Workload::Time {
        return load::ceiling(&plan).await.map(|report| report.print_ceiling(&plan));
    }
    if plan.workload == Workload::Onsale {
        return onsale::run(&plan, &plan.onsale, &admin_token).await;
    }
    if plan.workload == Workload::Queue {
        return queue::run(&plan, &admin_token).await;
    }
    if plan.workload == Workload::Edge {
        return onsale::edge::run(&plan, &plan.onsale).await;
    }
    let before = metrics::scrape(&client, &plan).await?;
    create_show(&client, &plan, &admin_token).await?;
    let receiver = match plan.webhook {
        true => Some(webhook::Receiver::start(&client, &plan, &admin_token).await?),
        false => None,
    };
    let tokens = load::sessions(&client, &plan).await?;
    warm_up(&client, &plan).await?;
    let report = load::run(&plan, tokens).await?;
    let storm_end = std::time::Instant::now();
    // Every unconfirmed hold lasts 1 s, and each process sweeps once a
    // second: after 2.5 s the sweeps have recorded their expiries.
    tokio::time::sleep(Duration::from_millis(2_500)).await;
    let after = metrics::scrape(&client, &plan).await?;
    report.print(&plan, &after.since(&before));
    if let Some(receiver) = &receiver {
        receiver.report(&client, &plan, &admin_token, storm_end).await?;
    }
    audit::check(&client, &plan, &report).await?;
    println!(
        "audit: no seat sold twice, floor within capacity, the map{} agree{} with every confirmation",
        if plan.bases.len() > 1 { "s of every process" } else { "" },
        if plan.bases.len() > 1 { "" } else { "s" },
    );
    Ok(())
}

async fn create_show(client: &reqwest::Client, plan: &Plan, admin_token: &str) -> anyhow::Result<()> {
    let seats: Vec<_> =
        (0..plan.seats).map(|n| json!({"id": format!("S{n}"), "x": n % 200 * 12, "y": n / 200 * 14})).collect();
    // Churn: sessions are picked at random for each request, so a few hold
    // more than two seats at once now and then; 4 keeps 429s rare.
    let max_holds = match plan.workload {
        Workload::Sale | Workload::Time | Workload::Onsale | Workload::Queue | Workload::Edge => 2,
        Workload::Churn => 4,
    };
    let show = json!({
        "id": SHOW_ID, "name": "Flash sale", "holdSeconds": 1, "maxActiveHoldsPerHolder": max_holds,
        "maxSeatsPerHold": 2, "seats": seats, "areas": [{"id": "floor", "name": "Floor", "capacity": plan.floor}]
    });
    let response =
        client.post(format!("{}/api/admin/shows", plan.base(0))).bearer_auth(admin_token).json(&show).send().await?;
    anyhow::ensure!(response.status().is_success(), "creating the show: {}", response.text().await?);
    Ok(())
}

/// Starts the show's engine on every process before the clock starts: the
/// first request to a show loads it from the database. Timed and printed,
/// as it is a cost a restarted process pays on its first request.
async fn warm_up(client: &reqwest::Client, plan: &Plan) -> anyhow::Result<()> {
    for base in &plan.bases {
        let started = std::time::Instant::now();
        client.get(format!("{base}/api/shows/{SHOW_ID}/seats")).send().await?.error_for_status()?.bytes().await?;
        println!(
            "warm-up: the first seat map of the show from {base} took {:.1} ms (outside the timed storm)",
            started.elapsed().as_secs_f64() * 1000.0
        );
    }
    Ok(())
}
