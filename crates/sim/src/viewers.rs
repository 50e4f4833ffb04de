//! Live viewers, as a browser keeps them: a map from a snapshot, then the
//! show's frames applied in order. Each frame must follow what the viewer
//! has (its `since` at most the viewer's version), and a viewer at the
//! writer's published version must show exactly the published map.

use std::collections::BTreeMap;
use std::sync::Arc;

use tokio::sync::broadcast::{self, error::TryRecvError};

use seat_state::wire::{AreaFact, ChangeEvent, SeatFact, SeatMap};
use seat_state::{SeatScope, ServerMillis};
use seathold_core::engine::events::Frame;
use seathold_core::engine::view::MapView;

/// One live viewer of a show.
#[derive(Default)]
pub struct Viewer {
    /// The process it is connected to.
    pub process: usize,
    /// The version its map is at (`None`: never connected).
    pub last: Option<i64>,
    pub frames: Option<broadcast::Receiver<Arc<Frame>>>,
    seats: BTreeMap<String, SeatFact>,
    areas: BTreeMap<String, AreaFact>,
}

/// The public facts of a map (`mine` left out, as events have it).
fn public(map: SeatMap) -> (BTreeMap<String, SeatFact>, BTreeMap<String, AreaFact>) {
    let seats = map.seats.into_iter().map(|fact| (fact.id.clone(), SeatFact { mine: None, ..fact })).collect();
    let areas = map
        .areas
        .into_iter()
        .map(|mut area| {
            area.holds.iter_mut().for_each(|hold| hold.mine = None);
            (area.id.clone(), area)
        })
        .collect();
    (seats, areas)
}

/// The `change` event a frame carries (its JSON form).
fn change_of(frame: &Frame) -> Result<ChangeEvent, String> {
    let text = std::str::from_utf8(&frame.json).map_err(|e| e.to_string())?;
    let data = text.lines().find_map(|line| line.strip_prefix("data: ")).ok_or("a frame without data")?;
    serde_json::from_str(data).map_err(|e| format!("a frame's data: {e}"))
}

impl Viewer {
    /// Starts over from the published map.
    pub fn snapshot(&mut self, view: &MapView) {
        (self.seats, self.areas) = public(view.seat_map(SeatScope::Every, None, ServerMillis(view.at.0)));
        self.last = Some(view.version);
    }

    /// Applies a frame (older ones are skipped); a frame that does not
    /// follow the viewer's version is a gap.
    pub fn apply(&mut self, frame: &Frame) -> Result<(), String> {
        let last = self.last.unwrap_or(i64::MIN);
        if frame.is_keep_alive() || frame.version <= last {
            return Ok(());
        }
        if frame.since > last {
            return Err(format!("a frame ({}, {}] after v{last}", frame.since, frame.version));
        }
        let change = change_of(frame)?;
        if (change.version, change.follows()) != (frame.version, frame.since) {
            return Err(format!("a frame ({}, {}] whose event says {change:?}", frame.since, frame.version));
        }
        for fact in change.seats {
            self.seats.insert(fact.id.clone(), fact);
        }
        for area in change.areas {
            self.areas.insert(area.id.clone(), area);
        }
        self.last = Some(frame.version);
        Ok(())
    }

    /// Applies every frame that arrived; a viewer too far behind starts
    /// over from `view` (as the server sends it a snapshot).
    pub fn drain(&mut self, view: impl Fn() -> Arc<MapView>) -> Result<(), String> {
        loop {
            let Some(frames) = self.frames.as_mut() else { return Ok(()) };
            match frames.try_recv() {
                Ok(frame) => self.apply(&frame)?,
                Err(TryRecvError::Empty) => return Ok(()),
                Err(TryRecvError::Lagged(_)) => self.snapshot(&view()),
                Err(TryRecvError::Closed) => {
                    self.frames = None;
                    return Ok(());
                }
            }
        }
    }

    /// Where the viewer's map differs from `view` at the same version
    /// (`None` also when the versions differ: frames may be a tick behind).
    pub fn differs_from(&self, view: &MapView) -> Option<String> {
        if self.frames.is_none() || self.last != Some(view.version) {
            return None;
        }
        let (seats, areas) = public(view.seat_map(SeatScope::Every, None, view.at));
        let seat = seats.iter().find(|(id, fact)| self.seats.get(*id) != Some(fact));
        if let Some((id, fact)) = seat {
            return Some(format!(
                "seat {id} at v{}: the viewer has {:?}, the map {fact:?}",
                view.version,
                self.seats.get(id)
            ));
        }
        (areas != self.areas)
            .then(|| format!("areas at v{}: the viewer has {:?}, the map {areas:?}", view.version, self.areas))
    }
}
