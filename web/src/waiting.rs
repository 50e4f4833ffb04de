//! A show's waiting room as data (API.md "Waiting room (v3)"): the
//! customer's place, the queue's live progress and a ticking local clock,
//! kept up to date here; `components/waiting_room.rs` only renders them.

use gloo_timers::callback::Interval;
use leptos::prelude::*;
use leptos::task::spawn_local;
use seat_state::LocalMillis;
use seat_state::wire::{QueuePlace, QueueProgress, QueueState};

use crate::api::{self, QueueFeed, local_now};

/// The waiting room's signals.
#[derive(Clone, Copy)]
pub struct Waiting {
    show_id: StoredValue<String>,
    pub place: RwSignal<Option<QueuePlace>>,
    /// Why joining failed, in a sentence.
    pub problem: RwSignal<Option<String>>,
    pub progress: RwSignal<Option<QueueProgress>>,
    /// The local clock, a tick a second.
    pub now: RwSignal<LocalMillis>,
}

impl Waiting {
    /// Joins the show's queue (a reload finds the same place), listens to
    /// its progress and ticks, until the calling component goes away.
    pub fn start(show_id: &str) -> Self {
        let waiting = Self {
            show_id: StoredValue::new(show_id.to_owned()),
            place: RwSignal::new(None),
            problem: RwSignal::new(None),
            progress: RwSignal::new(None),
            now: RwSignal::new(local_now()),
        };
        waiting.join();
        let feed = QueueFeed::open(show_id, move |heard: QueueProgress| {
            waiting.progress.set(Some(heard));
            // Drawn, or reached: news only the server can tell.
            let stale = waiting.place.with_untracked(|place| {
                place.as_ref().is_some_and(|place| {
                    place.state == QueueState::Waiting
                        && place.position.is_none_or(|position| position <= heard.admitted_through)
                })
            });
            if stale {
                waiting.refresh();
            }
        });
        let ticker = Interval::new(1_000, move || waiting.now.set(local_now()));
        let kept = StoredValue::new_local(Some((feed, ticker)));
        on_cleanup(move || kept.set_value(None));
        waiting
    }

    /// Takes a place (again, at the back, after a lapse).
    pub fn join(self) {
        let show_id = self.show_id.get_value();
        spawn_local(async move {
            match api::join_queue(&show_id).await {
                Ok(joined) => {
                    self.place.set(Some(joined));
                    self.problem.set(None);
                }
                Err(error) => self.problem.set(Some(error.sentence())),
            }
        });
    }

    fn refresh(self) {
        let show_id = self.show_id.get_value();
        spawn_local(async move {
            if let Ok(read) = api::queue_place(&show_id).await {
                self.place.set(Some(read));
            }
        });
    }
}
