//! Webhooks and their lanes in memory, with the SQL stores' semantics.

use std::collections::BTreeMap;

use async_trait::async_trait;

use seat_state::ServerMillis;

use super::MemoryStore;
use crate::store::Transition;
use crate::store::journal::through_the_codec;
use crate::store::webhooks::{Attempt, DeliveryTally, EventKind, Lane, LaneStep, Webhook, WebhookStore};

/// Every webhook, and the lanes by (webhook id, show id).
#[derive(Default)]
pub(super) struct Hooks {
    webhooks: Vec<Webhook>,
    lanes: BTreeMap<(String, String), LaneRow>,
}

#[derive(Debug, Clone, Default)]
struct LaneRow {
    version: i64,
    attempts: u32,
    failing_since: Option<ServerMillis>,
    /// Epoch ms, as the SQL stores keep it (0: due).
    next_attempt_at: i64,
    lease: Option<(String, ServerMillis)>,
    attempts_total: u64,
    parked_total: u64,
    last: Option<Attempt>,
}

impl LaneRow {
    fn at(version: i64) -> Self {
        Self { version, ..Self::default() }
    }

    fn held_by(&self, owner: &str) -> bool {
        self.lease.as_ref().is_some_and(|(holder, _)| holder == owner)
    }
}

fn key(webhook_id: &str, show_id: &str) -> (String, String) {
    (webhook_id.to_owned(), show_id.to_owned())
}

#[async_trait]
impl WebhookStore for MemoryStore {
    async fn create_webhook(&self, webhook: &Webhook) -> anyhow::Result<()> {
        let mut inner = self.lock()?;
        let versions: Vec<(String, i64)> =
            inner.shows.iter().map(|(id, stored)| (id.clone(), stored.journal.len() as i64)).collect();
        for (show_id, version) in versions {
            inner.hooks.lanes.insert(key(&webhook.id, &show_id), LaneRow::at(version));
        }
        inner.hooks.webhooks.push(webhook.clone());
        Ok(())
    }

    async fn webhooks(&self) -> anyhow::Result<Vec<Webhook>> {
        Ok(self.lock()?.hooks.webhooks.clone())
    }

    async fn delete_webhook(&self, id: &str) -> anyhow::Result<bool> {
        let mut inner = self.lock()?;
        let hooks = &mut inner.hooks;
        let before = hooks.webhooks.len();
        hooks.webhooks.retain(|webhook| webhook.id != id);
        hooks.lanes.retain(|(webhook_id, _), _| webhook_id != id);
        Ok(hooks.webhooks.len() < before)
    }

    async fn delivery_tally(&self, webhook: &Webhook) -> anyhow::Result<DeliveryTally> {
        let inner = self.lock()?;
        let mut tally = DeliveryTally::default();
        let mut latest: Option<&Attempt> = None;
        for (show_id, stored) in &inner.shows {
            let lane = inner.hooks.lanes.get(&key(&webhook.id, show_id));
            let after = lane.map_or(0, |lane| lane.version);
            tally.pending += pending(&stored.journal, after, &webhook.events);
            if let Some(lane) = lane {
                tally.attempts += lane.attempts_total;
                tally.failed += lane.parked_total;
                if let Some(last) = &lane.last
                    && latest.is_none_or(|seen| seen.at < last.at)
                {
                    latest = Some(last);
                }
            }
        }
        if let Some(last) = latest {
            (tally.last_status, tally.last_error) = (last.status, last.error.clone());
        }
        Ok(tally)
    }

    async fn rewind_lane(&self, webhook_id: &str, show_id: &str, version: i64) -> anyhow::Result<bool> {
        let mut inner = self.lock()?;
        if !inner.hooks.webhooks.iter().any(|webhook| webhook.id == webhook_id) {
            return Ok(false);
        }
        let lane = inner.hooks.lanes.entry(key(webhook_id, show_id)).or_default();
        (lane.version, lane.attempts, lane.failing_since, lane.next_attempt_at) = (version, 0, None, 0);
        Ok(true)
    }

