//! An independent model of the rules that checks the stored journal.
//!
//! It does not use `ShowState`: it re-reads every journal entry and asks
//! whether the rules allowed it at the instant it was decided at. A history
//! that passes never has a seat in two active holds, an area over capacity,
//! a blocked seat in a new hold, a confirmed hold that changed again, or an
//! instant that went backwards.

use std::collections::{BTreeMap, HashMap, HashSet};

use seat_state::{
    AreaId, Change, Hold, HoldId, HoldRules, HoldStatus, HolderId, LatePolicy, SeatId, ServerMillis, Show,
};
use seathold_core::store::Transition;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Held,
    Confirmed,
    Released,
    Expired,
}

impl Status {
    fn of(status: HoldStatus) -> Self {
        match status {
            HoldStatus::Held => Self::Held,
            HoldStatus::Confirmed => Self::Confirmed,
            HoldStatus::Released => Self::Released,
            HoldStatus::Expired => Self::Expired,
        }
    }
}

#[derive(Debug, Clone)]
pub struct ModelHold {
    pub holder: HolderId,
    pub seats: Vec<SeatId>,
    pub areas: Vec<(AreaId, u32)>,
    pub expires_at: ServerMillis,
    pub extensions: u32,
    pub status: Status,
    pub created_version: i64,
}

impl ModelHold {
    /// Takes its places at `now`.
    fn takes_places(&self, now: ServerMillis) -> bool {
        self.status == Status::Confirmed || (self.status == Status::Held && self.expires_at > now)
    }
}

/// One show as the journal so far says it is.
pub struct ShowModel {
    rules: HoldRules,
    capacity: HashMap<AreaId, u32>,
    pub holds: BTreeMap<HoldId, ModelHold>,
    /// Seats the box office blocked.
    pub blocked: HashSet<SeatId>,
    pub version: i64,
    pub latest: Option<ServerMillis>,
}

/// Every show, and hold ids across shows.
#[derive(Default)]
pub struct Oracle {
    pub shows: BTreeMap<String, ShowModel>,
    hold_ids: HashMap<HoldId, String>,
}

impl Oracle {
    pub fn add_show(&mut self, show: &Show) {
        let capacity = show.areas.iter().map(|area| (area.id.clone(), area.capacity)).collect();
        let model = ShowModel {
            rules: show.rules,
            capacity,
            holds: BTreeMap::new(),
            blocked: HashSet::new(),
            version: 0,
            latest: None,
        };
        self.shows.insert(show.id.to_string(), model);
    }

    /// Checks and applies the next journal entries of a show.
    pub fn check(&mut self, show_id: &str, entries: &[Transition]) -> Result<(), String> {
        for entry in entries {
            let context = || format!("{show_id} v{} at {} {:?}", entry.version, entry.at.0, entry.change);
            if let Change::Created { hold } = &entry.change
                && let Some(owner) = self.hold_ids.insert(hold.id.clone(), show_id.to_owned())
            {
                return Err(format!("{}: hold id already used in show {owner}", context()));
            }
            let show = self.shows.get_mut(show_id).ok_or_else(|| format!("unknown show {show_id}"))?;
            show.check(entry).map_err(|why| format!("{}: {why}", context()))?;
        }
        Ok(())
    }
}

impl ShowModel {
    fn check(&mut self, entry: &Transition) -> Result<(), String> {
        if entry.version != self.version + 1 {
            return Err(format!("version follows {}", self.version));
        }
        if self.latest.is_some_and(|latest| entry.at < latest) {
            return Err(format!("decided before the show's latest instant {:?}", self.latest));
        }
        let now = entry.at;
        match &entry.change {
            Change::Blocked { seats, .. } | Change::Unblocked { seats } => {
                let block = matches!(entry.change, Change::Blocked { .. });
                self.check_block(entry, seats, block)?;
            }
            Change::Created { hold } => {
                let Hold { seats, areas, expires_at, .. } = hold;
                let as_decided = hold.holder == entry.holder
                    && (hold.created_at, hold.created_version) == (now, entry.version)
                    && (hold.extensions, hold.stored_status, hold.late) == (0, HoldStatus::Held, false);
                if !as_decided {
                    return Err("a new hold is not its holder's, held, unextended, made at its entry".into());
                }
                self.check_create(&entry.holder, seats, areas, *expires_at, now)?;
                let areas = areas.iter().map(|(area, quantity)| (area.clone(), quantity.get())).collect();
                let model = ModelHold {
                    holder: entry.holder.clone(),
                    seats: seats.clone(),
                    areas,
                    expires_at: *expires_at,
                    extensions: 0,
                    status: Status::Held,
                    created_version: entry.version,
                };
                self.holds.insert(hold.id.clone(), model);
            }
            change => {
                let id = change.hold_id().ok_or("a hold's entry without its hold")?;
                self.check_transition(id, &entry.holder, change, now)?;
            }
        }
        self.version = entry.version;
        self.latest = Some(now);
        Ok(())
    }

