//! A show's waiting room: one writer task per show with an `onSale`,
//! beside the show's seat writer (a join changes no seat, so it never
//! waits behind holds). It keeps the queue's log in the store, decides
//! joins and the operator's settings at its own instant (the store's clock
//! when processes share it), and publishes the queue's progress once a
//! second for every listener at once.

mod actor;
mod metrics;

use std::sync::Arc;

use tokio::sync::{mpsc, oneshot, watch};

use seat_state::queue::{QueueAt, QueueRefusal, QueueSettings};
use seat_state::wire::{QueuePlace, QueueStatus};
use seat_state::{Admission, HolderId, Queue, ServerMillis};

use super::{Decided, EngineError, ShowHandle};
use crate::clock::SharedClock;
use crate::metrics::Metrics;
use crate::store::Store;

pub(super) use actor::QueueActor;
pub use metrics::QueueMetrics;

impl super::Engines {
    /// The waiting room of a show, started on first use; `None` for a show
    /// without `onSale`; `Err` [`EngineError`] for storage failures. The
    /// caller has checked the show exists (`seats` is its writer).
    pub async fn queue(&self, show_id: &str, seats: &ShowHandle) -> Result<Option<QueueHandle>, EngineError> {
        // Most shows have no queue: no lock, no lookup.
        let Some(on_sale) = seats.on_sale else { return Ok(None) };
        let poisoned = || EngineError::internal("queue registry lock poisoned");
        let known = self.queues.read().map_err(|_| poisoned())?.get(show_id).cloned();
        let cell = match known {
            Some(cell) => cell,
            None => Arc::clone(self.queues.write().map_err(|_| poisoned())?.entry(show_id.to_owned()).or_default()),
        };
        let start = || async {
            let around = Around {
                store: Arc::clone(&self.store),
                clock: Arc::clone(&self.clock),
                metrics: Arc::clone(&self.metrics),
                randomness: Arc::clone(&self.randomness),
            };
            QueueHandle::start(Arc::from(show_id), Queue::new(on_sale), around, seats.clone()).await.map(Some)
        };
        Ok(cell.get_or_try_init(start).await?.clone())
    }
}

/// What a queue writer works with, besides its queue.
pub(super) struct Around {
    pub store: Arc<dyn Store>,
    pub clock: SharedClock,
    pub metrics: Arc<Metrics>,
    pub randomness: crate::randomness::SharedRandomness,
}

/// Queue requests waiting for the writer before senders wait too.
const QUEUE_DEPTH: usize = 4096;

/// Why a queue request failed.
#[derive(Debug, thiserror::Error)]
pub enum QueueError {
    #[error("{}", .0.message())]
    Refused(QueueRefusal),
    #[error(transparent)]
    Engine(#[from] EngineError),
}

/// A join's answer: the place, and whether it is new.
#[derive(Debug, Clone)]
pub struct Joined {
    pub created: bool,
    pub place: QueuePlace,
}

type Reply<T> = oneshot::Sender<Result<Decided<T>, QueueError>>;

/// One request to a queue's writer.
pub(super) enum QueueCommand {
    Join {
        holder: HolderId,
        address: String,
        lapsed: bool,
        cap: u32,
        reply: Reply<Joined>,
    },
    Place {
        holder: HolderId,
        reply: Reply<Option<QueuePlace>>,
    },
    Admission {
        holder: HolderId,
        reply: Reply<Admission>,
    },
    Settings {
        settings: QueueSettings,
        reply: Reply<QueueStatus>,
    },
    Status {
        reply: Reply<QueueStatus>,
    },
    /// The queue at past instants (the operator's charts).
    History {
        instants: Vec<ServerMillis>,
        reply: Reply<Vec<QueueAt>>,
    },
    /// Once a second: draw if due, publish progress.
    Tick,
}

/// A way to talk to one show's queue.
#[derive(Clone)]
pub struct QueueHandle {
    commands: mpsc::Sender<QueueCommand>,
    progress: watch::Receiver<Arc<str>>,
}

impl QueueHandle {
    /// Starts a show's queue writer from its stored log.
    pub(super) async fn start(
        show_id: Arc<str>,
        queue: Queue,
        around: Around,
        seats: ShowHandle,
    ) -> Result<Self, EngineError> {
        let actor = QueueActor::load(show_id, queue, around).await?;
        let (progress_in, progress) = watch::channel(actor.progress_json());
        let (commands, receiver) = mpsc::channel(QUEUE_DEPTH);
        tokio::spawn(actor.run(receiver, progress_in));
        tokio::spawn(actor::tick(commands.downgrade(), seats));
        Ok(Self { commands, progress })
    }

    async fn ask<T>(&self, command: impl FnOnce(Reply<T>) -> QueueCommand) -> Result<Decided<T>, QueueError> {
        let (reply, answer) = oneshot::channel();
        let gone = || QueueError::Engine(EngineError::internal("the queue's writer stopped"));
        self.commands.send(command(reply)).await.map_err(|_| gone())?;
        answer.await.map_err(|_| gone())?
    }

    /// Takes a place for `holder` (or answers the one it has). `lapsed`:
    /// its admission ran out without a hold, so it goes to the back.
    pub async fn join(
        &self,
        holder: HolderId,
        address: String,
        lapsed: bool,
        cap: u32,
    ) -> Result<Decided<Joined>, QueueError> {
        self.ask(|reply| QueueCommand::Join { holder, address, lapsed, cap, reply }).await
    }

    /// The holder's place at the writer's instant; `None`: never joined.
    pub async fn place(&self, holder: HolderId) -> Result<Decided<Option<QueuePlace>>, QueueError> {
        self.ask(|reply| QueueCommand::Place { holder, reply }).await
    }

    /// What the queue says of the holder's next hold.
    pub async fn admission(&self, holder: HolderId) -> Result<Admission, QueueError> {
        Ok(self.ask(|reply| QueueCommand::Admission { holder, reply }).await?.value)
    }

    /// The operator's change, answered with the queue as it then stands.
    pub async fn settle(&self, settings: QueueSettings) -> Result<Decided<QueueStatus>, QueueError> {
        self.ask(|reply| QueueCommand::Settings { settings, reply }).await
    }

    /// The operator's view.
    pub async fn status(&self) -> Result<Decided<QueueStatus>, QueueError> {
        self.ask(|reply| QueueCommand::Status { reply }).await
    }

    /// The queue's length and admissions at each of `instants`.
    pub async fn history(&self, instants: Vec<ServerMillis>) -> Result<Decided<Vec<QueueAt>>, QueueError> {
        self.ask(|reply| QueueCommand::History { instants, reply }).await
    }

    /// The latest progress event's JSON, changing about once a second.
    pub fn progress(&self) -> watch::Receiver<Arc<str>> {
        self.progress.clone()
    }
}
