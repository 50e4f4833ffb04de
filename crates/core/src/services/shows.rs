//! The shows a store keeps: list, definition, create, and whether storage
//! answers at all.

use std::sync::Arc;

use seat_state::wire::ShowSummary;
use seat_state::{ServerMillis, Show};

use crate::store::{CreateShow, Store};

#[derive(Clone)]
pub struct Shows {
    store: Arc<dyn Store>,
}

impl Shows {
    pub fn new(store: Arc<dyn Store>) -> Self {
        Self { store }
    }

    /// Every show.
    pub async fn list(&self) -> anyhow::Result<Vec<ShowSummary>> {
        self.store.list_shows().await
    }

    /// One show's definition; `None` for an unknown show.
    pub async fn definition(&self, show_id: &str) -> anyhow::Result<Option<Show>> {
        self.store.show(show_id).await
    }

    /// Creates a show unless one with its id exists (atomically).
    pub async fn create(&self, show: &Show, now: ServerMillis) -> anyhow::Result<CreateShow> {
        self.store.create_show(show, now).await
    }

    /// `Ok` when storage answers (the health check).
    pub async fn ping(&self) -> anyhow::Result<()> {
        self.store.ping().await
    }
}
