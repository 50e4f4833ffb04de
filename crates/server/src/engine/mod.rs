//! The show engines: one single-writer task per show, spawned on first use.
//!
//! Routes talk to a show through its `ShowHandle`; the task decides with
//! `seat-state` against the show's state in memory and commits through the
//! `Store` before answering. Shows never wait on each other.

mod actor;
mod commands;
pub mod events;

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use tokio::sync::{OnceCell, mpsc, oneshot};

use seat_state::wire::{HoldBody, HoldRequestBody, SeatMap};
use seat_state::{Hold, HoldId, HolderId, ServerMillis, Show, ShowState};

use crate::error::AppError;
use crate::metrics::Metrics;
use crate::store::{DueExpiry, Store};

pub use actor::generated_hold_id;
pub use commands::{Action, Written};
use commands::{Command, Read, Reply, Write};
use events::{EventHub, Subscription};

/// Requests waiting for a show's writer before senders wait too.
const QUEUE: usize = 4096;

/// Every show's engine, by show id, and which show each hold belongs to.
pub struct Engines {
    store: Arc<dyn Store>,
    metrics: Arc<Metrics>,
    shows: RwLock<HashMap<String, ShowHandle>>,
    /// Hold ids are global; each hold lives in one show.
    hold_shows: RwLock<HashMap<HoldId, Arc<str>>>,
    /// Each holder's holds, oldest first, across shows.
    holder_holds: RwLock<HashMap<HolderId, Vec<HoldId>>>,
    /// Set once every stored show is loaded, so the indexes above are complete.
    all_loaded: OnceCell<()>,
}

/// A way to talk to one show's writer.
#[derive(Clone)]
pub struct ShowHandle {
    commands: mpsc::Sender<Command>,
}

fn lock_failed() -> AppError {
    AppError::Internal(anyhow::anyhow!("engine registry lock poisoned"))
}

impl Engines {
    pub fn new(store: Arc<dyn Store>, metrics: Arc<Metrics>) -> Self {
        Self {
            store,
            metrics,
            shows: RwLock::default(),
            hold_shows: RwLock::default(),
            holder_holds: RwLock::default(),
            all_loaded: OnceCell::new(),
        }
    }

    /// The engine of a show, started (from storage) on first use; `None` for an unknown show.
    pub async fn show(&self, show_id: &str) -> Result<Option<ShowHandle>, AppError> {
        if let Some(handle) = self.shows.read().map_err(|_| lock_failed())?.get(show_id) {
            return Ok(Some(handle.clone()));
        }
        let Some(show) = self.store.show(show_id).await? else { return Ok(None) };
        let (version, holds) = self.store.load_holds(show_id).await?;
        let mut shows = self.shows.write().map_err(|_| lock_failed())?;
        // Another request may have started it while this one loaded.
        if let Some(handle) = shows.get(show_id) {
            return Ok(Some(handle.clone()));
        }
        let show_id: Arc<str> = Arc::from(show_id);
        for hold in &holds {
            self.remember_hold(&hold.id, &show_id, &hold.holder)?;
        }
        let handle = self.spawn(show, version, holds);
        shows.insert(show_id.to_string(), handle.clone());
        Ok(Some(handle))
    }

    /// Starts every stored show's engine (once), so hold lookups are complete.
    async fn load_all(&self) -> Result<(), AppError> {
        self.all_loaded
            .get_or_try_init(|| async {
                for summary in self.store.list_shows().await? {
                    self.show(&summary.id).await?;
                }
                Ok::<(), AppError>(())
            })
            .await?;
        Ok(())
    }

    /// The engine of the show a hold belongs to; `None` for an unknown hold.
    pub async fn show_of_hold(&self, hold: &HoldId) -> Result<Option<ShowHandle>, AppError> {
        match self.show_id_of_hold(hold).await? {
            Some(show_id) => self.show(&show_id).await,
            None => Ok(None),
        }
    }

    /// The id of the show a hold belongs to.
    pub async fn show_id_of_hold(&self, hold: &HoldId) -> Result<Option<Arc<str>>, AppError> {
        self.load_all().await?;
        Ok(self.hold_shows.read().map_err(|_| lock_failed())?.get(hold).cloned())
    }

