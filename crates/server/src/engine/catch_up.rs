//! Catching up with what other processes committed to a shared store: the
//! journal entries after this writer's version, applied in order, each
//! published to this process's live viewers and indexed. Incremental: a
//! writer behind by k entries reads and applies k entries, never the whole
//! history.

use seat_state::{Change, Hold, HoldStatus, ShowState};

use crate::store::{JournalAction, JournalEntry};

use super::actor::ShowActor;

/// Why entries could not be applied; the writer then reloads the show.
#[derive(Debug)]
pub struct Gap(pub String);

/// The change a journal entry made, as this state can apply it.
pub fn change_of(state: &ShowState, entry: &JournalEntry) -> Result<Change, Gap> {
    let stored =
        || state.hold(&entry.hold_id).ok_or_else(|| Gap(format!("entry {} names unknown hold", entry.version)));
    Ok(match &entry.action {
        JournalAction::Created { seats, areas, expires_at } => Change::Created {
            hold: Hold {
                id: entry.hold_id.clone(),
                holder: entry.holder.clone(),
                seats: seats.clone(),
                areas: areas.clone(),
                created_at: entry.at,
                created_version: entry.version,
                expires_at: *expires_at,
                extensions: 0,
                stored_status: HoldStatus::Held,
                late: false,
            },
        },
        JournalAction::Extended { expires_at, extensions } => {
            let hold = stored()?;
            Change::Extended { hold: hold.id.clone(), from: hold.expires_at, to: *expires_at, extensions: *extensions }
        }
        JournalAction::Confirmed { late } => {
            let hold = stored()?;
            Change::Confirmed { hold: hold.id.clone(), deadline: hold.expires_at, late: *late }
        }
        JournalAction::Released => {
            let hold = stored()?;
            Change::Released { hold: hold.id.clone(), previous: hold.stored_status }
        }
        JournalAction::Expired => {
            let hold = stored()?;
            Change::Expired { hold: hold.id.clone(), deadline: hold.expires_at }
        }
    })
}

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
            let change = change_of(&self.state, &entry)?;
            self.state.apply(&change);
            if self.state.version() != entry.version {
                return Err(Gap(format!("entry {} does not apply to the state", entry.version)));
            }
            self.observe(&change, entry.at);
        }
        Ok(())
    }
}
