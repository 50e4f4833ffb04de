//! The decisions: pure functions of the state, the caller and the server's
//! now. Each either refuses (and nothing changes) or names one change.

use super::{Change, Decision, Reach, ShowState};
use crate::hold::{Hold, HoldStatus, HolderId};
use crate::ids::{HoldId, SeatId};
use crate::queue::Admission;
use crate::rejection::Rejection;
use crate::request::HoldRequest;
use crate::show::LatePolicy;
use crate::time::ServerMillis;

impl ShowState {
    /// Decides a hold request, checks in API.md's order after validation:
    /// idempotent replay (same id, holder and places ⇒ `Unchanged`, even at
    /// the hold limit; anything else under that id ⇒ `IdempotencyMismatch`),
    /// the holder's limit of unexpired holds (`HoldLimit`), then seats
    /// (`SeatsTaken` naming every requested seat held or sold) and areas
    /// (`NotEnoughSeats` for the first short area by id).
    ///
    /// Re-checks that seats and areas belong to the show and the size limit,
    /// so a hand-built request is safe too. Cost: O(k log n + h + Σ a).
    ///
    /// A `best` request picks its seats at `now`, after the hold limit, with
    /// [`Self::best_block`] (`NoBlock` when none); its replay is the same
    /// holder's hold under that id with `count` seats of the category.
    /// Seats that are blocked, kept for a channel whose code the request
    /// lacks, or access seats it may not take are `SeatsUnavailable`, before
    /// `SeatsTaken`. Last, the show's orphan rule (`WouldStrand`, naming the
    /// seats newly stranded in row order); best available applies it in
    /// its own choice instead.
    pub fn decide_create(
        &self,
        holder: &HolderId,
        request: &HoldRequest,
        now: ServerMillis,
    ) -> Result<Decision, Rejection> {
        self.decide_admitted_create(holder, request, Admission::Open, now)
    }

    /// [`Self::decide_create`] for a show with a waiting room: after an
    /// idempotent replay and before the limits, a holder the queue has not
    /// admitted is refused `NotAdmitted` (API.md "Waiting room (v3)"). An
    /// admission lasts until its window ends, and for good once the holder
    /// made a hold within it (so a customer may change seats while paying).
    pub fn decide_admitted_create(
        &self,
        holder: &HolderId,
        request: &HoldRequest,
        admission: Admission,
        now: ServerMillis,
    ) -> Result<Decision, Rejection> {
        if let Some(existing) = self.hold(&request.hold_id) {
            return if existing.holder == *holder && self.same_request(existing, request) {
                Ok(Decision::Unchanged)
            } else {
                Err(Rejection::IdempotencyMismatch)
            };
        }
        match admission {
            Admission::Open => {}
            // Admitted at this decision's instant: another writer's clock
            // (the queue's) may read ahead of this one after a step back.
            Admission::Admitted { since, until, .. }
                if since <= now && (now < until || self.held_since(holder, since)) => {}
            Admission::Admitted { position, .. } => {
                return Err(Rejection::NotAdmitted { position: Some(position), estimated_admit_at: None });
            }
            Admission::Waiting { position, estimated_admit_at } => {
                return Err(Rejection::NotAdmitted { position, estimated_admit_at });
            }
        }
        let Some(best) = &request.best else {
            return self.decide_places(holder, request, &request.seats, true, now);
        };
        if best.count == 0 || best.count > self.show.rules.max_seats_per_hold {
            return Err(Rejection::InvalidSeats { seats: Vec::new() });
        }
        if self.active_holds_of(holder, now) >= self.show.rules.max_active_holds_per_holder as usize {
            return Err(Rejection::HoldLimit);
        }
        let seats = self.best_block(best, request.channel.as_deref(), request.access, now)?;
        self.decide_places(holder, request, &seats, false, now)
    }

