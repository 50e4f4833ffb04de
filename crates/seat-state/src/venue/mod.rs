//! The authoritative state of one show: which seats are sold, which holds
//! hold what until when. The server keeps one per show in memory and
//! decides with it; the browser may predict with the very same code.
//!
//! Costs, with k the places of one request or hold, n the seats of the show,
//! h the holds one holder ever made, a the stored-`HELD` holds of one area:
//! a decision is O(k log n + h + a) and allocates only its answer; `apply`
//! is O(k log n + log a); nothing ever clones the show or scans every seat
//! except the whole-map facts.

mod best;
mod block;
mod change;
mod decide;
mod facts;
mod retire;
mod slab;

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use crate::hold::{Hold, HoldStatus, HolderId};
use crate::ids::{AreaId, HoldId, SeatId};
use crate::rejection::Rejection;
use crate::request::{HoldRequest, parse_best, parse_with};
use crate::seating::Point;
use crate::show::Show;
use crate::strand::Rows;
use crate::time::ServerMillis;
use crate::wire::{HoldOrder, HoldRequestBody};

pub use best::BlockRank;
pub use block::MAX_BLOCK_REASON;
pub use change::{Change, Decision};
pub use facts::{SeatScope, SeatStanding};
pub use retire::Retired;
use slab::{HoldSlab, Kept};

/// What a request may take beyond seats open to everyone: a channel's
/// seats with its code, access seats when it asks for access.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Reach<'a> {
    pub code: Option<&'a str>,
    pub access: bool,
}

impl<'a> Reach<'a> {
    pub(crate) fn of(request: &'a HoldRequest) -> Self {
        Self { code: request.channel.as_deref(), access: request.access }
    }
}

/// A stored-`HELD` hold by deadline, then id: an order that does not
/// depend on the order holds were made or restored in.
type DueKey = (ServerMillis, HoldId);

/// The first key with a deadline after `now`.
fn after(now: ServerMillis) -> DueKey {
    (now.plus_millis(1), HoldId::MIN)
}

/// One seat: the latest hold that took it (the confirmed one once sold).
/// Only that hold can be active; see `ShowState::link`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct SeatSlot {
    hold: Option<usize>,
    sold: bool,
    /// With no `hold` kept: the `created_version` of the latest hold that
    /// took the seat and left memory, so no older hold links again.
    floor: i64,
}

/// One general-admission area: places sold, and the stored-`HELD` holds by
/// deadline with their quantities.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct AreaSlot {
    sold: u32,
    /// Of `sold`, the places sold by holds no longer kept in memory.
    retired: u32,
    holds: BTreeMap<DueKey, (u32, usize)>,
}

/// A show's seats, areas and holds; see the module docs for costs.
#[derive(Debug, Clone, PartialEq)]
pub struct ShowState {
    show: Arc<Show>,
    /// Ids to positions: hashed, as nothing walks them in order (a seat
    /// found in a B-tree of 20,000 ids took some 15 string comparisons).
    seat_index: HashMap<SeatId, usize>,
    area_index: HashMap<AreaId, usize>,
    seats: Vec<SeatSlot>,
    areas: Vec<AreaSlot>,
    /// The holds kept in memory: every one that can still hold places,
    /// and settled ones until the server evicts them (see `retire.rs`).
    holds: HoldSlab,
    /// Hold ids are the client's choice: std's randomly keyed hasher keeps
    /// chosen collisions out. Never iterated, so no order leaks out.
    hold_index: HashMap<HoldId, usize>,
    /// Per holder, oldest first by creation order.
    by_holder: HashMap<HolderId, Vec<usize>>,
    version: i64,
    /// Seat positions by row, in number order: best available's search
    /// and the orphan rule's neighbours.
    rows: Rows,
    /// Where best available measures from.
    focus: Point,
    /// Per seat, the channel (index into the show's) it is kept for.
    seat_channel: Vec<Option<usize>>,
    /// Per seat, whether the box office blocked it.
    blocked: Vec<bool>,
    /// Per sold seat whose confirmed hold was evicted, who bought it.
    retired_buyer: Vec<Option<HolderId>>,
}

