//! What a request to the queue would add to its log, and what a holder's
//! place looks like at an instant. Nothing here changes the queue.

use super::draw::SEED_MASK;
use super::{Admission, Queue, QueueEvent};
use crate::hold::HolderId;
use crate::time::ServerMillis;
use crate::wire;

/// Why the queue refuses a request; it changes nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QueueRefusal {
    /// `409 queue_not_open`: before `opensAt − preQueueSeconds`.
    NotOpen { opens_at: ServerMillis },
    /// `429 rate_limited`: the client address has `cap` places already.
    TooManyPlaces { cap: u32 },
    /// `422 invalid_queue`: an operator setting out of range.
    Invalid(String),
}

impl QueueRefusal {
    pub fn code(&self) -> &'static str {
        match self {
            Self::NotOpen { .. } => "queue_not_open",
            Self::TooManyPlaces { .. } => "rate_limited",
            Self::Invalid(_) => "invalid_queue",
        }
    }

    pub fn status(&self) -> u16 {
        match self {
            Self::NotOpen { .. } => 409,
            Self::TooManyPlaces { .. } => 429,
            Self::Invalid(_) => 422,
        }
    }

    pub fn message(&self) -> String {
        match self {
            Self::NotOpen { opens_at } => {
                format!("The queue for this show is not open yet; it opens before the sale at {} (ms).", opens_at.0)
            }
            Self::TooManyPlaces { cap } => format!("This address already has {cap} places in this queue."),
            Self::Invalid(reason) => reason.clone(),
        }
    }
}

/// An operator's change to a queue (absent fields stay as they are).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct QueueSettings {
    pub admit_per_minute: Option<i64>,
    pub paused: Option<bool>,
    pub closed: Option<bool>,
}

/// The highest rate accepted: a thousand places a second.
const MAX_RATE: i64 = 60_000;

impl Queue {
    /// Whether the pre-queue must be drawn before anything is decided at `now`.
    pub fn needs_draw(&self, now: ServerMillis) -> bool {
        self.seed.is_none() && now >= self.on_sale.opens_at
    }

    /// The draw's event for a random `seed` (kept below 2^53).
    pub fn draw(&self, seed: u64) -> QueueEvent {
        QueueEvent::Drawn { seed: seed & SEED_MASK }
    }

    /// Decides a join at `now` (after any draw that is due). `Ok(None)`: the
    /// holder keeps the place it has (or the queue is closed); `lapsed`
    /// says its admission ran out without a hold, so it goes to the back.
    pub fn decide_join(
        &self,
        holder: &HolderId,
        address: &str,
        lapsed: bool,
        cap: u32,
        now: ServerMillis,
    ) -> Result<Option<QueueEvent>, QueueRefusal> {
        if self.closed {
            return Ok(None);
        }
        if now < self.on_sale.pre_queue_from() {
            return Err(QueueRefusal::NotOpen { opens_at: self.on_sale.opens_at });
        }
        if self.place_of(holder).is_some() && !lapsed {
            return Ok(None);
        }
        if self.places_of_address(address) >= cap {
            return Err(QueueRefusal::TooManyPlaces { cap });
        }
        Ok(Some(QueueEvent::Joined { holder: holder.clone(), address: address.to_owned() }))
    }

    /// Decides an operator's settings; `Ok(None)`: nothing to change.
    pub fn decide_settings(&self, settings: QueueSettings) -> Result<Option<QueueEvent>, QueueRefusal> {
        let rate = match settings.admit_per_minute {
            None => None,
            Some(rate) if (1..=MAX_RATE).contains(&rate) => u32::try_from(rate).ok(),
            Some(rate) => {
                return Err(QueueRefusal::Invalid(format!(
                    "admitPerMinute must be between 1 and {MAX_RATE}, not {rate}"
                )));
            }
        };
        let (current, paused) = self.rate();
        let changes = rate.is_some_and(|r| r != current)
            || settings.paused.is_some_and(|p| p != paused)
            || settings.closed.is_some_and(|c| c != self.closed);
        Ok(changes.then_some(QueueEvent::Set { rate, paused: settings.paused, closed: settings.closed }))
    }

    /// The holder's place as API.md's body says it, at `now`; `None` if it
    /// never joined. `held`: the holder made a hold since its admission, so
    /// an admission whose window passed stays `admitted`, not `lapsed`.
    pub fn place_view(&self, holder: &HolderId, now: ServerMillis, held: bool) -> Option<wire::QueuePlace> {
        self.place_of(holder)?;
        let mut view = wire::QueuePlace {
            state: wire::QueueState::Waiting,
            position: None,
            ahead: None,
            estimated_admit_at: None,
            admitted_until: None,
            server_time: now.0,
        };
        let through = self.admitted_through(now);
        match self.standing(holder, now) {
            Admission::Open => {}
            Admission::Waiting { position, estimated_admit_at } => {
                view.position = position;
                view.ahead = position.map(|p| p.saturating_sub(through + 1));
                view.estimated_admit_at = estimated_admit_at.map(|at| at.0);
            }
            Admission::Admitted { position, since, until } => {
                view.state = if now >= until && !held { wire::QueueState::Lapsed } else { wire::QueueState::Admitted };
                view.position = Some(position);
                view.ahead = Some(0);
                view.estimated_admit_at = Some(since.0);
                view.admitted_until = Some(until.0);
            }
        }
        if self.closed {
            view.state = wire::QueueState::Closed;
            view.estimated_admit_at = None;
        }
        Some(view)
    }

    /// The live progress every listener gets, at `now`.
    pub fn progress(&self, now: ServerMillis) -> wire::QueueProgress {
        let (rate, paused) = self.rate();
        wire::QueueProgress {
            admitted_through: self.admitted_through(now),
            rate_per_minute: rate,
            paused,
            server_time: now.0,
        }
    }

    /// The operator's view, at `now`.
    pub fn status(&self, now: ServerMillis) -> wire::QueueStatus {
        let (rate, paused) = self.rate();
        wire::QueueStatus {
            length: self.length(),
            admitted_through: self.admitted_through(now),
            rate_per_minute: rate,
            paused,
            closed: self.closed,
            draw_seed: self.seed,
            server_time: now.0,
        }
    }
}