    /// [`Self::decide_create`] for named seats (the request's, or the ones
    /// best available picked) and the request's areas; `orphan_rule`:
    /// whether the show's orphan rule is checked here.
    fn decide_places(
        &self,
        holder: &HolderId,
        request: &HoldRequest,
        requested: &[SeatId],
        orphan_rule: bool,
        now: ServerMillis,
    ) -> Result<Decision, Rejection> {
        let places = request.areas.iter().fold(requested.len() as u64, |sum, (_, q)| sum + u64::from(q.get()));
        if places == 0 || places > u64::from(self.show.rules.max_seats_per_hold) {
            return Err(Rejection::InvalidSeats { seats: requested.iter().map(String::from).collect() });
        }
        let mut seats = Vec::with_capacity(requested.len());
        let mut unknown = Vec::new();
        for seat in requested {
            match self.seat_index.get(seat) {
                Some(&at) => seats.push((at, seat)),
                None => unknown.push(String::from(seat)),
            }
        }
        if !unknown.is_empty() {
            return Err(Rejection::InvalidSeats { seats: unknown });
        }
        let mut areas = Vec::with_capacity(request.areas.len());
        for (area, quantity) in &request.areas {
            let at =
                self.area_index.get(area).ok_or_else(|| Rejection::InvalidQuantity { area: Some(area.to_string()) })?;
            areas.push((*at, area, *quantity));
        }

        if self.active_holds_of(holder, now) >= self.show.rules.max_active_holds_per_holder as usize {
            return Err(Rejection::HoldLimit);
        }

        let reach = Reach::of(request);
        let unavailable: Vec<String> = seats
            .iter()
            .filter(|(at, _)| !self.open_to(*at, reach, now))
            .map(|(_, seat)| String::from(*seat))
            .collect();
        if !unavailable.is_empty() {
            return Err(Rejection::SeatsUnavailable { seats: unavailable });
        }
        let taken: Vec<String> = seats
            .iter()
            .filter(|(at, _)| !self.seat_free(*at, now, None))
            .map(|(_, seat)| String::from(*seat))
            .collect();
        if !taken.is_empty() {
            return Err(Rejection::SeatsTaken { seats: taken });
        }
        for (at, area, quantity) in areas {
            let available = self.area_available(at, now);
            if available < quantity.get() {
                return Err(Rejection::NotEnoughSeats { area: area.to_string(), available });
            }
        }
        if orphan_rule {
            let taken: Vec<usize> = seats.iter().map(|(at, _)| *at).collect();
            let free = |at: usize| self.free_for(at, reach, now);
            if let Err(stranded) = self.rows.verdict(self.show.orphan_rule, &taken, &free) {
                let seats = stranded.into_iter().map(|at| String::from(&self.show.seats[at].id)).collect();
                return Err(Rejection::WouldStrand { seats });
            }
        }

        let hold_millis = i64::from(self.show.rules.hold_seconds) * 1000;
        Ok(Decision::Apply(Change::Created {
            hold: Hold {
                id: request.hold_id.clone(),
                holder: holder.clone(),
                seats: requested.to_vec(),
                areas: request.areas.clone(),
                created_at: now,
                created_version: self.version() + 1,
                expires_at: now.plus_millis(hold_millis),
                extensions: 0,
                stored_status: HoldStatus::Held,
                late: false,
            },
        }))
    }

    /// Decides an extension: `NoHold`, then by status at `now`
    /// (`AlreadyConfirmed`, `HoldReleased`, `HoldExpired`), then
    /// `ExtensionLimit`; else the stored deadline plus `extensionSeconds`.
    /// Not idempotent: each accepted call extends once more. O(log holds).
    pub fn decide_extend(&self, holder: &HolderId, hold: &HoldId, now: ServerMillis) -> Result<Decision, Rejection> {
        let (_, found) = self.owned(holder, hold)?;
        match found.status_at(now) {
            HoldStatus::Confirmed => Err(Rejection::AlreadyConfirmed),
            HoldStatus::Released => Err(Rejection::HoldReleased),
            HoldStatus::Expired => Err(Rejection::HoldExpired),
            HoldStatus::Held if found.extensions >= self.show.rules.max_extensions => Err(Rejection::ExtensionLimit),
            HoldStatus::Held => {
                let extension = i64::from(self.show.rules.extension_seconds) * 1000;
                Ok(Decision::Apply(Change::Extended {
                    hold: found.id.clone(),
                    from: found.expires_at,
                    to: found.expires_at.plus_millis(extension),
                    extensions: found.extensions + 1,
                }))
            }
        }
    }

    /// Decides a confirmation: `NoHold`; confirmed ⇒ `Unchanged` (the same
    /// confirmation); released ⇒ `HoldReleased`; unexpired ⇒ confirm; past
    /// the deadline ⇒ `HoldExpired`, unless `latePolicy` is `honorIfFree`
    /// and every seat and area place is still free (no other unexpired hold,
    /// no sale) ⇒ a late confirm. O(log holds), plus O(k log n + Σ a) late.
    pub fn decide_confirm(&self, holder: &HolderId, hold: &HoldId, now: ServerMillis) -> Result<Decision, Rejection> {
        let (at, found) = self.owned(holder, hold)?;
        let confirm =
            |late| Ok(Decision::Apply(Change::Confirmed { hold: found.id.clone(), deadline: found.expires_at, late }));
        match found.status_at(now) {
            HoldStatus::Confirmed => Ok(Decision::Unchanged),
            HoldStatus::Released => Err(Rejection::HoldReleased),
            HoldStatus::Held => confirm(false),
            HoldStatus::Expired
                if self.show.rules.late_policy == LatePolicy::HonorIfFree && self.places_free_for(at, now) =>
            {
                confirm(true)
            }
            HoldStatus::Expired => Err(Rejection::HoldExpired),
        }
    }