impl ShowState {
    /// An empty state: nothing held, nothing sold, version 0. O(n log n), once.
    pub fn new(show: impl Into<Arc<Show>>) -> Self {
        let show = show.into();
        let seat_index: HashMap<SeatId, usize> =
            show.seats.iter().enumerate().map(|(at, seat)| (seat.id.clone(), at)).collect();
        let area_index = show.areas.iter().enumerate().map(|(at, area)| (area.id.clone(), at)).collect();
        let mut seat_channel = vec![None; show.seats.len()];
        for (channel, kept) in show.channels.iter().enumerate() {
            for seat in &kept.seats {
                if let Some(&at) = seat_index.get(seat) {
                    seat_channel[at] = Some(channel);
                }
            }
        }
        Self {
            rows: best::rows_of(&show),
            focus: best::focus_of(&show),
            seat_channel,
            blocked: vec![false; show.seats.len()],
            retired_buyer: vec![None; show.seats.len()],
            seats: vec![SeatSlot::default(); show.seats.len()],
            areas: vec![AreaSlot::default(); show.areas.len()],
            show,
            seat_index,
            area_index,
            holds: HoldSlab::default(),
            hold_index: HashMap::new(),
            by_holder: HashMap::new(),
            version: 0,
        }
    }

    /// The show this is the state of.
    pub fn show(&self) -> &Show {
        &self.show
    }

    /// Rises by one with every applied change.
    pub fn version(&self) -> i64 {
        self.version
    }

    /// Sets the version read back from storage (after [`Self::restore`]).
    pub fn set_version(&mut self, version: i64) {
        self.version = version;
    }

    /// One hold by id.
    pub fn hold(&self, id: &HoldId) -> Option<&Hold> {
        self.hold_index.get(id).map(|&at| &self.holds[at])
    }

    /// Every hold kept in memory, oldest first (in the order they were
    /// decided). O(h log h).
    pub fn holds(&self) -> std::vec::IntoIter<&Hold> {
        let mut holds: Vec<&Hold> = self.holds.iter().map(|kept| &kept.hold).collect();
        holds.sort_by_key(|hold| hold.created_version);
        holds.into_iter()
    }

    /// How many holds are kept in memory.
    pub fn kept_holds(&self) -> usize {
        self.holds.len()
    }

    /// One holder's holds, newest first.
    pub fn holds_of(&self, holder: &HolderId) -> impl Iterator<Item = &Hold> {
        self.by_holder.get(holder).into_iter().flat_map(|list| list.iter().rev()).map(|&at| &self.holds[at])
    }

    /// Validates a hold request against this show: as
    /// [`HoldRequest::parse`], in O(k log k + k log n).
    pub fn parse_request(&self, body: &HoldRequestBody, generated_id: HoldId) -> Result<HoldRequest, Rejection> {
        parse_with(
            body,
            &self.show.rules,
            generated_id,
            |ids| ids.iter().map(|id| self.seat_index.contains_key(*id)).collect(),
            |area| self.area_index.contains_key(area),
        )
    }

    /// Validates a box office request: a v1 body as [`Self::parse_request`],
    /// or `best` (alone, a count from 1 to `maxSeatsPerHold`, a known
    /// category, wheelchair places up to half the count: else
    /// `InvalidBest`), with its channel code if any; it asks for access
    /// with `"access": true` or wheelchair places.
    pub fn parse_order(&self, order: &HoldOrder, generated_id: HoldId) -> Result<HoldRequest, Rejection> {
        let channel = order.channel.clone();
        let access = order.access == Some(true);
        let Some(best) = &order.best else {
            return Ok(HoldRequest { channel, access, ..self.parse_request(&order.body, generated_id)? });
        };
        let hold_id = match &order.body.hold_id {
            Some(raw) => HoldId::parse(raw).map_err(|_| Rejection::InvalidHoldId)?,
            None => generated_id,
        };
        let best = parse_best(best, &order.body, &self.show)?;
        let access = access || best.wheelchair > 0;
        Ok(HoldRequest { hold_id, seats: Vec::new(), areas: Vec::new(), best: Some(best), channel, access })
    }

    /// Whether seat `at` may be held by a request with this channel code
    /// that asks for access or not, at `now`: it is not blocked, kept for
    /// no channel or for the one with that code, and not an access seat
    /// the request cannot take ([`Show::access_open`]).
    fn open_to(&self, at: usize, reach: Reach<'_>, now: ServerMillis) -> bool {
        !self.blocked[at]
            && self.seat_channel[at].is_none_or(|channel| reach.code == Some(self.show.channels[channel].code.as_str()))
            && self.show.access_open(at, reach.access, now)
    }

