//! Settled holds leave memory: memory and start-up follow the holds that can
//! still hold places, not the show's history.
//!
//! A confirmed, released or swept-expired hold can no longer hold a place
//! (a late confirm re-checks every place). Evicting one keeps what it left
//! behind: its sold seats (and who bought them) and its areas' sold places
//! become *retired sales*. A request that names an evicted hold has the
//! server recall it from storage first ([`ShowState::recall`]).

use crate::hold::{Hold, HoldStatus, HolderId};
use crate::ids::{AreaId, HoldId, SeatId};

use super::ShowState;
use super::slab::Kept;

/// Sales as a checkpoint stores them, apart from any hold: once restored,
/// they stand as the sales of holds no longer kept.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Retired {
    /// Sold seats, with who bought them.
    pub seats: Vec<(SeatId, HolderId)>,
    /// Places sold per area.
    pub areas: Vec<(AreaId, u32)>,
    /// Seats whose latest hold is not kept, with that hold's
    /// `created_version`: an older hold restored later does not take them
    /// (the seat map names only a seat's latest hold).
    pub floors: Vec<(SeatId, i64)>,
}

impl ShowState {
    /// Drops a settled hold from memory (its sales stay, as retired sales);
    /// `false` for an unknown hold or one stored `HELD`, which stays.
    /// O(k log n + h).
    pub fn evict(&mut self, id: &HoldId) -> bool {
        let Some(&at) = self.hold_index.get(id) else { return false };
        if self.holds[at].stored_status == HoldStatus::Held {
            return false;
        }
        let Some(Kept { hold, sale_retired }) = self.holds.remove(at) else { return false };
        self.hold_index.remove(id);
        if let Some(list) = self.by_holder.get_mut(&hold.holder) {
            list.retain(|&other| other != at);
            if list.is_empty() {
                self.by_holder.remove(&hold.holder);
            }
        }
        for seat in &hold.seats {
            let Some(&s) = self.seat_index.get(seat) else { continue };
            let slot = &mut self.seats[s];
            if slot.hold == Some(at) {
                slot.hold = None;
                slot.floor = hold.created_version;
                if slot.sold {
                    self.retired_buyer[s] = Some(hold.holder.clone());
                }
            }
        }
        if hold.stored_status == HoldStatus::Confirmed && !sale_retired {
            for (area, quantity) in &hold.areas {
                if let Some(&a) = self.area_index.get(area) {
                    let slot = &mut self.areas[a];
                    slot.retired = slot.retired.saturating_add(quantity.get());
                }
            }
        }
        true
    }

    /// Takes back a hold read from storage after it was evicted, as it is
    /// stored now. A confirmed one's sale is already retired, so it is kept
    /// without linking; any other links as [`Self::restore`] does. A hold
    /// already kept is left alone.
    pub fn recall(&mut self, hold: Hold) {
        if self.hold_index.contains_key(&hold.id) {
            return;
        }
        let sale_retired = hold.stored_status == HoldStatus::Confirmed;
        self.insert(hold, sale_retired);
    }

    /// Every sale, seat by seat (with its buyer) and area by area, and the
    /// seats whose latest hold a checkpoint leaves out (floors): with
    /// [`Self::checkpoint_holds`], all a checkpoint needs. O(n + areas).
    pub fn sales(&self) -> Retired {
        let buyer = |at: usize| match self.seats[at].hold {
            Some(h) => Some(self.holds[h].holder.clone()),
            None => self.retired_buyer[at].clone(),
        };
        let seats = (0..self.seats.len())
            .filter(|&at| self.seats[at].sold)
            .filter_map(|at| Some((self.show.seats[at].id.clone(), buyer(at)?)))
            .collect();
        let areas = self
            .areas
            .iter()
            .zip(&self.show.areas)
            .filter(|(slot, _)| slot.sold > 0)
            .map(|(slot, area)| (area.id.clone(), slot.sold))
            .collect();
        let floors = (0..self.seats.len())
            .filter_map(|at| {
                let floor = match self.seats[at].hold {
                    Some(h) if self.holds[h].stored_status != HoldStatus::Held => self.holds[h].created_version,
                    Some(_) => return None,
                    None => self.seats[at].floor,
                };
                (floor > 0).then(|| (self.show.seats[at].id.clone(), floor))
            })
            .collect();
        Retired { seats, areas, floors }
    }

    /// The holds a checkpoint keeps: those stored `HELD`, oldest first.
    /// Settled ones stay out (their sales are in [`Self::sales`]); storage
    /// gives one back when a later journal entry or request names it.
    pub fn checkpoint_holds(&self) -> Vec<Hold> {
        let mut holds: Vec<Hold> = self
            .holds
            .iter()
            .filter(|kept| kept.hold.stored_status == HoldStatus::Held)
            .map(|kept| kept.hold.clone())
            .collect();
        holds.sort_by_key(|hold| hold.created_version);
        holds
    }

    /// Restores retired sales read back from a checkpoint, before its holds
    /// (as [`Self::restore`], no version bump); unknown ids are ignored.
    pub fn restore_retired(&mut self, retired: &Retired) {
        for (seat, buyer) in &retired.seats {
            if let Some(&s) = self.seat_index.get(seat) {
                self.seats[s].sold = true;
                self.retired_buyer[s] = Some(buyer.clone());
            }
        }
        for (seat, floor) in &retired.floors {
            if let Some(&s) = self.seat_index.get(seat) {
                self.seats[s].floor = self.seats[s].floor.max(*floor);
            }
        }
        for (area, places) in &retired.areas {
            if let Some(&a) = self.area_index.get(area) {
                let slot = &mut self.areas[a];
                slot.sold = slot.sold.saturating_add(*places);
                slot.retired = slot.retired.saturating_add(*places);
            }
        }
    }
}
