//! Sessions, then the timed storm of holds and confirmations.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use hyper::Method;
use hyper::body::Bytes;
use serde_json::{Value, json};

use crate::http::{Connection, bearer};
use crate::metrics::Counters;
use crate::{Plan, SHOW_ID, Workload};

/// What the storm did.
#[derive(Debug, Default)]
pub struct Report {
    pub elapsed: Duration,
    /// Latency of every hold request, in microseconds.
    pub hold_micros: Vec<u32>,
    pub confirm_micros: Vec<u32>,
    /// Hold answers by status.
    pub statuses: HashMap<u16, u64>,
    /// Confirm answers by status.
    pub confirm_statuses: HashMap<u16, u64>,
    /// Seats and floor places of every successful confirmation.
    pub confirmed_seats: Vec<String>,
    pub confirmed_floor: u64,
}

/// Creates `plan.sessions` sessions, `concurrency` at a time (spread over
/// the processes like the storm's connections).
pub async fn sessions(client: &reqwest::Client, plan: &Plan) -> anyhow::Result<Vec<String>> {
    let mut tasks = Vec::new();
    for worker in 0..plan.concurrency {
        let (client, base) = (client.clone(), plan.base(worker).to_owned());
        let count = plan.sessions / plan.concurrency + usize::from(worker < plan.sessions % plan.concurrency);
        tasks.push(tokio::spawn(async move {
            let mut tokens = Vec::with_capacity(count);
            for _ in 0..count {
                let body: Value =
                    client.post(format!("{base}/api/sessions")).send().await?.error_for_status()?.json().await?;
                tokens.push(body["token"].as_str().unwrap_or_default().to_owned());
            }
            anyhow::Ok(tokens)
        }));
    }
    let mut tokens = Vec::with_capacity(plan.sessions);
    for task in tasks {
        tokens.extend(task.await??);
    }
    Ok(tokens)
}

fn micros(since: Instant) -> u32 {
    u32::try_from(since.elapsed().as_micros()).unwrap_or(u32::MAX)
}

/// Runs `concurrency` workers until `duration` has passed, each on a
/// connection of its own.
pub async fn run(plan: &Plan, tokens: Vec<String>) -> anyhow::Result<Report> {
    let tokens = std::sync::Arc::new(tokens.iter().map(|token| bearer(token)).collect::<anyhow::Result<Vec<_>>>()?);
    let mut connections = Vec::with_capacity(plan.concurrency);
    for worker in 0..plan.concurrency {
        connections.push(Connection::open(plan.base(worker)).await?);
    }
    let started = Instant::now();
    let deadline = started + plan.duration;
    let mut tasks = Vec::new();
    for (worker, mut connection) in connections.into_iter().enumerate() {
        let (plan, tokens) = (plan.clone(), std::sync::Arc::clone(&tokens));
        tasks.push(tokio::spawn(async move {
            let mut rng = fastrand::Rng::with_seed(worker as u64 + 1);
            let mut report = Report::default();
            let path = format!("/api/shows/{SHOW_ID}/holds");
            while Instant::now() < deadline {
                let token = &tokens[rng.usize(..tokens.len())];
                let body = match plan.workload {
                    Workload::Time | Workload::Onsale | Workload::Queue | Workload::Edge => {
                        anyhow::bail!("the {} workload makes no holds here", plan.workload.name())
                    }
                    Workload::Churn => Bytes::from(format!("{{\"seats\":[\"S{}\"]}}", rng.usize(..plan.seats))),
                    Workload::Sale => {
                        let places = rng.usize(1..=2);
                        let order = if rng.u8(..4) == 0 {
                            json!({"areas": {"floor": places}})
                        } else {
                            let seats: Vec<String> =
                                (0..places).map(|_| format!("S{}", rng.usize(..plan.seats))).collect();
                            if seats.len() == 2 && seats[0] == seats[1] {
                                continue;
                            }
                            json!({"seats": seats})
                        };
                        Bytes::from(serde_json::to_vec(&order)?)
                    }
                };
                let sent = Instant::now();
                let (status, answer) = connection.send(Method::POST, &path, Some(token), Some(body)).await?;
                report.hold_micros.push(micros(sent));
                *report.statuses.entry(status).or_default() += 1;
                if status == 201 && rng.u8(..100) < plan.workload.confirm_percent() {
                    let answer: Value = serde_json::from_slice(&answer)?;
                    let sent = Instant::now();
                    let hold = answer["holdId"].as_str().unwrap_or_default();
                    let confirm = format!("/api/holds/{hold}/confirm");
                    let (status, confirmed) = connection.send(Method::POST, &confirm, Some(token), None).await?;
                    report.confirm_micros.push(micros(sent));
                    *report.confirm_statuses.entry(status).or_default() += 1;
                    if status == 200 {
                        let confirmed: Value = serde_json::from_slice(&confirmed)?;
                        for seat in confirmed["seats"].as_array().into_iter().flatten() {
                            report.confirmed_seats.push(seat.as_str().unwrap_or_default().to_owned());
                        }
                        report.confirmed_floor += confirmed["areas"]["floor"].as_u64().unwrap_or(0);
                    }
                }
            }
            anyhow::Ok(report)
        }));
    }
    let mut total = Report::default();
    for task in tasks {
        let part = task.await??;
        total.hold_micros.extend(part.hold_micros);
        total.confirm_micros.extend(part.confirm_micros);
        for (status, count) in part.statuses {
            *total.statuses.entry(status).or_default() += count;
        }
        for (status, count) in part.confirm_statuses {
            *total.confirm_statuses.entry(status).or_default() += count;
        }
        total.confirmed_seats.extend(part.confirmed_seats);
        total.confirmed_floor += part.confirmed_floor;
    }
    total.elapsed = started.elapsed();
    Ok(total)
}

