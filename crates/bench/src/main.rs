//! A flash sale against a running `seathold`: many sessions, many concurrent
//! connections, each request a hold of 1–2 random seats (or floor places),
//! 30 % of successes confirmed. Prints a table and one JSON line, then audits
//! that nothing was sold twice or beyond capacity.
//!
//! `flash-sale BASE_URL ADMIN_TOKEN [--sessions N] [--concurrency N] [--seconds N]`

mod audit;
mod load;

use std::time::Duration;

use serde_json::json;

/// What one run is asked to do.
#[derive(Debug, Clone)]
pub struct Plan {
    pub base: String,
    pub sessions: usize,
    pub concurrency: usize,
    pub duration: Duration,
    pub seats: usize,
    pub floor: u32,
}

const SHOW_ID: &str = "flash-sale";

fn parse_args() -> anyhow::Result<(Plan, String)> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [base, token, rest @ ..] = args.as_slice() else {
        anyhow::bail!("usage: flash-sale BASE_URL ADMIN_TOKEN [--sessions N] [--concurrency N] [--seconds N]")
    };
    let mut plan = Plan {
        base: base.clone(),
        sessions: 10_000,
        concurrency: 64,
        duration: Duration::from_secs(10),
        seats: 20_000,
        floor: 5_000,
    };
    for pair in rest.chunks(2) {
        let [flag, value] = pair else { anyhow::bail!("{pair:?} needs a value") };
        match flag.as_str() {
            "--sessions" => plan.sessions = value.parse()?,
            "--concurrency" => plan.concurrency = value.parse()?,
            "--seconds" => plan.duration = Duration::from_secs(value.parse()?),
            other => anyhow::bail!("unknown flag {other}"),
        }
    }
    Ok((plan, token.clone()))
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let (plan, admin_token) = parse_args()?;
    let client = reqwest::Client::builder().pool_max_idle_per_host(plan.concurrency).build()?;
    create_show(&client, &plan, &admin_token).await?;
    let tokens = load::sessions(&client, &plan).await?;
    let report = load::run(&client, &plan, tokens).await?;
    report.print(&plan);
    audit::check(&client, &plan, &report).await?;
    println!("audit: no seat sold twice, floor within capacity, the map agrees with every confirmation");
    Ok(())
}

async fn create_show(client: &reqwest::Client, plan: &Plan, admin_token: &str) -> anyhow::Result<()> {
    let seats: Vec<_> =
        (0..plan.seats).map(|n| json!({"id": format!("S{n}"), "x": n % 200 * 12, "y": n / 200 * 14})).collect();
    let show = json!({
        "id": SHOW_ID, "name": "Flash sale", "holdSeconds": 1, "maxActiveHoldsPerHolder": 2, "maxSeatsPerHold": 2,
        "seats": seats, "areas": [{"id": "floor", "name": "Floor", "capacity": plan.floor}]
    });
    let response =
        client.post(format!("{}/api/admin/shows", plan.base)).bearer_auth(admin_token).json(&show).send().await?;
    anyhow::ensure!(response.status().is_success(), "creating the show: {}", response.text().await?);
    Ok(())
}
