//! The sale's customers: what each asks, of which process, and what it
//! remembers of the answers (the record the audits check).

use std::collections::BTreeSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

use reqwest::Method;
use seathold_system_tests::api::{Answer, Api};
use serde_json::{Value, json};

use super::{HOLDS, HOT_SEATS};

/// The `n`th seat of the demo arena (rows of 250).
pub(crate) fn arena_seat(n: usize) -> String {
    format!("R{}-{}", n / 250 + 1, n % 250 + 1)
}

/// A small deterministic generator (xorshift64*), one per customer.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % n
    }
}

/// What the last acknowledged answer about a hold says it is now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum End {
    Held,
    Confirmed,
    Released,
}

impl End {
    pub(crate) fn status(self) -> &'static str {
        match self {
            Self::Held => "HELD",
            Self::Confirmed => "CONFIRMED",
            Self::Released => "RELEASED",
        }
    }
}

/// An acknowledged hold (201, or 200 for a retry whose first answer was lost).
#[derive(Debug, Clone)]
pub(crate) struct Acked {
    pub(crate) hold_id: String,
    pub(crate) token: String,
    pub(crate) seats: Vec<String>,
    pub(crate) expires_at: i64,
    pub(crate) extensions: i64,
    pub(crate) end: End,
}

/// What every customer shares.
pub(crate) struct Sale {
    pub(crate) a: Api,
    pub(crate) b: Api,
    /// Set just before A is killed: from then on A may not answer.
    pub(crate) killing: AtomicBool,
    pub(crate) stop: AtomicBool,
    /// Answers B gave after the kill.
    pub(crate) b_after_kill: AtomicUsize,
    /// Answers before the kill.
    pub(crate) before_kill: AtomicUsize,
}

/// One customer's view of the sale.
#[derive(Debug, Default)]
pub(crate) struct Record {
    pub(crate) holds: Vec<Acked>,
    pub(crate) conflicts: usize,
    pub(crate) extensions: usize,
    pub(crate) requests: usize,
    /// Requests to A that got no answer (A was being killed), asked of B again.
    pub(crate) lost: usize,
    /// Of those, the ones A had been asked before it died (not refused).
    pub(crate) in_flight: Vec<String>,
    /// Of those, hold creations B answered 200: A had made the hold.
    pub(crate) replays_after_loss: usize,
    /// Answers that break the rules, or a process failing.
    pub(crate) anomalies: Vec<String>,
    /// Holds granted (201): a seat, its deadline, who answered (A?) and when.
    pub(crate) granted: Vec<(String, i64, bool, Instant)>,
}

pub(crate) struct Customer {
    pub(crate) id: usize,
    pub(crate) sale: Arc<Sale>,
    pub(crate) rng: Rng,
    pub(crate) token: String,
    pub(crate) a_gone: bool,
    /// Whether A gave the last answer.
    pub(crate) by_a: bool,
    pub(crate) record: Record,
}

impl Customer {
    /// Asks A or B (alternately, B only once A gave no answer); a request A
    /// did not answer is asked of B again. `Err` only if B does not answer.
    pub(crate) async fn ask(
        &mut self,
        method: Method,
        path: &str,
        body: Option<&Value>,
    ) -> anyhow::Result<(Answer, bool)> {
        let use_a = !self.a_gone && (self.record.requests + self.id).is_multiple_of(2);
        self.record.requests += 1;
        let token = (!self.token.is_empty()).then_some(self.token.as_str());
        let mut lost = false;
        if use_a {
            match self.sale.a.call(method.clone(), path, token, body).await {
                Ok(answer) => {
                    self.by_a = true;
                    if !self.sale.killing.load(Ordering::SeqCst) {
                        self.sale.before_kill.fetch_add(1, Ordering::SeqCst);
                    }
                    self.check(&answer, "A", &method, path);
                    return Ok((answer, false));
                }
                Err(error) => {
                    if !self.sale.killing.load(Ordering::SeqCst) {
                        self.record.anomalies.push(format!("A gave no answer before it was killed: {error:#}"));
                    }
                    self.a_gone = true;
                    self.record.lost += 1;
                    // Refused: A was already gone; otherwise it was asked before it died.
                    let refused = error.downcast_ref::<reqwest::Error>().is_some_and(reqwest::Error::is_connect);
                    if !refused {
                        self.record.in_flight.push(format!("{method} {path}: {error:#}"));
                    }
                    lost = true;
                }
            }
        }
        let answer = self.sale.b.call(method.clone(), path, token, body).await?;
        self.by_a = false;
        if self.sale.killing.load(Ordering::SeqCst) {
            self.sale.b_after_kill.fetch_add(1, Ordering::SeqCst);
        } else {
            self.sale.before_kill.fetch_add(1, Ordering::SeqCst);
        }
        self.check(&answer, "B", &method, path);
        Ok((answer, lost))
    }

