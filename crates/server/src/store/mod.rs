//! Storage: the only place that knows SQL.
//!
//! `Store` is what the routes need; each engine implements it, and one
//! conformance suite (`tests/store_conformance.rs`) runs against every one.

mod sqlite;

use async_trait::async_trait;

use seat_state::wire::{AreaFact, SeatFact, ShowSummary};
use seat_state::{ServerMillis, Show};

pub use sqlite::SqliteStore;

/// What creating a show did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CreateShow {
    /// The show is new.
    Created,
    /// The very same show already existed; nothing changed.
    AlreadyThere,
    /// A different show has this id; nothing changed.
    Conflict,
}

/// The stored facts of one show's seats and areas.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeatMapFacts {
    pub version: i64,
    pub seats: Vec<SeatFact>,
    pub areas: Vec<AreaFact>,
}

/// A durable home for shows, seats and holds.
#[async_trait]
pub trait Store: Send + Sync + 'static {
    /// Fails when the store cannot answer.
    async fn ping(&self) -> anyhow::Result<()>;
    /// Creates a show unless one with its id exists (atomically).
    async fn create_show(&self, show: &Show, now: ServerMillis) -> anyhow::Result<CreateShow>;
    /// Every show, oldest first.
    async fn list_shows(&self) -> anyhow::Result<Vec<ShowSummary>>;
    /// One show's definition.
    async fn show(&self, show_id: &str) -> anyhow::Result<Option<Show>>;
    /// Records a session: the hash of its token and its public holder id.
    async fn create_session(&self, token_sha256: &str, holder_id: &str, now: ServerMillis) -> anyhow::Result<()>;
    /// The holder id of the session whose token has this hash.
    async fn session_holder(&self, token_sha256: &str) -> anyhow::Result<Option<String>>;
    /// One show's seat and area facts, in definition order.
    async fn seat_map(&self, show_id: &str) -> anyhow::Result<Option<SeatMapFacts>>;
}

/// Opens the store a `--database` URL names, migrated to the current schema.
pub async fn open(url: &str) -> anyhow::Result<std::sync::Arc<dyn Store>> {
    if let Some(path) = url.strip_prefix("sqlite://").or_else(|| url.strip_prefix("sqlite:")) {
        return Ok(std::sync::Arc::new(SqliteStore::open(path).await?));
    }
    anyhow::bail!("unsupported --database {url:?}: expected sqlite:PATH")
}
