//! The show engines: one single-writer task per show, spawned on first use.
//!
//! Routes talk to a show through its `ShowHandle`; the task decides with
//! `seat-state` against the show's state in memory, at its own instant, and
//! commits through the `Store` before answering. Shows never wait on each
//! other. Errors are `EngineError`s; HTTP is the routes' business.

mod actor;
mod catch_up;
mod commands;
mod decide;
mod error;
pub mod events;
mod index;
pub mod queue;
mod retain;
pub mod view;

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use tokio::sync::{OnceCell, broadcast, mpsc, oneshot};

use seat_state::wire::{HoldBody, HoldOrder, SeatMap};
use seat_state::{Admission, HoldId, HolderId, SeatId, SeatScope, ServerMillis, ShowState};

use crate::clock::SharedClock;
use crate::metrics::Metrics;
use crate::store::{DueExpiry, Store};

pub use commands::{Action, Decided, Expiry, OPERATOR, OperatorView, Written};
use commands::{Command, Read, Reply, Write};
pub use error::EngineError;
use events::{Live, SharedSink, Subscription, Ticks};
pub use index::HoldIndex;
pub use retain::Retention;

/// Requests waiting for a show's writer before senders wait too.
const QUEUE: usize = 4096;
/// How often writers with live viewers look for other processes' changes
/// when no hint came (hints can be lost; the journal cannot).
const FALLBACK_POLL: std::time::Duration = std::time::Duration::from_secs(1);

/// Every show's engine, by show id, and which show each hold belongs to.
pub struct Engines {
    store: Arc<dyn Store>,
    metrics: Arc<Metrics>,
    clock: SharedClock,
    /// Each show's writer, started once (a cell stays empty while it loads).
    shows: RwLock<HashMap<String, Arc<OnceCell<ShowHandle>>>>,
    index: Arc<HoldIndex>,
    retention: Retention,
    /// Each show's waiting room, started once (`None`: the show has none).
    queues: RwLock<HashMap<String, Arc<OnceCell<Option<queue::QueueHandle>>>>>,
    randomness: crate::randomness::SharedRandomness,
    ticks: Ticks,
    /// Where every show's frames go besides its streams (GRIP publishes).
    sink: SharedSink,
}

/// A way to talk to one show's writer.
#[derive(Clone)]
pub struct ShowHandle {
    commands: mpsc::Sender<Command>,
    /// What a made hold id is drawn from: the injected clock and randomness.
    ids: (SharedClock, crate::randomness::SharedRandomness),
    /// The show's waiting room settings, as created (the definition is immutable).
    on_sale: Option<seat_state::OnSale>,
    /// The map as last published and the live frames: read without the writer.
    live: Arc<Live>,
    /// Other processes write too: a read first has the writer catch up.
    shared: bool,
}

fn storage(error: anyhow::Error) -> EngineError {
    EngineError::Storage(error)
}

impl Engines {
    pub fn new(store: Arc<dyn Store>, metrics: Arc<Metrics>, clock: SharedClock) -> Self {
        Self {
            store,
            metrics,
            clock,
            shows: RwLock::default(),
            index: Arc::default(),
            retention: Retention::default(),
            queues: RwLock::default(),
            randomness: Arc::new(crate::randomness::OsRandomness),
            ticks: Ticks::default(),
            sink: None,
        }
    }

    /// Hands every show's frames to `sink` too (the edge's GRIP publisher).
    pub fn with_frame_sink(mut self, sink: Arc<dyn events::FrameSink>) -> Self {
        self.sink = Some(sink);
        self
    }

    /// How live changes are gathered into frames (tests shorten the tick).
    pub fn with_ticks(mut self, ticks: Ticks) -> Self {
        self.ticks = ticks;
        self
    }

    /// How long settled holds stay in memory and how often checkpoints
    /// are written (the simulator shortens both to exercise them).
    pub fn with_retention(mut self, retention: Retention) -> Self {
        self.retention = retention;
        self
    }

    /// Where random choices come from (the simulator seeds it).
    pub fn with_randomness(mut self, randomness: crate::randomness::SharedRandomness) -> Self {
        self.randomness = randomness;
        self
    }

    /// The engine of a show, started (from storage) on first use; `None` for
    /// an unknown show. Concurrent first requests wait for one load.
    pub async fn show(&self, show_id: &str) -> Result<Option<ShowHandle>, EngineError> {
        let poisoned = || EngineError::internal("engine registry lock poisoned");
        let known = self.shows.read().map_err(|_| poisoned())?.get(show_id).cloned();
        let cell = match known {
            Some(cell) => cell,
            None => Arc::clone(self.shows.write().map_err(|_| poisoned())?.entry(show_id.to_owned()).or_default()),
        };
        // An unknown show is an error here, so that nothing is cached for it.
        match cell.get_or_try_init(|| self.start(show_id)).await {
            Ok(handle) => Ok(Some(handle.clone())),
            Err(None) => Ok(None),
            Err(Some(error)) => Err(error),
        }
    }

