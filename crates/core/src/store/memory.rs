//! A store in memory, with SQLite's semantics: the same version condition,
//! the same hold-id constraint, the same outbox. Nothing survives the
//! process; the simulator and tests use it where a file would only be slower.
//! Clones share one store, so a "restart" is a new engine over a clone.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, MutexGuard};

use async_trait::async_trait;

use seat_state::wire::ShowSummary;
use seat_state::{Change, Hold, HoldId, HolderId, QueueEntry, ServerMillis, Show};

use super::checkpoint::{hold_in, load_in};
use super::journal::through_the_codec;
use super::queue_log::continues;

mod webhooks;
use super::{Checkpoint, CommitError, CreateShow, DueExpiry, LoadedHolds, SessionSeen, Store, Transition};

/// Every show, session, hold id and outbox entry.
#[derive(Clone, Default)]
pub struct MemoryStore(Arc<Mutex<Inner>>);

#[derive(Default)]
struct Inner {
    shows: BTreeMap<String, StoredShow>,
    sessions: HashMap<String, SessionSeen>,
    /// Each hold's show, holder and order (created_at, version).
    hold_ids: HashMap<HoldId, (String, HolderId, ServerMillis, i64)>,
    /// By sequence number, as SQLite's `outbox.seq`.
    outbox: BTreeMap<i64, Entry>,
    next_seq: i64,
    /// Each show's queue log, in seq order (entry `i` has seq `i + 1`).
    queues: HashMap<String, Vec<QueueEntry>>,
    hooks: webhooks::Hooks,
}

struct StoredShow {
    show: Show,
    created_at: ServerMillis,
    /// The journal, in version order (entry `i` has version `i + 1`).
    journal: Vec<Transition>,
    /// The latest checkpoint, as the SQL stores keep it (JSON).
    checkpoint: Option<(i64, String)>,
}

struct Entry {
    show_id: String,
    hold_id: HoldId,
    deadline: ServerMillis,
    done: bool,
}

impl MemoryStore {
    fn lock(&self) -> anyhow::Result<MutexGuard<'_, Inner>> {
        self.0.lock().map_err(|_| anyhow::anyhow!("memory store lock poisoned"))
    }
}

impl Inner {
    fn add_outbox(&mut self, show_id: &str, hold_id: &HoldId, deadline: ServerMillis) {
        self.next_seq += 1;
        let entry = Entry { show_id: show_id.to_owned(), hold_id: hold_id.clone(), deadline, done: false };
        self.outbox.insert(self.next_seq, entry);
    }
}

#[async_trait]
impl Store for MemoryStore {
    async fn ping(&self) -> anyhow::Result<()> {
        self.lock().map(drop)
    }

    async fn create_show(&self, show: &Show, now: ServerMillis) -> anyhow::Result<CreateShow> {
        let mut inner = self.lock()?;
        if let Some(existing) = inner.shows.get(show.id.as_str()) {
            return Ok(if existing.show == *show { CreateShow::AlreadyThere } else { CreateShow::Conflict });
        }
        inner.shows.insert(
            show.id.to_string(),
            StoredShow { show: show.clone(), created_at: now, journal: Vec::new(), checkpoint: None },
        );
        Ok(CreateShow::Created)
    }

    async fn list_shows(&self) -> anyhow::Result<Vec<ShowSummary>> {
        let inner = self.lock()?;
        let mut shows: Vec<_> = inner.shows.values().collect();
        shows.sort_by(|a, b| (a.created_at, &a.show.id).cmp(&(b.created_at, &b.show.id)));
        Ok(shows
            .into_iter()
            .map(|stored| ShowSummary {
                id: stored.show.id.to_string(),
                name: stored.show.name.clone(),
                seat_count: stored.show.seats.len() as u64,
                area_count: stored.show.areas.len() as u64,
            })
            .collect())
    }

    async fn show(&self, show_id: &str) -> anyhow::Result<Option<Show>> {
        Ok(self.lock()?.shows.get(show_id).map(|stored| stored.show.clone()))
    }

    async fn create_session(&self, token_sha256: &str, holder_id: &str, now: ServerMillis) -> anyhow::Result<()> {
        let seen = SessionSeen { holder: holder_id.to_owned(), last_seen_at: now };
        self.lock()?.sessions.insert(token_sha256.to_owned(), seen);
        Ok(())
    }

    async fn session_holder(&self, token_sha256: &str) -> anyhow::Result<Option<SessionSeen>> {
        Ok(self.lock()?.sessions.get(token_sha256).cloned())
    }

    async fn touch_session(&self, token_sha256: &str, now: ServerMillis) -> anyhow::Result<()> {
        if let Some(seen) = self.lock()?.sessions.get_mut(token_sha256) {
            seen.last_seen_at = seen.last_seen_at.max(now);
        }
        Ok(())
    }

    async fn load_holds(&self, show_id: &str) -> anyhow::Result<LoadedHolds> {
        let inner = self.lock()?;
        let stored = inner.shows.get(show_id).ok_or_else(|| anyhow::anyhow!("no show {show_id}"))?;
        load_in(&stored.journal, stored.checkpoint.as_ref().map(|(_, json)| json.as_str()))
    }

    async fn hold_at(&self, show_id: &str, hold: &HoldId, version: i64) -> anyhow::Result<Option<Hold>> {
        let inner = self.lock()?;
        hold_in(inner.shows.get(show_id).map(|stored| stored.journal.as_slice()).unwrap_or_default(), hold, version)
    }