    /// Whether seat `at` is free at `now` for a request of this reach:
    /// what the orphan rule counts as free.
    fn free_for(&self, at: usize, reach: Reach<'_>, now: ServerMillis) -> bool {
        self.seat_free(at, now, None) && self.open_to(at, reach, now)
    }

    /// The seats of each row, in number order.
    pub fn rows(&self) -> &Rows {
        &self.rows
    }

    /// Places of `area` that a new hold could take at `now`: capacity minus
    /// sold minus unexpired holds; 0 for an unknown area. O(log a + active a).
    pub fn availability(&self, area: &AreaId, now: ServerMillis) -> u32 {
        self.area_index.get(area).map_or(0, |&at| self.area_available(at, now))
    }

    fn area_available(&self, at: usize, now: ServerMillis) -> u32 {
        let slot = &self.areas[at];
        let held: u64 = slot.holds.range(after(now)..).map(|(_, &(q, _))| u64::from(q)).sum();
        let taken = held.saturating_add(u64::from(slot.sold));
        let capacity = u64::from(self.show.areas[at].capacity);
        u32::try_from(capacity.saturating_sub(taken)).unwrap_or(0)
    }

    /// Whether seat `at` is neither sold nor under an unexpired hold other
    /// than `except`.
    fn seat_free(&self, at: usize, now: ServerMillis, except: Option<usize>) -> bool {
        let slot = self.seats[at];
        !slot.sold && slot.hold.is_none_or(|h| Some(h) == except || !self.holds[h].is_active(now))
    }

    /// Holds due for an expiry: stored `HELD` with a deadline at or before
    /// `now`, by deadline then id, at most `limit`. O(holds kept): the
    /// server's sweep reads the store's outbox instead, so no queue is kept
    /// up to date on the write path for this.
    pub fn expired_holds(&self, now: ServerMillis, limit: usize) -> Vec<(HoldId, ServerMillis)> {
        let mut due: Vec<DueKey> = self.stored_held().filter(|(deadline, _)| *deadline <= now).collect();
        due.sort_unstable();
        due.into_iter().take(limit).map(|(deadline, id)| (id, deadline)).collect()
    }

    /// The earliest deadline of a stored-`HELD` hold. O(holds kept).
    pub fn next_deadline(&self) -> Option<ServerMillis> {
        self.stored_held().map(|(deadline, _)| deadline).min()
    }

