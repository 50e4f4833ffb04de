//! The webhook invariants, over what the simulated receiver got:
//!
//! - every receipt is signed with the secret (HMAC-SHA256 over `t.body`,
//!   checked here with `hmac` directly, not with the server's `sign.rs`);
//! - its body is the journal entry it names (kind, show, version, instant,
//!   hold, seats, areas), its id is `<showId>:<version>`, and every retry of
//!   one id carries the same bytes;
//! - per show, events are first received in version order with none
//!   skipped (the run is far shorter than the 24 hours before an event is
//!   parked, and the webhook takes every kind);
//! - once the receiver heals and enough time passes, every committed
//!   transition was acknowledged at least once (checked at the end).

use std::collections::{BTreeMap, HashMap};

use hmac::{Hmac, KeyInit, Mac};
use serde_json::{Value, json};
use sha2::Sha256;

use seat_state::Change;
use seathold_server::store::Transition;

use crate::receiver::Receipt;

/// Where the webhook points; the receiver answers whatever the URL.
pub const RECEIVER_URL: &str = "http://receiver.sim/seathold";
pub const SECRET: &str = "whsec_sim_2c91";
/// Every kind: so every journal entry is an event.
pub const KINDS: [&str; 7] = ["held", "extended", "confirmed", "released", "expired", "blocked", "unblocked"];

/// A hold's or a block's places, as a delivery names them.
type Places = (Vec<String>, BTreeMap<String, u32>);

/// What the checks have seen so far.
#[derive(Default)]
pub struct DeliveryCheck {
    /// Receipts already checked.
    checked: usize,
    /// Each show's journal as stored, by version.
    journals: BTreeMap<String, BTreeMap<i64, Transition>>,
    /// Each hold's places, from its creation, by (show, hold).
    holds: HashMap<(String, String), Places>,
    /// Per show, the last version first received.
    first: BTreeMap<String, i64>,
    /// Each event's body as first received, by id.
    bodies: HashMap<String, Vec<u8>>,
    /// Per show, the versions acknowledged.
    acknowledged: BTreeMap<String, std::collections::BTreeSet<i64>>,
}

impl DeliveryCheck {
    /// The stored journal's entry after the last one seen, per show.
    pub fn known_version(&self, show: &str) -> i64 {
        self.journals.get(show).and_then(|entries| entries.keys().next_back().copied()).unwrap_or(0)
    }

    /// Takes the journal entries read after [`Self::known_version`].
    pub fn add_entries(&mut self, show: &str, entries: Vec<Transition>) {
        for entry in entries {
            if let Change::Created { hold } = &entry.change {
                let seats = hold.seats.iter().map(ToString::to_string).collect();
                let areas = hold.areas.iter().map(|(area, quantity)| (area.to_string(), quantity.get())).collect();
                self.holds.insert((show.to_owned(), hold.id.to_string()), (seats, areas));
            }
            self.journals.entry(show.to_owned()).or_default().insert(entry.version, entry);
        }
    }

    /// Checks receipts that arrived since the last call (`receipts` starts at
    /// [`Self::checked`]).
    pub fn check(&mut self, receipts: Vec<Receipt>) -> Result<(), String> {
        for receipt in receipts {
            self.checked += 1;
            self.receipt(&receipt).map_err(|why| format!("webhook receipt {}: {why}", self.checked))?;
        }
        Ok(())
    }

    pub fn checked(&self) -> usize {
        self.checked
    }

    fn receipt(&mut self, receipt: &Receipt) -> Result<(), String> {
        if receipt.url != RECEIVER_URL {
            return Err(format!("posted to {}", receipt.url));
        }
        if !signed(&receipt.signature, SECRET, &receipt.body) {
            return Err(format!("signature {:?} does not verify", receipt.signature));
        }
        let body: Value =
            serde_json::from_slice(&receipt.body).map_err(|error| format!("body is not JSON: {error}"))?;
        let show = body["showId"].as_str().unwrap_or_default().to_owned();
        let version = body["version"].as_i64().ok_or_else(|| format!("no version in {body}"))?;
        let entry = self
            .journals
            .get(&show)
            .and_then(|entries| entries.get(&version))
            .ok_or_else(|| format!("{show} v{version} was delivered but is not in the journal: {body}"))?;
        let expected = self.expected(&show, entry)?;
        if body != expected {
            return Err(format!("body {body} is not the journal's {expected}"));
        }
        let id = format!("{show}:{version}");
        match self.bodies.get(&id) {
            Some(first) if *first != receipt.body => {
                return Err(format!("a retry of {id} changed its body from {}", String::from_utf8_lossy(first)));
            }
            Some(_) => {}
            None => {
                let last = self.first.entry(show.clone()).or_default();
                if version != *last + 1 {
                    return Err(format!("{id} was first received after {show}:{last}, out of order"));
                }
                *last = version;
                self.bodies.insert(id, receipt.body.clone());
            }
        }
        if receipt.acknowledged {
            self.acknowledged.entry(show).or_default().insert(version);
        }
        Ok(())
    }

