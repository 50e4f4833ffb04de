//! The simulation loop: one seeded choice per step, then let every task run
//! until it waits, read the answers, and check the invariants.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use tokio::task::JoinHandle;

use seathold_core::store::CommitFault;

use crate::delivery_check::DeliveryCheck;
use crate::oracle::Oracle;
use crate::requests::{Ack, Acked, Ask, Customer, DropsAfterPolls, InFlight, Spec};
use crate::viewers::Viewer;
use crate::world::{Answer, World};
use crate::{Config, Failure, Report, SETTLE};

const CUSTOMERS: usize = 6;
/// Trace lines kept for a failure report.
const TRACE: usize = 60;
/// Rounds of reactions to reactions within one step.
const FOLLOW_UP_ROUNDS: usize = 3;

pub struct Sim {
    pub config: Config,
    pub rng: fastrand::Rng,
    pub world: World,
    pub customers: Vec<Customer>,
    pub in_flight: Vec<InFlight>,
    /// Sweep rounds under way, by process.
    pub sweeps: Vec<(usize, JoinHandle<anyhow::Result<usize>>)>,
    pub oracle: Oracle,
    /// What the webhook receiver got, as checked so far.
    pub deliveries: DeliveryCheck,
    pub viewers: BTreeMap<String, Viewer>,
    pub report: Report,
    pub step: usize,
    /// Requests customers send at once in reaction to an answer.
    follow_ups: Vec<Spec>,
    /// A resuming viewer's replay that missed versions, reported by `check`.
    pub replay_gap: Option<String>,
    trace: VecDeque<String>,
}

impl Sim {
    pub async fn new(config: Config) -> anyhow::Result<Self> {
        let world = World::new(config.store, config.seed).await?;
        crate::webhooks::subscribe(&world).await?;
        let mut oracle = Oracle::default();
        let mut viewers = BTreeMap::new();
        for show in &world.shows {
            oracle.add_show(show);
            viewers.insert(show.id.to_string(), Viewer::default());
        }
        let mut sim = Self {
            rng: fastrand::Rng::with_seed(config.seed),
            config,
            world,
            customers: Vec::new(),
            in_flight: Vec::new(),
            sweeps: Vec::new(),
            oracle,
            deliveries: DeliveryCheck::default(),
            viewers,
            report: Report::default(),
            step: 0,
            follow_ups: Vec::new(),
            replay_gap: None,
            trace: VecDeque::new(),
        };
        for _ in 0..CUSTOMERS {
            let request = Request::post("/api/sessions").body(Body::empty())?;
            let answer = World::send(sim.world.apps[0].router.clone(), request).await;
            let token = answer.body["token"].as_str().ok_or_else(|| anyhow::anyhow!("no session: {answer:?}"))?;
            let holder_id = answer.body["holderId"].as_str().unwrap_or_default().to_owned();
            let customer = Customer {
                token: token.to_owned(),
                holder_id,
                acked: Acked::default(),
                retries: Vec::new(),
                next_id: 0,
            };
            sim.customers.push(customer);
        }
        Ok(sim)
    }

    pub fn note(&mut self, line: String) {
        if self.trace.len() == TRACE {
            self.trace.pop_front();
        }
        self.trace.push_back(format!("[{}] t+{} {line}", self.step, self.world.clock_offset()));
    }

    pub fn fail(&self, message: String) -> Box<Failure> {
        Box::new(Failure {
            config: self.config.clone(),
            step: self.step,
            message,
            trace: self.trace.iter().cloned().collect(),
        })
    }

    pub async fn run(&mut self) -> Result<Report, Box<Failure>> {
        for step in 0..self.config.steps {
            self.step = step;
            self.act().await?;
            self.settle().await?;
            self.check().await?;
        }
        self.finish().await?;
        self.drain_webhooks().await?;
        self.report.steps = self.config.steps;
        self.report.transitions = self.oracle.shows.values().map(|show| show.version).sum();
        for process in 0..self.world.apps.len() {
            self.count_retention(process);
        }
        self.report.fingerprint = self.fingerprint().await.map_err(|error| self.fail(format!("{error:#}")))?;
        Ok(self.report.clone())
    }

