//! The browser's own holds: which seats they claim, and their countdowns.

use crate::countdown::{CountdownView, SteadyCountdown};
use crate::hold::HoldStatus;
use crate::seat::SeatState;
use crate::time::ServerMillis;
use crate::wire;

/// What one of my holds says about a seat.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Claim {
    Held(ServerMillis),
    Sold,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct MyHold {
    body: wire::HoldBody,
    status: HoldStatus,
    steady: SteadyCountdown,
    countdown: Option<CountdownView>,
}

/// One of my holds as it looks now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MyHoldView<'a> {
    /// The hold as the server last answered it.
    pub hold: &'a wire::HoldBody,
    /// Its status now: a `HELD` hold past its deadline is `Expired`.
    pub status: HoldStatus,
    /// The buffered countdown, while it is `Held`.
    pub countdown: Option<&'a CountdownView>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct MyHolds {
    /// Newest first, as the server lists them.
    holds: Vec<MyHold>,
    /// What my holds claim, by seat id ascending, each seat once.
    claims: Vec<(String, Claim)>,
}

impl MyHolds {
    /// Takes newer answers about my holds (an older `serverTime` than known
    /// is ignored) and returns the seats whose claim may have changed.
    /// `bodies` come newest first (as `GET /api/holds` lists them): an
    /// unknown hold goes just before the next known one it precedes, so a
    /// whole list keeps its order and a lone new hold goes in front.
    /// O(my holds · my seats · log + my seats²) (moves within one short list).
    pub fn upsert(&mut self, bodies: Vec<wire::HoldBody>) -> Vec<String> {
        let mut touched: Vec<String> = self.claimed_seats().map(str::to_owned).collect();
        let mut next_at = 0;
        for body in bodies {
            match self.holds.iter().position(|h| h.body.hold_id == body.hold_id) {
                Some(at) => {
                    let known = &mut self.holds[at].body;
                    if known.server_time <= body.server_time {
                        *known = body;
                    }
                    next_at = at + 1;
                }
                None => {
                    let hold =
                        MyHold { body, status: HoldStatus::Held, steady: SteadyCountdown::default(), countdown: None };
                    self.holds.insert(next_at, hold);
                    next_at += 1;
                }
            }
        }
        self.claims.clear();
        for hold in &self.holds {
            let claim = match HoldStatus::parse(&hold.body.status) {
                Some(HoldStatus::Held) => Claim::Held(ServerMillis(hold.body.expires_at)),
                Some(HoldStatus::Confirmed) => Claim::Sold,
                _ => continue,
            };
            for seat in &hold.body.seats {
                match self.find(seat) {
                    Ok(at) => {
                        let entry = &mut self.claims[at].1;
                        *entry = match (*entry, claim) {
                            (Claim::Held(a), Claim::Held(b)) => Claim::Held(a.max(b)),
                            _ => Claim::Sold,
                        };
                    }
                    Err(at) => self.claims.insert(at, (seat.clone(), claim)),
                }
            }
        }
        touched.extend(self.claimed_seats().map(str::to_owned));
        touched
    }

    /// Whether a seat in `state` is mine by my holds.
    pub fn is_mine(&self, seat: &str, state: SeatState, now: ServerMillis) -> bool {
        match self.find(seat).ok().map(|at| self.claims[at].1) {
            Some(Claim::Held(deadline)) => state == SeatState::Held && deadline > now,
            Some(Claim::Sold) => state == SeatState::Sold,
            None => false,
        }
    }

    /// Where `seat`'s claim is, or would go. O(log my seats).
    fn find(&self, seat: &str) -> Result<usize, usize> {
        self.claims.binary_search_by(|(claimed, _)| claimed.as_str().cmp(seat))
    }

    /// Every seat one of my holds claims.
    pub fn claimed_seats(&self) -> impl Iterator<Item = &str> {
        self.claims.iter().map(|(seat, _)| seat.as_str())
    }

    /// Recomputes statuses and countdowns; returns whether any countdown
    /// changed and whether any status did (which may change `mine`).
    pub fn refresh(&mut self, now: Option<ServerMillis>, uncertainty: i64, buffer: i64) -> (bool, bool) {
        let (mut changed, mut status_changed) = (false, false);
        for hold in &mut self.holds {
            let now = now.unwrap_or(ServerMillis(hold.body.server_time));
            let deadline = ServerMillis(hold.body.expires_at);
            let status = match HoldStatus::parse(&hold.body.status) {
                Some(HoldStatus::Held) if deadline <= now => HoldStatus::Expired,
                Some(status) => status,
                None => HoldStatus::Released,
            };
            let countdown = (status == HoldStatus::Held).then(|| hold.steady.view(deadline, now, uncertainty, buffer));
            status_changed |= status != hold.status;
            changed |= status != hold.status || countdown != hold.countdown;
            hold.status = status;
            hold.countdown = countdown;
        }
        (changed, status_changed)
    }

    pub fn views(&self) -> impl Iterator<Item = MyHoldView<'_>> {
        self.holds.iter().map(|hold| MyHoldView {
            hold: &hold.body,
            status: hold.status,
            countdown: hold.countdown.as_ref(),
        })
    }

    /// The next server instant at which a status or a shown second changes.
    pub fn next_change(&self, now: ServerMillis) -> Option<ServerMillis> {
        self.holds
            .iter()
            .filter(|hold| hold.status == HoldStatus::Held)
            .flat_map(|hold| {
                let second =
                    hold.countdown.as_ref().and_then(|c| c.next_change_in_millis).map(|ms| now.plus_millis(ms));
                [second, Some(ServerMillis(hold.body.expires_at))]
            })
            .flatten()
            .filter(|at| *at > now)
            .min()
    }
}
