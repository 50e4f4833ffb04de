//! The webhook sender's storage, failing when told to: a lane step lost or
//! written with its answer lost, a journal page that cannot be read.

use async_trait::async_trait;

use seat_state::ServerMillis;

use super::{CommitFault, FaultyStore};
use crate::store::{DeliveryTally, Lane, LaneStep, Transition, Webhook, WebhookStore};

impl FaultyStore {
    fn next_lane_step_fault(&self) -> Option<CommitFault> {
        let mut faults = self.faults.lock().ok()?;
        (!faults.lane_steps.is_empty()).then(|| faults.lane_steps.remove(0))
    }

    fn next_journal_page_fails(&self) -> bool {
        self.faults.lock().is_ok_and(|mut faults| {
            let fail = faults.journal_pages > 0;
            faults.journal_pages = faults.journal_pages.saturating_sub(1);
            fail
        })
    }
}

#[async_trait]
impl WebhookStore for FaultyStore {
    async fn create_webhook(&self, webhook: &Webhook) -> anyhow::Result<()> {
        self.inner.create_webhook(webhook).await
    }

    async fn webhooks(&self) -> anyhow::Result<Vec<Webhook>> {
        self.inner.webhooks().await
    }

    async fn delete_webhook(&self, id: &str) -> anyhow::Result<bool> {
        self.inner.delete_webhook(id).await
    }

    async fn delivery_tally(&self, webhook: &Webhook) -> anyhow::Result<DeliveryTally> {
        self.inner.delivery_tally(webhook).await
    }

    async fn rewind_lane(&self, webhook_id: &str, show_id: &str, version: i64) -> anyhow::Result<bool> {
        self.inner.rewind_lane(webhook_id, show_id, version).await
    }

    async fn claim_lanes(
        &self,
        owner: &str,
        now: ServerMillis,
        lease_until: ServerMillis,
        limit: usize,
    ) -> anyhow::Result<Vec<Lane>> {
        self.inner.claim_lanes(owner, now, lease_until, limit).await
    }

    async fn step_lane(&self, lane: &Lane, owner: &str, step: &LaneStep) -> anyhow::Result<bool> {
        match self.next_lane_step_fault() {
            None => self.inner.step_lane(lane, owner, step).await,
            Some(CommitFault::Lost) => anyhow::bail!("injected fault: lane step lost"),
            Some(CommitFault::Ambiguous) => {
                self.inner.step_lane(lane, owner, step).await?;
                anyhow::bail!("injected fault: lane step written, answer lost")
            }
        }
    }

    async fn release_lane(&self, lane: &Lane, owner: &str) -> anyhow::Result<()> {
        self.inner.release_lane(lane, owner).await
    }

    async fn release_leases(&self) -> anyhow::Result<()> {
        self.inner.release_leases().await
    }

    async fn journal_page(&self, show_id: &str, after: i64, limit: usize) -> anyhow::Result<Vec<Transition>> {
        if self.next_journal_page_fails() {
            anyhow::bail!("injected fault: reading {show_id}'s journal for webhooks failed");
        }
        self.inner.journal_page(show_id, after, limit).await
    }
}