    /// Lets every task run until all of them wait, then reads what finished.
    pub async fn settle(&mut self) -> Result<(), Box<Failure>> {
        self.settle_once().await?;
        // Reactions go out at once, before the clock moves again.
        for _ in 0..FOLLOW_UP_ROUNDS {
            if self.follow_ups.is_empty() {
                break;
            }
            for spec in std::mem::take(&mut self.follow_ups) {
                self.send(spec);
            }
            self.settle_once().await?;
        }
        self.follow_ups.clear();
        Ok(())
    }

    async fn settle_once(&mut self) -> Result<(), Box<Failure>> {
        tokio::time::sleep(SETTLE).await;
        let (done, waiting): (Vec<_>, Vec<_>) = self.in_flight.drain(..).partition(|f| f.handle.is_finished());
        self.in_flight = waiting;
        for finished in done {
            let answer = finished.handle.await.map_err(|error| self.fail(format!("request task failed: {error}")))?;
            match answer {
                Some(answer) => {
                    self.report.requests += 1;
                    self.answered(finished.spec, answer)?;
                }
                None => self.dropped(finished.spec),
            }
        }
        let (done, waiting): (Vec<_>, Vec<_>) = self.sweeps.drain(..).partition(|(_, sweep)| sweep.is_finished());
        self.sweeps = waiting;
        for (_, sweep) in done {
            match sweep.await {
                Ok(Ok(handled)) => self.note(format!("sweep handled {handled}")),
                Ok(Err(error)) => self.note(format!("sweep failed: {error:#}")),
                Err(error) => return Err(self.fail(format!("sweep task failed: {error}"))),
            }
        }
        Ok(())
    }

    /// One seeded choice.
    async fn act(&mut self) -> Result<(), Box<Failure>> {
        self.move_clock();
        let roll = self.rng.u32(0..100);
        match roll {
            0..45 => {
                let spec = self.new_spec();
                self.send(spec);
            }
            45..57 => self.deliver_body(),
            57..63 => self.drop_request(),
            63..73 => self.retry(),
            73..78 => self.sweep(),
            78..83 => self.reconnect_viewer().await,
            83..86 => self.inject_fault(),
            86..87 => self.restart()?,
            _ => {}
        }
        Ok(())
    }

    fn move_clock(&mut self) {
        let roll = self.rng.u32(0..100);
        let millis = match roll {
            0..50 => i64::from(self.rng.u32(0..=40)),
            50..60 => i64::from(self.rng.u32(200..=2500)),
            60..63 => {
                self.report.clock_steps_back += 1;
                -i64::from(self.rng.u32(100..=3000))
            }
            _ => 0,
        };
        if millis != 0 {
            self.world.clock.advance(millis);
            if millis < 0 {
                self.note(format!("clock steps back {millis} ms"));
            }
        }
    }

    fn new_spec(&mut self) -> Spec {
        let customer = self.rng.usize(0..self.customers.len());
        let known: Vec<String> = self.customers[customer].acked.ids().cloned().collect();
        let pick = |rng: &mut fastrand::Rng| known.get(rng.usize(0..known.len().max(1))).cloned();
        let ask = match self.rng.u32(0..100) {
            0..50 => self.new_hold(customer),
            50..60 => pick(&mut self.rng).map_or(Ask::List, Ask::Extend),
            60..72 => pick(&mut self.rng).map_or(Ask::List, Ask::Confirm),
            72..82 => pick(&mut self.rng).map_or(Ask::List, Ask::Release),
            82..90 => pick(&mut self.rng).map_or(Ask::List, Ask::Get),
            90..93 => Ask::List,
            93..96 => self.new_block(),
            96..98 => Ask::Join(crate::world::QUEUED.to_owned()),
            _ => Ask::SeatMap(self.random_show().0),
        };
        Spec { customer, ask }
    }

