//! How far a queue is admitted at an instant, and what that means for one
//! place: `admittedThrough(t) = min(length, ⌊credit(t) / 60000⌋)`, where
//! `credit(t)` sums, over the rate's segments from `opensAt` to `t`, the
//! milliseconds not paused times the rate per minute.

use super::Queue;
use crate::hold::HolderId;
use crate::time::ServerMillis;

/// One admitted place, in rate·milliseconds (a place per minute for a minute).
const PLACE: i128 = 60_000;

/// `⌈a / b⌉` for `a ≥ 0`, `b ≥ 1`.
fn ceil_div(a: i128, b: i128) -> i128 {
    (a + b - 1) / b
}

/// What the queue says of one holder's next hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admission {
    /// The show has no queue, or it is closed: holds need no admission.
    Open,
    /// Admitted since `since`; a first hold is due before `until`.
    Admitted { position: u64, since: ServerMillis, until: ServerMillis },
    /// Not admitted (`position` and `estimated_admit_at` are `None` for a
    /// holder that never joined, or one still waiting for the draw).
    Waiting { position: Option<u64>, estimated_admit_at: Option<ServerMillis> },
}

impl Queue {
    /// The admission credit earned from `opensAt` until `now`.
    fn credit(&self, now: ServerMillis) -> i128 {
        let mut credit = 0;
        for (at, segment) in self.segments.iter().enumerate() {
            let end = self.segments.get(at + 1).map_or(now, |next| next.from.min(now));
            if end <= segment.from {
                break;
            }
            if !segment.paused {
                credit += i128::from(end.0 - segment.from.0) * i128::from(segment.rate);
            }
        }
        credit
    }

    /// How many places (by position) are admitted at `now`: none before
    /// the draw, never more than the queue's length.
    pub fn admitted_through(&self, now: ServerMillis) -> u64 {
        if self.seed.is_none() {
            return 0;
        }
        let earned = u64::try_from(self.credit(now) / PLACE).unwrap_or(u64::MAX);
        earned.min(self.length())
    }

    /// The milliseconds paused between `opensAt` and `now`.
    pub fn paused_millis(&self, now: ServerMillis) -> i64 {
        let mut paused = 0;
        for (at, segment) in self.segments.iter().enumerate() {
            let end = self.segments.get(at + 1).map_or(now, |next| next.from.min(now));
            if end > segment.from && segment.paused {
                paused += end.0 - segment.from.0;
            }
        }
        paused
    }

    /// The first instant credit reaches `target` with the segments so far
    /// (the last one lasting for ever); `None` if it never does (paused).
    fn credit_reaches(&self, target: i128) -> Option<ServerMillis> {
        let mut credit = 0;
        for (at, segment) in self.segments.iter().enumerate() {
            let next = self.segments.get(at + 1).map(|next| next.from);
            if segment.paused {
                // Paused for ever: never reached.
                next?;
                continue;
            }
            let rate = i128::from(segment.rate);
            let full = next.map(|next| i128::from(next.0 - segment.from.0) * rate);
            if full.is_none_or(|full| credit + full >= target) {
                let millis = ceil_div((target - credit).max(0), rate);
                return Some(segment.from.plus_millis(i64::try_from(millis).unwrap_or(i64::MAX)));
            }
            credit += full.unwrap_or(0);
        }
        None
    }

    /// The instant the place at `position` was (or will be, at the rates so
    /// far) admitted: when the credit covers it, and not before it joined.
    fn admitted_at(&self, position: u64) -> Option<ServerMillis> {
        let place = self.places.get(usize::try_from(position).ok()?.checked_sub(1)?)?;
        let joined = if place.pre_queue { self.on_sale.opens_at } else { place.joined_at };
        Some(self.credit_reaches(i128::from(position) * PLACE)?.max(joined))
    }

    /// When the place at `position` would be admitted from `now` on at the
    /// current rate, unpaused: never earlier than the server would.
    fn estimate(&self, position: u64, now: ServerMillis) -> ServerMillis {
        let missing = (i128::from(position) * PLACE - self.credit(now)).max(0);
        let millis = ceil_div(missing, i128::from(self.current().rate.max(1)));
        now.max(self.on_sale.opens_at).plus_millis(i64::try_from(millis).unwrap_or(i64::MAX))
    }

