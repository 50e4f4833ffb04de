//! A show's writer: the one task that changes a show. It takes queued
//! requests in batches, reads the clock once per batch and decides the whole
//! batch at that instant (never earlier than any instant it decided before),
//! commits the batch in one transaction (group commit) and only then answers.
//!
//! A batch is answered only once it is on disk, but the writer does not wait
//! idle for the disk: while one batch is being flushed it decides and writes
//! the next (at most one in flight), and the store's next flush covers both.
//! Reads are answered only when nothing is in flight, so nobody is shown a
//! decision that a crash could still take back.
//!
//! When a commit fails, the in-memory state holds decisions that are not
//! durable, so the writer rebuilds it from storage before anything else; if
//! that fails too, the show answers `Unavailable` until a reload works.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Instant;

use tokio::sync::mpsc;

use seat_state::{Change, HoldId, HoldStatus, SeatScope, ServerMillis, ShowState};

use crate::clock::SharedClock;
use crate::metrics::{Metrics, Stage};
use crate::store::{Checkpoint, CommitError, Durable, Store};

use super::commands::{Command, Decided as Answer, OperatorView, Read, Write};
use super::decide::{Decided, Outcome};
use super::error::EngineError;
use super::events::{EventHub, Live, SharedSink, Ticks};
use super::index::HoldIndex;
use super::retain::{self, Retention, Settled};
use super::view::{MapView, Patch};

/// Most requests decided and committed together.
const MAX_BATCH: usize = 512;

/// The writer task's state.
pub struct ShowActor {
    pub(super) show_id: Arc<str>,
    pub(super) state: ShowState,
    pub(super) store: Arc<dyn Store>,
    pub(super) metrics: Arc<Metrics>,
    pub(super) index: Arc<HoldIndex>,
    clock: SharedClock,
    events: EventHub,
    /// The map as of what is durable, published to readers after each batch.
    view: MapView,
    /// The latest instant this writer decided at (or found in the journal).
    pub(super) latest: ServerMillis,
    /// The state may hold uncommitted decisions: answer nothing from it.
    broken: bool,
    /// A batch written, not yet on disk, not yet answered.
    in_flight: Option<InFlight>,
    pub(super) retention: Retention,
    /// Settled holds waiting to leave memory, and the last checkpoint.
    pub(super) settled: Settled,
}

/// A written batch waiting for its flush.
struct InFlight {
    decided: Decided,
    writes: Vec<Write>,
    durable: Durable,
    /// When its batch began, for the commit-time metric.
    started: Instant,
    /// When its write returned, for the flush stage.
    written: Instant,
    /// The state as this batch left it, to save once it is durable.
    checkpoint: Option<Checkpoint>,
}

/// Adds queued writes to a batch (queued reads are kept for after it).
type TopUp<'a> = dyn FnMut(&mut Vec<Write>) + Send + 'a;

/// What woke the writer.
enum Wake {
    /// The batch in flight is on disk (or the flush failed).
    Flushed(Result<(), CommitError>),
    /// Commands arrived (`0`: every handle is gone).
    Commands(usize),
}

impl ShowActor {
    /// A writer over a show's stored holds (already in the index).
    pub fn new(
        state: ShowState,
        loaded_latest: Option<ServerMillis>,
        (retention, (ticks, sink), from_checkpoint): (Retention, (Ticks, SharedSink), i64),
        store: Arc<dyn Store>,
        metrics: Arc<Metrics>,
        index: Arc<HoldIndex>,
        clock: SharedClock,
    ) -> Self {
        let latest = loaded_latest.unwrap_or(ServerMillis(i64::MIN));
        let settled = settled_of(&state, latest, from_checkpoint);
        let view = MapView::of(&state, latest);
        let show_id: Arc<str> = Arc::from(state.show().id.as_str());
        let mut actor = Self {
            events: EventHub::start(view.clone(), ticks, Arc::clone(&show_id), sink),
            view,
            show_id,
            latest,
            retention,
            settled,
            state,
            store,
            metrics,
            index,
            clock,
            broken: false,
            in_flight: None,
        };
        actor.after_load();
        actor
    }

