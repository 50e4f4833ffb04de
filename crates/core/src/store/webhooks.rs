//! What the webhook sender keeps: the webhooks, and per webhook and show a
//! *lane*: how far that show's journal was delivered, the retry state of
//! the next event, a lease, and counts for the operator.
//!
//! The journal is the record of what to deliver; commits write nothing
//! here. A lane is due when its show's version is past its cursor and its
//! next attempt's time has come. A sender takes due lanes with a lease
//! (`claim_lanes`) and writes each step conditional on still holding it
//! and on the cursor it started from (`step_lane`), so with several
//! processes on one database exactly one sends each attempt, and a
//! redelivery (which moves the cursor) stops a sender in mid-lane.

use async_trait::async_trait;

use seat_state::{Change, ServerMillis};

use super::Transition;

/// A kind of committed transition a webhook may subscribe to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EventKind {
    Held,
    Extended,
    Confirmed,
    Released,
    Expired,
    Blocked,
    Unblocked,
}

impl EventKind {
    pub const ALL: [Self; 7] =
        [Self::Held, Self::Extended, Self::Confirmed, Self::Released, Self::Expired, Self::Blocked, Self::Unblocked];

    /// The kind's name in the API (a delivery's `kind`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Held => "held",
            Self::Extended => "extended",
            Self::Confirmed => "confirmed",
            Self::Released => "released",
            Self::Expired => "expired",
            Self::Blocked => "blocked",
            Self::Unblocked => "unblocked",
        }
    }

    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|kind| kind.name() == name)
    }

    /// The kind of a journal entry (a hold's creation is `held`; a release
    /// by the holder or the operator is `released`).
    pub fn of(change: &Change) -> Self {
        match change {
            Change::Created { .. } => Self::Held,
            Change::Extended { .. } => Self::Extended,
            Change::Confirmed { .. } => Self::Confirmed,
            Change::Released { .. } => Self::Released,
            Change::Expired { .. } => Self::Expired,
            Change::Blocked { .. } => Self::Blocked,
            Change::Unblocked { .. } => Self::Unblocked,
        }
    }

    /// The journal row's `action` for this kind.
    pub(super) fn action(self) -> &'static str {
        match self {
            Self::Held => "created",
            other => other.name(),
        }
    }

    /// The names of `kinds`, as stored (a JSON array).
    pub(super) fn encode(kinds: &[Self]) -> String {
        serde_json::to_string(&kinds.iter().map(|kind| kind.name()).collect::<Vec<_>>()).unwrap_or_default()
    }

    pub(super) fn decode(json: &str) -> anyhow::Result<Vec<Self>> {
        let names: Vec<String> = serde_json::from_str(json)?;
        names
            .iter()
            .map(|name| Self::parse(name).ok_or_else(|| anyhow::anyhow!("unknown webhook event kind {name:?}")))
            .collect()
    }
}

/// A webhook as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Webhook {
    pub id: String,
    pub url: String,
    /// The signing key; the API never shows it again.
    pub secret: String,
    /// The kinds delivered, in the order they were given.
    pub events: Vec<EventKind>,
    pub created_at: ServerMillis,
}

/// A webhook's deliveries over every show (API.md's `deliveries`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeliveryTally {
    pub pending: u64,
    pub failed: u64,
    pub attempts: u64,
    pub last_status: Option<u16>,
    pub last_error: Option<String>,
}

/// One webhook's deliveries of one show, as a sender claimed it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lane {
    pub webhook_id: String,
    pub show_id: String,
    /// Every event up to this version was acknowledged, parked or skipped
    /// (not of the webhook's kinds).
    pub version: i64,
    /// Failed attempts at the event after `version`.
    pub attempts: u32,
    /// When the first of those failed.
    pub failing_since: Option<ServerMillis>,
}

/// One attempt's result, for the operator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attempt {
    pub at: ServerMillis,
    /// The receiver's HTTP status; `None` when it gave none.
    pub status: Option<u16>,
    /// Why it failed; `None` when acknowledged.
    pub error: Option<String>,
}

/// What a sender writes after one or more steps of a lane.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaneStep {
    /// The lane's new cursor.
    pub version: i64,
    pub attempts: u32,
    pub failing_since: Option<ServerMillis>,
    /// The lane is not due before then.
    pub next_attempt_at: ServerMillis,
    /// The latest attempt these steps made, if any: shown as the latest.
    pub attempt: Option<Attempt>,
    /// How many attempts they made (counted in `attempts`).
    pub sent: u32,
    /// How many events they parked (counted in `failed`).
    pub parked: u32,
    /// `Some`: the sender goes on and keeps the lease until then; `None`:
    /// it lets the lane go.
    pub lease_until: Option<ServerMillis>,
}