/// `GET /api/time` from `concurrency` workers until `duration` has passed.
pub async fn ceiling(plan: &Plan) -> anyhow::Result<Report> {
    let mut connections = Vec::with_capacity(plan.concurrency);
    for worker in 0..plan.concurrency {
        connections.push(Connection::open(plan.base(worker)).await?);
    }
    let started = Instant::now();
    let deadline = started + plan.duration;
    let mut tasks = Vec::new();
    for mut connection in connections {
        tasks.push(tokio::spawn(async move {
            let mut report = Report::default();
            while Instant::now() < deadline {
                let sent = Instant::now();
                let (status, _) = connection.send(Method::GET, "/api/time", None, None).await?;
                report.hold_micros.push(micros(sent));
                *report.statuses.entry(status).or_default() += 1;
            }
            anyhow::Ok(report)
        }));
    }
    let mut total = Report::default();
    for task in tasks {
        let part = task.await??;
        total.hold_micros.extend(part.hold_micros);
        for (status, count) in part.statuses {
            *total.statuses.entry(status).or_default() += count;
        }
    }
    total.elapsed = started.elapsed();
    anyhow::ensure!(total.statuses.keys().all(|status| *status == 200), "GET /api/time answered {:?}", total.statuses);
    Ok(total)
}

fn percentile(sorted: &[u32], fraction: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let index = ((sorted.len() - 1) as f64 * fraction).round() as usize;
    f64::from(sorted[index]) / 1000.0
}

impl Report {
    /// Prints the plain-HTTP ceiling: one line and one JSON line.
    pub fn print_ceiling(&self, plan: &Plan) {
        let mut requests = self.hold_micros.clone();
        requests.sort_unstable();
        let per_second = requests.len() as f64 / self.elapsed.as_secs_f64();
        let (p50, p99) = (percentile(&requests, 0.5), percentile(&requests, 0.99));
        println!(
            "plain HTTP (GET /api/time), {} connections, {:.1} s: {per_second:.0} requests/s, p50 {p50:.2} ms, \
             p99 {p99:.2} ms",
            plan.concurrency,
            self.elapsed.as_secs_f64()
        );
        let json = serde_json::json!({
            "bench": "plain_http", "workload": "time", "requestsPerSecond": per_second.round(),
            "p50Ms": p50, "p99Ms": p99, "connections": plan.concurrency, "seconds": self.elapsed.as_secs_f64(),
        });
        println!("{json}");
    }

