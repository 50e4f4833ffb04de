//! Which show each hold belongs to, and each holder's holds across shows.
//!
//! Only show writers change it: a new hold is indexed as part of its commit
//! (before anyone is answered, so a dropped connection cannot skip it), and
//! a show's entries are rebuilt from storage whenever its writer (re)loads.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, RwLock};

use seat_state::{Hold, HoldId, HolderId, ServerMillis};

use super::error::EngineError;

/// Where a hold lives, in the order "newest first" lists it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Entry {
    created_at: ServerMillis,
    show: Arc<str>,
    created_version: i64,
    hold: HoldId,
}

#[derive(Default)]
struct Inner {
    shows: HashMap<HoldId, Arc<str>>,
    /// Oldest first.
    by_holder: HashMap<HolderId, Vec<Entry>>,
    /// Each show's holds, so a reload replaces exactly them.
    by_show: HashMap<Arc<str>, Vec<(HolderId, HoldId)>>,
    /// Shows whose writer cannot tell what storage has (a commit failed and
    /// so did the reload): their entries may be missing, so a lookup that
    /// finds nothing cannot say "no such hold".
    unknown: HashSet<Arc<str>>,
}

/// Hold ids are global; each hold lives in one show.
#[derive(Default)]
pub struct HoldIndex(RwLock<Inner>);

fn poisoned() -> EngineError {
    EngineError::internal("hold index lock poisoned")
}

impl Inner {
    fn insert(&mut self, show: &Arc<str>, hold: &Hold) {
        if self.shows.insert(hold.id.clone(), Arc::clone(show)).is_some() {
            return;
        }
        let entry = Entry {
            created_at: hold.created_at,
            show: Arc::clone(show),
            created_version: hold.created_version,
            hold: hold.id.clone(),
        };
        let list = self.by_holder.entry(hold.holder.clone()).or_default();
        list.insert(list.partition_point(|other| *other <= entry), entry);
        self.by_show.entry(Arc::clone(show)).or_default().push((hold.holder.clone(), hold.id.clone()));
    }

    fn remove_show(&mut self, show: &str) {
        for (holder, hold) in self.by_show.remove(show).unwrap_or_default() {
            self.shows.remove(&hold);
            if let Some(list) = self.by_holder.get_mut(&holder) {
                list.retain(|entry| entry.hold != hold);
            }
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
        inner.remove_show(show);
        for hold in holds {
            inner.insert(show, hold);
        }
        inner.unknown.remove(show);
        Ok(())
    }

    /// Marks a show's entries as possibly incomplete until its next reload.
    pub fn mark_unknown(&self, show: &Arc<str>) -> Result<(), EngineError> {
        self.0.write().map_err(|_| poisoned())?.unknown.insert(Arc::clone(show));
        Ok(())
    }

    /// The show a hold belongs to. Unavailable rather than "none" while a
    /// show's entries may be missing.
    pub fn show_of(&self, hold: &HoldId) -> Result<Option<Arc<str>>, EngineError> {
        let inner = self.0.read().map_err(|_| poisoned())?;
        match inner.shows.get(hold) {
            Some(show) => Ok(Some(Arc::clone(show))),
            None if inner.unknown.is_empty() => Ok(None),
            None => Err(EngineError::Unavailable),
        }
    }

    /// A holder's holds with their shows, newest first (by decision instant
    /// across shows, by decision order within one).
    pub fn holds_of(&self, holder: &HolderId) -> Result<Vec<(Arc<str>, HoldId)>, EngineError> {
        let inner = self.0.read().map_err(|_| poisoned())?;
        if !inner.unknown.is_empty() {
            return Err(EngineError::Unavailable);
        }
        let list = inner.by_holder.get(holder).map(Vec::as_slice).unwrap_or_default();
        Ok(list.iter().rev().map(|entry| (Arc::clone(&entry.show), entry.hold.clone())).collect())
    }
}
