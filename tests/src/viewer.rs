//! A live viewer as a client keeps it: a map of public facts from the
//! first snapshot, then each `change` applied when it follows the version
//! the map is at (API.md "Live changes (v4)": ids rise and may skip, a
//! change carries every change after its `since`). In the JSON form or
//! the compact one (`?format=compact`), decoded with the show's seat order.

use std::collections::BTreeMap;

use anyhow::Context;
use seat_state::wire::{AreaFact, ChangeEvent, CompactChange, CompactMap, SeatFact, SeatMap, SeatOrder};
use serde_json::{Value, json};

use crate::PATIENCE;
use crate::api::{Event, EventStream};

/// What a viewer shows: each seat's and area's public facts, the version
/// they are at, and what it took to get there.
#[derive(Debug, Default)]
pub struct Viewer {
    /// The show's seats: a `?only=taken` or compact snapshot lists only taken ones.
    pub order: SeatOrder,
    /// Its stream is `?format=compact`.
    pub compact: bool,
    pub version: Option<i64>,
    seats: BTreeMap<String, (bool, Option<i64>, bool)>,
    areas: BTreeMap<String, Value>,
    pub snapshots: usize,
    pub changes: usize,
}

impl Viewer {
    /// A viewer of the show `order` describes, of the JSON or compact stream.
    pub fn new(order: SeatOrder, compact: bool) -> Self {
        Self { order, compact, ..Self::default() }
    }

    /// Takes one event of its stream; a gap or an id going back fails.
    pub fn take(&mut self, event: &Event) -> anyhow::Result<()> {
        match (event.kind.as_str(), self.compact) {
            ("snapshot", false) => {
                let map: SeatMap = serde_json::from_value(event.data.clone())?;
                self.snapshot(map.with_free_seats(self.order.ids()))
            }
            ("snapshot", true) => {
                let compact: CompactMap = serde_json::from_value(event.data.clone())?;
                let map = compact.decode(&self.order).map_err(anyhow::Error::msg)?;
                self.snapshot(map.with_free_seats(self.order.ids()))
            }
            ("change", false) => self.change(serde_json::from_value(event.data.clone())?),
            ("change", true) => {
                let compact: CompactChange = serde_json::from_value(event.data.clone())?;
                self.change(compact.decode(&self.order).map_err(anyhow::Error::msg)?)
            }
            (kind, _) => anyhow::bail!("an unknown event {kind}"),
        }
    }

    fn snapshot(&mut self, map: SeatMap) -> anyhow::Result<()> {
        if let Some(known) = self.version {
            anyhow::ensure!(map.version >= known, "a snapshot at v{} after v{known}: it went back", map.version);
        }
        self.snapshots += 1;
        self.seats.clear();
        self.areas.clear();
        self.facts(map.seats, map.areas);
        self.version = Some(map.version);
        Ok(())
    }

    fn change(&mut self, change: ChangeEvent) -> anyhow::Result<()> {
        let known = self.version.context("a change before any snapshot")?;
        anyhow::ensure!(change.version > known, "v{} after v{known}: ids must rise", change.version);
        anyhow::ensure!(
            change.follows() <= known,
            "v{} follows v{}, not v{known}: a gap",
            change.version,
            change.follows()
        );
        self.changes += 1;
        self.version = Some(change.version);
        self.facts(change.seats, change.areas);
        Ok(())
    }

    fn facts(&mut self, seats: Vec<SeatFact>, areas: Vec<AreaFact>) {
        for seat in seats {
            self.seats.insert(seat.id, (seat.sold, seat.hold_expires_at, seat.blocked));
        }
        for area in areas {
            let holds: Vec<Value> = area.holds.iter().map(|h| json!([h.quantity, h.expires_at])).collect();
            self.areas.insert(area.id, json!({"sold": area.sold, "holds": holds}));
        }
    }

    /// Reads `stream` until the viewer is at `version` or later.
    pub async fn catch_up(&mut self, stream: &mut EventStream, version: i64) -> anyhow::Result<()> {
        while self.version.is_none_or(|known| known < version) {
            let event = tokio::time::timeout(PATIENCE, stream.next()).await.context("an event in time")??;
            self.take(&event.context("the stream ended")?)?;
        }
        Ok(())
    }

    /// Where the viewer differs from `map` (the server's `GET /seats`, a
    /// whole map); `None` when it shows exactly that.
    pub fn differs(&self, map: &SeatMap) -> Option<String> {
        let mut want = Viewer::default();
        want.snapshot(map.clone()).ok()?;
        if self.version != want.version {
            return Some(format!("at {:?}, the map at {:?}", self.version, want.version));
        }
        for (id, facts) in &want.seats {
            if self.seats.get(id) != Some(facts) {
                return Some(format!("seat {id} is {:?}, the map says {facts:?}", self.seats.get(id)));
            }
        }
        (self.areas != want.areas).then(|| format!("areas {:?}, the map {:?}", self.areas, want.areas))
    }
}
