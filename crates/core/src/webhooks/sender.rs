//! The sender: a task that takes due lanes from the store (leased to this
//! process) and works each on a task of its own, one event at a time in
//! version order, so a slow or failing receiver holds up only its own
//! lane, never a show's writer or another webhook.

use std::sync::Arc;
use std::time::Duration;

use tokio::task::JoinSet;
// The runtime's instant, not the OS's: under a paused clock (the simulator)
// steps are folded on the clock every other timer follows.
use tokio::time::Instant;

use seat_state::ServerMillis;

use super::metrics::WebhookMetrics;
use super::payload::PlacesCache;
use super::transport::Transport;
use super::{WebhookSettings, retry, sign};
use crate::clock::SharedClock;
use crate::randomness::SharedRandomness;
use crate::store::{Attempt, EventKind, Lane, LaneStep, Store, Transition, Webhook};

/// Lanes worked at once by one process.
const LANES: usize = 16;
/// Journal entries read at a time by a lane.
const PAGE: usize = 256;
/// The longest `lastError` kept, whatever the transport says.
const ERROR_CHARS: usize = 300;
/// Steps are written together after this many attempts…
const FOLD_STEPS: u32 = 64;
/// …or this long after the first of them.
const FOLD_FOR: Duration = Duration::from_millis(200);

pub(super) struct Sender {
    pub(super) store: Arc<dyn Store>,
    pub(super) clock: SharedClock,
    pub(super) metrics: Arc<WebhookMetrics>,
    pub(super) settings: WebhookSettings,
    pub(super) transport: Arc<dyn Transport>,
    /// Where retries' jitter comes from.
    pub(super) randomness: SharedRandomness,
    /// This sender's name on its leases.
    pub(super) owner: String,
    pub(super) places: PlacesCache,
}

/// A lane as its sender works it: as stored (the condition of the next
/// write), and the steps taken since that are not written yet.
struct Working {
    lane: Lane,
    ahead: Option<LaneStep>,
    /// When the first step not written was taken.
    since: Instant,
}

impl Working {
    fn version(&self) -> i64 {
        self.ahead.as_ref().map_or(self.lane.version, |step| step.version)
    }

    fn attempts(&self) -> u32 {
        self.ahead.as_ref().map_or(self.lane.attempts, |step| step.attempts)
    }

    fn failing_since(&self) -> Option<ServerMillis> {
        self.ahead.as_ref().map_or(self.lane.failing_since, |step| step.failing_since)
    }
}

/// What one attempt came to.
enum Sent {
    /// Acknowledged: the lane goes on.
    Next,
    /// The lane stops here (a retry is due later, or the lane was lost).
    Stop,
}

impl Sender {
    /// Claims and works lanes until the task is dropped.
    pub(super) async fn run(self: Arc<Self>) {
        // One process owns a store it does not share: leases an earlier run
        // left are void.
        if !self.store.shared()
            && let Err(error) = self.store.release_leases().await
        {
            tracing::warn!(error = %format!("{error:#}"), "cannot end earlier webhook leases");
        }
        let mut lanes = JoinSet::new();
        loop {
            while let Some(done) = lanes.try_join_next() {
                if let Err(error) = done {
                    tracing::error!(%error, "a webhook lane's task failed");
                }
            }
            let room = LANES.saturating_sub(lanes.len());
            if room > 0 {
                match self.claim(room).await {
                    Ok(claimed) => {
                        for (webhook, lane) in claimed {
                            lanes.spawn(Arc::clone(&self).work(webhook, lane));
                        }
                    }
                    Err(error) => tracing::warn!(error = %format!("{error:#}"), "claiming webhook lanes failed"),
                }
            }
            // A lane that ends may leave more to do: claim again at once.
            tokio::select! {
                () = tokio::time::sleep(self.settings.poll) => {}
                Some(_) = lanes.join_next(), if !lanes.is_empty() => {}
            }
        }
    }

    /// How long a lease lasts: beyond any one attempt.
    fn lease(&self) -> i64 {
        millis((self.settings.timeout * 3).max(Duration::from_secs(30)))
    }

    /// Due lanes with their webhooks (none without a webhook: no claim).
    async fn claim(&self, room: usize) -> anyhow::Result<Vec<(Arc<Webhook>, Lane)>> {
        let webhooks = self.store.webhooks().await?;
        if webhooks.is_empty() {
            return Ok(Vec::new());
        }
        let now = self.clock.now();
        let lanes = self.store.claim_lanes(&self.owner, now, ServerMillis(now.0 + self.lease()), room).await?;
        let webhooks: Vec<Arc<Webhook>> = webhooks.into_iter().map(Arc::new).collect();
        let mut claimed = Vec::with_capacity(lanes.len());
        for lane in lanes {
            match webhooks.iter().find(|webhook| webhook.id == lane.webhook_id) {
                Some(webhook) => claimed.push((Arc::clone(webhook), lane)),
                // Made after the list was read: the next round takes it.
                None => self.store.release_lane(&lane, &self.owner).await?,
            }
        }
        Ok(claimed)
    }

    /// Works a lane until it is caught up, a retry is due later, or it is
    /// lost; then writes what is not written yet and lets it go.
    async fn work(self: Arc<Self>, webhook: Arc<Webhook>, lane: Lane) {
        let mut working = Working { lane, ahead: None, since: Instant::now() };
        let worked = self.deliver(&webhook, &mut working).await;
        let written = self.flush(&mut working).await;
        if let Err(error) = worked.and(written) {
            tracing::warn!(webhook = %webhook.id, show = %working.lane.show_id, error = %format!("{error:#}"), "webhook lane stopped");
        }
        if let Err(error) = self.store.release_lane(&working.lane, &self.owner).await {
            tracing::warn!(webhook = %webhook.id, show = %working.lane.show_id, error = %format!("{error:#}"), "releasing a webhook lane failed");
        }
    }

