//! The show writers through the core's own API, with no HTTP in between: a
//! real SQLite file, the test clock, the expiry sweep and a restart.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use seat_state::wire::{HoldOrder, ShowInput};
use seat_state::{Admission, HoldId, HolderId, Rejection, SeatScope, ServerMillis, Show};
use seathold_core::clock::{Clock, TestClock};
use seathold_core::engine::{Action, EngineError, Engines, ShowHandle};
use seathold_core::metrics::Metrics;
use seathold_core::services::Core;
use seathold_core::store::{CreateShow, SqliteStore, Store};

const T0: ServerMillis = ServerMillis(1_764_460_000_000);
const SHOW: &str = "engine-hall";
/// The show's hold window.
const HOLD_MS: i64 = 600_000;

fn hall() -> Show {
    let input: ShowInput = serde_json::from_value(serde_json::json!({
        "id": SHOW, "name": "Engine hall",
        "seats": (1..=6).map(|n| serde_json::json!({"id": format!("A{n}"), "x": n * 30, "y": 0})).collect::<Vec<_>>(),
        "areas": [],
        "holdSeconds": HOLD_MS / 1000,
    }))
    .expect("the show's input");
    Show::parse(&input).expect("a valid show")
}

/// A store on a new SQLite file with the hall in it, and its writers.
struct Hall {
    _dir: tempfile::TempDir,
    store: Arc<dyn Store>,
    clock: TestClock,
}

impl Hall {
    async fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("engine.db");
        let store: Arc<dyn Store> = Arc::new(SqliteStore::open(&path).await.unwrap());
        store.create_show(&hall(), T0).await.unwrap();
        Self { _dir: dir, store, clock: TestClock::at(T0) }
    }

    /// The writers of a process over the store.
    fn engines(&self) -> Arc<Engines> {
        Arc::new(Engines::new(Arc::clone(&self.store), Arc::new(Metrics::default()), self.clock.shared()))
    }
}

async fn show(engines: &Engines) -> ShowHandle {
    engines.show(SHOW).await.unwrap().expect("the hall is known")
}

fn order(hold_id: &str, seats: &[&str]) -> HoldOrder {
    serde_json::from_value(serde_json::json!({"holdId": hold_id, "seats": seats})).unwrap()
}

fn holder(name: &str) -> HolderId {
    HolderId::new(name)
}

/// Each seat's state at the writer's instant: `free`, `held` or `sold`.
async fn states(show: &ShowHandle, now: ServerMillis) -> Vec<(String, &'static str)> {
    let map = show.seat_map(SeatScope::Every, None, now).await.unwrap().value;
    map.seats
        .into_iter()
        .map(|seat| {
            let state = match (seat.sold, seat.hold_expires_at) {
                (true, _) => "sold",
                (false, Some(deadline)) if deadline > map.server_time => "held",
                _ => "free",
            };
            (seat.id, state)
        })
        .collect()
}

fn state_of<'a>(states: &'a [(String, &'static str)], seat: &str) -> &'a str {
    states.iter().find(|(id, _)| id == seat).map(|(_, state)| *state).expect("a seat of the hall")
}

#[tokio::test]
async fn a_seat_goes_to_one_holder_and_a_retry_answers_the_same_hold() {
    let hall = Hall::new().await;
    let engines = hall.engines();
    let show = show(&engines).await;
    let (ann, bob) = (holder("ann00001"), holder("bob00001"));

    let first = show.create_hold(ann.clone(), order("hold-ann-1", &["A1", "A2"]), Admission::Open).await.unwrap();
    assert!(first.value.created);
    assert_eq!(first.value.hold.status, "HELD");
    assert_eq!(first.value.hold.expires_at, T0.0 + HOLD_MS);

    // Another holder asking for one of those seats is refused, naming it.
    let refused = show.create_hold(bob.clone(), order("hold-bob-1", &["A2", "A3"]), Admission::Open).await;
    match refused {
        Err(EngineError::Rejected { rejection: Rejection::SeatsTaken { seats }, .. }) => assert_eq!(seats, ["A2"]),
        other => panic!("expected the seats-taken refusal, got {other:?}"),
    }

    // The same request again (a retry after a lost answer) takes nothing more.
    let retry = show.create_hold(ann.clone(), order("hold-ann-1", &["A1", "A2"]), Admission::Open).await.unwrap();
    assert!(!retry.value.created, "a retry made a second hold");
    let mut expected = first.value.hold.clone();
    expected.server_time = retry.value.hold.server_time;
    assert_eq!(retry.value.hold, expected);
    // The same id with other seats is a mismatch, not a new hold.
    let mismatch = show.create_hold(ann.clone(), order("hold-ann-1", &["A5"]), Admission::Open).await;
    assert!(matches!(mismatch, Err(EngineError::Rejected { rejection: Rejection::IdempotencyMismatch, .. })));

    let now = show.version().await.unwrap().at;
    let seen = states(&show, now).await;
    assert_eq!(
        seen.iter().map(|(_, state)| *state).collect::<Vec<_>>(),
        ["held", "held", "free", "free", "free", "free"]
    );
    assert_eq!(show.version().await.unwrap().value, 1, "one change: the refused and replayed writes changed nothing");
}

#[tokio::test]
async fn an_unconfirmed_hold_expires_through_the_sweep_and_a_late_expiry_never_undoes_a_sale() {
    let hall = Hall::new().await;
    let engines = hall.engines();
    let show = show(&engines).await;
    let (ann, bob) = (holder("ann00001"), holder("bob00001"));
    let kept = show.create_hold(ann.clone(), order("hold-ann-1", &["A1"]), Admission::Open).await.unwrap();
    show.create_hold(bob.clone(), order("hold-bob-1", &["A2"]), Admission::Open).await.unwrap();

    // Ann pays in time; Bob does not.
    hall.clock.advance(HOLD_MS - 1);
    let confirmed = show.act(Action::Confirm, ann.clone(), HoldId::parse(&kept.value.hold.hold_id).unwrap()).await;
    assert_eq!(confirmed.unwrap().value.hold.status, "CONFIRMED");

    // Both deadlines pass; the sweep runs every due outbox entry.
    hall.clock.advance(1_000);
    let handled = seathold_core::sweep::round(hall.store.as_ref(), &engines, &hall.clock).await.unwrap();
    assert_eq!(handled, 2, "both holds had an expiry due");
    let seen = states(&show, hall.clock.now()).await;
    assert_eq!(state_of(&seen, "A1"), "sold", "the sweep undid a sale");
    assert_eq!(state_of(&seen, "A2"), "free", "the expired hold kept its seat");

    // The seat is free for someone else, and nothing is due any more.
    let again = show.create_hold(ann.clone(), order("hold-ann-2", &["A2"]), Admission::Open).await.unwrap();
    assert!(again.value.created);
    assert_eq!(seathold_core::sweep::round(hall.store.as_ref(), &engines, &hall.clock).await.unwrap(), 0);
}

/// One process's life on `path`: a runtime of its own, dropped at the end
/// with every task and connection in it, as a process that stops.
fn process<T: Send + 'static>(
    path: &std::path::Path,
    clock: &TestClock,
    life: impl AsyncFnOnce(ShowHandle) -> T + Send + 'static,
) -> T {
    let (path, clock) = (path.to_owned(), clock.clone());
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime.block_on(async move {
            let store: Arc<dyn Store> = Arc::new(SqliteStore::open(&path).await.unwrap());
            let engines = Arc::new(Engines::new(store, Arc::new(Metrics::default()), clock.shared()));
            life(show(&engines).await).await
        })
    })
    .join()
    .expect("the process panicked")
}

