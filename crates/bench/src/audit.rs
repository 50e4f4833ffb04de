//! After the storm: nothing oversold, and every process's map agrees with
//! what the clients were told.

use std::collections::HashSet;

use serde_json::Value;

use crate::load::Report;
use crate::{Plan, SHOW_ID};

pub async fn check(client: &reqwest::Client, plan: &Plan, report: &Report) -> anyhow::Result<()> {
    let mut confirmed = HashSet::new();
    for seat in &report.confirmed_seats {
        anyhow::ensure!(confirmed.insert(seat.as_str()), "seat {seat} was confirmed to two holds");
    }
    for base in &plan.bases {
        let map: Value = client.get(format!("{base}/api/shows/{SHOW_ID}/seats")).send().await?.json().await?;
        let sold = crate::sold::sold_seats(&map);
        anyhow::ensure!(
            sold == confirmed,
            "{base}: {} seats sold on the map, {} confirmed to clients",
            sold.len(),
            confirmed.len()
        );
        let floor = &map["areas"][0];
        let floor_sold = floor["sold"].as_u64().unwrap_or(u64::MAX);
        anyhow::ensure!(
            floor_sold == report.confirmed_floor,
            "{base}: floor: {floor_sold} sold, {} confirmed",
            report.confirmed_floor
        );
        anyhow::ensure!(floor_sold <= u64::from(plan.floor), "{base}: floor oversold: {floor_sold} of {}", plan.floor);
    }
    Ok(())
}