    pub(crate) fn check(&mut self, answer: &Answer, process: &str, method: &Method, path: &str) {
        if answer.status >= 500 {
            self.record.anomalies.push(format!("{process} answered {method} {path} with {answer:?}"));
        }
    }

    pub(crate) fn anomaly(&mut self, what: String) {
        self.record.anomalies.push(what);
    }

    pub(crate) async fn new_session(&mut self) -> anyhow::Result<()> {
        self.token.clear();
        let (answer, _) = self.ask(Method::POST, "/api/sessions", None).await?;
        match answer.body["token"].as_str() {
            Some(token) if answer.status == 201 => self.token = token.to_owned(),
            _ => anyhow::bail!("customer {}: no session: {answer:?}", self.id),
        }
        Ok(())
    }

    pub(crate) async fn shop(mut self) -> anyhow::Result<Record> {
        self.new_session().await?;
        let mut round = 0;
        while !self.sale.stop.load(Ordering::SeqCst) {
            self.round(round).await?;
            round += 1;
        }
        Ok(self.record)
    }

    /// One hold: made, maybe extended, then confirmed, released or kept.
    pub(crate) async fn round(&mut self, round: usize) -> anyhow::Result<()> {
        let count = 1 + self.rng.below(4);
        let mut seats = BTreeSet::new();
        while seats.len() < count {
            seats.insert(arena_seat(self.rng.below(HOT_SEATS)));
        }
        let seats: Vec<String> = seats.into_iter().collect();
        let hold_id = format!("c{:02}-{round:04}", self.id);
        let body = json!({"holdId": hold_id, "seats": seats});
        let (answer, lost) = self.ask(Method::POST, HOLDS, Some(&body)).await?;
        let answered = Instant::now();
        let granted = answer.status == 201 || (answer.status == 200 && lost);
        if answer.status == 200 && lost {
            self.record.replays_after_loss += 1;
        }
        if !granted {
            if answer.status == 409 && answer.body["error"] == "seats_taken" {
                self.record.conflicts += 1;
                let named = answer.body["seats"].as_array().map_or(0, Vec::len);
                let within = answer.body["seats"]
                    .as_array()
                    .is_some_and(|s| s.iter().all(|s| seats.contains(&s.as_str().unwrap_or("").to_owned())));
                if named == 0 || !within {
                    self.anomaly(format!("{hold_id} for {seats:?}: seats_taken names {}", answer.body["seats"]));
                }
            } else {
                self.anomaly(format!("{hold_id} for {seats:?} (answer lost first: {lost}): {answer:?}"));
            }
            return Ok(());
        }
        let as_asked = answer.body["holdId"] == hold_id.as_str() && answer.body["seats"] == json!(seats);
        let Some(expires_at) =
            answer.body["expiresAt"].as_i64().filter(|_| as_asked && answer.body["status"] == "HELD")
        else {
            self.anomaly(format!("{hold_id} for {seats:?}: granted as {answer:?}"));
            return Ok(());
        };
        if answer.status == 201 {
            self.record.granted.push((seats[0].clone(), expires_at, self.by_a, answered));
        }
        let mut acked = Acked {
            hold_id: hold_id.clone(),
            token: self.token.clone(),
            seats,
            expires_at,
            extensions: 0,
            end: End::Held,
        };

        if self.rng.below(5) == 0 {
            let (answer, lost) = self.ask(Method::POST, &format!("/api/holds/{hold_id}/extend"), None).await?;
            // An extension whose answer was lost may have been made twice.
            let extensions = answer.body["extensions"].as_i64().unwrap_or(-1);
            let expected = if lost { 1..=2 } else { 1..=1 };
            match answer.body["expiresAt"].as_i64() {
                Some(to) if answer.status == 200 && expected.contains(&extensions) => {
                    (acked.expires_at, acked.extensions) = (to, extensions);
                    self.record.extensions += 1;
                }
                _ => self.anomaly(format!("extending {hold_id} (answer lost first: {lost}): {answer:?}")),
            }
        }
        match self.rng.below(10) {
            0 => {
                // Keeps it (a customer leaves to pay later); the next one arrives.
                self.record.holds.push(acked);
                self.new_session().await?;
            }
            1..=4 => {
                let (answer, lost) = self.ask(Method::POST, &format!("/api/holds/{hold_id}/confirm"), None).await?;
                if answer.status == 200 && answer.body["status"] == "CONFIRMED" {
                    acked.end = End::Confirmed;
                } else {
                    self.anomaly(format!("confirming {hold_id} (answer lost first: {lost}): {answer:?}"));
                }
                self.record.holds.push(acked);
            }
            _ => {
                let (answer, lost) = self.ask(Method::DELETE, &format!("/api/holds/{hold_id}"), None).await?;
                if answer.status == 204 {
                    acked.end = End::Released;
                } else {
                    self.anomaly(format!("releasing {hold_id} (answer lost first: {lost}): {answer:?}"));
                }
                self.record.holds.push(acked);
            }
        }
        Ok(())
    }
}
