//! The webhook invariants, over what the simulated receiver got, for each
//! of the two webhooks (one takes every kind, one only a shop's
//! settlements):
//!
//! - every receipt went to a webhook's URL, is signed with that webhook's
//!   secret (HMAC-SHA256 over `t.body`, checked here with `hmac` directly,
//!   not with the server's `sign.rs`) and is of a kind it subscribed to;
//! - its body is the journal entry it names (kind, show, version, instant,
//!   hold, seats, areas), its id is `<showId>:<version>`, and every retry of
//!   one id carries the same bytes;
//! - per webhook and show, events are first received in version order with
//!   no entry of a subscribed kind skipped (the run is far shorter than the
//!   24 hours before an event is parked);
//! - once the receiver heals and enough time passes, every committed
//!   transition of a subscribed kind was acknowledged at least once, on
//!   each webhook (checked at the end).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use hmac::{Hmac, KeyInit, Mac};
use serde_json::{Value, json};
use sha2::Sha256;

use seat_state::Change;
use seathold_core::store::Transition;

use crate::receiver::Receipt;

/// A webhook the simulated box office adds; the receiver answers whatever the URL.
pub struct Subscription {
    pub url: &'static str,
    pub secret: &'static str,
    pub kinds: &'static [&'static str],
}

/// One webhook takes every kind, so every journal entry is an event; the
/// other only settlements, so its cursor passes the other kinds.
pub const SUBSCRIPTIONS: [Subscription; 2] = [
    Subscription {
        url: "http://receiver.sim/seathold",
        secret: "whsec_sim_2c91",
        kinds: &["held", "extended", "confirmed", "released", "expired", "blocked", "unblocked"],
    },
    Subscription {
        url: "http://receiver.sim/settlements",
        secret: "whsec_sim_settled_77",
        kinds: &["confirmed", "released", "expired"],
    },
];

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
    /// What each webhook got, in [`SUBSCRIPTIONS`]' order.
    lanes: [Lane; 2],
}

/// What one webhook got.
#[derive(Default)]
struct Lane {
    /// Per show, the last version first received.
    first: BTreeMap<String, i64>,
    /// Each event's body as first received, by id.
    bodies: HashMap<String, Vec<u8>>,
    /// Per show, the versions acknowledged.
    acknowledged: BTreeMap<String, BTreeSet<i64>>,
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
        let Some(at) = SUBSCRIPTIONS.iter().position(|webhook| webhook.url == receipt.url) else {
            return Err(format!("posted to {}", receipt.url));
        };
        let webhook = &SUBSCRIPTIONS[at];
        if !signed(&receipt.signature, webhook.secret, &receipt.body) {
            return Err(format!("signature {:?} does not verify with {}'s secret", receipt.signature, webhook.url));
        }
        let body: Value =
            serde_json::from_slice(&receipt.body).map_err(|error| format!("body is not JSON: {error}"))?;
        let show = body["showId"].as_str().unwrap_or_default().to_owned();
        let version = body["version"].as_i64().ok_or_else(|| format!("no version in {body}"))?;
        let entries = self.journals.get(&show);
        let entry = entries
            .and_then(|entries| entries.get(&version))
            .ok_or_else(|| format!("{show} v{version} was delivered but is not in the journal: {body}"))?;
        let expected = self.expected(&show, entry)?;
        if body != expected {
            return Err(format!("body {body} is not the journal's {expected}"));
        }
        if !webhook.kinds.contains(&kind_of(&entry.change)) {
            return Err(format!("{} got {}, a kind it did not subscribe to", webhook.url, body["kind"]));
        }
        let id = format!("{show}:{version}");
        let lane = &mut self.lanes[at];
        match lane.bodies.get(&id) {
            Some(first) if *first != receipt.body => {
                return Err(format!("a retry of {id} changed its body from {}", String::from_utf8_lossy(first)));
            }
            Some(_) => {}
            None => {
                let last = lane.first.entry(show.clone()).or_default();
                let skipped = entries
                    .into_iter()
                    .flat_map(|entries| entries.range(*last + 1..version))
                    .find(|(_, earlier)| webhook.kinds.contains(&kind_of(&earlier.change)));
                if let Some((skipped, _)) = skipped {
                    return Err(format!(
                        "{id} was first received on {} after {show}:{last}, before {show}:{skipped}",
                        webhook.url
                    ));
                }
                *last = version;
                lane.bodies.insert(id, receipt.body.clone());
            }
        }
        if receipt.acknowledged {
            lane.acknowledged.entry(show).or_default().insert(version);
        }
        Ok(())
    }

    /// The delivery API.md describes for a journal entry.
    fn expected(&self, show: &str, entry: &Transition) -> Result<Value, String> {
        let kind = kind_of(&entry.change);
        let places = match (&entry.change, entry.change.hold_id()) {
            (Change::Blocked { seats, .. } | Change::Unblocked { seats }, _) => (names(seats), BTreeMap::new()),
            (_, Some(hold)) => {
                let places = self.holds.get(&(show.to_owned(), hold.to_string()));
                places.cloned().ok_or_else(|| format!("hold {hold} of {show} was never created"))?
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

    /// The first committed transition of a subscribed kind that a webhook
    /// never acknowledged, if any.
    pub fn unacknowledged(&self) -> Option<String> {
        let lanes = SUBSCRIPTIONS.iter().zip(&self.lanes);
        lanes.into_iter().find_map(|(webhook, lane)| {
            self.journals.iter().find_map(|(show, entries)| {
                let acknowledged = lane.acknowledged.get(show);
                let (missing, _) = entries.iter().find(|(version, entry)| {
                    webhook.kinds.contains(&kind_of(&entry.change))
                        && acknowledged.is_none_or(|done| !done.contains(version))
                })?;
                Some(format!("{show}:{missing} on {}", webhook.url))
            })
        })
    }

    /// Events acknowledged on each webhook, over every show.
    pub fn acknowledged_counts(&self) -> [u64; 2] {
        self.lanes.each_ref().map(|lane| lane.acknowledged.values().map(|versions| versions.len() as u64).sum())
    }
}

/// A journal entry's event kind (API.md "Box office (v3)"), read here
/// rather than from the server's `EventKind::of`: the oracle's own reading.
fn kind_of(change: &Change) -> &'static str {
    match change {
        Change::Created { .. } => "held",
        Change::Extended { .. } => "extended",
        Change::Confirmed { .. } => "confirmed",
        Change::Released { .. } => "released",
        Change::Expired { .. } => "expired",
        Change::Blocked { .. } => "blocked",
        Change::Unblocked { .. } => "unblocked",
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
        let header = seathold_core::webhooks::sign::signature("whsec_sim", 1_800_000_000, body);
        assert!(signed(&header, "whsec_sim", body), "{header}");
    }
}
