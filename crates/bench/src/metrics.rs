//! The servers' own counters (`GET /metrics` of every process, summed): the
//! expiries the sweeps recorded, group commits, journal catch-up, the
//! waiting rooms' writer batches and draws.

use crate::Plan;

/// Counters summed over every process.
#[derive(Debug, Default, Clone, Copy)]
pub struct Counters {
    pub created: f64,
    pub confirmed: f64,
    pub expired: f64,
    pub conflicts: f64,
    /// Journal entries one process applied from another's commits.
    pub caught_up: f64,
    /// Group commits, the transitions they wrote and the seconds they took.
    pub commits: f64,
    pub committed_transitions: f64,
    pub commit_seconds: f64,
    /// Seconds the show writers spent per stage: decide, write, flush, publish.
    pub stages: [f64; 4],
    /// Queue writer batches and the seconds they took; of them, the draws.
    pub queue_batches: f64,
    pub queue_batch_seconds: f64,
    pub draws: f64,
    pub draw_seconds: f64,
}

/// The writer's stages, as `seathold_writer_stage_seconds` labels them.
pub const STAGES: [&str; 4] = ["decide", "write", "flush", "publish"];

impl Counters {
    /// What happened between `before` and `self`.
    pub fn since(&self, before: &Self) -> Self {
        Self {
            created: self.created - before.created,
            confirmed: self.confirmed - before.confirmed,
            expired: self.expired - before.expired,
            conflicts: self.conflicts - before.conflicts,
            caught_up: self.caught_up - before.caught_up,
            commits: self.commits - before.commits,
            committed_transitions: self.committed_transitions - before.committed_transitions,
            commit_seconds: self.commit_seconds - before.commit_seconds,
            stages: std::array::from_fn(|i| self.stages[i] - before.stages[i]),
            queue_batches: self.queue_batches - before.queue_batches,
            queue_batch_seconds: self.queue_batch_seconds - before.queue_batch_seconds,
            draws: self.draws - before.draws,
            draw_seconds: self.draw_seconds - before.draw_seconds,
        }
    }
}

/// Reads `/metrics` on every process and adds them up.
pub async fn scrape(client: &reqwest::Client, plan: &Plan) -> anyhow::Result<Counters> {
    let mut total = Counters::default();
    for base in &plan.bases {
        let text = client.get(format!("{base}/metrics")).send().await?.error_for_status()?.text().await?;
        let value = |name: &str| -> f64 {
            text.lines().filter_map(|line| line.strip_prefix(name)?.strip_prefix(' ')?.trim().parse::<f64>().ok()).sum()
        };
        total.created += value("seathold_holds_created_total");
        total.confirmed += value("seathold_holds_confirmed_total");
        total.expired += value("seathold_holds_expired_total");
        total.conflicts += value("seathold_hold_conflicts_total");
        total.caught_up += value("seathold_journal_caught_up_total");
        total.commits += value("seathold_commit_batch_size_count");
        total.committed_transitions += value("seathold_commit_batch_size_sum");
        total.commit_seconds += value("seathold_commit_duration_seconds_sum");
        total.queue_batches += value("seathold_queue_batch_duration_seconds_count");
        total.queue_batch_seconds += value("seathold_queue_batch_duration_seconds_sum");
        total.draws += value("seathold_queue_draw_duration_seconds_count");
        total.draw_seconds += value("seathold_queue_draw_duration_seconds_sum");
        for (sum, stage) in total.stages.iter_mut().zip(STAGES) {
            *sum += value(&format!("seathold_writer_stage_seconds_total{{stage=\"{stage}\"}}"));
        }
    }
    Ok(total)
}
