//! Each show's definition as `GET /api/shows/{showId}` sends it (API.md
//! "On-sale (v3)"): immutable for the life of the show, so written and
//! compressed once per process and kept. The same bytes on every process
//! (no `serverTime`, default labels left out, channel codes left out), so
//! the `ETag` agrees across processes and a CDN may keep it. Memory grows
//! with the number of shows, not requests.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use tokio::sync::OnceCell;

use crate::encoded::{Effort, Encoded};
use seathold_core::services::Shows;

/// How long a browser or a CDN may keep a definition without asking again
/// (it never changes; a day bounds what a re-created database could leave).
pub const CACHE_CONTROL: &str = "public, max-age=86400";

/// One show's definition, once written (`None`: no such show).
type Written = Arc<OnceCell<Option<Arc<Encoded>>>>;

/// Encoded definitions by show id; each written once, whoever asks first
/// waits for it and everyone after reads it.
#[derive(Default)]
pub struct Definitions(Mutex<HashMap<String, Written>>);

impl Definitions {
    /// The show's definition; `None` for an unknown show.
    pub async fn get(&self, shows: &Shows, show_id: &str) -> anyhow::Result<Option<Arc<Encoded>>> {
        let cell = {
            let mut cells = self.0.lock().map_err(|_| anyhow::anyhow!("definition cache lock poisoned"))?;
            match cells.get(show_id) {
                Some(cell) => Arc::clone(cell),
                None => Arc::clone(cells.entry(show_id.to_owned()).or_default()),
            }
        };
        let made = cell
            .get_or_try_init(|| async {
                let Some(show) = shows.definition(show_id).await? else { return anyhow::Ok(None) };
                let json = serde_json::to_vec(&show.to_wire().for_customers())?;
                // Brotli's best for a 20,000-seat venue is about a second of CPU.
                let encoded =
                    tokio::task::spawn_blocking(move || Encoded::new(Bytes::from(json), Effort::MOST)).await??;
                Ok(Some(Arc::new(encoded)))
            })
            .await;
        match made {
            Ok(Some(encoded)) => Ok(Some(Arc::clone(encoded))),
            Ok(None) => {
                // An unknown show may be created later: ask the store again then.
                self.forget(show_id);
                Ok(None)
            }
            Err(error) => Err(error),
        }
    }

    fn forget(&self, show_id: &str) {
        if let Ok(mut cells) = self.0.lock() {
            cells.remove(show_id);
        }
    }
}
