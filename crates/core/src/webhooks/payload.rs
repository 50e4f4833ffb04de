//! A delivery's body from a journal entry. Only a hold's creation names
//! its places; its later entries take them from there (kept here, or read
//! back from the store's journal when the creation was delivered earlier).

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use seat_state::wire::{Delivery, event_id};
use seat_state::{AreaId, Change, HoldId, Quantity, SeatId};

use crate::store::{EventKind, Store, Transition};

/// Holds' places kept at most: a sale's open holds, give or take.
const KEPT: usize = 100_000;

/// A hold's seats and area quantities, as a delivery names them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
struct Places {
    seats: Vec<String>,
    areas: BTreeMap<String, u32>,
}

impl Places {
    fn of(seats: &[SeatId], areas: &[(AreaId, Quantity)]) -> Arc<Self> {
        Arc::new(Self {
            seats: seats.iter().map(ToString::to_string).collect(),
            areas: areas.iter().map(|(area, quantity)| (area.to_string(), quantity.get())).collect(),
        })
    }
}

/// Holds' places by show, then hold, and how many are kept.
#[derive(Default)]
struct Kept {
    shows: HashMap<String, HashMap<HoldId, Arc<Places>>>,
    count: usize,
}

/// Holds' places, shared by every lane of this process.
#[derive(Default)]
pub struct PlacesCache(Mutex<Kept>);

impl PlacesCache {
    fn get(&self, show_id: &str, hold: &HoldId) -> Option<Arc<Places>> {
        self.0.lock().ok()?.shows.get(show_id)?.get(hold).cloned()
    }

    fn keep(&self, show_id: &str, hold: &HoldId, places: Arc<Places>) {
        let Ok(mut kept) = self.0.lock() else { return };
        // Crude but bounded: a miss costs one indexed read.
        if kept.count >= KEPT {
            *kept = Kept::default();
        }
        let show = kept.shows.entry(show_id.to_owned()).or_default();
        if show.insert(hold.clone(), places).is_none() {
            kept.count += 1;
        }
    }

    /// The body of `entry`'s delivery, as JSON bytes.
    pub async fn body(&self, store: &dyn Store, show_id: &str, entry: &Transition) -> anyhow::Result<Vec<u8>> {
        let places = match (&entry.change, entry.change.hold_id()) {
            (Change::Blocked { seats, .. } | Change::Unblocked { seats }, _) => Places::of(seats, &[]),
            (Change::Created { hold }, _) => {
                let places = Places::of(&hold.seats, &hold.areas);
                self.keep(show_id, &hold.id, Arc::clone(&places));
                places
            }
            (_, Some(hold)) => match self.get(show_id, hold) {
                Some(places) => places,
                None => {
                    let stored = store
                        .hold_at(show_id, hold, entry.version)
                        .await?
                        .ok_or_else(|| anyhow::anyhow!("the journal of {show_id} names unknown hold {hold}"))?;
                    let places = Places::of(&stored.seats, &stored.areas);
                    self.keep(show_id, hold, Arc::clone(&places));
                    places
                }
            },
            (_, None) => anyhow::bail!("journal entry {} of {show_id} names no hold", entry.version),
        };
        let delivery = Delivery {
            id: event_id(show_id, entry.version),
            kind: EventKind::of(&entry.change).name().to_owned(),
            show_id: show_id.to_owned(),
            version: entry.version,
            at: entry.at.0,
            hold_id: entry.change.hold_id().map(ToString::to_string),
            seats: places.seats.clone(),
            areas: places.areas.clone(),
        };
        Ok(serde_json::to_vec(&delivery)?)
    }
}
