//! Catching up with what other processes committed to a shared store: the
//! journal entries after this writer's version, applied in order, each
//! published to this process's live viewers and indexed. Incremental: a
//! writer behind by k entries reads and applies k entries, never the whole
//! history.

use crate::store::JournalEntry;

use super::actor::ShowActor;

/// Why entries could not be applied; the writer then reloads the show.
#[derive(Debug)]
pub struct Gap(pub String);

impl ShowActor {
    /// Applies entries after the current version, in order. Entries at or
    /// below it are skipped (already here); a missing version is a gap.
    pub(super) fn catch_up(&mut self, entries: Vec<JournalEntry>) -> Result<(), Gap> {
        for entry in entries {
            if entry.version <= self.state.version() {
                continue;
            }
            if entry.version != self.state.version() + 1 {
                return Err(Gap(format!("at version {}, next entry is {}", self.state.version(), entry.version)));
            }
            let change = entry
                .change_for(&self.state)
                .ok_or_else(|| Gap(format!("entry {} names a hold this show does not have", entry.version)))?;
            self.state.apply(&change);
            if self.state.version() != entry.version {
                return Err(Gap(format!("entry {} does not apply to the state", entry.version)));
            }
            self.observe(&change, entry.at);
        }
        Ok(())
    }
}