    /// The delivery API.md describes for a journal entry.
    fn expected(&self, show: &str, entry: &Transition) -> Result<Value, String> {
        let (kind, places) = match (&entry.change, entry.change.hold_id()) {
            (Change::Blocked { seats, .. }, _) => ("blocked", (names(seats), BTreeMap::new())),
            (Change::Unblocked { seats }, _) => ("unblocked", (names(seats), BTreeMap::new())),
            (change, Some(hold)) => {
                let kind = match change {
                    Change::Created { .. } => "held",
                    Change::Extended { .. } => "extended",
                    Change::Confirmed { .. } => "confirmed",
                    Change::Released { .. } => "released",
                    _ => "expired",
                };
                let places = self.holds.get(&(show.to_owned(), hold.to_string()));
                (kind, places.cloned().ok_or_else(|| format!("hold {hold} of {show} was never created"))?)
            }
            (_, None) => return Err(format!("{show} v{} names no hold", entry.version)),
        };
        Ok(json!({
            "id": format!("{show}:{}", entry.version),
            "kind": kind,
            "showId": show,
            "version": entry.version,
            "at": entry.at.0,
            "holdId": entry.change.hold_id().map(ToString::to_string),
            "seats": places.0,
            "areas": places.1,
        }))
    }

    /// The first committed transition never acknowledged, if any.
    pub fn unacknowledged(&self) -> Option<String> {
        self.journals.iter().find_map(|(show, entries)| {
            let acknowledged = self.acknowledged.get(show);
            let missing = entries.keys().find(|version| acknowledged.is_none_or(|done| !done.contains(version)))?;
            Some(format!("{show}:{missing}"))
        })
    }

    /// Events acknowledged, over every show.
    pub fn acknowledged_count(&self) -> u64 {
        self.acknowledged.values().map(|versions| versions.len() as u64).sum()
    }
}

fn names<T: ToString>(ids: &[T]) -> Vec<String> {
    ids.iter().map(ToString::to_string).collect()
}

/// Whether `header` is `t=<secs>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`.
fn signed(header: &str, secret: &str, body: &[u8]) -> bool {
    let Some((t, v1)) = header.strip_prefix("t=").and_then(|rest| rest.split_once(",v1=")) else { return false };
    if t.parse::<i64>().is_err() {
        return false;
    }
    let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(secret.as_bytes()) else { return false };
    mac.update(format!("{t}.").as_bytes());
    mac.update(body);
    hex::encode(mac.finalize().into_bytes()) == v1
}

#[cfg(test)]
mod tests {
    use super::signed;

    /// The value Python's `hmac.new(b"whsec_test", b'1764460000.{"id":"impro:7"}', sha256)` gives.
    const HEADER: &str = "t=1764460000,v1=dd8167b6e0f4392d8e957bf42410d26f00112113cdd2b81a5eb5fcf63bf60eb8";

    #[test]
    fn a_signature_verifies_with_its_secret_and_body_only() {
        let body = br#"{"id":"impro:7"}"#;
        assert!(signed(HEADER, "whsec_test", body));
        assert!(!signed(HEADER, "whsec_other", body));
        assert!(!signed(HEADER, "whsec_test", br#"{"id":"impro:8"}"#));
        assert!(!signed(&HEADER.replace("t=1764460000", "t=1764460001"), "whsec_test", body));
        assert!(!signed("v1=dd81", "whsec_test", body));
    }

    #[test]
    fn the_servers_signatures_verify() {
        let body = br#"{"id":"sim-a:3"}"#;
        let header = seathold_server::webhooks::sign::signature("whsec_sim", 1_800_000_000, body);
        assert!(signed(&header, "whsec_sim", body), "{header}");
    }
}