/// Webhooks and their lanes, beside the journal they deliver.
#[async_trait]
pub trait WebhookStore: Send + Sync {
    /// Adds a webhook. It gets the events committed after it: its lane of
    /// every show there is starts at the show's version now (a show made
    /// later starts at 0).
    async fn create_webhook(&self, webhook: &Webhook) -> anyhow::Result<()>;
    /// Every webhook, oldest first.
    async fn webhooks(&self) -> anyhow::Result<Vec<Webhook>>;
    /// Removes a webhook and its lanes; `false` when there was none.
    async fn delete_webhook(&self, id: &str) -> anyhow::Result<bool>;
    /// A webhook's deliveries over every show (a show without a lane yet
    /// counts from version 0).
    async fn delivery_tally(&self, webhook: &Webhook) -> anyhow::Result<DeliveryTally>;
    /// Moves the webhook's lane of a show back (or forward) to `version`,
    /// due at once with no failures; `false` when there is no such webhook.
    async fn rewind_lane(&self, webhook_id: &str, show_id: &str, version: i64) -> anyhow::Result<bool>;
    /// Takes up to `limit` due lanes (making the missing ones first) that
    /// nobody holds at `now`, leased to `owner` until `lease_until`.
    async fn claim_lanes(
        &self,
        owner: &str,
        now: ServerMillis,
        lease_until: ServerMillis,
        limit: usize,
    ) -> anyhow::Result<Vec<Lane>>;
    /// Writes a step if `owner` still holds the lane and its cursor is still
    /// `lane.version`; `false` (nothing written) otherwise: the lane was
    /// rewound, deleted, or taken over after its lease ran out.
    async fn step_lane(&self, lane: &Lane, owner: &str, step: &LaneStep) -> anyhow::Result<bool>;
    /// Lets a lane go if `owner` holds it.
    async fn release_lane(&self, lane: &Lane, owner: &str) -> anyhow::Result<()>;
    /// Ends every lease: for a store only this process uses, whose leases
    /// from an earlier run are void.
    async fn release_leases(&self) -> anyhow::Result<()>;
    /// Up to `limit` journal entries of a show after `after`, oldest first.
    async fn journal_page(&self, show_id: &str, after: i64, limit: usize) -> anyhow::Result<Vec<Transition>>;
}

/// Implements [`WebhookStore`] for a store that wraps another (`$inner`).
#[cfg(feature = "testkit")]
macro_rules! delegate_webhook_store {
    ($store:ty, $inner:ident) => {
        #[async_trait::async_trait]
        impl $crate::store::WebhookStore for $store {
            async fn create_webhook(&self, webhook: &$crate::store::Webhook) -> anyhow::Result<()> {
                self.$inner.create_webhook(webhook).await
            }
            async fn webhooks(&self) -> anyhow::Result<Vec<$crate::store::Webhook>> {
                self.$inner.webhooks().await
            }
            async fn delete_webhook(&self, id: &str) -> anyhow::Result<bool> {
                self.$inner.delete_webhook(id).await
            }
            async fn delivery_tally(
                &self,
                webhook: &$crate::store::Webhook,
            ) -> anyhow::Result<$crate::store::DeliveryTally> {
                self.$inner.delivery_tally(webhook).await
            }
            async fn rewind_lane(&self, webhook_id: &str, show_id: &str, version: i64) -> anyhow::Result<bool> {
                self.$inner.rewind_lane(webhook_id, show_id, version).await
            }
            async fn claim_lanes(
                &self,
                owner: &str,
                now: seat_state::ServerMillis,
                lease_until: seat_state::ServerMillis,
                limit: usize,
            ) -> anyhow::Result<Vec<$crate::store::Lane>> {
                self.$inner.claim_lanes(owner, now, lease_until, limit).await
            }
            async fn step_lane(
                &self,
                lane: &$crate::store::Lane,
                owner: &str,
                step: &$crate::store::LaneStep,
            ) -> anyhow::Result<bool> {
                self.$inner.step_lane(lane, owner, step).await
            }
            async fn release_lane(&self, lane: &$crate::store::Lane, owner: &str) -> anyhow::Result<()> {
                self.$inner.release_lane(lane, owner).await
            }
            async fn release_leases(&self) -> anyhow::Result<()> {
                self.$inner.release_leases().await
            }
            async fn journal_page(
                &self,
                show_id: &str,
                after: i64,
                limit: usize,
            ) -> anyhow::Result<Vec<$crate::store::Transition>> {
                self.$inner.journal_page(show_id, after, limit).await
            }
        }
    };
}
#[cfg(feature = "testkit")]
pub(super) use delegate_webhook_store;