    /// A holder's holds with their shows' engines, newest first.
    pub async fn holds_of(&self, holder: &HolderId) -> Result<Vec<(HoldId, ShowHandle)>, AppError> {
        self.load_all().await?;
        let ids = self.holder_holds.read().map_err(|_| lock_failed())?.get(holder).cloned().unwrap_or_default();
        let mut holds = Vec::with_capacity(ids.len());
        for hold in ids.into_iter().rev() {
            if let Some(show) = self.show_of_hold(&hold).await? {
                holds.push((hold, show));
            }
        }
        Ok(holds)
    }

    /// Notes a hold's show and holder, once it is created (or loaded).
    pub fn remember_hold(&self, hold: &HoldId, show_id: &Arc<str>, holder: &HolderId) -> Result<(), AppError> {
        let known = self.hold_shows.write().map_err(|_| lock_failed())?.insert(hold.clone(), Arc::clone(show_id));
        if known.is_none() {
            self.holder_holds.write().map_err(|_| lock_failed())?.entry(holder.clone()).or_default().push(hold.clone());
        }
        Ok(())
    }

    fn spawn(&self, show: Show, version: i64, holds: Vec<Hold>) -> ShowHandle {
        let show_id = show.id.to_string();
        let mut state = ShowState::new(show);
        for hold in holds {
            state.restore(hold);
        }
        state.set_version(version);
        let (commands, receiver) = mpsc::channel(QUEUE);
        let actor = actor::ShowActor {
            show_id,
            state,
            store: Arc::clone(&self.store),
            metrics: Arc::clone(&self.metrics),
            events: EventHub::default(),
        };
        tokio::spawn(actor.run(receiver));
        ShowHandle { commands }
    }
}

impl ShowHandle {
    async fn ask<T>(&self, command: impl FnOnce(Reply<T>) -> Command) -> Result<T, AppError> {
        let (reply, answer) = oneshot::channel();
        let gone = || AppError::Internal(anyhow::anyhow!("the show's writer stopped"));
        self.commands.send(command(reply)).await.map_err(|_| gone())?;
        answer.await.map_err(|_| gone())?
    }

    /// Decides and commits a new hold (or answers an idempotent replay).
    /// `foreign_id`: the client's hold id already names a hold of another show.
    pub async fn create_hold(
        &self,
        holder: HolderId,
        body: HoldRequestBody,
        foreign_id: bool,
        now: ServerMillis,
    ) -> Result<Written, AppError> {
        let generated_id = generated_hold_id()?;
        self.ask(|reply| Command::Write(Write::Create { holder, body, generated_id, foreign_id, now, reply })).await
    }

    /// Extends, confirms or releases a hold of `holder`.
    pub async fn act(
        &self,
        action: Action,
        holder: HolderId,
        hold: HoldId,
        now: ServerMillis,
    ) -> Result<Written, AppError> {
        self.ask(|reply| Command::Write(Write::Act { action, holder, hold, now, reply })).await
    }

    /// Expires a hold if the outbox entry's deadline is still the stored one.
    pub async fn expire(&self, due: DueExpiry, now: ServerMillis) -> Result<bool, AppError> {
        self.ask(|reply| Command::Write(Write::Expire { due, now, reply })).await
    }

    /// One of `holder`'s holds.
    pub async fn hold(&self, holder: HolderId, hold: HoldId, now: ServerMillis) -> Result<HoldBody, AppError> {
        self.ask(|reply| Command::Read(Read::Hold { holder, hold, now, reply })).await
    }

    /// The seat map as `viewer` sees it.
    pub async fn seat_map(&self, viewer: Option<HolderId>, now: ServerMillis) -> Result<SeatMap, AppError> {
        self.ask(|reply| Command::Read(Read::SeatMap { viewer, now, reply })).await
    }

    /// A live feed of changes, starting after `after` when possible.
    pub async fn subscribe(
        &self,
        viewer: Option<HolderId>,
        after: Option<i64>,
        now: ServerMillis,
    ) -> Result<Subscription, AppError> {
        self.ask(|reply| Command::Read(Read::Subscribe { viewer, after, now, reply })).await
    }
}
