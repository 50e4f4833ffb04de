//! The invariants, checked after every step:
//!
//! - the stored journal is a history the rules allow, each entry at its own
//!   instant, instants never going back per show (the oracle): so no seat is
//!   ever in two active holds, no area over capacity, no confirmed hold
//!   changed again, no hold id in two shows;
//! - every acknowledged hold and confirmation is in the store;
//! - the seat map the server answers equals the journal replayed;
//! - a viewer resuming after version N gets frames that follow N, or a
//!   fresh snapshot, never a replay with holes, and every live viewer at
//!   the published version shows exactly the published map;
//! - every acknowledged hold is found by its holder (no ghosts), checked
//!   every few steps and after the final restart;
//! - what the webhook receiver got is signed, true to the journal and in
//!   order per show ([`crate::delivery_check`]).

use axum::body::Body;
use axum::http::{Request, StatusCode};

use seathold_core::engine::events::Start;

use crate::Failure;
use crate::driver::Sim;
use crate::oracle::Status;
use crate::requests::{Ask, Spec};
use crate::world::World;

/// Steps between ghost checks (a list of holds per customer).
const GHOST_CHECK_EVERY: usize = 5;

impl Sim {
    pub async fn check(&mut self) -> Result<(), Box<Failure>> {
        if let Some(gap) = self.replay_gap.take() {
            return Err(self.fail(format!("a resuming viewer would miss changes: {gap}")));
        }
        self.check_journal().await?;
        self.check_queue().await?;
        self.check_acks()?;
        self.check_seat_maps().await?;
        self.check_webhooks().await?;
        self.check_viewers().await?;
        if self.step.is_multiple_of(GHOST_CHECK_EVERY) {
            self.check_no_ghosts().await?;
        }
        Ok(())
    }

    async fn check_journal(&mut self) -> Result<(), Box<Failure>> {
        let shows: Vec<(String, i64)> = self.oracle.shows.iter().map(|(id, show)| (id.clone(), show.version)).collect();
        for (show, version) in shows {
            let entries = self.world.truth.journal(&show, version).await.map_err(|e| self.fail(format!("{e:#}")))?;
            self.oracle.check(&show, &entries).map_err(|why| self.fail(format!("the journal breaks a rule: {why}")))?;
        }
        Ok(())
    }

    async fn check_queue(&mut self) -> Result<(), Box<Failure>> {
        let queued = self.world.shows.iter().find(|show| show.id.as_str() == crate::world::QUEUED);
        let Some(on_sale) = queued.and_then(|show| show.on_sale) else { return Ok(()) };
        let log = self.world.truth.queue_log(crate::world::QUEUED, 0).await.map_err(|e| self.fail(format!("{e:#}")))?;
        let journal =
            self.world.truth.journal(crate::world::QUEUED, 0).await.map_err(|e| self.fail(format!("{e:#}")))?;
        crate::queue_check::check(&on_sale, &log, &journal)
            .map_err(|why| self.fail(format!("the waiting room breaks a rule: {why}")))
    }

    fn check_acks(&self) -> Result<(), Box<Failure>> {
        for (at, customer) in self.customers.iter().enumerate() {
            for (id, ack) in customer.acked.iter() {
                let stored = self
                    .oracle
                    .shows
                    .get(&ack.show)
                    .and_then(|show| show.holds.iter().find(|(hold, _)| hold.as_str() == id).map(|(_, hold)| hold));
                let Some(stored) = stored else {
                    return Err(self.fail(format!("c{at}'s acknowledged hold {id} is not in the store")));
                };
                if stored.holder.as_str() != customer.holder_id {
                    return Err(self.fail(format!("c{at}'s acknowledged hold {id} is stored for another holder")));
                }
                if ack.confirmed && stored.status != Status::Confirmed {
                    return Err(self.fail(format!("c{at}'s confirmed hold {id} is stored {:?}", stored.status)));
                }
            }
        }
        Ok(())
    }

    /// Only while no write can be on its way to a writer: every request
    /// either finished or waits for its body, so the answer is at the
    /// journal's latest version.
    async fn check_seat_maps(&mut self) -> Result<(), Box<Failure>> {
        for show in self.oracle.shows.keys().cloned().collect::<Vec<_>>() {
            let request = Request::get(format!("/api/shows/{show}/seats")).body(Body::empty()).unwrap_or_default();
            let process = self.process();
            let answer = World::send(self.world.apps[process].router.clone(), request).await;
            if answer.status == StatusCode::SERVICE_UNAVAILABLE {
                continue;
            }
            let model = &self.oracle.shows[&show];
            let version = answer.body["version"].as_i64();
            if version != Some(model.version) {
                return Err(
                    self.fail(format!("{show}'s seat map is at version {version:?}, its journal at {}", model.version))
                );
            }
            let expected = model.seat_facts();
            for seat in answer.body["seats"].as_array().into_iter().flatten() {
                let id = seat["id"].as_str().unwrap_or_default();
                let got = (seat["sold"].as_bool().unwrap_or(false), seat["holdExpiresAt"].as_i64());
                let want = expected.iter().find(|(s, _)| s.as_str() == id).map_or((false, None), |(_, f)| *f);
                if got != want {
                    return Err(self.fail(format!("{show} seat {id}: the server says {got:?}, the journal {want:?}")));
                }
                let blocked = seat["blocked"].as_bool().unwrap_or(false);
                if blocked != model.blocked.iter().any(|seat| seat.as_str() == id) {
                    return Err(
                        self.fail(format!("{show} seat {id}: the server says blocked {blocked}, the journal not"))
                    );
                }
            }
            let areas = model.area_facts();
            for area in answer.body["areas"].as_array().into_iter().flatten() {
                let id = area["id"].as_str().unwrap_or_default();
                let mut holds: Vec<(i64, u32)> = area["holds"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|h| (h["expiresAt"].as_i64().unwrap_or(0), h["quantity"].as_u64().unwrap_or(0) as u32))
                    .collect();
                holds.sort_unstable();
                let got = (area["sold"].as_u64().unwrap_or(0) as u32, holds);
                let want = areas.iter().find(|(a, _)| a.as_str() == id).map(|(_, f)| f.clone()).unwrap_or_default();
                if got != want {
                    return Err(self.fail(format!("{show} area {id}: the server says {got:?}, the journal {want:?}")));
                }
            }
        }
        Ok(())
    }

