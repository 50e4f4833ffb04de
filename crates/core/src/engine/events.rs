//! One broadcast of change events per show, plus the recent ones for replay.

use std::collections::VecDeque;
use std::sync::Arc;

use tokio::sync::broadcast;

use seat_state::wire::{ChangeEvent, SeatMap};

/// How many recent changes a reconnecting viewer can catch up from.
pub const REPLAY_WINDOW: usize = 1024;

/// A committed change as every viewer gets it: the event, and its JSON
/// written once (a sale's opening has thousands of streams per show; each
/// writing the same JSON again was most of a change's fan-out).
#[derive(Debug)]
pub struct Published {
    pub event: ChangeEvent,
    /// `event` as the `change` event's data.
    pub json: String,
}

impl std::ops::Deref for Published {
    type Target = ChangeEvent;

    fn deref(&self) -> &ChangeEvent {
        &self.event
    }
}

/// Fans a show's committed changes out to every viewer.
pub struct EventHub {
    sender: broadcast::Sender<Arc<Published>>,
    recent: VecDeque<Arc<Published>>,
}

/// What a new viewer gets first.
#[derive(Debug, Clone)]
pub enum Start {
    /// The whole map, at its version.
    Snapshot(Box<SeatMap>),
    /// Every change after the viewer's `Last-Event-ID`, oldest first.
    Replay(Vec<Arc<Published>>),
}

/// A viewer's live feed: first `start`, then `changes` with higher versions.
pub struct Subscription {
    pub start: Start,
    pub changes: broadcast::Receiver<Arc<Published>>,
}

impl Default for EventHub {
    /// A hub with nothing to replay yet (after a restart, viewers get a snapshot).
    fn default() -> Self {
        let (sender, _) = broadcast::channel(REPLAY_WINDOW);
        Self { sender, recent: VecDeque::with_capacity(REPLAY_WINDOW) }
    }
}

impl EventHub {
    /// Sends a committed change to every viewer and keeps it for replay.
    pub fn publish(&mut self, event: ChangeEvent) {
        let json = serde_json::to_string(&event).unwrap_or_else(|_| "{}".to_owned());
        let event = Arc::new(Published { event, json });
        if self.recent.len() == REPLAY_WINDOW {
            self.recent.pop_front();
        }
        self.recent.push_back(Arc::clone(&event));
        // No receivers is fine: nobody is watching.
        let _ = self.sender.send(event);
    }

    /// Whether anyone is watching live.
    pub fn watched(&self) -> bool {
        self.sender.receiver_count() > 0
    }

    /// Forgets what could be replayed: after a reload, versions in memory may
    /// not be the stored ones, so a reconnecting viewer gets a fresh snapshot.
    pub fn forget_recent(&mut self) {
        self.recent.clear();
    }

    /// Subscribes a viewer. With `after`, replays what came since if it is all
    /// still kept; otherwise `snapshot` makes the start.
    pub fn subscribe(&self, after: Option<i64>, version: i64, snapshot: impl FnOnce() -> SeatMap) -> Subscription {
        let changes = self.sender.subscribe();
        let start = match after {
            Some(after) if after == version => Start::Replay(Vec::new()),
            Some(after) if after < version && self.covers(after) => {
                Start::Replay(self.recent.iter().filter(|event| event.version > after).cloned().collect())
            }
            _ => Start::Snapshot(Box::new(snapshot())),
        };
        Subscription { start, changes }
    }

    /// Whether every version after `after` is still kept.
    fn covers(&self, after: i64) -> bool {
        self.recent.front().is_some_and(|oldest| oldest.version <= after + 1)
    }
}