    /// What readers share: the published map and the live frames.
    pub fn live(&self) -> Arc<Live> {
        self.events.live()
    }

    /// Serves commands until every handle is dropped.
    pub async fn run(mut self, mut commands: mpsc::Receiver<Command>) {
        let mut batch = Vec::with_capacity(MAX_BATCH);
        loop {
            let wake = match self.in_flight.as_mut() {
                None => Wake::Commands(commands.recv_many(&mut batch, MAX_BATCH).await),
                // `recv_many` is cancel-safe: nothing is lost when the flush wins.
                Some(in_flight) => tokio::select! {
                    biased;
                    flushed = &mut in_flight.durable => Wake::Flushed(flushed),
                    received = commands.recv_many(&mut batch, MAX_BATCH) => Wake::Commands(received),
                },
            };
            match wake {
                Wake::Flushed(flushed) => self.land(flushed),
                Wake::Commands(0) => return self.settle().await,
                Wake::Commands(_) => self.serve(&mut batch, &mut commands).await,
            }
        }
    }

    async fn serve(&mut self, batch: &mut Vec<Command>, commands: &mut mpsc::Receiver<Command>) {
        let (mut writes, mut reads, mut refresh) = (Vec::new(), Vec::new(), false);
        for command in batch.drain(..) {
            match command {
                Command::Write(write) => writes.push(write),
                Command::Read(read) => reads.push(read),
                Command::Refresh => refresh = true,
            }
        }
        if self.broken && self.reload().await.is_err() {
            writes.into_iter().for_each(|write| write.fail(|| EngineError::Unavailable));
            reads.into_iter().for_each(|read| read.fail(EngineError::Unavailable));
            return;
        }
        if !writes.is_empty() {
            // What queued while the show's lock was awaited joins the batch.
            let mut top_up = |writes: &mut Vec<Write>| {
                while writes.len() < MAX_BATCH {
                    match commands.try_recv() {
                        Ok(Command::Write(write)) => writes.push(write),
                        Ok(Command::Read(read)) => reads.push(read),
                        // The batch has just caught up under the lock.
                        Ok(Command::Refresh) => {}
                        Err(_) => break,
                    }
                }
            };
            self.write(writes, &mut top_up).await;
        } else if (!reads.is_empty() || (refresh && self.events.watched()))
            && self.store.shared()
            && self.refresh().await.is_err()
        {
            // Another process may have written: a read answers what is stored, or nothing.
            reads.into_iter().for_each(|read| read.fail(EngineError::Unavailable));
            return;
        }
        if !reads.is_empty() {
            // Reads see only what is on disk.
            self.settle().await;
            if let Err(error) = self.recall(retain::named_by_reads(&reads)).await {
                tracing::warn!(show = %self.show_id, %error, "recalling holds for reads failed");
                return reads.into_iter().for_each(|read| read.fail(EngineError::Unavailable));
            }
        }
        for read in reads {
            self.read(read);
        }
    }

    /// Waits for the batch in flight, if any, and answers it.
    async fn settle(&mut self) {
        if let Some(in_flight) = self.in_flight.as_mut() {
            let flushed = (&mut in_flight.durable).await;
            self.land(flushed);
        }
    }