    /// The admission a holder has at `now`.
    pub fn admission(&self, holder: &HolderId, now: ServerMillis) -> Admission {
        if self.closed { Admission::Open } else { self.standing(holder, now) }
    }

    /// [`Self::admission`] as if the queue were open.
    pub(super) fn standing(&self, holder: &HolderId, now: ServerMillis) -> Admission {
        let Some((at, _)) = self.place_of(holder) else {
            return Admission::Waiting { position: None, estimated_admit_at: None };
        };
        if self.seed.is_none() {
            return Admission::Waiting { position: None, estimated_admit_at: None };
        }
        let position = at as u64 + 1;
        if self.admitted_through(now) >= position
            && let Some(since) = self.admitted_at(position)
        {
            let window = i64::from(self.on_sale.admission_seconds) * 1000;
            return Admission::Admitted { position, since, until: since.plus_millis(window) };
        }
        Admission::Waiting { position: Some(position), estimated_admit_at: Some(self.estimate(position, now)) }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{OnSale, QueueEntry, QueueEvent};
    use super::*;

    fn queue(rate: u32) -> Queue {
        Queue::new(OnSale {
            opens_at: ServerMillis(100_000),
            admit_per_minute: rate,
            pre_queue_seconds: 60,
            admission_seconds: 10,
        })
    }

    fn log(queue: &mut Queue, at: i64, event: QueueEvent) {
        let seq = queue.seq() + 1;
        queue.apply(&QueueEntry { seq, at: ServerMillis(at), event });
    }

    #[test]
    fn the_formula_with_a_pause_and_a_rate_change() {
        let mut q = queue(60);
        for n in 0..100 {
            log(&mut q, 50_000, QueueEvent::Joined { holder: HolderId::new(format!("h{n}")), address: "a".into() });
        }
        assert_eq!(q.admitted_through(ServerMillis(200_000)), 0, "nobody before the draw");
        log(&mut q, 100_000, QueueEvent::Drawn { seed: 7 });
        assert_eq!(q.admitted_through(ServerMillis(100_999)), 1 - 1);
        assert_eq!(q.admitted_through(ServerMillis(101_000)), 1);
        log(&mut q, 110_000, QueueEvent::Set { rate: None, paused: Some(true), closed: None });
        assert_eq!(q.admitted_through(ServerMillis(150_000)), 10);
        assert_eq!(q.paused_millis(ServerMillis(150_000)), 40_000);
        log(&mut q, 150_000, QueueEvent::Set { rate: Some(120), paused: Some(false), closed: None });
        assert_eq!(q.admitted_through(ServerMillis(155_000)), 20);
        assert_eq!(q.admitted_through(ServerMillis(10_000_000)), 100, "never more than the length");
    }

    #[test]
    fn an_estimate_is_when_the_credit_covers_the_place() {
        let mut q = queue(60);
        log(&mut q, 50_000, QueueEvent::Joined { holder: HolderId::new("a"), address: "x".into() });
        log(&mut q, 50_001, QueueEvent::Joined { holder: HolderId::new("b"), address: "x".into() });
        log(&mut q, 100_000, QueueEvent::Drawn { seed: 1 });
        let now = ServerMillis(100_500);
        let waiting: Vec<_> = ["a", "b"].iter().map(|h| q.admission(&HolderId::new(*h), now)).collect();
        let estimates: Vec<_> = waiting
            .iter()
            .map(|a| match a {
                Admission::Waiting { position: Some(p), estimated_admit_at: Some(at) } => (*p, *at),
                other => panic!("{other:?}"),
            })
            .collect();
        for (position, at) in estimates {
            assert_eq!(at, ServerMillis(100_000 + 1000 * position as i64));
            assert_eq!(q.admitted_through(at), position);
            assert_eq!(q.admitted_through(at.plus_millis(-1)), position - 1);
        }
    }
}