    fn random_show(&mut self) -> (String, usize) {
        let show = &self.world.shows[self.rng.usize(0..self.world.shows.len())];
        (show.id.to_string(), show.seats.len())
    }

    fn new_hold(&mut self, customer: usize) -> Ask {
        let (show, seat_count) = self.random_show();
        let mut seats: Vec<String> = Vec::new();
        for _ in 0..self.rng.usize(0..=2) {
            let seat = format!("S{}", self.rng.usize(1..=seat_count));
            if !seats.contains(&seat) {
                seats.push(seat);
            }
        }
        let floor = if seats.is_empty() || self.rng.u32(0..5) == 0 { self.rng.u32(1..=2) } else { 0 };
        let roll = self.rng.u32(0..100);
        let buyer = &mut self.customers[customer];
        let known: Vec<&String> = buyer.acked.ids().collect();
        let hold_id = match roll {
            // The very request that made one of its holds, again (late): a replay.
            0..3 if buyer.acked.iter().any(|(_, ack)| ack.asked.is_some()) => {
                let asked: Vec<&Ask> = buyer.acked.iter().filter_map(|(_, ack)| ack.asked.as_ref()).collect();
                return asked[self.rng.usize(0..asked.len())].clone();
            }
            // Reuses one of its holds' ids, maybe in the other show: a replay or a mismatch.
            0..6 if !known.is_empty() => Some(known[roll as usize % known.len()].clone()),
            // The server makes the id (such a request cannot be retried safely).
            6..14 => None,
            _ => {
                buyer.next_id += 1;
                Some(format!("c{customer}-hold-{:04}", buyer.next_id))
            }
        };
        // Sometimes "the best seats" instead of named ones.
        let best = (seats.is_empty() && self.rng.u32(0..3) == 0).then(|| self.rng.u32(1..=2));
        let floor = if best.is_some() { 0 } else { floor };
        Ask::Hold { show, hold_id, seats, floor, best }
    }

    /// The box office blocks one or two seats, or unblocks them (half the time).
    fn new_block(&mut self) -> Ask {
        let (show, seat_count) = self.random_show();
        let seats = (0..self.rng.usize(1..=2)).map(|_| format!("S{}", self.rng.usize(1..=seat_count))).collect();
        Ask::Block { show, seats, block: self.rng.bool() }
    }

    fn send(&mut self, spec: Spec) {
        let slow = matches!(spec.ask, Ask::Hold { .. }) && self.rng.u32(0..100) < 15;
        let (request, slow_body) = spec.request(&self.customers[spec.customer].token, slow);
        self.note(format!("c{} sends {:?}{}", spec.customer, spec.ask, if slow { " (body held back)" } else { "" }));
        if slow {
            self.report.slow_bodies += 1;
        }
        // Sometimes the connection drops after a few polls of the request.
        let drop_after = (self.rng.u32(0..100) < 10).then(|| self.rng.u32(1..=4));
        let process = self.process();
        let request = DropsAfterPolls::new(World::send(self.world.apps[process].router.clone(), request), drop_after);
        let handle = tokio::spawn(request);
        self.in_flight.push(InFlight { spec, process, handle, slow_body });
    }

    fn deliver_body(&mut self) {
        let waiting: Vec<usize> =
            (0..self.in_flight.len()).filter(|&at| self.in_flight[at].slow_body.is_some()).collect();
        let Some(&at) = waiting.get(self.rng.usize(0..waiting.len().max(1))) else { return };
        if let Some((sender, bytes)) = self.in_flight[at].slow_body.take() {
            let line =
                format!("c{}'s body arrives for {:?}", self.in_flight[at].spec.customer, self.in_flight[at].spec.ask);
            drop(sender.send(bytes));
            self.note(line);
        }
    }

    /// The client's connection drops: the server never answers it.
    fn drop_request(&mut self) {
        if !self.in_flight.is_empty() {
            let at = self.rng.usize(0..self.in_flight.len());
            self.drop_at(at);
        }
    }

