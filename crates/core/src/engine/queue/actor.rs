//! The queue's writer task: batches of requests decided at one instant,
//! their entries appended to the log in one write, answered after it.

use std::sync::Arc;
use std::time::Duration;

use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use tokio::sync::{mpsc, watch};

use seat_state::queue::{QueueRefusal, QueueSettings};
use seat_state::{Queue, QueueEntry, ServerMillis};

use super::metrics::ShowLabel;
use super::{Around, Joined, QueueCommand, QueueError};
use crate::clock::SharedClock;
use crate::engine::{Decided, EngineError, ShowHandle};
use crate::metrics::Metrics;
use crate::store::Store;

/// Requests decided together, at most.
const BATCH: usize = 512;
/// How often progress goes out (API.md: at least once a second).
const TICK: Duration = Duration::from_millis(1000);
/// Ticks between looks at whether every place is sold (which closes the queue).
const SOLD_OUT_EVERY: u32 = 5;

pub struct QueueActor {
    show_id: Arc<str>,
    queue: Queue,
    store: Arc<dyn Store>,
    clock: SharedClock,
    metrics: Arc<Metrics>,
    randomness: crate::randomness::SharedRandomness,
    /// The show's series in `metrics`.
    label: ShowLabel,
}

/// What a write in a batch came to (reads are answered from the state).
type Outcome = Option<Result<bool, QueueRefusal>>;

fn storage(error: impl Into<anyhow::Error>) -> EngineError {
    EngineError::Storage(error.into())
}

impl QueueActor {
    /// The writer, with every entry the store has applied.
    pub async fn load(show_id: Arc<str>, queue: Queue, around: Around) -> Result<Self, EngineError> {
        let label = ShowLabel { show: show_id.to_string() };
        let Around { store, clock, metrics, randomness } = around;
        let mut actor = Self { show_id, queue, store, clock, metrics, randomness, label };
        actor.catch_up().await.map_err(storage)?;
        Ok(actor)
    }

    async fn catch_up(&mut self) -> anyhow::Result<()> {
        for entry in self.store.queue_log(&self.show_id, self.queue.seq()).await? {
            self.queue.apply(&entry);
        }
        Ok(())
    }

    /// After a failed append: the queue as the store has it.
    async fn rebuild(&mut self) -> anyhow::Result<()> {
        self.queue = Queue::new(*self.queue.on_sale());
        self.catch_up().await
    }

    /// The batch's instant: the store's clock when it decides (processes
    /// share it), and never earlier than an instant the log already has.
    fn now(&self, store_clock: Option<ServerMillis>) -> ServerMillis {
        let now = store_clock.unwrap_or_else(|| self.clock.now());
        self.queue.latest_at().map_or(now, |latest| now.max(latest))
    }

    pub fn progress_json(&self) -> Arc<str> {
        let progress = self.queue.progress(self.clock.now());
        Arc::from(serde_json::to_string(&progress).unwrap_or_default())
    }

    pub async fn run(mut self, mut commands: mpsc::Receiver<QueueCommand>, progress: watch::Sender<Arc<str>>) {
        while let Some(first) = commands.recv().await {
            let mut batch = vec![first];
            while batch.len() < BATCH {
                match commands.try_recv() {
                    Ok(command) => batch.push(command),
                    Err(_) => break,
                }
            }
            let ticked =
                batch.iter().any(|command| matches!(command, QueueCommand::Tick | QueueCommand::Settings { .. }));
            let (started, length, undrawn) =
                (std::time::Instant::now(), self.queue.length(), self.queue.seed().is_none());
            let now = self.serve(batch).await;
            let seconds = started.elapsed().as_secs_f64();
            self.metrics.queue.batch_seconds.observe(seconds);
            if undrawn && self.queue.seed().is_some() {
                self.metrics.queue.draw_seconds.observe(seconds);
            }
            self.metrics.queue.joins.inc_by(self.queue.length().saturating_sub(length));
            if ticked {
                self.gauges(now);
                let json = serde_json::to_string(&self.queue.progress(now)).unwrap_or_default();
                progress.send_replace(Arc::from(json));
            }
        }
    }

    fn gauges(&self, now: ServerMillis) {
        let set = |family: &Family<ShowLabel, Gauge>, value: u64| {
            family.get_or_create(&self.label).set(i64::try_from(value).unwrap_or(i64::MAX));
        };
        set(&self.metrics.queue.places, self.queue.length());
        set(&self.metrics.queue.admitted, self.queue.admitted_through(now));
    }

    /// Decides, writes and answers one batch; returns its instant. On a
    /// shared store the batch holds the queue's lock, so its append only
    /// fails when storage does.
    async fn serve(&mut self, batch: Vec<QueueCommand>) -> ServerMillis {
        let (store, show_id) = (Arc::clone(&self.store), Arc::clone(&self.show_id));
        let mut open = match store.begin_queue(&show_id, self.queue.seq()).await {
            Ok(open) => open,
            Err(error) => {
                tracing::warn!(show = %self.show_id, error = %error, "queue batch could not begin");
                fail(batch, || QueueError::Engine(EngineError::Unavailable));
                return self.clock.now();
            }
        };
        for entry in open.take_missed() {
            self.queue.apply(&entry);
        }
        let now = self.now(open.now());
        let (entries, outcomes) = self.decide(&batch, now);
        if let Err(error) = open.append(entries).await {
            // The batch's entries are applied here but may not be stored.
            tracing::warn!(show = %self.show_id, error = %error, "queue append failed; reloading");
            if let Err(error) = self.rebuild().await {
                tracing::error!(show = %self.show_id, error = ?error, "queue reload failed");
            }
            fail(batch, || QueueError::Engine(EngineError::Unavailable));
            return now;
        }
        for (command, outcome) in batch.into_iter().zip(outcomes) {
            self.answer(command, outcome, now);
        }
        now
    }

