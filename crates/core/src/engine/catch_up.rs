//! Catching up with what other processes committed to a shared store: the
//! journal entries after this writer's version, applied in order, each
//! published to this process's live viewers and indexed. Incremental: a
//! writer behind by k entries reads and applies k entries, never the whole
//! history.

use crate::store::Transition;

use super::actor::ShowActor;

/// Why entries could not be applied; the writer then reloads the show.
#[derive(Debug)]
pub struct Gap(pub String);

impl ShowActor {
    /// Applies entries after the current version, in order. Entries at or
    /// below it are skipped (already here); a missing version is a gap.
    pub(super) fn catch_up(&mut self, entries: Vec<Transition>) -> Result<(), Gap> {
        let mut applied = false;
        for entry in entries {
            if entry.version <= self.state.version() {
                continue;
            }
            self.state.apply_next(entry.version, &entry.change).map_err(Gap)?;
            self.observe(&entry.change, entry.at);
            applied = true;
        }
        // Readers get the map once per catch-up, not once per entry (a gap
        // reloads the show, which publishes it).
        if applied {
            self.publish_view();
        }
        Ok(())
    }
}