    /// Loads a show from storage and spawns its writer; `Err(None)`: no such show.
    async fn start(&self, show_id: &str) -> Result<ShowHandle, Option<EngineError>> {
        let show = self.store.show(show_id).await.map_err(|error| Some(storage(error)))?.ok_or(None)?;
        let on_sale = show.on_sale;
        let loaded = self.store.load_holds(show_id).await.map_err(|error| Some(storage(error)))?;
        self.metrics.show_loads.inc();
        let (latest, from_checkpoint) = (loaded.latest_at, loaded.from_checkpoint);
        let state = loaded.replay(ShowState::new(show)).map_err(|error| Some(storage(error)))?;
        self.index.replace_show(&Arc::from(show_id), state.holds())?;
        let writer = actor::ShowActor::new(
            state,
            latest,
            (self.retention, (self.ticks, self.sink.clone()), from_checkpoint),
            Arc::clone(&self.store),
            Arc::clone(&self.metrics),
            Arc::clone(&self.index),
            Arc::clone(&self.clock),
        );
        let live = writer.live();
        let (commands, receiver) = mpsc::channel(QUEUE);
        tokio::spawn(writer.run(receiver));
        let ids = (Arc::clone(&self.clock), Arc::clone(&self.randomness));
        Ok(ShowHandle { commands, ids, on_sale, live, shared: self.store.shared() })
    }

    /// The engine of the show a hold belongs to; `None` for an unknown hold.
    /// The store is the index of record (a hold another process made, or
    /// one that left memory, is found there); memory is only a cache.
    pub async fn show_of_hold(&self, hold: &HoldId) -> Result<Option<ShowHandle>, EngineError> {
        let show_id = match self.index.show_of(hold)? {
            Some(show_id) => Some(show_id.to_string()),
            None => self.store.hold_show(hold).await.map_err(storage)?,
        };
        match show_id {
            Some(show_id) => self.show(&show_id).await,
            None => Ok(None),
        }
    }

    /// A holder's holds with their shows' engines, newest first, as the
    /// store lists them.
    pub async fn holds_of(&self, holder: &HolderId) -> Result<Vec<(HoldId, ShowHandle)>, EngineError> {
        let listed = self.store.holder_holds(holder).await.map_err(storage)?;
        let mut holds = Vec::with_capacity(listed.len());
        for (show_id, hold) in listed {
            if let Some(show) = self.show(&show_id).await? {
                holds.push((hold, show));
            }
        }
        Ok(holds)
    }

    /// With a shared store, wakes this process's writers when other
    /// processes change their shows (the store's hints, and a poll every
    /// second in case a hint is lost), so live viewers here see it.
    pub fn follow_other_processes(self: &Arc<Self>) {
        let Some(mut hints) = self.store.changes() else { return };
        let engines = Arc::downgrade(self);
        tokio::spawn(async move {
            let mut poll = tokio::time::interval(FALLBACK_POLL);
            loop {
                let show: Option<Arc<str>> = tokio::select! {
                    hint = hints.recv() => match hint {
                        Ok(show) => Some(show),
                        Err(broadcast::error::RecvError::Lagged(_)) => None,
                        Err(broadcast::error::RecvError::Closed) => return,
                    },
                    _ = poll.tick() => None,
                };
                let Some(engines) = engines.upgrade() else { return };
                engines.wake(show.as_deref());
            }
        });
    }

    /// Asks one show's writer (or every running one) to catch up.
    fn wake(&self, show: Option<&str>) {
        let Ok(shows) = self.shows.read() else { return };
        let handles: Vec<&ShowHandle> = match show {
            Some(show) => shows.get(show).and_then(|cell| cell.get()).into_iter().collect(),
            None => shows.values().filter_map(|cell| cell.get()).collect(),
        };
        for handle in handles {
            // A full queue means the writer is busy and will catch up anyway.
            drop(handle.commands.try_send(Command::Refresh));
        }
    }
}

/// Rounds of re-reading a list of holds until every show read it at one instant.
const LIST_ROUNDS: usize = 4;