    /// Decides every write of the batch in order at `now`, applying each
    /// entry as it goes (a later join sees an earlier one): the entries to
    /// append, and each command's outcome.
    fn decide(&mut self, batch: &[QueueCommand], now: ServerMillis) -> (Vec<QueueEntry>, Vec<Outcome>) {
        let mut entries = Vec::new();
        if self.queue.needs_draw(now) {
            // Without randomness the draw waits for a later batch.
            if let Some(seed) = self.randomness.next_u64() {
                self.log(&mut entries, now, self.queue.draw(seed));
            }
        }
        let outcomes = batch
            .iter()
            .map(|command| {
                let decided = match command {
                    QueueCommand::Join { holder, address, lapsed, cap, .. } => {
                        self.queue.decide_join(holder, address, *lapsed, *cap, now)
                    }
                    QueueCommand::Settings { settings, .. } => self.queue.decide_settings(*settings),
                    _ => return None,
                };
                Some(decided.map(|event| {
                    let created = event.is_some();
                    if let Some(event) = event {
                        self.log(&mut entries, now, event);
                    }
                    created
                }))
            })
            .collect();
        (entries, outcomes)
    }

    fn log(&mut self, entries: &mut Vec<QueueEntry>, now: ServerMillis, event: seat_state::QueueEvent) {
        let entry = QueueEntry { seq: self.queue.seq() + 1, at: now, event };
        self.queue.apply(&entry);
        entries.push(entry);
    }

    fn answer(&self, command: QueueCommand, outcome: Outcome, now: ServerMillis) {
        match (command, outcome) {
            (QueueCommand::Join { holder, reply, .. }, Some(Ok(created))) => {
                let place = self.queue.place_view(&holder, now, false);
                let answer = match place {
                    Some(place) => decided(now, Joined { created, place }),
                    // A closed queue takes no new place: the answer says closed.
                    None => decided(now, Joined { created: false, place: closed_place(now) }),
                };
                drop(reply.send(answer));
            }
            (QueueCommand::Join { reply, .. }, Some(Err(refusal))) => {
                drop(reply.send(Err(QueueError::Refused(refusal))))
            }
            (QueueCommand::Settings { reply, .. }, Some(Err(refusal))) => {
                drop(reply.send(Err(QueueError::Refused(refusal))));
            }
            // Reads answer at the batch's instant, never at the asking process's
            // own estimate of the database's clock: that may run ahead of it, and
            // a place said `admitted` there would be refused by another process.
            (QueueCommand::Place { holder, reply }, _) => {
                drop(reply.send(Ok(Decided { at: now, value: self.queue.place_view(&holder, now, false) })));
            }
            (QueueCommand::Admission { holder, reply }, _) => {
                drop(reply.send(Ok(Decided { at: now, value: self.queue.admission(&holder, now) })));
            }
            (QueueCommand::Settings { reply, .. } | QueueCommand::Status { reply }, _) => {
                drop(reply.send(decided(now, self.queue.status(now))));
            }
            (QueueCommand::History { instants, reply }, _) => {
                drop(reply.send(decided(now, self.queue.at_instants(&instants))));
            }
            (QueueCommand::Join { reply, .. }, None) => {
                drop(reply.send(Err(QueueError::Engine(EngineError::internal("undecided join")))))
            }
            (QueueCommand::Tick, _) => {}
        }
    }
}

fn decided<T>(at: ServerMillis, value: T) -> Result<Decided<T>, QueueError> {
    Ok(Decided { at, value })
}

fn closed_place(now: ServerMillis) -> seat_state::wire::QueuePlace {
    seat_state::wire::QueuePlace {
        state: seat_state::wire::QueueState::Closed,
        position: None,
        ahead: None,
        estimated_admit_at: None,
        admitted_until: None,
        server_time: now.0,
    }
}

fn fail(batch: Vec<QueueCommand>, error: impl Fn() -> QueueError) {
    for command in batch {
        match command {
            QueueCommand::Join { reply, .. } => drop(reply.send(Err(error()))),
            QueueCommand::Place { reply, .. } => drop(reply.send(Err(error()))),
            QueueCommand::Admission { reply, .. } => drop(reply.send(Err(error()))),
            QueueCommand::Settings { reply, .. } | QueueCommand::Status { reply, .. } => drop(reply.send(Err(error()))),
            QueueCommand::History { reply, .. } => drop(reply.send(Err(error()))),
            QueueCommand::Tick => {}
        }
    }
}

/// Ticks the queue once a second while it runs, and closes it once every
/// place of the show is sold (API.md: the queue ends then).
pub async fn tick(commands: mpsc::WeakSender<QueueCommand>, seats: ShowHandle) {
    let mut interval = tokio::time::interval(TICK);
    interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut count = 0u32;
    loop {
        interval.tick().await;
        let Some(commands) = commands.upgrade() else { return };
        // A full queue is a busy writer: this tick can be skipped.
        drop(commands.try_send(QueueCommand::Tick));
        count += 1;
        if count.is_multiple_of(SOLD_OUT_EVERY) && seats.sold_out().await.unwrap_or(false) {
            let (reply, _) = tokio::sync::oneshot::channel();
            let settings = QueueSettings { closed: Some(true), ..QueueSettings::default() };
            drop(commands.send(QueueCommand::Settings { settings, reply }).await);
        }
    }
}
