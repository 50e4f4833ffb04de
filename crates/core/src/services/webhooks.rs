//! Webhooks as the box office keeps them: add, list with what became of
//! their deliveries, remove, and send again from an event. Sending is the
//! delivery worker's.

use std::sync::Arc;

use seat_state::ServerMillis;

use crate::randomness::{SharedRandomness, fill};
use crate::store::{DeliveryTally, EventKind, Store, Webhook};

#[derive(Clone)]
pub struct Webhooks {
    store: Arc<dyn Store>,
    randomness: SharedRandomness,
}

/// What asking to send again from an event came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Redeliver {
    /// The event and every later one of its show will go again.
    Scheduled,
    NoWebhook,
    NoShow,
    /// The show has not got that far yet.
    NoEvent,
}

impl Webhooks {
    pub fn new(store: Arc<dyn Store>, randomness: SharedRandomness) -> Self {
        Self { store, randomness }
    }

    /// Adds a webhook (checked by the caller) with a new id: `wh_` and 96
    /// random bits in hex. It gets the events committed after now.
    pub async fn create(
        &self,
        url: String,
        secret: String,
        events: Vec<EventKind>,
        now: ServerMillis,
    ) -> anyhow::Result<Webhook> {
        let mut bytes = [0u8; 12];
        fill(&*self.randomness, &mut bytes).ok_or_else(|| anyhow::anyhow!("no randomness for a webhook id"))?;
        let webhook = Webhook { id: format!("wh_{}", hex::encode(bytes)), url, secret, events, created_at: now };
        self.store.create_webhook(&webhook).await?;
        Ok(webhook)
    }

    /// Every webhook, oldest first, with its deliveries over every show.
    pub async fn list(&self) -> anyhow::Result<Vec<(Webhook, DeliveryTally)>> {
        let mut listed = Vec::new();
        for webhook in self.store.webhooks().await? {
            let tally = self.store.delivery_tally(&webhook).await?;
            listed.push((webhook, tally));
        }
        Ok(listed)
    }

    pub async fn exists(&self, webhook_id: &str) -> anyhow::Result<bool> {
        Ok(self.store.webhooks().await?.iter().any(|webhook| webhook.id == webhook_id))
    }

    /// Removes a webhook: nothing more is sent to it. `false`: there was none.
    pub async fn delete(&self, webhook_id: &str) -> anyhow::Result<bool> {
        self.store.delete_webhook(webhook_id).await
    }

    /// Sends event `version` of a show again, and every later one.
    pub async fn redeliver(&self, webhook_id: &str, show_id: &str, version: i64) -> anyhow::Result<Redeliver> {
        if self.store.show(show_id).await?.is_none() {
            return Ok(Redeliver::NoShow);
        }
        if self.store.journal_page(show_id, version - 1, 1).await?.is_empty() {
            return Ok(Redeliver::NoEvent);
        }
        Ok(if self.store.rewind_lane(webhook_id, show_id, version - 1).await? {
            Redeliver::Scheduled
        } else {
            Redeliver::NoWebhook
        })
    }
}
