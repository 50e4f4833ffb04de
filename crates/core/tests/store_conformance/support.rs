//! Shows, decisions and what a store has written.

use super::*;

/// A row of `seats` seats `A1…An` and a `floor` area of `capacity` places.
pub(crate) fn venue(id: &str, name: &str, seats: usize, capacity: u32) -> Show {
    let seats: Vec<Value> = (1..=seats).map(|n| json!({"id": format!("A{n}"), "x": 30 * n, "y": 0})).collect();
    let input: ShowInput = serde_json::from_value(json!({
        "id": id, "name": name, "holdSeconds": 60, "extensionSeconds": 60, "maxExtensions": 2,
        "maxActiveHoldsPerHolder": 10,
        "seats": seats,
        "areas": [{"id": "floor", "name": "Floor", "capacity": capacity}]
    }))
    .unwrap();
    Show::parse(&input).unwrap()
}

/// The show most cases use: seats A1, A2, A3 and a floor of 2.
pub(crate) fn show() -> Show {
    venue("conf", "Conformance", 3, 2)
}

pub(crate) fn second_show() -> Show {
    venue("conf-two", "Conformance two", 3, 2)
}

pub(crate) fn id(hold: &str) -> HoldId {
    HoldId::parse(hold).unwrap()
}

/// Decides a hold request with seat-state; the transition to commit, or why not.
pub(crate) fn attempt(
    state: &mut ShowState,
    holder: &str,
    body: Value,
    hold: &str,
    now: ServerMillis,
) -> Result<Transition, Rejection> {
    let body: HoldRequestBody = serde_json::from_value(body).unwrap();
    let holder = HolderId::new(holder);
    let request = state.parse_request(&body, id(hold))?;
    match state.decide_create(&holder, &request, now)? {
        Decision::Apply(change) => Ok(staged(state, change, holder, now)),
        other => panic!("expected a new hold, got {other:?}"),
    }
}

/// Decides a hold request that must be accepted.
pub(crate) fn decide(state: &mut ShowState, holder: &str, body: Value, hold: &str, now: ServerMillis) -> Transition {
    attempt(state, holder, body, hold, now).unwrap()
}

/// Applies a decided change to the writer's state: the transition to commit.
pub(crate) fn staged(state: &mut ShowState, change: Change, holder: HolderId, now: ServerMillis) -> Transition {
    state.apply(&change);
    Transition { change, holder, at: now, version: state.version() }
}

/// Decides a change of an existing hold that must be accepted.
pub(crate) fn act(
    state: &mut ShowState,
    holder: &str,
    decision: Result<Decision, Rejection>,
    now: ServerMillis,
) -> Transition {
    let Decision::Apply(change) = decision.unwrap() else { panic!("expected a change") };
    staged(state, change, HolderId::new(holder), now)
}

pub(crate) async fn commit(store: &dyn Store, show_id: &str, transitions: &[Transition]) -> Result<(), CommitError> {
    store.commit(show_id, transitions.to_vec().into()).await
}

/// A writer at the stored state of a show, as after a (re)start: the
/// store's load replayed as the engine replays it.
pub(crate) async fn writer(store: &dyn Store, show: &Show) -> ShowState {
    let loaded = store.load_holds(show.id.as_str()).await.unwrap();
    loaded.replay(ShowState::new(show.clone())).unwrap()
}

/// The holds a writer loads for a stored show, oldest first.
pub(crate) async fn loaded_holds(store: &dyn Store, show_id: &str) -> Vec<Hold> {
    let show = store.show(show_id).await.unwrap().expect("the show is stored");
    writer(store, &show).await.holds().cloned().collect()
}

/// Applies entries another process committed, as a writer catching up does.
pub(crate) fn apply_missed(state: &mut ShowState, entries: &[Transition]) {
    for entry in entries {
        state.apply_next(entry.version, &entry.change).unwrap();
    }
}

/// What a show has stored, to check that a refused commit wrote nothing.
#[derive(Debug, PartialEq)]
pub(crate) struct Stored {
    version: i64,
    holds: Vec<Hold>,
    latest_at: Option<ServerMillis>,
    journal: Vec<Transition>,
}

impl Stored {
    pub(crate) async fn read(store: &dyn Store, show_id: &str) -> Self {
        let loaded = store.load_holds(show_id).await.unwrap();
        let journal = store.journal(show_id, 0).await.unwrap();
        let holds = loaded_holds(store, show_id).await;
        Self { version: loaded.version, holds, latest_at: loaded.latest_at, journal }
    }
}

/// Nothing of a refused batch is stored: the show is as before, its hold
/// ids name no show and its holders have no holds.
pub(crate) async fn assert_nothing_written(
    store: &dyn Store,
    show_id: &str,
    before: &Stored,
    holds: &[&str],
    holders: &[&str],
) {
    assert_eq!(&Stored::read(store, show_id).await, before, "the show is as it was");
    for hold in holds {
        assert_eq!(store.hold_show(&id(hold)).await.unwrap(), None, "hold id {hold} was not claimed");
    }
    for holder in holders {
        assert_eq!(store.holder_holds(&HolderId::new(*holder)).await.unwrap(), vec![], "{holder} has no holds");
    }
}

/// The outbox entries due at `at` (an instant no earlier call used: a
/// shared store's sweep claims what it returns for a while), by hold id.
pub(crate) async fn due_holds(store: &dyn Store, at: ServerMillis) -> Vec<String> {
    store.due_expiries(at, 100).await.unwrap().iter().map(|due| due.hold_id.to_string()).collect()
}

pub(crate) fn created(result: anyhow::Result<CreateShow>) {
    assert_eq!(result.unwrap(), CreateShow::Created);
}

pub(crate) fn none() -> Arc<[Transition]> {
    Vec::new().into()
}

/// Fails naming the conflict when what the store keeps at `now` has a seat
/// in two live holds (held or confirmed) or an area over its capacity: the
/// reason a stale batch must be refused, checked before how it was.
pub(crate) async fn assert_not_oversold(store: &dyn Store, show: &Show, now: ServerMillis) {
    let holds = loaded_holds(store, show.id.as_str()).await;
    let live: Vec<&Hold> =
        holds.iter().filter(|hold| matches!(hold.status_at(now), HoldStatus::Held | HoldStatus::Confirmed)).collect();
    let mut seen = std::collections::HashMap::new();
    for hold in &live {
        for seat in &hold.seats {
            if let Some(first) = seen.insert(seat.clone(), hold.id.clone()) {
                panic!("seat {seat} is in two live holds: {first} and {}", hold.id);
            }
        }
    }
    for area in &show.areas {
        let taken: u32 = live
            .iter()
            .flat_map(|hold| &hold.areas)
            .filter(|(id, _)| *id == area.id)
            .map(|(_, places)| places.get())
            .sum();
        assert!(taken <= area.capacity, "area {} holds {taken} places over its capacity {}", area.id, area.capacity);
    }
}