    /// Prints a table, the mix of decisions and one JSON line.
    pub fn print(&self, plan: &Plan, server: &Counters) {
        let mut holds = self.hold_micros.clone();
        holds.sort_unstable();
        let mut confirms = self.confirm_micros.clone();
        confirms.sort_unstable();
        let seconds = self.elapsed.as_secs_f64();
        let decisions = holds.len() as f64 / seconds;
        let count = |status| self.statuses.get(&status).copied().unwrap_or(0);
        let confirmed = self.confirm_statuses.get(&200).copied().unwrap_or(0);
        let other: u64 =
            self.statuses.iter().filter(|(status, _)| ![201, 409, 429].contains(*status)).map(|(_, n)| n).sum();
        println!(
            "flash sale ({} workload): {} seats + {} floor places, holdSeconds 1, {} sessions, {} connections over {} \
             process{}, {seconds:.1} s",
            plan.workload.name(),
            plan.seats,
            plan.floor,
            plan.sessions,
            plan.concurrency,
            plan.bases.len(),
            if plan.bases.len() == 1 { "" } else { "es" }
        );
        println!("| metric                   | value      |");
        println!("|--------------------------|------------|");
        println!("| hold decisions/s         | {decisions:>10.0} |");
        println!("| hold p50 / p99 (ms)      | {:>4.2} / {:>4.2} |", percentile(&holds, 0.5), percentile(&holds, 0.99));
        println!(
            "| confirm p50 / p99 (ms)   | {:>4.2} / {:>4.2} |",
            percentile(&confirms, 0.5),
            percentile(&confirms, 0.99)
        );
        println!("| held (201)               | {:>10} |", count(201));
        println!("| taken (409)              | {:>10} |", count(409));
        println!("| at hold limit (429)      | {:>10} |", count(429));
        if other > 0 {
            println!("| other statuses           | {other:>10} |");
        }
        println!("| confirmed seats / floor  | {:>5} / {:>3} |", self.confirmed_seats.len(), self.confirmed_floor);
        println!("| expired (by the sweeps)  | {:>10.0} |", server.expired);

        // The mix: what share of the decisions changed something.
        let answered = holds.len() as u64 + confirms.len() as u64;
        let decided = answered as f64 + server.expired;
        let writes = (count(201) + confirmed) as f64 + server.expired;
        let share = |n: f64, of: f64| if of > 0.0 { 100.0 * n / of } else { 0.0 };
        println!(
            "mix: {} hold requests ({:.0} % held, {:.0} % taken, {:.0} % at the hold limit{}), {} confirms ({} \
             confirmed), {:.0} expiries recorded by the sweeps: {:.0} % of the {:.0} decisions (requests + \
             expiries) wrote a change",
            holds.len(),
            share(count(201) as f64, holds.len() as f64),
            share(count(409) as f64, holds.len() as f64),
            share(count(429) as f64, holds.len() as f64),
            if other > 0 { format!(", {other} other: {:?}", self.statuses) } else { String::new() },
            confirms.len(),
            confirmed,
            server.expired,
            share(writes, decided),
            decided,
        );
        let mean_batch = if server.commits > 0.0 { server.committed_transitions / server.commits } else { 0.0 };
        let mean_commit_ms = if server.commits > 0.0 { 1000.0 * server.commit_seconds / server.commits } else { 0.0 };
        println!(
            "server: {:.0} group commits, {mean_batch:.1} transitions and {mean_commit_ms:.2} ms each on average; \
             {:.0} journal entries caught up from other processes",
            server.commits, server.caught_up
        );
        // Per decided transition, where a show writer's time went.
        let per_transition = |seconds: f64| {
            if server.committed_transitions > 0.0 { 1e6 * seconds / server.committed_transitions } else { 0.0 }
        };
        let stages: Vec<String> = crate::metrics::STAGES
            .iter()
            .zip(server.stages)
            .map(|(stage, seconds)| format!("{stage} {:.1} µs", per_transition(seconds)))
            .collect();
        println!(
            "writer, per transition written: {} (flush overlaps the next batch's decide and write)",
            stages.join(", ")
        );
        let json = serde_json::json!({
            "bench": "flash_sale", "workload": plan.workload.name(), "processes": plan.bases.len(),
            "holdDecisionsPerSecond": decisions.round(),
            "holdP50Ms": percentile(&holds, 0.5), "holdP99Ms": percentile(&holds, 0.99),
            "confirmP99Ms": percentile(&confirms, 0.99), "holds": holds.len(), "statuses": self.statuses,
            "held": count(201), "taken": count(409), "atHoldLimit": count(429), "otherStatuses": other,
            "confirms": confirms.len(), "confirmed": confirmed, "expired": server.expired,
            "writesPercent": share(writes, decided).round(),
            "commits": server.commits, "meanBatch": mean_batch, "meanCommitMs": mean_commit_ms,
            "caughtUp": server.caught_up,
            "stageMicrosPerTransition": crate::metrics::STAGES.iter().zip(server.stages)
                .map(|(stage, seconds)| (stage.to_string(), per_transition(seconds))).collect::<HashMap<_, _>>(),
            "connections": plan.concurrency, "sessions": plan.sessions, "seconds": seconds,
        });
        println!("{json}");
    }
}