    async fn deliver(&self, webhook: &Webhook, working: &mut Working) -> anyhow::Result<()> {
        loop {
            let page = self.store.journal_page(&working.lane.show_id, working.version(), PAGE).await?;
            let Some(last) = page.last().map(|entry| entry.version) else { return Ok(()) };
            for entry in page.iter().filter(|entry| webhook.events.contains(&EventKind::of(&entry.change))) {
                if let Sent::Stop = self.attempt(webhook, working, entry).await? {
                    return Ok(());
                }
            }
            // The rest of the page is of other kinds: the cursor passes it.
            if working.version() < last {
                let step = LaneStep {
                    version: last,
                    attempts: working.attempts(),
                    failing_since: working.failing_since(),
                    next_attempt_at: ServerMillis(0),
                    attempt: None,
                    sent: 0,
                    parked: 0,
                    lease_until: Some(ServerMillis(self.clock.now().0 + self.lease())),
                };
                if !self.fold(working, step).await? {
                    return Ok(());
                }
            }
        }
    }

    /// Sends one event once and takes the step that came of it.
    async fn attempt(&self, webhook: &Webhook, working: &mut Working, entry: &Transition) -> anyhow::Result<Sent> {
        let body = self.places.body(self.store.as_ref(), &working.lane.show_id, entry).await?;
        let started = self.clock.now();
        let (status, error) = self.post(webhook, body, started).await;
        let now = self.clock.now();
        let attempt = Some(Attempt { at: now, status, error: error.clone() });
        let lease_until = Some(ServerMillis(now.0 + self.lease()));
        let done = |parked| LaneStep {
            version: entry.version,
            attempts: 0,
            failing_since: None,
            next_attempt_at: ServerMillis(0),
            attempt: attempt.clone(),
            sent: 1,
            parked,
            lease_until,
        };
        let webhooks = &self.metrics;
        if error.is_none() {
            webhooks.sent.inc();
            webhooks.lag.observe((now.0 - entry.at.0).max(0) as f64 / 1000.0);
            return Ok(if self.fold(working, done(0)).await? { Sent::Next } else { Sent::Stop });
        }
        webhooks.failed.inc();
        let since = working.failing_since().unwrap_or(started);
        let attempts = working.attempts().saturating_add(1);
        let next = now.0
            + millis(retry::delay(attempts, self.settings.first_retry, retry::random_unit(self.randomness.as_ref())));
        if retry::parks(since.0, next, self.settings.give_up) {
            webhooks.parked.inc();
            tracing::warn!(webhook = %webhook.id, show = %working.lane.show_id, version = entry.version, "webhook event parked");
            return Ok(if self.fold(working, done(1)).await? { Sent::Next } else { Sent::Stop });
        }
        let retry = LaneStep {
            version: entry.version - 1,
            attempts,
            failing_since: Some(since),
            next_attempt_at: ServerMillis(next),
            attempt,
            sent: 1,
            parked: 0,
            lease_until: None,
        };
        self.fold(working, retry).await?;
        self.flush(working).await?;
        Ok(Sent::Stop)
    }

    /// Takes a step, written with the ones before it once [`FOLD_STEPS`]
    /// attempts or [`FOLD_FOR`] have gone by: a sale's stream of
    /// acknowledgements costs a write now and then, not one each. `false`
    /// when the lane is no longer this sender's.
    async fn fold(&self, working: &mut Working, step: LaneStep) -> anyhow::Result<bool> {
        let merged = match working.ahead.take() {
            None => {
                working.since = Instant::now();
                step
            }
            Some(before) => LaneStep {
                sent: before.sent + step.sent,
                parked: before.parked + step.parked,
                attempt: step.attempt.or(before.attempt),
                ..step
            },
        };
        let due = merged.sent >= FOLD_STEPS || working.since.elapsed() >= FOLD_FOR;
        working.ahead = Some(merged);
        if due { self.flush(working).await } else { Ok(true) }
    }

    /// Writes the steps taken and not written; `false` when the lane is no
    /// longer this sender's (rewound, deleted, or taken over).
    async fn flush(&self, working: &mut Working) -> anyhow::Result<bool> {
        let Some(step) = working.ahead.take() else { return Ok(true) };
        let lane = &mut working.lane;
        if !self.store.step_lane(lane, &self.owner, &step).await? {
            return Ok(false);
        }
        (lane.version, lane.attempts, lane.failing_since) = (step.version, step.attempts, step.failing_since);
        Ok(true)
    }

    /// POSTs a body, signed at `now`, for at most the timeout: the status,
    /// and why it was not an acknowledgement (`None` for a 2xx).
    async fn post(&self, webhook: &Webhook, body: Vec<u8>, now: ServerMillis) -> (Option<u16>, Option<String>) {
        let signature = sign::signature(&webhook.secret, now.0.div_euclid(1000), &body);
        let sent = tokio::time::timeout(self.settings.timeout, self.transport.post(&webhook.url, &signature, body));
        match sent.await {
            Ok(Ok(status)) if (200..300).contains(&status) => (Some(status), None),
            Ok(Ok(status)) => (Some(status), Some(format!("answered {}", self.transport.status_text(status)))),
            Ok(Err(error)) => (None, Some(error.chars().take(ERROR_CHARS).collect())),
            Err(_) => (None, Some(format!("no answer within {}", humantime::format_duration(self.settings.timeout)))),
        }
    }
}

fn millis(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
}