    fn drop_at(&mut self, at: usize) {
        let dropped = self.in_flight.swap_remove(at);
        dropped.handle.abort();
        self.dropped(dropped.spec);
    }

    /// A request whose connection dropped: the customer may try again.
    fn dropped(&mut self, spec: Spec) {
        self.report.dropped += 1;
        self.note(format!("c{}'s connection drops during {:?}", spec.customer, spec.ask));
        let retriable = !matches!(spec.ask, Ask::Hold { hold_id: None, .. });
        if retriable && self.rng.bool() {
            self.customers[spec.customer].retries.push(spec);
        }
    }

    fn retry(&mut self) {
        let waiting: Vec<usize> =
            (0..self.customers.len()).filter(|&c| !self.customers[c].retries.is_empty()).collect();
        let Some(&customer) = waiting.get(self.rng.usize(0..waiting.len().max(1))) else { return };
        let spec = self.customers[customer].retries.remove(0);
        self.note(format!("c{customer} retries"));
        self.send(spec);
    }

    fn sweep(&mut self) {
        let process = self.process();
        let state = &self.world.apps[process].state;
        let (store, engines, clock) = (Arc::clone(&state.store), Arc::clone(&state.engines), self.world.clock.clone());
        self.note(format!("sweep round on process {process}"));
        let round = tokio::spawn(async move { seathold_core::sweep::round(store.as_ref(), &engines, &clock).await });
        self.sweeps.push((process, round));
    }

    fn inject_fault(&mut self) {
        self.report.faults += 1;
        let fault = match self.rng.u32(0..3) {
            0 => CommitFault::Lost,
            _ => CommitFault::Ambiguous,
        };
        self.world.faulty.fail_commit(fault);
        let reload_fails = self.rng.u32(0..3) == 0;
        if reload_fails {
            self.world.faulty.fail_loads(self.rng.usize(1..=2));
        }
        self.note(format!("next commit fails: {fault:?}; reload fails too: {reload_fails}"));
        self.plan_webhook_fault();
    }

    /// Adds what a process's writers evicted, recalled and checkpointed.
    fn count_retention(&mut self, process: usize) {
        let metrics = &self.world.apps[process].state.metrics;
        self.report.evicted += metrics.holds_evicted.get();
        self.report.recalled += metrics.holds_recalled.get();
        self.report.checkpoints += metrics.checkpoints.get();
    }

    /// The process dies: requests in flight are lost, memory is gone.
    fn restart(&mut self) -> Result<(), Box<Failure>> {
        self.report.restarts += 1;
        let process = self.process();
        self.count_retention(process);
        let (lost, kept): (Vec<_>, Vec<_>) = self.in_flight.drain(..).partition(|flight| flight.process == process);
        self.in_flight = kept;
        for lost in lost {
            lost.handle.abort();
            let retriable = !matches!(lost.spec.ask, Ask::Hold { hold_id: None, .. });
            if retriable {
                self.customers[lost.spec.customer].retries.push(lost.spec);
            }
        }
        for (_, sweep) in self.sweeps.iter().filter(|(on, _)| *on == process) {
            sweep.abort();
        }
        for viewer in self.viewers.values_mut().filter(|viewer| viewer.process == process) {
            viewer.frames = None;
        }
        let open = self.world.receiver.open();
        self.report.restarts_mid_delivery += u64::from(open > 0);
        self.world.restart(process).map_err(|error| self.fail(format!("{error:#}")))?;
        self.note(format!("process {process} restarts ({open} webhook POSTs open)"));
        Ok(())
    }