    /// The batch in flight is on disk: answer it. If the disk refused it,
    /// the decisions after it were made on top of it and acknowledged
    /// nothing yet, but nothing read from storage can be trusted to say
    /// what is on disk: the process stops and a restart recovers from the
    /// disk itself (what PostgreSQL does when a flush fails).
    fn land(&mut self, flushed: Result<(), CommitError>) {
        let Some(InFlight { decided, writes, started, written, checkpoint, .. }) = self.in_flight.take() else {
            return;
        };
        if let Err(error) = flushed {
            tracing::error!(show = %self.show_id, %error, "flushing a written batch failed; stopping");
            std::process::abort();
        }
        self.metrics.stage(Stage::Flush, written);
        if !decided.transitions.is_empty() {
            self.metrics.commit_batch.observe(decided.transitions.len() as f64);
            self.metrics.commit_seconds.observe(started.elapsed().as_secs_f64());
        }
        self.publish(decided, writes);
        if let Some(checkpoint) = checkpoint {
            self.save_checkpoint(checkpoint);
        }
    }

    /// This process's clock (only for what decides nothing, such as when
    /// settled holds leave memory).
    pub(super) fn clock_now(&self) -> ServerMillis {
        self.clock.now()
    }

    /// The instant a batch is decided at: the store's clock when it has one
    /// (the database's, shared by every process), else this process's; never
    /// before the latest instant decided, so time never runs backwards for a show.
    fn instant(&mut self, store_now: Option<ServerMillis>) -> ServerMillis {
        self.latest = store_now.unwrap_or_else(|| self.clock.now()).max(self.latest);
        self.latest
    }

    async fn write(&mut self, mut writes: Vec<Write>, top_up: &mut TopUp<'_>) {
        if self.store.shared() {
            // Catching up publishes others' changes: ours must be out first.
            self.settle().await;
        }
        let (mut foreign, mut recalled) = (HashSet::new(), HashSet::new());
        let mut reloaded_for_stale = false;
        loop {
            let started = Instant::now();
            let error = match self.attempt(&mut writes, &foreign, top_up).await {
                Ok((decided, durable)) => {
                    let written = Instant::now();
                    let checkpoint = self.due_checkpoint();
                    // Answers go out in commit order: the batch before first.
                    self.settle().await;
                    self.in_flight = Some(InFlight { decided, writes, durable, started, written, checkpoint });
                    return;
                }
                Err(error) => error,
            };
            // What was written before stays written; answer it before reloading.
            self.settle().await;
            // Uncommitted decisions are in memory: storage is the truth again.
            let retry = match &error {
                CommitError::Stale(_) => !std::mem::replace(&mut reloaded_for_stale, true),
                CommitError::HoldIdTaken(hold) => !foreign.contains(hold),
                CommitError::Failed(_) => false,
            };
            tracing::warn!(show = %self.show_id, %error, retry, "commit refused; reloading the show");
            if let Err(reload) = self.reload().await {
                tracing::error!(show = %self.show_id, error = ?reload, "reload failed; the show is unavailable");
                self.broken = true;
                self.events.set_unavailable(true);
                return writes.into_iter().for_each(|write| write.fail(|| EngineError::Unavailable));
            }
            if !retry {
                return writes.into_iter().for_each(|write| write.fail(|| EngineError::Unavailable));
            }
            if let CommitError::HoldIdTaken(hold) = &error {
                // One of this show's holds that left memory (a late retry of
                // its create) comes back and is answered as a replay; any
                // other is another show's.
                let ours = self.recall(vec![hold.clone()]).await.is_ok() && self.state.hold(hold).is_some();
                if !ours || !recalled.insert(hold.clone()) {
                    foreign.insert(hold.clone());
                }
            }
        }
    }