    fn stored_held(&self) -> impl Iterator<Item = DueKey> + '_ {
        self.holds
            .iter()
            .map(|kept| &kept.hold)
            .filter(|hold| hold.stored_status == HoldStatus::Held)
            .map(|hold| (hold.expires_at, hold.id.clone()))
    }

    /// Adds a hold read back from storage, in any order; sold seats come
    /// from confirmed holds. A hold id already present is ignored. Does not
    /// change the version: call [`Self::set_version`] after.
    pub fn restore(&mut self, hold: Hold) {
        if !self.hold_index.contains_key(&hold.id) {
            self.insert(hold, false);
        }
    }

    /// Applies a change whose conditional write succeeded, and bumps the
    /// version. A change whose stored-state condition fails here (unknown or
    /// known hold id, other status or deadline) is ignored and bumps nothing,
    /// so a stale change can never undo a newer state. Conditions on `now`
    /// (free seats, an unexpired deadline) are the decision's and the
    /// store's to check. O(k log n + log a).
    pub fn apply(&mut self, change: &Change) {
        if self.apply_inner(change) {
            self.version += 1;
        }
    }

    /// Applies a change a journal recorded at `version`, which must be the
    /// next one: how a writer loads a show and catches up with another
    /// process. The error names the entry that did not apply.
    pub fn apply_next(&mut self, version: i64, change: &Change) -> Result<(), String> {
        if version != self.version + 1 {
            return Err(format!("at version {}, the next entry is {version}", self.version));
        }
        self.apply(change);
        if self.version != version {
            return Err(format!("entry {version} does not apply to the show as it stood"));
        }
        Ok(())
    }

    fn apply_inner(&mut self, change: &Change) -> bool {
        let hold_id = match change {
            Change::Created { hold } => {
                if self.hold_index.contains_key(&hold.id) || hold.stored_status != HoldStatus::Held {
                    return false;
                }
                self.insert(hold.clone(), false);
                return true;
            }
            Change::Blocked { seats, .. } => return self.set_blocked(seats, true),
            Change::Unblocked { seats } => return self.set_blocked(seats, false),
            Change::Extended { hold, .. }
            | Change::Confirmed { hold, .. }
            | Change::Released { hold, .. }
            | Change::Expired { hold, .. } => hold,
        };
        let Some(&at) = self.hold_index.get(hold_id) else {
            return false;
        };
        if !self.holds[at].fits(change) {
            return false;
        }
        // An extension moves only the deadline; the rest change what the hold takes.
        let extension = matches!(change, Change::Extended { .. });
        if extension {
            self.unlink_deadline(at)
        } else {
            self.unlink(at)
        }
        self.holds.get_mut(at).take(change);
        if extension {
            self.link_deadline(at);
        } else if matches!(change, Change::Confirmed { .. }) {
            self.link(at);
        }
        true
    }

    /// Keeps a hold and links what it takes, unless its sale is retired.
    fn insert(&mut self, hold: Hold, sale_retired: bool) {
        let at = self.holds.next_position();
        let holds = &self.holds;
        let newer = |other: &usize| holds[*other].created_version <= hold.created_version;
        match self.by_holder.get_mut(&hold.holder) {
            Some(list) => list.insert(list.partition_point(newer), at),
            None => {
                self.by_holder.insert(hold.holder.clone(), vec![at]);
            }
        }
        self.hold_index.insert(hold.id.clone(), at);
        self.holds.insert(Kept { hold, sale_retired });
        if !sale_retired {
            self.link(at);
        }
    }

    /// Records what a hold takes. Every seat points at the latest hold that
    /// took it (by `created_version`: never by instant, since instants tie
    /// within a batch), whatever became of it, unless a
    /// confirmed hold sold it: a newer hold can only exist if the older one
    /// had ended, so only the latest can be active. Order-independent, so
    /// [`Self::restore`] may come in any order.
    fn link(&mut self, at: usize) {
        let hold = &self.holds[at];
        let confirmed = hold.stored_status == HoldStatus::Confirmed;
        for seat in &hold.seats {
            let Some(&s) = self.seat_index.get(seat) else {
                continue;
            };
            let slot = &mut self.seats[s];
            let newer = |other: usize| self.holds[other].created_version < hold.created_version;
            let latest = slot.hold.map_or(hold.created_version >= slot.floor, newer);
            if confirmed || (!slot.sold && latest) {
                slot.hold = Some(at);
                slot.sold |= confirmed;
            }
        }
        match hold.stored_status {
            HoldStatus::Held => self.link_deadline(at),
            HoldStatus::Confirmed => {
                for (area, quantity) in &hold.areas {
                    if let Some(&a) = self.area_index.get(area) {
                        let slot = &mut self.areas[a];
                        slot.sold = slot.sold.saturating_add(quantity.get());
                    }
                }
            }
            HoldStatus::Released | HoldStatus::Expired => {}
        }
    }

    /// A stored-`HELD` hold stops holding its area places and leaves the
    /// sweep's queue (its seats need nothing: see [`Self::link`]).
    fn unlink(&mut self, at: usize) {
        if self.holds[at].stored_status == HoldStatus::Held {
            self.unlink_deadline(at);
        }
    }

    /// Adds a stored-`HELD` hold's deadline to its areas.
    fn link_deadline(&mut self, at: usize) {
        let hold = &self.holds[at];
        let key = (hold.expires_at, hold.id.clone());
        for (area, quantity) in &hold.areas {
            if let Some(&a) = self.area_index.get(area) {
                self.areas[a].holds.insert(key.clone(), (quantity.get(), at));
            }
        }
    }

    fn unlink_deadline(&mut self, at: usize) {
        let hold = &self.holds[at];
        let key = (hold.expires_at, hold.id.clone());
        for (area, _) in &hold.areas {
            if let Some(&a) = self.area_index.get(area) {
                self.areas[a].holds.remove(&key);
            }
        }
    }
}