    /// A block names no hold, is the operator's, and flips each of its
    /// seats (the rules write only the seats that change).
    fn check_block(&mut self, entry: &Transition, seats: &[SeatId], block: bool) -> Result<(), String> {
        if entry.holder.as_str() != "operator" || seats.is_empty() {
            return Err("a block is the operator's and names seats".into());
        }
        for seat in seats {
            let flipped = if block { self.blocked.insert(seat.clone()) } else { self.blocked.remove(seat) };
            if !flipped {
                return Err(format!("seat {seat} was already {}", if block { "blocked" } else { "unblocked" }));
            }
        }
        Ok(())
    }

    fn check_create(
        &self,
        holder: &HolderId,
        seats: &[SeatId],
        areas: &[(AreaId, seat_state::Quantity)],
        expires_at: ServerMillis,
        now: ServerMillis,
    ) -> Result<(), String> {
        if expires_at != now.plus_millis(i64::from(self.rules.hold_seconds) * 1000) {
            return Err("deadline is not holdSeconds after the decision".into());
        }
        let places = seats.len() as u64 + areas.iter().map(|(_, q)| u64::from(q.get())).sum::<u64>();
        if places == 0 || places > u64::from(self.rules.max_seats_per_hold) {
            return Err(format!("{places} places"));
        }
        if let Some(seat) = seats.iter().find(|seat| self.blocked.contains(*seat)) {
            return Err(format!("seat {seat} is blocked"));
        }
        let active =
            self.holds.values().filter(|h| h.holder == *holder && h.status == Status::Held && h.expires_at > now);
        if active.count() >= self.rules.max_active_holds_per_holder as usize {
            return Err("over the holder's limit of active holds".into());
        }
        self.check_free(seats, &areas.iter().map(|(a, q)| (a.clone(), q.get())).collect::<Vec<_>>(), now, None)
    }

    /// Every seat free and every area with room at `now`, ignoring `except`.
    fn check_free(
        &self,
        seats: &[SeatId],
        areas: &[(AreaId, u32)],
        now: ServerMillis,
        except: Option<&HoldId>,
    ) -> Result<(), String> {
        let others = || self.holds.iter().filter(|(id, _)| Some(*id) != except).map(|(_, hold)| hold);
        let wanted: HashSet<&SeatId> = seats.iter().collect();
        if let Some(taken) =
            others().filter(|h| h.takes_places(now)).flat_map(|h| &h.seats).find(|s| wanted.contains(s))
        {
            return Err(format!("seat {taken} is in another active or sold hold"));
        }
        for (area, quantity) in areas {
            let taken: u32 = others()
                .filter(|h| h.takes_places(now))
                .flat_map(|h| &h.areas)
                .filter(|(a, _)| a == area)
                .map(|(_, q)| q)
                .sum();
            let capacity = self.capacity.get(area).copied().unwrap_or(0);
            if taken + quantity > capacity {
                return Err(format!("area {area}: {taken} taken + {quantity} > capacity {capacity}"));
            }
        }
        Ok(())
    }