    /// The batch is durable: index new holds, announce, answer.
    fn publish(&mut self, decided: Decided, writes: Vec<Write>) {
        let publishing = Instant::now();
        let Decided { at, transitions, events, outcomes } = decided;
        self.retire(transitions.iter().filter_map(|t| retain::settles(&t.change).map(|hold| (t.at, hold.clone()))));
        for transition in transitions.iter() {
            self.count(&transition.change);
            self.metrics.show_transition(&self.show_id, transition, &self.state);
            if let Change::Created { hold } = &transition.change
                && let Err(error) = self.index.insert(&self.show_id, hold)
            {
                tracing::error!(show = %self.show_id, %error, "cannot index a new hold");
            }
        }
        for (event, patch) in events {
            self.view.apply(patch);
            self.events.publish(event);
        }
        self.publish_view();
        for (write, outcome) in writes.into_iter().zip(outcomes) {
            let outcome = outcome.map_err(|rejection| EngineError::Rejected { rejection, at });
            match write {
                Write::Create { reply, .. } | Write::Act { reply, .. } => {
                    drop(reply.send(outcome.and_then(Outcome::written).map(|value| Answer { at, value })));
                }
                Write::Expire { reply, .. } => {
                    drop(reply.send(outcome.and_then(Outcome::expiry).map(|value| Answer { at, value })));
                }
                Write::Block { reply, .. } => {
                    drop(reply.send(outcome.and_then(Outcome::blocked).map(|value| Answer { at, value })));
                }
            }
        }
        self.metrics.stage(Stage::Publish, publishing);
    }

    /// One try at a batch: open it (in a shared store: take the show's lock,
    /// read the database's clock, catch up with what others committed),
    /// decide every write at one instant, commit.
    async fn attempt(
        &mut self,
        writes: &mut Vec<Write>,
        foreign: &HashSet<HoldId>,
        top_up: &mut TopUp<'_>,
    ) -> Result<(Decided, Durable), CommitError> {
        let (store, show_id) = (Arc::clone(&self.store), Arc::clone(&self.show_id));
        let mut batch = store.begin_batch(&show_id, self.state.version()).await?;
        let missed = batch.take_missed();
        if !missed.is_empty() {
            self.metrics.caught_up.inc_by(missed.len() as u64);
            self.recall(retain::named_by_entries(&missed)).await.map_err(CommitError::Failed)?;
            self.catch_up(missed).map_err(|gap| CommitError::Stale(gap.0))?;
        }
        if self.store.shared() {
            // Taking the show's lock may have waited for another process's
            // batch: what arrived meanwhile is decided now, not after
            // another wait (bigger batches, fewer hand-overs of the lock).
            top_up(writes);
        }
        // Holds the writes name that left memory come back first.
        self.recall(retain::named_by_writes(writes)).await.map_err(CommitError::Failed)?;
        let at = self.instant(batch.now());
        let deciding = Instant::now();
        let decided = self.decide_all(writes, at, foreign);
        let writing = Instant::now();
        self.metrics.stage(Stage::Decide, deciding);
        let durable = batch.commit_written(Arc::clone(&decided.transitions)).await?;
        self.metrics.stage(Stage::Write, writing);
        Ok((decided, durable))
    }

    /// Applies what other processes committed since this writer's version.
    async fn refresh(&mut self) -> anyhow::Result<()> {
        let missed = self.store.journal(&self.show_id, self.state.version()).await?;
        self.metrics.caught_up.inc_by(missed.len() as u64);
        self.recall(retain::named_by_entries(&missed)).await?;
        if let Err(gap) = self.catch_up(missed) {
            tracing::warn!(show = %self.show_id, gap = %gap.0, "cannot catch up; reloading the show");
            self.reload().await?;
        }
        Ok(())
    }

    /// A change now stored (by this process or another) reaches the index,
    /// the live viewers, the show's clock floor and the map readers get
    /// (published by the caller, once for all it observed).
    pub(super) fn observe(&mut self, change: &Change, at: ServerMillis) {
        self.latest = self.latest.max(at);
        if let Change::Created { hold } = change
            && let Err(error) = self.index.insert(&self.show_id, hold)
        {
            tracing::error!(show = %self.show_id, %error, "cannot index a new hold");
        }
        self.events.publish(self.state.change_event(change, at));
        self.view.apply(Patch::of(&self.state, change));
        if let Some(hold) = retain::settles(change) {
            self.retire(std::iter::once((at, hold.clone())));
        }
    }