    /// Reads an answer: remembers acknowledged holds, catches ghosts and 500s.
    fn answered(&mut self, spec: Spec, answer: Answer) -> Result<(), Box<Failure>> {
        let status = answer.status;
        self.note(format!("c{} got {} {} for {:?}", spec.customer, status.as_u16(), answer.code(), spec.ask));
        let header = answer.headers.get("x-server-time").and_then(|v| v.to_str().ok()?.parse::<i64>().ok());
        if let Some(body_time) = answer.body.get("serverTime").and_then(serde_json::Value::as_i64)
            && header != Some(body_time)
        {
            return Err(self.fail(format!("X-Server-Time {header:?} differs from serverTime {body_time}")));
        }
        if status.is_server_error() && status != StatusCode::SERVICE_UNAVAILABLE {
            return Err(self.fail(format!("{status} for {:?}: {}", spec.ask, answer.body)));
        }
        if status == StatusCode::SERVICE_UNAVAILABLE {
            self.customers[spec.customer].retries.push(spec);
            return Ok(());
        }
        self.react(&spec, &answer);
        let customer = &mut self.customers[spec.customer];
        if let Ask::Hold { hold_id: Some(id), .. } = &spec.ask
            && customer.acked.get(id).is_some_and(|ack| ack.asked.as_ref() == Some(&spec.ask))
            && status != StatusCode::OK
        {
            return Err(
                self.fail(format!("the request that made {id}, sent again, answered {status}: {}", answer.body))
            );
        }
        let customer = &mut self.customers[spec.customer];
        match &spec.ask {
            Ask::Hold { show, hold_id, best, .. } if status.is_success() => {
                let id = answer.body["holdId"].as_str().unwrap_or_default().to_owned();
                // The seats held: the ones asked for, or the ones best available picked.
                let held = answer.body["seats"].as_array().into_iter().flatten();
                let seats = held.filter_map(|seat| seat.as_str().map(str::to_owned)).collect();
                let asked = (hold_id.is_some() && best.is_none()).then(|| spec.ask.clone());
                customer.acked.remember(id, Ack { show: show.clone(), seats, confirmed: false, asked });
            }
            Ask::Confirm(id) if status == StatusCode::OK => {
                if let Some(ack) = customer.acked.get_mut(id) {
                    ack.confirmed = true;
                }
            }
            _ => {}
        }
        let acked = spec.hold_id().is_some_and(|id| customer.acked.contains(id));
        if acked && !matches!(spec.ask, Ask::Hold { .. }) && answer.code() == "no_hold" {
            return Err(self.fail(format!("ghost hold: {:?} answered 404 no_hold for an acknowledged hold", spec.ask)));
        }
        Ok(())
    }
}

impl Sim {
    /// The process a request goes to: any, with several (as a load balancer would).
    pub fn process(&mut self) -> usize {
        match self.world.apps.len() {
            1 => 0,
            n => self.rng.usize(0..n),
        }
    }

    /// What customers do at once, at the same instant, on seeing an answer:
    /// change their mind right after holding, or grab seats someone let go.
    /// Such chains put several decisions on one seat into one millisecond.
    fn react(&mut self, spec: &Spec, answer: &Answer) {
        match &spec.ask {
            Ask::Hold { .. } if answer.status == StatusCode::CREATED && self.rng.u32(0..100) < 15 => {
                let id = answer.body["holdId"].as_str().unwrap_or_default().to_owned();
                self.follow_ups.push(Spec { customer: spec.customer, ask: Ask::Release(id) });
            }
            Ask::Release(id) if answer.status == StatusCode::NO_CONTENT && self.rng.u32(0..100) < 70 => {
                let Some(ack) = self.customers[spec.customer].acked.get(id) else { return };
                if ack.seats.is_empty() {
                    return;
                }
                let (show, seats) = (ack.show.clone(), ack.seats.clone());
                let other = (spec.customer + 1 + self.rng.usize(0..self.customers.len() - 1)) % self.customers.len();
                let buyer = &mut self.customers[other];
                buyer.next_id += 1;
                let hold_id = Some(format!("c{other}-hold-{:04}", buyer.next_id));
                self.follow_ups
                    .push(Spec { customer: other, ask: Ask::Hold { show, hold_id, seats, floor: 0, best: None } });
            }
            _ => {}
        }
    }
}

impl World {
    /// Milliseconds since the run began, for the trace.
    pub fn clock_offset(&self) -> i64 {
        use seathold_core::clock::Clock;
        self.clock.now().0 - crate::world::T0.0
    }
}
