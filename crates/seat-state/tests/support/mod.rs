//! One helper for every suite: a small theatre and a desk that decides and
//! applies the way the server does.

// Each test binary uses a different part of this.
#![allow(dead_code)]

pub mod hall;

use std::sync::Arc;

use seat_state::wire::{ChangeEvent, HoldRequestBody, RequestedQuantity, ShowInput};
use seat_state::{Change, Decision, HoldId, HolderId, Rejection, ServerMillis, Show, ShowState};

/// The instant most tests start at.
pub const T0: ServerMillis = ServerMillis(1_764_460_000_000);

/// Seconds after `T0`.
pub fn at(seconds: i64) -> ServerMillis {
    T0.plus_millis(seconds * 1000)
}

/// A show with seats A1..A5, B1..B5 and one area `standing` of 5, with
/// The theatre the random-operation properties run on: two active holds
/// per holder, and late payment honoured if free or refused.
pub fn random_ops_theatre(honor_late: bool) -> Arc<Show> {
    let late = if honor_late { r#""latePolicy": "honorIfFree""# } else { r#""latePolicy": "reject""# };
    theatre(&format!(r#"{late}, "maxActiveHoldsPerHolder": 2"#))
}

/// rules overridden by `rules` (a JSON fragment such as `"maxExtensions": 1`).
pub fn theatre(rules: &str) -> Arc<Show> {
    let seats: Vec<serde_json::Value> = ["A", "B"]
        .iter()
        .flat_map(|row| (1..=5).map(move |n| serde_json::json!({"id": format!("{row}{n}"), "x": n, "y": 0})))
        .collect();
    let mut json = serde_json::json!({
        "id": "theatre", "name": "Theatre", "holdSeconds": 600, "extensionSeconds": 300,
        "maxExtensions": 2, "maxSeatsPerHold": 6, "maxActiveHoldsPerHolder": 1,
        "seats": seats, "areas": [{"id": "standing", "name": "Standing", "capacity": 5}],
    });
    let overrides: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(&format!("{{{rules}}}")).expect("rules JSON");
    for (key, value) in overrides {
        json[key] = value;
    }
    let input: ShowInput = serde_json::from_value(json).expect("theatre JSON");
    Arc::new(Show::parse(&input).expect("theatre is valid"))
}

/// A hold request body.
pub fn body(hold_id: &str, seats: &[&str], areas: &[(&str, i64)]) -> HoldRequestBody {
    HoldRequestBody {
        hold_id: Some(hold_id.to_owned()),
        seats: seats.iter().map(|s| (*s).to_owned()).collect(),
        areas: areas.iter().map(|(area, n)| ((*area).to_owned(), RequestedQuantity::Integer(*n))).collect(),
    }
}

pub fn holder(name: &str) -> HolderId {
    HolderId::new(name)
}

pub fn hold_id(id: &str) -> HoldId {
    HoldId::parse(id).expect("valid hold id")
}

/// The server's part: decide, then apply what was decided.
pub struct Desk {
    pub state: ShowState,
    /// Every change applied, in order.
    pub log: Vec<Change>,
    /// The `change` event of each, as the server publishes it.
    pub events: Vec<ChangeEvent>,
}

impl Desk {
    pub fn new(show: Arc<Show>) -> Self {
        Self { state: ShowState::new(show), log: Vec::new(), events: Vec::new() }
    }

    fn settle(&mut self, decision: Result<Decision, Rejection>, now: ServerMillis) -> Result<Decision, Rejection> {
        if let Ok(Decision::Apply(change)) = &decision {
            let before = self.state.version();
            self.state.apply(change);
            assert_eq!(self.state.version(), before + 1, "a decided change applies: {change:?}");
            self.log.push(change.clone());
            self.events.push(self.state.change_event(change, now));
        }
        decision
    }

    pub fn hold(
        &mut self,
        who: &str,
        id: &str,
        seats: &[&str],
        areas: &[(&str, i64)],
        now: ServerMillis,
    ) -> Result<Decision, Rejection> {
        let request = self.state.parse_request(&body(id, seats, areas), hold_id("generated"))?;
        let decision = self.state.decide_create(&holder(who), &request, now);
        self.settle(decision, now)
    }

    pub fn extend(&mut self, who: &str, id: &str, now: ServerMillis) -> Result<Decision, Rejection> {
        let decision = self.state.decide_extend(&holder(who), &hold_id(id), now);
        self.settle(decision, now)
    }

    pub fn confirm(&mut self, who: &str, id: &str, now: ServerMillis) -> Result<Decision, Rejection> {
        let decision = self.state.decide_confirm(&holder(who), &hold_id(id), now);
        self.settle(decision, now)
    }

    pub fn release(&mut self, who: &str, id: &str, now: ServerMillis) -> Result<Decision, Rejection> {
        let decision = self.state.decide_release(&holder(who), &hold_id(id), now);
        self.settle(decision, now)
    }

    /// Runs the sweep as the server would at `now`.
    pub fn sweep(&mut self, now: ServerMillis) -> usize {
        let due = self.state.expired_holds(now, usize::MAX);
        for (id, deadline) in &due {
            let decision = self.state.decide_expiry(id, *deadline, now);
            assert!(matches!(decision, Decision::Apply(Change::Expired { .. })), "{decision:?}");
            self.settle(Ok(decision), now).expect("expiry is never refused");
        }
        due.len()
    }

    /// The status of a hold at `now`, as the wire says it.
    pub fn status(&self, id: &str, now: ServerMillis) -> &'static str {
        self.state.hold(&hold_id(id)).expect("known hold").status_at(now).as_str()
    }
}
