//! Webhooks in the simulated world: one subscribed to every kind and one
//! to settlements only, through the admin API; the servers' real senders
//! posting to the flaky receiver, storage faults planned in the middle of deliveries, the checks after
//! every step, and at the end a healed receiver and enough time for every
//! committed transition to be acknowledged.

use axum::body::Body;
use axum::http::{Request, StatusCode};
use serde_json::json;

use seathold_core::store::CommitFault;

use crate::delivery_check::SUBSCRIPTIONS;
use crate::driver::Sim;
use crate::world::{ADMIN_TOKEN, World};
use crate::{Failure, SETTLE};

/// Rounds at the end, each moving the clock past the longest wait between
/// retries (10 minutes) and any lease (30 s)…
const DRAIN_ROUNDS: usize = 6;
const DRAIN_STEP_MS: i64 = 11 * 60 * 1000;
/// …then letting the senders run this many settles (a hung attempt takes
/// the senders' timeout to give up).
const DRAIN_SETTLES: usize = 12;

/// Adds the webhooks, as the box office would, before any transition.
pub async fn subscribe(world: &World) -> anyhow::Result<()> {
    for webhook in &SUBSCRIPTIONS {
        let body = json!({"url": webhook.url, "secret": webhook.secret, "events": webhook.kinds});
        let request = Request::post("/api/admin/webhooks")
            .header("authorization", format!("Bearer {ADMIN_TOKEN}"))
            .header("content-type", "application/json")
            .body(Body::from(body.to_string()))?;
        let answer = World::send(world.apps[0].router.clone(), request).await;
        anyhow::ensure!(answer.status == StatusCode::CREATED, "adding the webhook {}: {answer:?}", webhook.url);
    }
    Ok(())
}

impl Sim {
    /// Checks what the receiver got since the last step against the journal.
    pub async fn check_webhooks(&mut self) -> Result<(), Box<Failure>> {
        for show in self.oracle.shows.keys().cloned().collect::<Vec<_>>() {
            let after = self.deliveries.known_version(&show);
            let entries = self.world.truth.journal(&show, after).await.map_err(|e| self.fail(format!("{e:#}")))?;
            self.deliveries.add_entries(&show, entries);
        }
        let receipts = self.world.receiver.receipts_from(self.deliveries.checked());
        for receipt in &receipts {
            let body: serde_json::Value = serde_json::from_slice(&receipt.body).unwrap_or_default();
            self.note(format!("webhook receives {} ({:?})", body["id"], receipt.answer));
        }
        self.deliveries.check(receipts).map_err(|why| self.fail(why))
    }

    /// With a storage fault, one for the senders too: a lane's step lost,
    /// written with its answer lost, or journal pages that cannot be read.
    pub fn plan_webhook_fault(&mut self) {
        let faulty = &self.world.faulty;
        let line = match self.world.receiver.roll(3) {
            0 => {
                faulty.fail_lane_step(CommitFault::Lost);
                "next webhook lane step fails: Lost".to_owned()
            }
            1 => {
                faulty.fail_lane_step(CommitFault::Ambiguous);
                "next webhook lane step fails: Ambiguous".to_owned()
            }
            _ => {
                let pages = 1 + self.world.receiver.roll(2) as usize;
                faulty.fail_journal_pages(pages);
                format!("next {pages} webhook journal pages fail")
            }
        };
        self.note(line);
    }

    /// The receiver heals; time passes until every committed transition was
    /// acknowledged and the senders know it (an acknowledgement whose step
    /// was lost goes again), or the rounds run out. None is parked.
    pub async fn drain_webhooks(&mut self) -> Result<(), Box<Failure>> {
        self.world.receiver.heal();
        self.note("the webhook receiver heals".to_owned());
        for _ in 0..DRAIN_ROUNDS {
            self.check_webhooks().await?;
            let counts = self.webhook_counts().await;
            let sent = counts.is_some_and(|counts| counts.iter().all(|count| count["pending"] == 0));
            if self.deliveries.unacknowledged().is_none() && sent {
                break;
            }
            self.world.clock.advance(DRAIN_STEP_MS);
            for _ in 0..DRAIN_SETTLES {
                tokio::time::sleep(SETTLE).await;
            }
        }
        self.check_webhooks().await?;
        if let Some(event) = self.deliveries.unacknowledged() {
            return Err(self.fail(format!("webhook event {event} was never acknowledged")));
        }
        let Some(every) = self.webhook_counts().await else {
            return Err(self.fail("the box office could not list both webhooks".to_owned()));
        };
        for counts in every {
            if counts["pending"] != 0 || counts["failed"] != 0 {
                return Err(self.fail(format!("every event was acknowledged, yet a webhook shows {counts}")));
            }
        }
        (self.report.webhook_posts, self.report.webhook_refused) = self.world.receiver.counts();
        [self.report.webhook_events, self.report.settlement_events] = self.deliveries.acknowledged_counts();
        Ok(())
    }

    /// Each webhook's `deliveries`, as the box office sees them; `None` when
    /// the list does not have both (a storage fault).
    async fn webhook_counts(&self) -> Option<Vec<serde_json::Value>> {
        let request = Request::get("/api/admin/webhooks")
            .header("authorization", format!("Bearer {ADMIN_TOKEN}"))
            .body(Body::empty())
            .unwrap_or_default();
        let answer = World::send(self.world.apps[0].router.clone(), request).await;
        let webhooks = answer.body["webhooks"].as_array()?;
        let counts = webhooks.iter().map(|webhook| webhook["deliveries"].clone());
        Some(counts.collect::<Vec<_>>()).filter(|counts| counts.len() == SUBSCRIPTIONS.len())
    }
}