    async fn save_checkpoint(&self, show_id: &str, checkpoint: &Checkpoint) -> anyhow::Result<()> {
        let json = checkpoint.encode()?;
        let mut inner = self.lock()?;
        let stored = inner.shows.get_mut(show_id).ok_or_else(|| anyhow::anyhow!("no show {show_id}"))?;
        anyhow::ensure!(checkpoint.version <= stored.journal.len() as i64, "a checkpoint ahead of the journal");
        if stored.checkpoint.as_ref().is_none_or(|(kept, _)| *kept < checkpoint.version) {
            stored.checkpoint = Some((checkpoint.version, json));
        }
        Ok(())
    }

    async fn journal(&self, show_id: &str, after_version: i64) -> anyhow::Result<Vec<Transition>> {
        let inner = self.lock()?;
        let journal = inner.shows.get(show_id).map(|stored| stored.journal.as_slice()).unwrap_or_default();
        journal.iter().filter(|t| t.version > after_version).map(through_the_codec).collect()
    }

    async fn hold_show(&self, hold: &HoldId) -> anyhow::Result<Option<String>> {
        Ok(self.lock()?.hold_ids.get(hold).map(|(show, ..)| show.clone()))
    }

    async fn holder_holds(&self, holder: &HolderId) -> anyhow::Result<Vec<(String, HoldId)>> {
        let inner = self.lock()?;
        let mut holds: Vec<_> = inner.hold_ids.iter().filter(|(_, (_, owner, ..))| owner == holder).collect();
        holds.sort_by(|(_, (a_show, _, a_at, a_version)), (_, (b_show, _, b_at, b_version))| {
            (b_at, b_show, b_version).cmp(&(a_at, a_show, a_version))
        });
        Ok(holds.into_iter().map(|(hold, (show, ..))| (show.clone(), hold.clone())).collect())
    }

    async fn commit(&self, show_id: &str, transitions: Arc<[Transition]>) -> Result<(), CommitError> {
        let Some(first) = transitions.first() else { return Ok(()) };
        let mut inner = self.lock()?;
        let stored = inner.shows.get(show_id).ok_or_else(|| anyhow::anyhow!("no show {show_id}"))?;
        let consecutive = transitions.iter().zip(first.version..).all(|(t, version)| t.version == version);
        if !consecutive || stored.journal.len() as i64 != first.version - 1 {
            return Err(CommitError::Stale(format!("show {show_id} is no longer at version {}", first.version - 1)));
        }
        for transition in transitions.iter() {
            if let Change::Created { hold } = &transition.change
                && inner.hold_ids.contains_key(&hold.id)
            {
                return Err(CommitError::HoldIdTaken(hold.id.clone()));
            }
        }
        for transition in transitions.iter() {
            match &transition.change {
                Change::Created { hold } => {
                    let entry = (show_id.to_owned(), hold.holder.clone(), hold.created_at, hold.created_version);
                    inner.hold_ids.insert(hold.id.clone(), entry);
                    inner.add_outbox(show_id, &hold.id, hold.expires_at);
                }
                Change::Extended { hold, to, .. } => inner.add_outbox(show_id, hold, *to),
                _ => {}
            }
        }
        let stored = inner.shows.get_mut(show_id).ok_or_else(|| anyhow::anyhow!("no show {show_id}"))?;
        stored.journal.extend(transitions.iter().cloned());
        Ok(())
    }

    async fn due_expiries(&self, now: ServerMillis, limit: usize) -> anyhow::Result<Vec<DueExpiry>> {
        let inner = self.lock()?;
        let mut due: Vec<_> = inner.outbox.iter().filter(|(_, entry)| !entry.done && entry.deadline <= now).collect();
        due.sort_by_key(|(seq, entry)| (entry.deadline, **seq));
        Ok(due
            .into_iter()
            .take(limit)
            .map(|(seq, entry)| DueExpiry {
                seq: *seq,
                show_id: entry.show_id.clone(),
                hold_id: entry.hold_id.clone(),
                deadline: entry.deadline,
                idempotency_key: format!("expire:{}:{}", entry.hold_id, entry.deadline.0),
            })
            .collect())
    }

    async fn finish_expiries(&self, seqs: Vec<i64>, _now: ServerMillis) -> anyhow::Result<()> {
        let mut inner = self.lock()?;
        for seq in seqs {
            if let Some(entry) = inner.outbox.get_mut(&seq) {
                entry.done = true;
            }
        }
        Ok(())
    }

    async fn queue_log(&self, show_id: &str, after_seq: u64) -> anyhow::Result<Vec<QueueEntry>> {
        let inner = self.lock()?;
        let log = inner.queues.get(show_id).map(Vec::as_slice).unwrap_or_default();
        Ok(log.iter().filter(|entry| entry.seq > after_seq).cloned().collect())
    }

    async fn append_queue(&self, show_id: &str, entries: Vec<QueueEntry>) -> Result<(), CommitError> {
        let mut inner = self.lock()?;
        if !inner.shows.contains_key(show_id) {
            return Err(CommitError::Failed(anyhow::anyhow!("no show {show_id}")));
        }
        let log = inner.queues.entry(show_id.to_owned()).or_default();
        if !continues(log.len() as u64, &entries) {
            return Err(CommitError::Stale(format!("the queue of {show_id} moved on")));
        }
        log.extend(entries);
        Ok(())
    }
}