    fn check_transition(
        &mut self,
        id: &HoldId,
        holder: &HolderId,
        change: &Change,
        now: ServerMillis,
    ) -> Result<(), String> {
        let hold = self.holds.get(id).ok_or("unknown hold")?;
        if hold.holder != *holder {
            return Err("another holder's hold".into());
        }
        // The condition the write checked is the hold as the model has it.
        let checked_deadline = match *change {
            Change::Extended { from: deadline, .. }
            | Change::Confirmed { deadline, .. }
            | Change::Expired { deadline, .. } => Some(deadline),
            _ => None,
        };
        if checked_deadline.is_some_and(|deadline| deadline != hold.expires_at) {
            return Err(format!("checked deadline {checked_deadline:?}, stored {}", hold.expires_at.0));
        }
        if let Change::Released { previous, .. } = change
            && Status::of(*previous) != hold.status
        {
            return Err(format!("checked status {previous}, stored {:?}", hold.status));
        }
        let active = hold.status == Status::Held && hold.expires_at > now;
        let (status, expires_at, extensions) = match *change {
            Change::Created { .. } | Change::Blocked { .. } | Change::Unblocked { .. } => {
                return Err("not a transition of an existing hold".into());
            }
            Change::Extended { to: expires_at, extensions, .. } => {
                let expected = hold.expires_at.plus_millis(i64::from(self.rules.extension_seconds) * 1000);
                if !active || extensions != hold.extensions + 1 || extensions > self.rules.max_extensions {
                    return Err(format!(
                        "extension of a hold that is {:?}, deadline {}",
                        hold.status, hold.expires_at.0
                    ));
                }
                if expires_at != expected {
                    return Err("extension does not add extensionSeconds to the stored deadline".into());
                }
                (Status::Held, expires_at, extensions)
            }
            Change::Confirmed { late: false, .. } if active => (Status::Confirmed, hold.expires_at, hold.extensions),
            Change::Confirmed { late: true, .. }
                if self.rules.late_policy == LatePolicy::HonorIfFree
                    && matches!(hold.status, Status::Held | Status::Expired)
                    && hold.expires_at <= now =>
            {
                self.check_free(&hold.seats, &hold.areas, now, Some(id))?;
                (Status::Confirmed, hold.expires_at, hold.extensions)
            }
            Change::Confirmed { .. } => {
                return Err(format!("confirm of a hold that is {:?}, deadline {}", hold.status, hold.expires_at.0));
            }
            Change::Released { .. } if matches!(hold.status, Status::Held | Status::Expired) => {
                (Status::Released, hold.expires_at, hold.extensions)
            }
            Change::Expired { .. } if hold.status == Status::Held && hold.expires_at <= now => {
                (Status::Expired, hold.expires_at, hold.extensions)
            }
            Change::Released { .. } | Change::Expired { .. } => {
                return Err(format!("{change:?} of a hold that is {:?}", hold.status));
            }
        };
        if let Some(hold) = self.holds.get_mut(id) {
            (hold.status, hold.expires_at, hold.extensions) = (status, expires_at, extensions);
        }
        Ok(())
    }

    /// The seat map's facts as the journal says: `(sold, holdExpiresAt)` by
    /// seat. A sold seat has no deadline; otherwise the latest hold's counts
    /// while it is stored HELD.
    pub fn seat_facts(&self) -> BTreeMap<SeatId, (bool, Option<i64>)> {
        let mut facts: BTreeMap<SeatId, (bool, Option<i64>)> = BTreeMap::new();
        let mut latest: BTreeMap<&SeatId, &ModelHold> = BTreeMap::new();
        for hold in self.holds.values() {
            for seat in &hold.seats {
                if hold.status == Status::Confirmed {
                    facts.insert(seat.clone(), (true, None));
                }
                if latest.get(seat).is_none_or(|other| other.created_version < hold.created_version) {
                    latest.insert(seat, hold);
                }
            }
        }
        for (seat, hold) in latest {
            let expires = (hold.status == Status::Held).then_some(hold.expires_at.0);
            facts.entry(seat.clone()).or_insert((false, expires));
        }
        facts
    }

    /// Per area: places sold, and the stored-HELD holds' (deadline, quantity), sorted.
    pub fn area_facts(&self) -> BTreeMap<AreaId, (u32, Vec<(i64, u32)>)> {
        let mut facts: BTreeMap<AreaId, (u32, Vec<(i64, u32)>)> =
            self.capacity.keys().map(|area| (area.clone(), (0, Vec::new()))).collect();
        for hold in self.holds.values() {
            for (area, quantity) in &hold.areas {
                let Some(fact) = facts.get_mut(area) else { continue };
                match hold.status {
                    Status::Confirmed => fact.0 += quantity,
                    Status::Held => fact.1.push((hold.expires_at.0, *quantity)),
                    Status::Released | Status::Expired => {}
                }
            }
        }
        for fact in facts.values_mut() {
            fact.1.sort_unstable();
        }
        facts
    }
}
