//! The waiting room's invariants, checked after every step from what the
//! store keeps, with a model of its own (API.md "Waiting room (v3)"): the
//! queue log is one sequence with at most one draw, at or after `opensAt`,
//! pre-queue joins before it and later joins after; and no hold of the
//! queued show was made by a holder the queue had not admitted at the
//! hold's instant (or whose window passed with no hold in it), unless the
//! queue was closed. Every process replays this one log, so every process
//! has the same order; the lottery is the documented one
//! (`seat_state::queue::draw_order`, which auditors recompute).

use seat_state::Change;
use seat_state::queue::draw_order;
use seat_state::{OnSale, QueueEntry, QueueEvent};
use seathold_core::store::Transition;

/// The log up to an instant, as the model sees it.
struct Replayed {
    /// By position (index + 1): holder and the instant counted from.
    places: Vec<(String, i64)>,
    /// Rate segments: from, rate per minute, paused.
    segments: Vec<(i64, u32, bool)>,
    closed: bool,
}

fn replay(on_sale: &OnSale, log: &[QueueEntry], until: i64) -> Replayed {
    let opens = on_sale.opens_at.0;
    let mut pre: Vec<(String, i64)> = Vec::new();
    let mut replayed =
        Replayed { places: Vec::new(), segments: vec![(opens, on_sale.admit_per_minute, false)], closed: false };
    let mut drawn = false;
    // The draw orders the pre-queue from `opensAt` on, whenever it was
    // written (a writer whose clock stepped back may decide a hold at an
    // instant before the draw's entry but after the draw itself).
    for entry in log.iter().filter(|entry| entry.at.0 <= until || matches!(entry.event, QueueEvent::Drawn { .. })) {
        match &entry.event {
            QueueEvent::Joined { holder, .. } if !drawn => pre.push((holder.to_string(), opens)),
            QueueEvent::Joined { holder, .. } => replayed.places.push((holder.to_string(), entry.at.0)),
            QueueEvent::Drawn { seed } => {
                drawn = true;
                replayed.places = draw_order(pre.len(), *seed).into_iter().map(|at| pre[at].clone()).collect();
            }
            QueueEvent::Set { rate, paused, closed } => {
                let (_, last_rate, last_paused) = *replayed.segments.last().unwrap_or(&(opens, 1, false));
                replayed.segments.push((
                    entry.at.0.max(opens),
                    rate.unwrap_or(last_rate),
                    paused.unwrap_or(last_paused),
                ));
                replayed.closed = closed.unwrap_or(replayed.closed);
            }
        }
    }
    if !drawn {
        replayed.places.clear();
    }
    replayed
}

impl Replayed {
    /// Places admitted at `t`: the formula, over the places that existed then.
    fn through(&self, t: i64) -> u64 {
        let mut credit: i128 = 0;
        for (at, &(from, rate, paused)) in self.segments.iter().enumerate() {
            let end = self.segments.get(at + 1).map_or(t, |next| next.0.min(t));
            if end > from && !paused {
                credit += i128::from(end - from) * i128::from(rate);
            }
        }
        let existing = self.places.iter().filter(|(_, joined)| *joined <= t).count() as u64;
        (u64::try_from(credit / 60_000).unwrap_or(0)).min(existing)
    }

    /// The first instant the place at `position` was admitted, if by `t`.
    fn admitted_at(&self, position: u64, t: i64) -> Option<i64> {
        if self.through(t) < position {
            return None;
        }
        let (mut low, mut high) = (self.segments[0].0, t);
        while low < high {
            let middle = low + (high - low) / 2;
            if self.through(middle) >= position { high = middle } else { low = middle + 1 }
        }
        Some(low)
    }
}

/// Checks the queued show's log and its holds.
pub fn check(on_sale: &OnSale, log: &[QueueEntry], journal: &[Transition]) -> Result<(), String> {
    let opens = on_sale.opens_at.0;
    let mut drawn = None;
    for (at, entry) in log.iter().enumerate() {
        if entry.seq != at as u64 + 1 {
            return Err(format!("queue entry {at} has seq {}", entry.seq));
        }
        match &entry.event {
            QueueEvent::Drawn { .. } if drawn.is_some() => return Err("the pre-queue was drawn twice".into()),
            QueueEvent::Drawn { .. } if entry.at.0 < opens => {
                return Err(format!("drawn at {} before opensAt", entry.at.0));
            }
            QueueEvent::Drawn { .. } => drawn = Some(entry.at.0),
            QueueEvent::Joined { .. } if drawn.is_none() && entry.at.0 >= opens => {
                return Err(format!("a join at {} after opensAt was not after the draw", entry.at.0));
            }
            QueueEvent::Joined { .. } if entry.at < on_sale.pre_queue_from() => {
                return Err(format!("a join at {} before the queue opened", entry.at.0));
            }
            _ => {}
        }
    }
    let window = i64::from(on_sale.admission_seconds) * 1000;
    let created: Vec<(&Transition, &str)> = journal
        .iter()
        .filter(|entry| matches!(entry.change, Change::Created { .. }))
        .map(|entry| (entry, entry.holder.as_str()))
        .collect();
    for &(entry, holder) in &created {
        let t = entry.at.0;
        let queue = replay(on_sale, log, t);
        if queue.closed {
            continue;
        }
        let admitted = queue.places.iter().enumerate().filter(|(_, (who, _))| who == holder).any(|(at, _)| {
            queue.admitted_at(at as u64 + 1, t).is_some_and(|since| {
                t < since + window
                    || created
                        .iter()
                        .any(|(other, who)| *who == holder && other.version < entry.version && other.at.0 >= since)
            })
        });
        if !admitted {
            return Err(format!(
                "hold v{} by {holder} at {t} without admission ({} places)",
                entry.version,
                queue.places.len()
            ));
        }
    }
    Ok(())
}