impl Engines {
    /// A holder's holds, newest first, read at one instant: the latest of
    /// `now` and the instants of the writers involved (a writer never answers
    /// earlier than its latest decision), so no hold in the list is seen at
    /// an instant the list's own `serverTime` has not reached.
    pub async fn list_holds(
        &self,
        holder: &HolderId,
        now: ServerMillis,
    ) -> Result<Decided<Vec<HoldBody>>, EngineError> {
        let holds = self.holds_of(holder).await?;
        let mut at = now;
        let mut round = 0;
        loop {
            round += 1;
            let mut read = Vec::with_capacity(holds.len());
            for (hold, show) in &holds {
                read.push(show.hold(holder.clone(), hold.clone(), at).await?);
            }
            let latest = read.iter().map(|hold| hold.at).fold(at, ServerMillis::max);
            // Under a steady stream of writes the writers may keep moving on;
            // after a few rounds the list goes out as read, stamped with the latest.
            if round == LIST_ROUNDS || read.iter().all(|hold| hold.at == latest) {
                return Ok(Decided { at: latest, value: read.into_iter().map(|hold| hold.value).collect() });
            }
            at = latest;
        }
    }
}

impl ShowHandle {
    async fn ask<T>(&self, command: impl FnOnce(Reply<T>) -> Command) -> Result<Decided<T>, EngineError> {
        let (reply, answer) = oneshot::channel();
        let gone = || EngineError::internal("the show's writer stopped");
        self.commands.send(command(reply)).await.map_err(|_| gone())?;
        answer.await.map_err(|_| gone())?
    }

    /// Decides and commits a new hold (or answers an idempotent replay).
    pub async fn create_hold(
        &self,
        holder: HolderId,
        body: HoldOrder,
        admission: Admission,
    ) -> Result<Decided<Written>, EngineError> {
        let generated_id = generated_hold_id(self.ids.0.now(), &*self.ids.1)?;
        self.ask(|reply| Command::Write(Write::Create { holder, body, generated_id, admission, reply })).await
    }

    /// Whether `holder` made a hold of this show at `since` or later.
    pub async fn held_since(&self, holder: HolderId, since: ServerMillis) -> Result<bool, EngineError> {
        Ok(self.ask(|reply| Command::Read(Read::HeldSince { holder, since, reply })).await?.value)
    }

    /// Whether every seat and area place of the show is sold.
    pub async fn sold_out(&self) -> Result<bool, EngineError> {
        Ok(self.ask(|reply| Command::Read(Read::SoldOut { reply })).await?.value)
    }

    /// The show's version at the writer's instant.
    pub async fn version(&self) -> Result<Decided<i64>, EngineError> {
        self.ask(|reply| Command::Read(Read::Version { reply })).await
    }

    /// Extends, confirms or releases a hold of `holder`.
    pub async fn act(&self, action: Action, holder: HolderId, hold: HoldId) -> Result<Decided<Written>, EngineError> {
        self.ask(|reply| Command::Write(Write::Act { action, holder, hold, reply })).await
    }

    /// Expires a hold if the outbox entry's deadline is still the stored one.
    pub async fn expire(&self, due: DueExpiry) -> Result<Decided<Expiry>, EngineError> {
        self.ask(|reply| Command::Write(Write::Expire { due, reply })).await
    }

    /// Blocks `seats` (with a reason) or unblocks them (`None`); answers
    /// with every seat blocked afterwards.
    pub async fn block(&self, seats: Vec<SeatId>, reason: Option<String>) -> Result<Decided<Vec<String>>, EngineError> {
        self.ask(|reply| Command::Write(Write::Block { seats, reason, reply })).await
    }

    /// One of `holder`'s holds.
    pub async fn hold(
        &self,
        holder: HolderId,
        hold: HoldId,
        now: ServerMillis,
    ) -> Result<Decided<HoldBody>, EngineError> {
        self.ask(|reply| Command::Read(Read::Hold { holder, hold, now, reply })).await
    }

    /// The seat map as `viewer` sees it, listing the seats of `scope`:
    /// from the map the writer last published, without waiting for it
    /// (with other processes writing, once the writer has caught up).
    pub async fn seat_map(
        &self,
        scope: SeatScope,
        viewer: Option<HolderId>,
        now: ServerMillis,
    ) -> Result<Decided<SeatMap>, EngineError> {
        let (view, at) = self.published(now).await?;
        Ok(Decided { at, value: view.seat_map(scope, viewer.as_ref(), at) })
    }

    /// The compact seat map (`?format=compact`) as `viewer` sees it.
    pub async fn compact_map(
        &self,
        viewer: Option<HolderId>,
        now: ServerMillis,
    ) -> Result<Decided<seat_state::wire::CompactMap>, EngineError> {
        let (view, at) = self.published(now).await?;
        Ok(Decided { at, value: view.compact_map(viewer.as_ref(), at) })
    }

