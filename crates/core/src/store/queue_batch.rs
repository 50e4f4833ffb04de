//! One batch of a show's queue writer. On a store other processes share,
//! the batch holds the show's queue lock from before the writer decides
//! until its entries are appended, as a seat batch does for seats: two
//! processes never decide on the same log, so an append never collides
//! (a collision would cost a reload of the whole log and a refused batch).

use async_trait::async_trait;

use seat_state::{QueueEntry, ServerMillis};

use super::{CommitError, Store};

#[async_trait]
pub trait QueueBatch: Send {
    /// The instant to decide at from the store's own clock (the
    /// database's); `None`: the process's clock decides.
    fn now(&self) -> Option<ServerMillis>;
    /// Entries other processes appended after the writer's seq, oldest
    /// first: the writer applies them before it decides.
    fn take_missed(&mut self) -> Vec<QueueEntry>;
    /// Appends the entries, which continue the log, all or nothing and
    /// durably, and ends the batch.
    async fn append(self: Box<Self>, entries: Vec<QueueEntry>) -> Result<(), CommitError>;
}

/// The queue batch of a store only this process writes: nothing to lock,
/// nothing missed, the process's clock decides.
pub struct LocalQueueBatch<'a, S: ?Sized> {
    store: &'a S,
    show_id: &'a str,
}

impl<'a, S: ?Sized> LocalQueueBatch<'a, S> {
    pub fn new(store: &'a S, show_id: &'a str) -> Self {
        Self { store, show_id }
    }
}

#[async_trait]
impl<S: Store + ?Sized> QueueBatch for LocalQueueBatch<'_, S> {
    fn now(&self) -> Option<ServerMillis> {
        None
    }

    fn take_missed(&mut self) -> Vec<QueueEntry> {
        Vec::new()
    }

    async fn append(self: Box<Self>, entries: Vec<QueueEntry>) -> Result<(), CommitError> {
        if entries.is_empty() {
            return Ok(());
        }
        self.store.append_queue(self.show_id, entries).await
    }
}