    /// Decides a release: `NoHold`; confirmed ⇒ `AlreadyConfirmed`; released
    /// ⇒ `Unchanged`; held or expired ⇒ released (so a late confirm is no
    /// longer possible). O(log holds).
    pub fn decide_release(&self, holder: &HolderId, hold: &HoldId, now: ServerMillis) -> Result<Decision, Rejection> {
        let (_, found) = self.owned(holder, hold)?;
        match found.status_at(now) {
            HoldStatus::Confirmed => Err(Rejection::AlreadyConfirmed),
            HoldStatus::Released => Ok(Decision::Unchanged),
            HoldStatus::Held | HoldStatus::Expired => {
                Ok(Decision::Apply(Change::Released { hold: found.id.clone(), previous: found.stored_status }))
            }
        }
    }

    /// Decides a release by the box office, whoever holds it: as
    /// [`Self::decide_release`] without the holder check (`NoHold` only for
    /// an unknown hold). O(log holds).
    pub fn decide_operator_release(&self, hold: &HoldId, now: ServerMillis) -> Result<Decision, Rejection> {
        let holder = self.hold(hold).ok_or(Rejection::NoHold)?.holder.clone();
        self.decide_release(&holder, hold, now)
    }

    /// Decides an expiry timer or sweep entry for the deadline it was set
    /// for: only a stored-`HELD` hold whose deadline is still `deadline` and
    /// at or before `now` expires. Anything stale (extended, confirmed,
    /// released, already expired, not yet due, unknown) is `Unchanged`.
    /// O(log holds).
    pub fn decide_expiry(&self, hold: &HoldId, deadline: ServerMillis, now: ServerMillis) -> Decision {
        match self.hold(hold) {
            Some(found)
                if found.stored_status == HoldStatus::Held && found.expires_at == deadline && deadline <= now =>
            {
                Decision::Apply(Change::Expired { hold: found.id.clone(), deadline })
            }
            _ => Decision::Unchanged,
        }
    }

    /// The holder's hold, or `NoHold` for an unknown one or someone else's.
    fn owned(&self, holder: &HolderId, hold: &HoldId) -> Result<(usize, &Hold), Rejection> {
        self.hold_index
            .get(hold)
            .map(|&at| (at, &self.holds[at]))
            .filter(|(_, found)| found.holder == *holder)
            .ok_or(Rejection::NoHold)
    }

    /// How many unexpired holds the holder has at `now`. O(h).
    /// Whether `holder` made a hold of this show at `since` or later (of
    /// the holds kept in memory).
    pub fn held_since(&self, holder: &HolderId, since: ServerMillis) -> bool {
        self.holds_of(holder).any(|hold| hold.created_at >= since)
    }

    pub fn active_holds_of(&self, holder: &HolderId, now: ServerMillis) -> usize {
        self.holds_of(holder).filter(|hold| hold.is_active(now)).count()
    }

    /// Whether every place of (expired) hold `at` could be taken again at `now`.
    fn places_free_for(&self, at: usize, now: ServerMillis) -> bool {
        let hold = &self.holds[at];
        let seats_free =
            hold.seats.iter().all(|seat| self.seat_index.get(seat).is_some_and(|&s| self.seat_free(s, now, Some(at))));
        seats_free
            && hold.areas.iter().all(|(area, quantity)| {
                // The hold itself is expired, so it is not among the counted holds.
                self.availability(area, now) >= quantity.get()
            })
    }
}

impl ShowState {
    /// Whether `hold` answers `request` again: the same places, or for a
    /// `best` request, `count` seats (no areas) of its category, with
    /// `wheelchair` wheelchair places when it asks for some.
    fn same_request(&self, hold: &Hold, request: &HoldRequest) -> bool {
        let Some(best) = &request.best else { return same_places(hold, request) };
        let in_category = |seat: &SeatId| {
            best.category.as_deref().is_none_or(|category| {
                self.seat_index.get(seat).is_some_and(|&at| self.show.seats[at].category.as_deref() == Some(category))
            })
        };
        let wheelchair = |seat: &&SeatId| {
            self.seat_index.get(*seat).is_some_and(|&at| self.show.seats[at].access == Some(crate::Access::Wheelchair))
        };
        let places = hold.seats.iter().filter(wheelchair).count();
        hold.areas.is_empty()
            && hold.seats.len() == best.count as usize
            && hold.seats.iter().all(in_category)
            && (best.wheelchair == 0 || places == best.wheelchair as usize)
    }
}

/// The same seats (as a set) and the same area quantities.
fn same_places(hold: &Hold, request: &HoldRequest) -> bool {
    if hold.seats.len() != request.seats.len() || hold.areas.len() != request.areas.len() {
        return false;
    }
    let mut stored: Vec<_> = hold.seats.iter().collect();
    let mut asked: Vec<_> = request.seats.iter().collect();
    stored.sort_unstable();
    asked.sort_unstable();
    let mut stored_areas: Vec<_> = hold.areas.iter().collect();
    let mut asked_areas: Vec<_> = request.areas.iter().collect();
    stored_areas.sort_unstable();
    asked_areas.sort_unstable();
    stored == asked && stored_areas == asked_areas
}