    /// The seat map as bit sets (`?format=bits`) as `viewer` sees it.
    pub async fn bits_map(
        &self,
        viewer: Option<HolderId>,
        now: ServerMillis,
    ) -> Result<Decided<seat_state::wire::BitsMap>, EngineError> {
        let (view, at) = self.published(now).await?;
        Ok(Decided { at, value: view.bits_map(viewer.as_ref(), at) })
    }

    /// The published map and the instant to answer it at (never before
    /// the writer's latest instant).
    async fn published(&self, now: ServerMillis) -> Result<(Arc<view::MapView>, ServerMillis), EngineError> {
        // A writer whose storage failed tries it again for this read (503 if it still fails).
        let floor = if self.shared || self.live.unavailable() { self.version().await?.at } else { now };
        let view = self.live.view();
        let at = now.max(floor).max(view.at);
        Ok((view, at))
    }

    /// The box office's view of the show, at the writer's instant (`now` or later).
    pub async fn operator_view(&self, now: ServerMillis) -> Result<Decided<OperatorView>, EngineError> {
        self.ask(|reply| Command::Read(Read::Operator { now, reply })).await
    }

    /// A live feed of changes, starting after `after` when possible (else
    /// with a snapshot of the published map).
    pub async fn subscribe(&self, after: Option<i64>) -> Result<Subscription, EngineError> {
        if self.shared || self.live.unavailable() {
            self.version().await?;
        }
        Ok(self.live.subscribe(after))
    }

    /// What a GRIP proxy's viewer gets first (the proxy holds the stream
    /// and takes the frames from publishes), ending at the version the
    /// stream is held at ([`events::Live::held`]).
    pub async fn grip_held(&self, after: Option<i64>, asked: bool) -> Result<events::Held, EngineError> {
        if self.shared || self.live.unavailable() {
            self.version().await?;
        }
        Ok(self.live.held(after, asked))
    }

    /// The map as last published, for a stream that fell behind.
    pub fn published_view(&self) -> Arc<view::MapView> {
        self.live.view()
    }
}

/// A hold id the server makes when the client gave none: the millisecond
/// `now` (48 bits) then 80 random bits, in hex. Ids made one after another
/// sort together, so storing one touches the end of the hold-id index
/// rather than a random page of it (as UUIDv7 does); 80 random bits keep
/// ids made in one millisecond apart. The time is only for locality:
/// nothing is decided by it.
pub fn generated_hold_id(
    now: ServerMillis,
    randomness: &dyn crate::randomness::Randomness,
) -> Result<HoldId, EngineError> {
    let mut random = [0u8; 10];
    crate::randomness::fill(randomness, &mut random).ok_or_else(|| EngineError::internal("no randomness"))?;
    let time = (now.0.max(0) as u64 & 0xffff_ffff_ffff).to_be_bytes();
    HoldId::parse(&format!("{}{}", hex::encode(&time[2..]), hex::encode(random)))
        .map_err(|e| EngineError::Internal(e.into()))
}

#[cfg(test)]
mod tests {
    use seat_state::ServerMillis;

    use super::generated_hold_id;
    use crate::randomness::{OsRandomness, SeededRandomness};

    #[test]
    fn generated_ids_are_32_hex_digits_in_the_order_they_were_made() {
        let os = OsRandomness;
        let first = generated_hold_id(ServerMillis(1_796_000_000_000), &os).unwrap();
        let second = generated_hold_id(ServerMillis(1_796_000_000_002), &os).unwrap();
        for id in [&first, &second] {
            assert_eq!(id.as_str().len(), 32);
            assert!(id.as_str().bytes().all(|b| b.is_ascii_hexdigit()), "{id}");
        }
        assert!(first.as_str() < second.as_str(), "{first} then {second}");
        let now = ServerMillis(1_796_000_000_000);
        assert_ne!(generated_hold_id(now, &os).unwrap(), generated_hold_id(now, &os).unwrap());
    }

    #[test]
    fn one_seed_makes_one_sequence_of_ids() {
        let now = ServerMillis(1_796_000_000_000);
        let ids = |seed| {
            let seeded = SeededRandomness::new(seed);
            [generated_hold_id(now, &seeded).unwrap(), generated_hold_id(now, &seeded).unwrap()]
        };
        assert_eq!(ids(7), ids(7));
        assert_ne!(ids(7), ids(8));
        assert_ne!(ids(7)[0], ids(7)[1]);
    }
}