    /// Rebuilds the state and the index from storage, and announces what
    /// differs from the map viewers have (stored changes never announced).
    async fn reload(&mut self) -> anyhow::Result<()> {
        let loaded = self.store.load_holds(&self.show_id).await?;
        self.latest = self.latest.max(loaded.latest_at.unwrap_or(self.latest));
        let from_checkpoint = loaded.from_checkpoint;
        let state = loaded.replay(ShowState::new(self.state.show().clone()))?;
        self.index.replace_show(&self.show_id, state.holds())?;
        self.state = state;
        self.settled = settled_of(&self.state, self.latest, from_checkpoint);
        self.after_load();
        // Viewers get whatever differs, as one change: a batch whose commit
        // failed may have been stored without being announced.
        let before = std::mem::replace(&mut self.view, MapView::of(&self.state, self.latest));
        let changed = self.view.changes_since(&before);
        if changed.version > before.version || !changed.seats.is_empty() || !changed.areas.is_empty() {
            self.events.publish(changed);
        }
        self.publish_view();
        self.broken = false;
        self.events.set_unavailable(false);
        Ok(())
    }

    /// Readers see the map as of the latest durable change, at this
    /// writer's latest instant.
    pub(super) fn publish_view(&mut self) {
        self.view.at = self.latest;
        self.events.publish_view(self.view.clone());
    }

    fn read(&self, command: Read) {
        let at = |now: ServerMillis| now.max(self.latest);
        match command {
            Read::Hold { holder, hold, now, reply } => {
                let at = at(now);
                let found = self.state.hold(&hold).filter(|found| found.holder == holder);
                let answer = found.map(|found| Answer { at, value: found.to_wire(&self.state.show().id, at) });
                let refused = EngineError::Rejected { rejection: seat_state::Rejection::NoHold, at };
                drop(reply.send(answer.ok_or(refused)));
            }
            Read::HeldSince { holder, since, reply } => {
                drop(reply.send(Ok(Answer { at: self.latest, value: self.state.held_since(&holder, since) })));
            }
            Read::SoldOut { reply } => drop(reply.send(Ok(Answer { at: self.latest, value: self.state.sold_out() }))),
            Read::Version { reply } => drop(reply.send(Ok(Answer { at: self.latest, value: self.state.version() }))),
            Read::Operator { now, reply } => {
                let at = at(now);
                let view = OperatorView {
                    version: self.state.version(),
                    holds: self.state.holds().filter(|hold| hold.status_at(at) == HoldStatus::Held).cloned().collect(),
                    map: self.state.seat_map_of(SeatScope::Every, None, at),
                };
                drop(reply.send(Ok(Answer { at, value: view })));
            }
        }
    }

    fn count(&self, change: &Change) {
        let counter = match change {
            Change::Created { .. } => &self.metrics.holds_created,
            Change::Confirmed { .. } => &self.metrics.holds_confirmed,
            Change::Released { .. } => &self.metrics.holds_released,
            Change::Expired { .. } => &self.metrics.holds_expired,
            Change::Extended { .. } | Change::Blocked { .. } | Change::Unblocked { .. } => return,
        };
        counter.inc();
    }
}

/// The settled holds a loaded state keeps, queued to leave memory as if
/// they had settled at their deadline (or `now`, if that is earlier): the
/// journal does not say when a hold settled, and none settled after `now`.
fn settled_of(state: &ShowState, now: ServerMillis, from_checkpoint: i64) -> Settled {
    let mut settled = Settled::default();
    settled.checkpointed = from_checkpoint;
    let mut loaded: Vec<(ServerMillis, seat_state::HoldId)> = state
        .holds()
        .filter(|hold| hold.stored_status != seat_state::HoldStatus::Held)
        .map(|hold| (hold.expires_at.min(now), hold.id.clone()))
        .collect();
    loaded.sort();
    for (at, hold) in loaded {
        settled.push(at, hold);
    }
    settled
}