    /// Applies what each viewer received; a gap fails the run.
    async fn drain_viewers(&mut self) -> Result<(), Box<Failure>> {
        let shows: Vec<String> = self.viewers.keys().cloned().collect();
        for show in shows {
            let process = self.viewers[&show].process;
            let Ok(Some(handle)) = self.world.apps[process].state.engines.show(&show).await else { continue };
            let drained = self.viewers.get_mut(&show).map(|viewer| viewer.drain(|| handle.published_view()));
            if let Some(Err(gap)) = drained {
                return Err(self.fail(format!("viewer of {show}: {gap}")));
            }
        }
        Ok(())
    }

    /// Every viewer converges: at the version its process published, its
    /// map (snapshot plus frames) is the published map.
    async fn check_viewers(&mut self) -> Result<(), Box<Failure>> {
        self.drain_viewers().await?;
        let shows: Vec<String> = self.viewers.keys().cloned().collect();
        for show in shows {
            let process = self.viewers[&show].process;
            let Ok(Some(handle)) = self.world.apps[process].state.engines.show(&show).await else { continue };
            let view = handle.published_view();
            if let Some(difference) = self.viewers[&show].differs_from(&view) {
                return Err(self.fail(format!("viewer of {show}: {difference}")));
            }
            self.report.viewer_checks += u64::from(self.viewers[&show].last == Some(view.version));
        }
        Ok(())
    }

    /// A viewer reconnects with the last version it has (`Last-Event-ID`).
    pub async fn reconnect_viewer(&mut self) {
        if let Err(failure) = self.drain_viewers().await {
            self.replay_gap = Some(failure.to_string());
            return;
        }
        let shows: Vec<String> = self.viewers.keys().cloned().collect();
        let show = shows[self.rng.usize(0..shows.len())].clone();
        let after = self.viewers[&show].last;
        let process = self.process();
        let subscribed = match self.world.apps[process].state.engines.show(&show).await {
            Ok(Some(handle)) => handle.subscribe(after).await.ok(),
            _ => None,
        };
        let Some(subscription) = subscribed else { return };
        let Some(viewer) = self.viewers.get_mut(&show) else { return };
        viewer.process = process;
        let note = match &subscription.start {
            Start::Snapshot(view) => {
                viewer.snapshot(view);
                format!("viewer of {show} after {after:?}: snapshot at v{}", view.version)
            }
            Start::Replay(frames) => {
                let ranges: Vec<(i64, i64)> = frames.iter().map(|frame| (frame.since, frame.version)).collect();
                if let Err(gap) = frames.iter().try_for_each(|frame| viewer.apply(frame)) {
                    self.replay_gap = Some(format!("{show}: replay after {after:?} is {ranges:?}: {gap}"));
                }
                format!("viewer of {show} after {after:?}: replay {ranges:?}")
            }
        };
        viewer.frames = Some(subscription.frames);
        self.note(note);
    }

    /// Every customer's list of holds has every hold the store has for it
    /// (acknowledged or not: a hold whose answer was lost still blocks seats).
    async fn check_no_ghosts(&mut self) -> Result<(), Box<Failure>> {
        for at in 0..self.customers.len() {
            let spec = Spec { customer: at, ask: Ask::List };
            let (request, _) = spec.request(&self.customers[at].token, false);
            let process = self.process();
            let answer = World::send(self.world.apps[process].router.clone(), request).await;
            if answer.status == StatusCode::SERVICE_UNAVAILABLE {
                continue;
            }
            let listed: Vec<&str> =
                answer.body["holds"].as_array().into_iter().flatten().filter_map(|h| h["holdId"].as_str()).collect();
            let holder = self.customers[at].holder_id.as_str();
            let stored = self.oracle.shows.values().flat_map(|show| &show.holds);
            let mut mine = stored.filter(|(_, hold)| hold.holder.as_str() == holder).map(|(id, _)| id.as_str());
            if let Some(ghost) = mine.find(|id| !listed.contains(id)) {
                return Err(self.fail(format!("ghost hold: c{at}'s stored hold {ghost} is not in its list")));
            }
        }
        Ok(())
    }

    /// Every held-back body arrives, storage heals, the server restarts once
    /// more, and everything acknowledged must still be there.
    pub async fn finish(&mut self) -> Result<(), Box<Failure>> {
        for flight in &mut self.in_flight {
            if let Some((sender, bytes)) = flight.slow_body.take() {
                drop(sender.send(bytes));
            }
        }
        self.settle().await?;
        self.check().await?;
        self.check_no_ghosts().await?;
        self.world.faulty.heal();
        for process in 0..self.world.apps.len() {
            self.world.restart(process).map_err(|error| self.fail(format!("{error:#}")))?;
        }
        self.settle().await?;
        self.check().await?;
        self.check_no_ghosts().await
    }
}
