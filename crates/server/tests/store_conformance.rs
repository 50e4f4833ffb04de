//! One suite every `Store` must pass. Each engine adds one `#[tokio::test]`
//! that opens a fresh store and hands it to `conformance`.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use seat_state::wire::{HoldRequestBody, ShowInput};
use seat_state::{Change, Decision, HoldId, HolderId, ServerMillis, Show, ShowState};
use seathold_server::store::{CommitError, CreateShow, MemoryStore, PostgresStore, SqliteStore, Store, Transition};

mod postgres;

const T0: ServerMillis = ServerMillis(1_800_000_000_000);

fn show() -> Show {
    let input: ShowInput = serde_json::from_value(serde_json::json!({
        "id": "conf", "name": "Conformance", "holdSeconds": 60, "maxActiveHoldsPerHolder": 10,
        "seats": [{"id": "A1", "x": 0, "y": 0}, {"id": "A2", "x": 30, "y": 0}],
        "areas": [{"id": "floor", "name": "Floor", "capacity": 2}]
    }))
    .unwrap();
    Show::parse(&input).unwrap()
}

/// Decides a request with seat-state and returns the transition to commit.
fn decide(state: &mut ShowState, holder: &str, body: serde_json::Value, id: &str, now: ServerMillis) -> Transition {
    let body: HoldRequestBody = serde_json::from_value(body).unwrap();
    let holder = HolderId::new(holder);
    let request = state.parse_request(&body, HoldId::parse(id).unwrap()).unwrap();
    let Decision::Apply(change) = state.decide_create(&holder, &request, now).unwrap() else { panic!("a new hold") };
    staged(state, change, holder, now)
}

fn staged(state: &mut ShowState, change: Change, holder: HolderId, now: ServerMillis) -> Transition {
    state.apply(&change);
    Transition { change, holder, at: now, version: state.version() }
}