    async fn claim_lanes(
        &self,
        owner: &str,
        now: ServerMillis,
        lease_until: ServerMillis,
        limit: usize,
    ) -> anyhow::Result<Vec<Lane>> {
        let mut inner = self.lock()?;
        let versions: BTreeMap<String, i64> =
            inner.shows.iter().map(|(id, stored)| (id.clone(), stored.journal.len() as i64)).collect();
        let ids: Vec<String> = inner.hooks.webhooks.iter().map(|webhook| webhook.id.clone()).collect();
        let lanes = &mut inner.hooks.lanes;
        for id in &ids {
            for show_id in versions.keys() {
                lanes.entry(key(id, show_id)).or_default();
            }
        }
        let mut due: Vec<(&(String, String), &mut LaneRow)> = lanes
            .iter_mut()
            .filter(|((_, show_id), lane)| {
                versions.get(show_id).is_some_and(|version| lane.version < *version)
                    && lane.next_attempt_at <= now.0
                    && lane.lease.as_ref().is_none_or(|(_, until)| *until <= now)
            })
            .collect();
        due.sort_by_key(|(_, lane)| lane.next_attempt_at);
        Ok(due
            .into_iter()
            .take(limit)
            .map(|((webhook_id, show_id), lane)| {
                lane.lease = Some((owner.to_owned(), lease_until));
                Lane {
                    webhook_id: webhook_id.clone(),
                    show_id: show_id.clone(),
                    version: lane.version,
                    attempts: lane.attempts,
                    failing_since: lane.failing_since,
                }
            })
            .collect())
    }

    async fn step_lane(&self, lane: &Lane, owner: &str, step: &LaneStep) -> anyhow::Result<bool> {
        let mut inner = self.lock()?;
        let Some(row) = inner.hooks.lanes.get_mut(&key(&lane.webhook_id, &lane.show_id)) else { return Ok(false) };
        if !row.held_by(owner) || row.version != lane.version {
            return Ok(false);
        }
        (row.version, row.attempts, row.failing_since) = (step.version, step.attempts, step.failing_since);
        row.next_attempt_at = step.next_attempt_at.0;
        row.lease = step.lease_until.map(|until| (owner.to_owned(), until));
        row.parked_total += u64::from(step.parked);
        row.attempts_total += u64::from(step.sent);
        if let Some(attempt) = &step.attempt {
            row.last = Some(attempt.clone());
        }
        Ok(true)
    }

    async fn release_lane(&self, lane: &Lane, owner: &str) -> anyhow::Result<()> {
        let mut inner = self.lock()?;
        if let Some(row) = inner.hooks.lanes.get_mut(&key(&lane.webhook_id, &lane.show_id))
            && row.held_by(owner)
        {
            row.lease = None;
        }
        Ok(())
    }

    async fn release_leases(&self) -> anyhow::Result<()> {
        self.lock()?.hooks.lanes.values_mut().for_each(|lane| lane.lease = None);
        Ok(())
    }

    async fn journal_page(&self, show_id: &str, after: i64, limit: usize) -> anyhow::Result<Vec<Transition>> {
        let inner = self.lock()?;
        let journal = inner.shows.get(show_id).map(|stored| stored.journal.as_slice()).unwrap_or_default();
        let start = usize::try_from(after.max(0)).unwrap_or(usize::MAX).min(journal.len());
        journal[start..].iter().take(limit).map(through_the_codec).collect()
    }
}

/// Entries of `kinds` after `after` (entry `i` has version `i + 1`).
fn pending(journal: &[Transition], after: i64, kinds: &[EventKind]) -> u64 {
    let start = usize::try_from(after.max(0)).unwrap_or(usize::MAX).min(journal.len());
    journal[start..].iter().filter(|t| kinds.contains(&EventKind::of(&t.change))).count() as u64
}
