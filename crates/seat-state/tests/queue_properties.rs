//! The waiting room's rules under random logs (API.md "Waiting room (v3)"):
//! the draw is a permutation fixed by its seed; admission follows the order
//! and the rate; no place is admitted twice; an estimate is never earlier
//! than the admission it promises.
#![cfg(not(target_arch = "wasm32"))]
// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

use std::collections::HashSet;

use proptest::prelude::*;

use seat_state::queue::draw_order;
use seat_state::{Admission, HolderId, OnSale, Queue, QueueEntry, QueueEvent, ServerMillis};

const OPENS: i64 = 1_000_000;

#[derive(Debug, Clone)]
enum Step {
    /// A join `gap` ms after the previous step.
    Join { gap: i64 },
    /// The operator sets a rate, a pause or a resume.
    Set { gap: i64, rate: Option<u32>, paused: Option<bool> },
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => (0..5_000i64).prop_map(|gap| Step::Join { gap }),
        1 => (0..20_000i64, proptest::option::of(1..600u32), proptest::option::of(any::<bool>()))
            .prop_map(|(gap, rate, paused)| Step::Set { gap, rate, paused }),
    ]
}

struct Log {
    queue: Queue,
    holders: Vec<HolderId>,
    /// The highest rate ever in force.
    max_rate: u32,
}

impl Log {
    fn add(&mut self, at: i64, event: QueueEvent) {
        let seq = self.queue.seq() + 1;
        self.queue.apply(&QueueEntry { seq, at: ServerMillis(at), event });
    }
}

/// Replays `steps` from 60 s before `opensAt`, drawing with `seed` as the
/// writer does at its first instant from `opensAt` on; returns the log and
/// the last instant.
fn replay(rate: u32, steps: &[Step], seed: u64) -> (Log, i64) {
    let on_sale =
        OnSale { opens_at: ServerMillis(OPENS), admit_per_minute: rate, pre_queue_seconds: 60, admission_seconds: 30 };
    let mut log = Log { queue: Queue::new(on_sale), holders: Vec::new(), max_rate: rate };
    let mut now = OPENS - 60_000;
    for step in steps {
        let gap = match step {
            Step::Join { gap } | Step::Set { gap, .. } => *gap,
        };
        now += gap;
        if log.queue.needs_draw(ServerMillis(now)) {
            let draw = log.queue.draw(seed);
            log.add(now, draw);
        }
        match step {
            Step::Join { .. } => {
                let holder = HolderId::new(format!("h{}", log.holders.len()));
                let event = log.queue.decide_join(&holder, "198.51.100.7", false, u32::MAX, ServerMillis(now)).unwrap();
                log.add(now, event.expect("a new holder takes a place"));
                log.holders.push(holder);
            }
            Step::Set { rate, paused, .. } => {
                let settings = seat_state::queue::QueueSettings {
                    admit_per_minute: rate.map(i64::from),
                    paused: *paused,
                    closed: None,
                };
                if let Some(event) = log.queue.decide_settings(settings).unwrap() {
                    log.max_rate = log.max_rate.max(rate.unwrap_or(0));
                    log.add(now, event);
                }
            }
        }
    }
    if log.queue.needs_draw(ServerMillis(now.max(OPENS))) {
        now = now.max(OPENS);
        let draw = log.queue.draw(seed);
        log.add(now, draw);
    }
    (log, now)
}

fn position(admission: Admission) -> Option<u64> {
    match admission {
        Admission::Admitted { position, .. } => Some(position),
        Admission::Waiting { position, .. } => position,
        Admission::Open => None,
    }
}

proptest! {
    #[test]
    fn the_draw_is_a_permutation_fixed_by_its_seed(n in 0..300usize, seed in any::<u64>()) {
        let order = draw_order(n, seed);
        prop_assert_eq!(&order, &draw_order(n, seed));
        let mut sorted = order.clone();
        sorted.sort_unstable();
        prop_assert_eq!(sorted, (0..n).collect::<Vec<_>>());
    }

    #[test]
    fn admission_follows_the_order_and_the_rate(
        rate in 1..600u32,
        steps in proptest::collection::vec(step(), 1..60),
        seed in any::<u64>(),
        probes in proptest::collection::vec(0..400_000i64, 1..12),
    ) {
        let (log, end) = replay(rate, &steps, seed);
        let queue = &log.queue;
        let mut probes: Vec<i64> = probes.into_iter().map(|p| end + p).collect();
        probes.sort_unstable();
        let mut previous: Option<(i64, u64)> = None;
        for &t in &probes {
            let now = ServerMillis(t);
            let through = queue.admitted_through(now);
            prop_assert!(through <= queue.length());
            // Positions are one permutation of 1..=length: nobody has two.
            let positions: Vec<u64> = log.holders.iter().filter_map(|h| position(queue.admission(h, now))).collect();
            prop_assert_eq!(positions.iter().collect::<HashSet<_>>().len(), positions.len());
            prop_assert_eq!(positions.len() as u64, queue.length());
            // Admitted exactly the first `through` positions, in order.
            for holder in &log.holders {
                match queue.admission(holder, now) {
                    Admission::Admitted { position, since, until } => {
                        prop_assert!(position <= through);
                        prop_assert!(since <= now && until.0 - since.0 == 30_000);
                        prop_assert!(queue.admitted_through(since) >= position, "admitted at its instant");
                        prop_assert!(since.0 >= OPENS, "nobody before the sale opens");
                    }
                    Admission::Waiting { position: Some(position), estimated_admit_at: Some(at) } => {
                        prop_assert!(position > through);
                        // Never earlier than the server admits it (the log stops here).
                        prop_assert!(queue.admitted_through(at.plus_millis(-1)) < position);
                        if !queue.rate().1 {
                            prop_assert!(queue.admitted_through(at) >= position, "admitted when promised, unpaused");
                        }
                    }
                    other => prop_assert!(false, "after the draw every holder has a position: {other:?}"),
                }
            }
            // No faster than the fastest rate in force.
            if let Some((before, admitted)) = previous {
                let most = (i128::from(t - before) * i128::from(log.max_rate)) / 60_000 + 1;
                prop_assert!(i128::from(through - admitted) <= most, "{admitted} → {through} in {} ms", t - before);
                prop_assert!(through >= admitted, "admission never goes back");
            }
            previous = Some((t, through));
        }
    }

    #[test]
    fn the_history_the_operator_charts_agrees_with_admission_and_never_goes_back(
        rate in 1..600u32,
        steps in proptest::collection::vec(step(), 1..60),
        seed in any::<u64>(),
        probes in proptest::collection::vec(-70_000..400_000i64, 1..20),
    ) {
        let (log, end) = replay(rate, &steps, seed);
        let queue = &log.queue;
        let mut instants: Vec<ServerMillis> = probes.into_iter().map(|p| ServerMillis(end + p)).collect();
        instants.sort_unstable();
        let seen = queue.at_instants(&instants);
        for pair in seen.windows(2) {
            prop_assert!(pair[1].length >= pair[0].length && pair[1].admitted_through >= pair[0].admitted_through);
        }
        for (at, seen) in instants.iter().zip(&seen) {
            prop_assert!(seen.admitted_through <= seen.length);
            if at.0 >= end {
                // Past the log's last entry it is the queue as it stands.
                prop_assert_eq!(seen.length, queue.length());
                prop_assert_eq!(seen.admitted_through, queue.admitted_through(*at));
            }
        }
    }
}