async fn conformance(store: Arc<dyn Store>) {
    store.ping().await.unwrap();
    let show = show();
    assert_eq!(store.create_show(&show, T0).await.unwrap(), CreateShow::Created);
    assert_eq!(store.create_show(&show, T0).await.unwrap(), CreateShow::AlreadyThere);
    let mut other = show.clone();
    other.name = "Other".into();
    assert_eq!(store.create_show(&other, T0).await.unwrap(), CreateShow::Conflict);
    assert_eq!(store.show("conf").await.unwrap(), Some(show.clone()));
    assert_eq!(store.list_shows().await.unwrap().len(), 1);

    store.create_session("hash-1", "h-1", T0).await.unwrap();
    assert_eq!(store.session_holder("hash-1").await.unwrap().as_deref(), Some("h-1"));
    assert_eq!(store.session_holder("hash-2").await.unwrap(), None);

    // A hold is written with its event, audit and outbox entry.
    let mut state = ShowState::new(show.clone());
    let first = decide(&mut state, "h-1", serde_json::json!({"seats": ["A1"], "areas": {"floor": 1}}), "hold-one", T0);
    store.commit("conf", vec![first.clone()].into()).await.unwrap();
    let loaded = store.load_holds("conf").await.unwrap();
    assert_eq!((loaded.version, loaded.holds.len(), loaded.latest_at), (1, 1, Some(T0)));
    assert_eq!(loaded.holds[0].seats[0].as_str(), "A1");
    assert_eq!(loaded.holds[0].created_version, 1);

    // A decision made on stale state (A1 already held) is refused as a whole.
    let mut stale_state = ShowState::new(show.clone());
    let conflicting = decide(&mut stale_state, "h-2", serde_json::json!({"seats": ["A2", "A1"]}), "hold-two", T0);
    assert!(matches!(store.commit("conf", vec![conflicting].into()).await, Err(CommitError::Stale(_))));
    assert_eq!(store.load_holds("conf").await.unwrap().holds.len(), 1, "nothing of it was written");

    // An area cannot go over capacity either.
    let mut stale_state = ShowState::new(show.clone());
    let too_many = decide(&mut stale_state, "h-2", serde_json::json!({"areas": {"floor": 2}}), "hold-three", T0);
    assert!(matches!(store.commit("conf", vec![too_many].into()).await, Err(CommitError::Stale(_))));

    // Once the deadline passed, the seat can be taken again, and the outbox names the due expiry.
    let later = T0.plus_millis(61_000);
    let retake = decide(&mut state, "h-2", serde_json::json!({"seats": ["A1"]}), "hold-four", later);
    store.commit("conf", vec![retake].into()).await.unwrap();
    let due = store.due_expiries(later, 10).await.unwrap();
    assert_eq!(due.len(), 1);
    assert_eq!((due[0].hold_id.as_str(), due[0].deadline), ("hold-one", T0.plus_millis(60_000)));

    // A decision from a state that missed a change (wrong version) is refused.
    let wrong = Change::Expired { hold: HoldId::parse("hold-one").unwrap(), deadline: T0 };
    let mut behind = ShowState::new(show.clone());
    behind.set_version(1);
    let wrong = staged(&mut behind, wrong, HolderId::new("h-1"), later);
    assert!(matches!(store.commit("conf", vec![wrong].into()).await, Err(CommitError::Stale(_))));

    // The due expiry is recorded; its entry is then finished and no longer due.
    let Decision::Apply(expiry) = state.decide_expiry(&due[0].hold_id, due[0].deadline, later) else { panic!("due") };
    let expiry = staged(&mut state, expiry, HolderId::new("h-1"), later);
    store.commit("conf", vec![expiry].into()).await.unwrap();
    store.finish_expiries(vec![due[0].seq], later).await.unwrap();
    assert!(store.due_expiries(later, 10).await.unwrap().is_empty());

    // Rebuilt from storage, the holds are exactly the ones decided in memory,
    // and the latest instant is the latest decided (the floor after a restart).
    let loaded = store.load_holds("conf").await.unwrap();
    assert_eq!((loaded.version, loaded.latest_at), (state.version(), Some(later)));
    let holds = loaded.holds;
    let by_id = |holds: &mut Vec<seat_state::Hold>| holds.sort_by(|a, b| a.id.cmp(&b.id));
    let mut rebuilt = holds;
    let mut expected: Vec<_> = state.holds().cloned().collect();
    by_id(&mut rebuilt);
    by_id(&mut expected);
    assert_eq!(rebuilt, expected);
    let first = rebuilt.iter().find(|h| h.id.as_str() == "hold-one").unwrap();
    assert_eq!(first.stored_status, seat_state::HoldStatus::Expired);

    // A hold id is global: another show cannot take one, and nothing of that batch is written.
    let mut second = show.clone();
    second.id = seat_state::ShowId::parse("conf-two").unwrap();
    store.create_show(&second, T0).await.unwrap();
    let mut other_state = ShowState::new(second);
    let fresh = decide(&mut other_state, "h-3", serde_json::json!({"seats": ["A2"]}), "hold-fresh", later);
    let reused = decide(&mut other_state, "h-3", serde_json::json!({"seats": ["A1"]}), "hold-one", later);
    let taken = store.commit("conf-two", vec![fresh, reused].into()).await;
    assert!(matches!(&taken, Err(CommitError::HoldIdTaken(id)) if id.as_str() == "hold-one"), "{taken:?}");
    assert_eq!(store.load_holds("conf-two").await.unwrap().version, 0);
}

#[tokio::test]
async fn memory_store_conforms() {
    conformance(Arc::new(MemoryStore::default())).await;
}

/// A storage failure inside the batch (here a trigger standing in for a full
/// disk) is a failure, never `Stale`: retrying on fresh state cannot fix it.
#[tokio::test]
async fn a_failing_journal_write_is_a_failure_not_a_stale_version() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("failing.db");
    let store = SqliteStore::open(&path).await.unwrap();
    let show = show();
    store.create_show(&show, T0).await.unwrap();
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute_batch("CREATE TRIGGER full BEFORE INSERT ON journal BEGIN SELECT RAISE(ABORT, 'disk is full'); END;")
        .unwrap();
    let mut state = ShowState::new(show);
    let hold = decide(&mut state, "h-1", serde_json::json!({"seats": ["A1"]}), "hold-one", T0);
    let result = store.commit("conf", vec![hold].into()).await;
    assert!(matches!(result, Err(CommitError::Failed(_))), "{result:?}");
    assert_eq!(store.load_holds("conf").await.unwrap().version, 0);
}

#[tokio::test]
async fn sqlite_store_conforms() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(dir.path().join("conformance.db")).await.unwrap();
    conformance(Arc::new(store)).await;
}

#[tokio::test]
async fn postgres_store_conforms() {
    let store = PostgresStore::open(&postgres::fresh_database().await).await.unwrap();
    conformance(Arc::new(store)).await;
}
