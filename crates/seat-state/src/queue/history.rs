//! The queue's course over time, for the operator's charts: its length and
//! how far it was admitted at past instants, from the same log and formula
//! as admission itself (so a chart never disagrees with a customer's place).

use std::borrow::Cow;

use super::Queue;
use crate::time::ServerMillis;

/// The queue at one past instant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct QueueAt {
    /// Places taken by then (the pre-queue too).
    pub length: u64,
    /// How many of them were admitted by then.
    pub admitted_through: u64,
}

impl Queue {
    /// The queue at each of `instants` (in any order), as far as the log
    /// goes: an instant past the latest entry sees the log as it is.
    pub fn at_instants(&self, instants: &[ServerMillis]) -> Vec<QueueAt> {
        // Sorted as the log has them, unless a writer's clock stepped back.
        let joined: Cow<'_, [ServerMillis]> = if self.joins_sorted {
            Cow::Borrowed(&self.join_times)
        } else {
            let mut sorted = self.join_times.clone();
            sorted.sort_unstable();
            Cow::Owned(sorted)
        };
        instants
            .iter()
            .map(|&at| {
                let length = joined.partition_point(|&joined_at| joined_at <= at) as u64;
                let drawn = self.drawn_at.is_some_and(|drawn_at| drawn_at <= at);
                let earned = if drawn { self.admitted_through(at) } else { 0 };
                QueueAt { length, admitted_through: earned.min(length) }
            })
            .collect()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::super::{OnSale, QueueEntry, QueueEvent};
    use super::*;
    use crate::hold::HolderId;

    fn log(queue: &mut Queue, at: i64, event: QueueEvent) {
        let seq = queue.seq() + 1;
        queue.apply(&QueueEntry { seq, at: ServerMillis(at), event });
    }

    fn join(queue: &mut Queue, at: i64, holder: &str) {
        log(queue, at, QueueEvent::Joined { holder: HolderId::new(holder), address: "a".into() });
    }

    /// Opens at 100 s, admits 60 a minute: one a second.
    fn queue() -> Queue {
        Queue::new(OnSale {
            opens_at: ServerMillis(100_000),
            admit_per_minute: 60,
            pre_queue_seconds: 60,
            admission_seconds: 10,
        })
    }

    #[test]
    fn the_length_counts_joins_by_then_and_admission_starts_at_the_draw() {
        let mut q = queue();
        for n in 0..5 {
            join(&mut q, 50_000 + n * 1000, &format!("early{n}"));
        }
        log(&mut q, 100_500, QueueEvent::Drawn { seed: 3 });
        join(&mut q, 102_000, "late");
        let at = |t: i64| q.at_instants(&[ServerMillis(t)])[0];
        assert_eq!(at(49_999), QueueAt { length: 0, admitted_through: 0 });
        assert_eq!(at(52_000), QueueAt { length: 3, admitted_through: 0 });
        assert_eq!(at(100_400), QueueAt { length: 5, admitted_through: 0 }, "before the draw nobody is admitted");
        assert_eq!(at(101_000), QueueAt { length: 5, admitted_through: 1 });
        assert_eq!(at(103_000), QueueAt { length: 6, admitted_through: 3 });
        assert_eq!(at(1_000_000), QueueAt { length: 6, admitted_through: 6 }, "never past the length");
    }

    #[test]
    fn joins_logged_out_of_time_order_still_count_by_their_instants() {
        let mut q = queue();
        join(&mut q, 60_000, "later");
        join(&mut q, 55_000, "stepped-back");
        let seen = q.at_instants(&[ServerMillis(54_999), ServerMillis(57_000), ServerMillis(60_000)]);
        let lengths: Vec<u64> = seen.iter().map(|at| at.length).collect();
        assert_eq!(lengths, [0, 1, 2]);
    }

    #[test]
    fn a_pause_flattens_the_admissions_from_its_instant_on() {
        let mut q = queue();
        for n in 0..100 {
            join(&mut q, 50_000, &format!("h{n}"));
        }
        log(&mut q, 100_000, QueueEvent::Drawn { seed: 9 });
        log(&mut q, 110_000, QueueEvent::Set { rate: None, paused: Some(true), closed: None });
        let seen = q.at_instants(&[ServerMillis(105_000), ServerMillis(110_000), ServerMillis(200_000)]);
        let admitted: Vec<u64> = seen.iter().map(|at| at.admitted_through).collect();
        assert_eq!(admitted, [5, 10, 10]);
        // The same figure a customer's admission is decided by.
        assert_eq!(seen[2].admitted_through, q.admitted_through(ServerMillis(200_000)));
    }
}
