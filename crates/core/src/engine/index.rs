//! Which show each hold in memory belongs to: a cache of the store's index
//! of record (`hold_ids`), which answers whatever this misses.
//!
//! Only show writers change it: a new hold is indexed as part of its commit
//! (before anyone is answered, so a dropped connection cannot skip it), a
//! show's entries are rebuilt from storage whenever its writer (re)loads,
//! and holds that leave a writer's memory leave the index too.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, RwLock};

use seat_state::{Hold, HoldId};

use super::error::EngineError;

#[derive(Default)]
struct Inner {
    shows: HashMap<HoldId, Arc<str>>,
    /// Each show's holds, so a reload replaces exactly them.
    by_show: HashMap<Arc<str>, HashSet<HoldId>>,
}

/// Hold ids are global; each hold lives in one show.
#[derive(Default)]
pub struct HoldIndex(RwLock<Inner>);

fn poisoned() -> EngineError {
    EngineError::internal("hold index lock poisoned")
}

impl Inner {
    fn insert(&mut self, show: &Arc<str>, hold: &Hold) {
        if self.shows.insert(hold.id.clone(), Arc::clone(show)).is_none() {
            self.by_show.entry(Arc::clone(show)).or_default().insert(hold.id.clone());
        }
    }
}

impl HoldIndex {
    /// Indexes a hold just committed by `show`'s writer.
    pub fn insert(&self, show: &Arc<str>, hold: &Hold) -> Result<(), EngineError> {
        self.0.write().map_err(|_| poisoned())?.insert(show, hold);
        Ok(())
    }

    /// Replaces every entry of `show` with `holds` (as just loaded from storage).
    pub fn replace_show<'a>(&self, show: &Arc<str>, holds: impl Iterator<Item = &'a Hold>) -> Result<(), EngineError> {
        let mut inner = self.0.write().map_err(|_| poisoned())?;
        for hold in inner.by_show.remove(show).unwrap_or_default() {
            inner.shows.remove(&hold);
        }
        for hold in holds {
            inner.insert(show, hold);
        }
        Ok(())
    }

    /// Drops holds that left `show`'s memory (storage still has them).
    pub fn forget(&self, show: &Arc<str>, holds: &[HoldId]) -> Result<(), EngineError> {
        let mut inner = self.0.write().map_err(|_| poisoned())?;
        for hold in holds {
            inner.shows.remove(hold);
        }
        if let Some(kept) = inner.by_show.get_mut(show) {
            for hold in holds {
                kept.remove(hold);
            }
        }
        Ok(())
    }

    /// The show a hold belongs to, if it is in memory; `None` says only
    /// "ask the store".
    pub fn show_of(&self, hold: &HoldId) -> Result<Option<Arc<str>>, EngineError> {
        Ok(self.0.read().map_err(|_| poisoned())?.shows.get(hold).cloned())
    }
}
