//! Sessions, then the timed storm of holds and confirmations.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::{Plan, SHOW_ID};

/// What the storm did.
#[derive(Debug, Default)]
pub struct Report {
    pub elapsed: Duration,
    /// Latency of every hold request, in microseconds.
    pub hold_micros: Vec<u32>,
    pub confirm_micros: Vec<u32>,
    /// Hold answers by status.
    pub statuses: HashMap<u16, u64>,
    /// Seats and floor places of every successful confirmation.
    pub confirmed_seats: Vec<String>,
    pub confirmed_floor: u64,
}

/// Creates `plan.sessions` sessions, `concurrency` at a time.
pub async fn sessions(client: &reqwest::Client, plan: &Plan) -> anyhow::Result<Vec<String>> {
    let mut tasks = Vec::new();
    for worker in 0..plan.concurrency {
        let (client, base) = (client.clone(), plan.base.clone());
        let count = plan.sessions / plan.concurrency + usize::from(worker < plan.sessions % plan.concurrency);
        tasks.push(tokio::spawn(async move {
            let mut tokens = Vec::with_capacity(count);
            for _ in 0..count {
                let body: Value = client.post(format!("{base}/api/sessions")).send().await?.json().await?;
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

/// Runs `concurrency` workers until `duration` has passed.
pub async fn run(client: &reqwest::Client, plan: &Plan, tokens: Vec<String>) -> anyhow::Result<Report> {
    let tokens = std::sync::Arc::new(tokens);
    let started = Instant::now();
    let deadline = started + plan.duration;
    let mut tasks = Vec::new();
    for worker in 0..plan.concurrency {
        let (client, plan, tokens) = (client.clone(), plan.clone(), std::sync::Arc::clone(&tokens));
        tasks.push(tokio::spawn(async move {
            let mut rng = fastrand::Rng::with_seed(worker as u64 + 1);
            let mut report = Report::default();
            let url = format!("{}/api/shows/{SHOW_ID}/holds", plan.base);
            while Instant::now() < deadline {
                let token = &tokens[rng.usize(..tokens.len())];
                let places = rng.usize(1..=2);
                let body = if rng.u8(..4) == 0 {
                    json!({"areas": {"floor": places}})
                } else {
                    let seats: Vec<String> = (0..places).map(|_| format!("S{}", rng.usize(..plan.seats))).collect();
                    if seats.len() == 2 && seats[0] == seats[1] {
                        continue;
                    }
                    json!({"seats": seats})
                };
                let sent = Instant::now();
                let response = client.post(&url).bearer_auth(token).json(&body).send().await?;
                let status = response.status().as_u16();
                let answer: Value = response.json().await?;
                report.hold_micros.push(micros(sent));
                *report.statuses.entry(status).or_default() += 1;
                if status == 201 && rng.u8(..10) < 3 {
                    let sent = Instant::now();
                    let hold = answer["holdId"].as_str().unwrap_or_default();
                    let confirm = client
                        .post(format!("{}/api/holds/{hold}/confirm", plan.base))
                        .bearer_auth(token)
                        .send()
                        .await?;
                    report.confirm_micros.push(micros(sent));
                    if confirm.status().as_u16() == 200 {
                        let confirmed: Value = confirm.json().await?;
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
        total.confirmed_seats.extend(part.confirmed_seats);
        total.confirmed_floor += part.confirmed_floor;
    }
    total.elapsed = started.elapsed();
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
    /// Prints a table and one JSON line.
    pub fn print(&self, plan: &Plan) {
        let mut holds = self.hold_micros.clone();
        holds.sort_unstable();
        let mut confirms = self.confirm_micros.clone();
        confirms.sort_unstable();
        let seconds = self.elapsed.as_secs_f64();
        let decisions = holds.len() as f64 / seconds;
        let count = |status| self.statuses.get(&status).copied().unwrap_or(0);
        println!(
            "flash sale: {} seats + {} floor places, holdSeconds 1, {} sessions, {} connections, {seconds:.1} s",
            plan.seats, plan.floor, plan.sessions, plan.concurrency
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
        println!("| confirmed seats / floor  | {:>5} / {:>3} |", self.confirmed_seats.len(), self.confirmed_floor);
        let json = serde_json::json!({
            "bench": "flash_sale", "holdDecisionsPerSecond": decisions.round(),
            "holdP50Ms": percentile(&holds, 0.5), "holdP99Ms": percentile(&holds, 0.99),
            "confirmP99Ms": percentile(&confirms, 0.99), "holds": holds.len(), "statuses": self.statuses,
            "connections": plan.concurrency, "sessions": plan.sessions, "seconds": seconds,
        });
        println!("{json}");
    }
}