#[test]
fn a_restarted_process_decides_from_what_was_committed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("engine.db");
    let clock = TestClock::at(T0);
    let created = tokio::runtime::Runtime::new()
        .unwrap()
        .block_on(async { SqliteStore::open(&path).await.unwrap().create_show(&hall(), T0).await.unwrap() });
    assert_eq!(created, CreateShow::Created);
    let now = clock.now();
    let before = process(&path, &clock, async move |show| {
        let (ann, bob) = (holder("ann00001"), holder("bob00001"));
        let hold = show.create_hold(ann.clone(), order("hold-ann-1", &["A3"]), Admission::Open).await.unwrap();
        show.act(Action::Confirm, ann, HoldId::parse(&hold.value.hold.hold_id).unwrap()).await.unwrap();
        show.create_hold(bob, order("hold-bob-1", &["A4"]), Admission::Open).await.unwrap();
        states(&show, now).await
    });

    // A new process on the same file: the first one's memory is gone.
    process(&path, &clock, async move |show| {
        assert_eq!(states(&show, now).await, before);
        assert_eq!(show.version().await.unwrap().value, 3);
        let taken = show.create_hold(holder("ann00001"), order("hold-ann-2", &["A3", "A4"]), Admission::Open).await;
        match taken {
            Err(EngineError::Rejected { rejection: Rejection::SeatsTaken { seats }, .. }) => {
                assert_eq!(seats, ["A3", "A4"]);
            }
            other => panic!("expected both seats taken after the restart, got {other:?}"),
        }
        let retry = show.create_hold(holder("bob00001"), order("hold-bob-1", &["A4"]), Admission::Open).await;
        assert!(!retry.unwrap().value.created, "a retry after the restart made a second hold");
    });
}

#[tokio::test]
async fn the_operator_lists_the_active_holds_oldest_first_at_the_writers_instant() {
    let hall = Hall::new().await;
    let engines = hall.engines();
    let show = show(&engines).await;
    let core = Core::new(
        Arc::clone(&hall.store),
        Arc::clone(&engines),
        Arc::new(seathold_core::randomness::OsRandomness),
        3_600_000,
    );
    let names = ["ann00001", "bob00001", "cat00001"];
    for (n, name) in names.iter().enumerate() {
        let seat = format!("A{}", n + 1);
        let hold_id = format!("hold-{name}");
        show.create_hold(holder(name), order(&hold_id, &[seat.as_str()]), Admission::Open).await.unwrap();
        hall.clock.advance(1_000);
    }
    show.act(Action::Release, holder("bob00001"), HoldId::parse("hold-bob00001").unwrap()).await.unwrap();

    let list = core.operator.holds(SHOW, hall.clock.now()).await.unwrap().expect("a known show");
    let listed: Vec<(&str, &str)> =
        list.holds.iter().map(|hold| (hold.hold_id.as_str(), hold.holder.as_str())).collect();
    assert_eq!(listed, [("hold-ann00001", "ann00001"), ("hold-cat00001", "cat00001")]);
    assert_eq!(list.server_time, hall.clock.now().0);

    // Once Ann's deadline has passed it is no longer active, swept or not.
    hall.clock.set(ServerMillis(T0.0 + HOLD_MS + 500));
    let list = core.operator.holds(SHOW, hall.clock.now()).await.unwrap().expect("a known show");
    assert_eq!(list.holds.iter().map(|hold| hold.hold_id.as_str()).collect::<Vec<_>>(), ["hold-cat00001"]);
    assert!(core.operator.holds("no-such-show", hall.clock.now()).await.unwrap().is_none());
}
