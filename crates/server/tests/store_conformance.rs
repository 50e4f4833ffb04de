//! One suite every `Store` must pass, case by case: `conformance_cases!`
//! makes each case its own test for each store, so a failure names both
//! (`postgres_store::a_stale_commit_for_a_held_seat_is_refused_whole`).
//! Every case starts from a fresh, empty store: in memory, in memory shared
//! the way the simulator shares it between "processes", a SQLite file in a
//! temporary folder, or a new database on the PostgreSQL that
//! `SEATHOLD_TEST_POSTGRES` names.
//!
//! Transitions are decided with `seat_state::ShowState`, as a show's writer
//! decides them. `two_process_cases!` runs the cases of two processes on one
//! shared store (two `PostgresStore`s on one database; two clones of a
//! `SharedMemoryStore`) racing for one show. The sweeps' outbox claims are
//! PostgreSQL's alone (`postgres_only`); a storage failure needs SQLite's
//! own tooling (`sqlite_store_only`).

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::time::timeout;

use seat_state::wire::{HoldRequestBody, ShowInput};
use seat_state::{Change, Decision, Hold, HoldId, HoldStatus, HolderId, Rejection, ServerMillis, Show, ShowState};
use seathold_server::clock::SystemClock;
use seathold_server::store::{
    CommitError, CreateShow, DueExpiry, JournalAction, JournalEntry, MemoryStore, PostgresStore, SharedMemoryStore,
    SqliteStore, Store, Transition,
};

mod postgres;

const T0: ServerMillis = ServerMillis(1_800_000_000_000);
const SECOND: i64 = 1_000;
const HOUR: i64 = 3_600_000;
/// How long a batch that could open has surely opened.
const BLOCKED: Duration = Duration::from_millis(500);
/// How long anything that should happen may take on a loaded machine.
const PATIENCE: Duration = Duration::from_secs(30);

// ---------------------------------------------------------------------------
// The harness: every case, for every store.

/// A fresh, empty store of one kind.
struct Fixture {
    store: Arc<dyn Store>,
    /// Whether several processes share the store: its batches lock the show,
    /// decide at its clock and return what others committed.
    shared: bool,
    /// The SQLite file's folder, removed at the end.
    _dir: Option<tempfile::TempDir>,
}

async fn open_memory() -> Fixture {
    Fixture { store: Arc::new(MemoryStore::default()), shared: false, _dir: None }
}

async fn open_sqlite() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(dir.path().join("conformance.db")).await.unwrap();
    Fixture { store: Arc::new(store), shared: false, _dir: Some(dir) }
}

async fn open_shared_memory() -> Fixture {
    Fixture { store: Arc::new(SharedMemoryStore::new(SystemClock::shared())), shared: true, _dir: None }
}

async fn open_postgres() -> Fixture {
    let store = PostgresStore::open(&postgres::fresh_database().await).await.unwrap();
    Fixture { store: Arc::new(store), shared: true, _dir: None }
}

/// A module per store, a test per case: `$store::$case`.
macro_rules! conformance_cases {
    ($store:ident, $open:ident) => {
        mod $store {
            conformance_cases!(@cases $open;
                creating_a_show_is_created_then_already_there_then_a_conflict,
                shows_are_listed_oldest_first_and_read_back,
                a_session_finds_its_holder,
                a_commit_is_loaded_back_with_its_version_holds_and_latest_instant,
                a_stale_commit_for_a_held_seat_is_refused_whole,
                a_stale_commit_over_an_area_capacity_is_refused_whole,
                a_commit_at_a_wrong_version_is_refused_whole,
                due_outbox_entries_come_oldest_first_until_finished,
                the_journal_after_a_version_is_exactly_the_later_entries_in_order,
                holds_are_found_by_id_and_by_holder_newest_first_across_shows,
                a_hold_id_taken_by_another_show_refuses_the_whole_batch,
                a_batch_at_an_old_version_returns_what_others_committed,
                a_batch_decides_at_the_store_clock_never_below_the_latest_instant,
                a_batch_dropped_without_commit_writes_nothing_and_frees_the_show,
                a_batch_whose_commit_is_refused_writes_nothing_and_frees_the_show,
            );
        }
    };
    (@cases $open:ident; $($case:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $case() {
                super::$case(super::$open().await).await;
            }
        )*
    };
}

conformance_cases!(memory_store, open_memory);
conformance_cases!(sqlite_store, open_sqlite);
conformance_cases!(shared_memory_store, open_shared_memory);
conformance_cases!(postgres_store, open_postgres);

// ---------------------------------------------------------------------------
// Shows, decisions and what was written.

/// A row of `seats` seats `A1…An` and a `floor` area of `capacity` places.
fn venue(id: &str, name: &str, seats: usize, capacity: u32) -> Show {
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
fn show() -> Show {
    venue("conf", "Conformance", 3, 2)
}

fn second_show() -> Show {
    venue("conf-two", "Conformance two", 3, 2)
}

fn id(hold: &str) -> HoldId {
    HoldId::parse(hold).unwrap()
}

/// Decides a hold request with seat-state; the transition to commit, or why not.
fn attempt(
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
fn decide(state: &mut ShowState, holder: &str, body: Value, hold: &str, now: ServerMillis) -> Transition {
    attempt(state, holder, body, hold, now).unwrap()
}

/// Applies a decided change to the writer's state: the transition to commit.
fn staged(state: &mut ShowState, change: Change, holder: HolderId, now: ServerMillis) -> Transition {
    state.apply(&change);
    Transition { change, holder, at: now, version: state.version() }
}

/// Decides a change of an existing hold that must be accepted.
fn act(state: &mut ShowState, holder: &str, decision: Result<Decision, Rejection>, now: ServerMillis) -> Transition {
    let Decision::Apply(change) = decision.unwrap() else { panic!("expected a change") };
    staged(state, change, HolderId::new(holder), now)
}

async fn commit(store: &dyn Store, show_id: &str, transitions: &[Transition]) -> Result<(), CommitError> {
    store.commit(show_id, transitions.to_vec().into()).await
}

/// A writer at the stored state of a show, as after a (re)start.
async fn writer(store: &dyn Store, show: &Show) -> ShowState {
    let loaded = store.load_holds(show.id.as_str()).await.unwrap();
    let mut state = ShowState::new(show.clone());
    for hold in loaded.holds {
        state.restore(hold);
    }
    state.set_version(loaded.version);
    state
}

/// Applies entries another process committed, as a writer catching up does.
fn apply_missed(state: &mut ShowState, entries: &[JournalEntry]) {
    for entry in entries {
        assert_eq!(entry.version, state.version() + 1, "missed entries follow the writer's version, in order");
        let stored = state.hold(&entry.hold_id).cloned();
        let known = || stored.clone().expect("a missed entry names a known hold");
        let hold = entry.hold_id.clone();
        let change = match &entry.action {
            JournalAction::Created { seats, areas, expires_at } => Change::Created {
                hold: Hold {
                    id: hold,
                    holder: entry.holder.clone(),
                    seats: seats.clone(),
                    areas: areas.clone(),
                    created_at: entry.at,
                    created_version: entry.version,
                    expires_at: *expires_at,
                    extensions: 0,
                    stored_status: HoldStatus::Held,
                    late: false,
                },
            },
            JournalAction::Extended { expires_at, extensions } => {
                Change::Extended { hold, from: known().expires_at, to: *expires_at, extensions: *extensions }
            }
            JournalAction::Confirmed { late } => Change::Confirmed { hold, deadline: known().expires_at, late: *late },
            JournalAction::Released => Change::Released { hold, previous: known().stored_status },
            JournalAction::Expired => Change::Expired { hold, deadline: known().expires_at },
        };
        state.apply(&change);
        assert_eq!(state.version(), entry.version, "missed entry {} applies", entry.version);
    }
}

fn entries(transitions: &[Transition]) -> Vec<JournalEntry> {
    transitions.iter().map(JournalEntry::from).collect()
}

/// What a show has stored, to check that a refused commit wrote nothing.
#[derive(Debug, PartialEq)]
struct Stored {
    version: i64,
    holds: Vec<Hold>,
    latest_at: Option<ServerMillis>,
    journal: Vec<JournalEntry>,
}

impl Stored {
    async fn read(store: &dyn Store, show_id: &str) -> Self {
        let loaded = store.load_holds(show_id).await.unwrap();
        let journal = store.journal(show_id, 0).await.unwrap();
        Self { version: loaded.version, holds: loaded.holds, latest_at: loaded.latest_at, journal }
    }
}

/// Nothing of a refused batch is stored: the show is as before, its hold
/// ids name no show and its holders have no holds.
async fn assert_nothing_written(store: &dyn Store, show_id: &str, before: &Stored, holds: &[&str], holders: &[&str]) {
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
async fn due_holds(store: &dyn Store, at: ServerMillis) -> Vec<String> {
    store.due_expiries(at, 100).await.unwrap().iter().map(|due| due.hold_id.to_string()).collect()
}

fn created(result: anyhow::Result<CreateShow>) {
    assert_eq!(result.unwrap(), CreateShow::Created);
}

fn none() -> Arc<[Transition]> {
    Vec::new().into()
}

// ---------------------------------------------------------------------------
// The cases.

/// Creating a show: new, the very same again, a different one under its id.
async fn creating_a_show_is_created_then_already_there_then_a_conflict(f: Fixture) {
    let store = &*f.store;
    store.ping().await.unwrap();
    let show = show();
    created(store.create_show(&show, T0).await);
    assert_eq!(store.create_show(&show, T0.plus_millis(SECOND)).await.unwrap(), CreateShow::AlreadyThere);
    let mut renamed = show.clone();
    renamed.name = "Other".into();
    assert_eq!(store.create_show(&renamed, T0).await.unwrap(), CreateShow::Conflict);
    let other_seats = venue("conf", "Conformance", 2, 2);
    assert_eq!(store.create_show(&other_seats, T0).await.unwrap(), CreateShow::Conflict);
    assert_eq!(store.show("conf").await.unwrap(), Some(show), "the first definition stays");
    assert_eq!(store.list_shows().await.unwrap().len(), 1);
    assert_eq!(store.load_holds("conf").await.unwrap().version, 0);
}

/// Every show is listed, oldest first (then by id), and read back whole.
async fn shows_are_listed_oldest_first_and_read_back(f: Fixture) {
    let store = &*f.store;
    assert!(store.list_shows().await.unwrap().is_empty());
    assert_eq!(store.show("conf").await.unwrap(), None);
    let late = venue("b-late", "Late", 3, 2);
    let early = venue("z-early", "Early", 2, 5);
    let tied = venue("a-tied", "Tied", 1, 7);
    created(store.create_show(&late, T0.plus_millis(SECOND)).await);
    created(store.create_show(&early, T0).await);
    created(store.create_show(&tied, T0.plus_millis(SECOND)).await);
    let listed: Vec<_> = store
        .list_shows()
        .await
        .unwrap()
        .into_iter()
        .map(|summary| (summary.id, summary.name, summary.seat_count, summary.area_count))
        .collect();
    let expected = [("z-early", "Early", 2, 1), ("a-tied", "Tied", 1, 1), ("b-late", "Late", 3, 1)]
        .map(|(id, name, seats, areas)| (id.to_owned(), name.to_owned(), seats, areas));
    assert_eq!(listed, expected);
    for show in [late, early, tied] {
        assert_eq!(store.show(show.id.as_str()).await.unwrap(), Some(show));
    }
    assert_eq!(store.show("missing").await.unwrap(), None);
}

/// A session's token hash finds its holder; an unknown one finds none.
async fn a_session_finds_its_holder(f: Fixture) {
    let store = &*f.store;
    store.create_session("hash-1", "h-1", T0).await.unwrap();
    store.create_session("hash-2", "h-2", T0.plus_millis(SECOND)).await.unwrap();
    assert_eq!(store.session_holder("hash-1").await.unwrap().as_deref(), Some("h-1"));
    assert_eq!(store.session_holder("hash-2").await.unwrap().as_deref(), Some("h-2"));
    assert_eq!(store.session_holder("hash-3").await.unwrap(), None);
}

/// A committed hold is loaded back as decided, with the show's version, the
/// version it was created at and the latest decision instant.
async fn a_commit_is_loaded_back_with_its_version_holds_and_latest_instant(f: Fixture) {
    let store = &*f.store;
    let show = show();
    created(store.create_show(&show, T0).await);
    let empty = store.load_holds("conf").await.unwrap();
    assert_eq!((empty.version, empty.holds.len(), empty.latest_at), (0, 0, None));

    let mut state = ShowState::new(show.clone());
    let first = decide(&mut state, "h-1", json!({"seats": ["A1"], "areas": {"floor": 1}}), "hold-one", T0);
    commit(store, "conf", &[first]).await.unwrap();
    let loaded = store.load_holds("conf").await.unwrap();
    assert_eq!((loaded.version, loaded.latest_at), (1, Some(T0)));
    assert_eq!(loaded.holds, state.holds().cloned().collect::<Vec<_>>());
    let hold = &loaded.holds[0];
    assert_eq!((hold.id.as_str(), hold.holder.as_str(), hold.created_version), ("hold-one", "h-1", 1));
    assert_eq!(hold.seats.iter().map(|seat| seat.as_str()).collect::<Vec<_>>(), ["A1"]);
    assert_eq!(hold.areas.iter().map(|(area, q)| (area.as_str(), q.get())).collect::<Vec<_>>(), [("floor", 1)]);
    assert_eq!(
        (hold.created_at, hold.expires_at, hold.stored_status),
        (T0, T0.plus_millis(60 * SECOND), HoldStatus::Held)
    );

    // Two transitions in one batch: consecutive versions, one instant.
    let later = T0.plus_millis(5 * SECOND);
    let second = decide(&mut state, "h-2", json!({"seats": ["A2"]}), "hold-two", later);
    let third = decide(&mut state, "h-3", json!({"areas": {"floor": 1}}), "hold-three", later);
    commit(store, "conf", &[second, third]).await.unwrap();
    let loaded = store.load_holds("conf").await.unwrap();
    assert_eq!((loaded.version, loaded.latest_at), (3, Some(later)));
    assert_eq!(loaded.holds, state.holds().cloned().collect::<Vec<_>>(), "every hold, oldest first");
    assert_eq!(loaded.holds.iter().map(|hold| hold.created_version).collect::<Vec<_>>(), [1, 2, 3]);

    // A later change of a hold shows in its status; the latest instant follows.
    let end = T0.plus_millis(9 * SECOND);
    let confirm = state.decide_confirm(&HolderId::new("h-2"), &id("hold-two"), end);
    let confirmed = act(&mut state, "h-2", confirm, end);
    commit(store, "conf", &[confirmed]).await.unwrap();
    let loaded = store.load_holds("conf").await.unwrap();
    assert_eq!((loaded.version, loaded.latest_at), (4, Some(end)));
    assert_eq!(loaded.holds, state.holds().cloned().collect::<Vec<_>>());
    assert_eq!(loaded.holds[1].stored_status, HoldStatus::Confirmed);
}

/// A decision made on a state that missed a hold (its seat is taken by now)
/// is refused as a whole: not even its free seat is written.
async fn a_stale_commit_for_a_held_seat_is_refused_whole(f: Fixture) {
    let store = &*f.store;
    let show = show();
    created(store.create_show(&show, T0).await);
    let mut state = ShowState::new(show.clone());
    let first = decide(&mut state, "h-1", json!({"seats": ["A1"]}), "hold-one", T0);
    commit(store, "conf", &[first]).await.unwrap();
    let before = Stored::read(store, "conf").await;

    let mut stale = ShowState::new(show);
    let conflicting = decide(&mut stale, "h-2", json!({"seats": ["A2", "A1"]}), "hold-two", T0.plus_millis(SECOND));
    let result = commit(store, "conf", &[conflicting]).await;
    assert!(matches!(result, Err(CommitError::Stale(_))), "{result:?}");
    assert_nothing_written(store, "conf", &before, &["hold-two"], &["h-2"]).await;
    assert_eq!(due_holds(store, T0.plus_millis(HOUR)).await, ["hold-one"], "no outbox entry for it");
}

/// A decision that would put an area over capacity, made on a state that
/// missed a hold, is refused as a whole, with the rest of its batch.
async fn a_stale_commit_over_an_area_capacity_is_refused_whole(f: Fixture) {
    let store = &*f.store;
    let show = show();
    created(store.create_show(&show, T0).await);
    let mut state = ShowState::new(show.clone());
    let first = decide(&mut state, "h-1", json!({"areas": {"floor": 1}}), "hold-one", T0);
    commit(store, "conf", &[first]).await.unwrap();
    let before = Stored::read(store, "conf").await;

    let mut stale = ShowState::new(show);
    let now = T0.plus_millis(SECOND);
    let seat = decide(&mut stale, "h-2", json!({"seats": ["A2"]}), "hold-two", now);
    let too_many = decide(&mut stale, "h-3", json!({"areas": {"floor": 2}}), "hold-three", now);
    let result = commit(store, "conf", &[seat, too_many]).await;
    assert!(matches!(result, Err(CommitError::Stale(_))), "{result:?}");
    assert_nothing_written(store, "conf", &before, &["hold-two", "hold-three"], &["h-2", "h-3"]).await;
    assert_eq!(due_holds(store, T0.plus_millis(HOUR)).await, ["hold-one"], "no outbox entry for them");
}

/// Only transitions that continue the stored version, consecutively, are
/// written: behind, ahead or with a gap, the batch is refused whole.
async fn a_commit_at_a_wrong_version_is_refused_whole(f: Fixture) {
    let store = &*f.store;
    let show = show();
    created(store.create_show(&show, T0).await);
    let mut state = ShowState::new(show.clone());
    let one = decide(&mut state, "h-1", json!({"seats": ["A1"]}), "hold-one", T0);
    let two = decide(&mut state, "h-2", json!({"seats": ["A2"]}), "hold-two", T0);
    commit(store, "conf", &[one, two]).await.unwrap();
    let before = Stored::read(store, "conf").await;
    let now = T0.plus_millis(SECOND);

    // Behind: a writer that saw hold-one only (version 1) releases it.
    let mut behind = ShowState::new(show.clone());
    behind.restore(state.hold(&id("hold-one")).unwrap().clone());
    behind.set_version(1);
    let release = behind.decide_release(&HolderId::new("h-1"), &id("hold-one"), now);
    let release = act(&mut behind, "h-1", release, now);
    assert_eq!(release.version, 2);
    let result = commit(store, "conf", &[release]).await;
    assert!(matches!(result, Err(CommitError::Stale(_))), "behind: {result:?}");
    assert_nothing_written(store, "conf", &before, &[], &[]).await;

    // Ahead: a writer that believes in a version the store never had.
    let mut ahead = writer(store, &show).await;
    ahead.set_version(5);
    let skipped = decide(&mut ahead, "h-3", json!({"seats": ["A3"]}), "hold-ahead", now);
    let result = commit(store, "conf", &[skipped]).await;
    assert!(matches!(result, Err(CommitError::Stale(_))), "ahead: {result:?}");
    assert_nothing_written(store, "conf", &before, &["hold-ahead"], &["h-3"]).await;

    // A gap inside the batch: the first continues the version, the next skips one.
    let mut gapped = writer(store, &show).await;
    let three = decide(&mut gapped, "h-3", json!({"seats": ["A3"]}), "hold-three", now);
    gapped.set_version(gapped.version() + 1);
    let five = decide(&mut gapped, "h-4", json!({"areas": {"floor": 1}}), "hold-five", now);
    assert_eq!((three.version, five.version), (3, 5));
    let result = commit(store, "conf", &[three.clone(), five]).await;
    assert!(matches!(result, Err(CommitError::Stale(_))), "gap: {result:?}");
    assert_nothing_written(store, "conf", &before, &["hold-three", "hold-five"], &["h-3", "h-4"]).await;

    // None of it moved the version: the right next transition is written.
    commit(store, "conf", &[three]).await.unwrap();
    assert_eq!(store.load_holds("conf").await.unwrap().version, 3);
}

/// The outbox names each deadline (a hold's, an extension's) once it is
/// due, oldest first, at most `limit`, until the entry is finished.
async fn due_outbox_entries_come_oldest_first_until_finished(f: Fixture) {
    let store = &*f.store;
    let show = show();
    created(store.create_show(&show, T0).await);
    let mut state = ShowState::new(show.clone());
    let a = decide(&mut state, "h-1", json!({"seats": ["A1"]}), "hold-alpha", T0);
    commit(store, "conf", &[a]).await.unwrap();
    let b_at = T0.plus_millis(10 * SECOND);
    let b = decide(&mut state, "h-2", json!({"seats": ["A2"]}), "hold-bravo", b_at);
    commit(store, "conf", &[b]).await.unwrap();
    let extend_at = T0.plus_millis(20 * SECOND);
    let extend = state.decide_extend(&HolderId::new("h-2"), &id("hold-bravo"), extend_at);
    let extended = act(&mut state, "h-2", extend, extend_at);
    commit(store, "conf", &[extended]).await.unwrap();
    let (a_deadline, b_deadline, b_extended) =
        (T0.plus_millis(60 * SECOND), b_at.plus_millis(60 * SECOND), b_at.plus_millis(120 * SECOND));

    assert!(store.due_expiries(a_deadline.plus_millis(-1), 10).await.unwrap().is_empty(), "nothing due yet");
    let due = store.due_expiries(a_deadline, 10).await.unwrap();
    let expected = DueExpiry {
        seq: due.first().map_or(0, |due| due.seq),
        show_id: "conf".into(),
        hold_id: id("hold-alpha"),
        deadline: a_deadline,
        idempotency_key: format!("expire:hold-alpha:{}", a_deadline.0),
    };
    assert_eq!(due, [expected], "due at its deadline");

    // An hour on (past any claim a sweep took), unfinished entries are due
    // again: oldest deadline first, at most `limit`.
    let mut sweep = T0.plus_millis(HOUR);
    let first = store.due_expiries(sweep, 1).await.unwrap();
    assert_eq!(first.iter().map(|due| due.hold_id.as_str()).collect::<Vec<_>>(), ["hold-alpha"]);
    sweep = sweep.plus_millis(HOUR);
    let all = store.due_expiries(sweep, 10).await.unwrap();
    let named: Vec<_> = all.iter().map(|due| (due.hold_id.as_str(), due.deadline)).collect();
    assert_eq!(named, [("hold-alpha", a_deadline), ("hold-bravo", b_deadline), ("hold-bravo", b_extended)]);
    assert_eq!(all.iter().map(|due| due.seq).collect::<HashSet<_>>().len(), 3, "one entry each");
    assert!(all.iter().all(|due| due.idempotency_key == format!("expire:{}:{}", due.hold_id, due.deadline.0)));

    // hold-a expires; hold-b's first deadline is stale (extended): both entries finish.
    let Decision::Apply(expiry) = state.decide_expiry(&id("hold-alpha"), a_deadline, sweep) else { panic!("due") };
    assert_eq!(state.decide_expiry(&id("hold-bravo"), b_deadline, sweep), Decision::Unchanged);
    let expiry = staged(&mut state, expiry, HolderId::new("h-1"), sweep);
    commit(store, "conf", &[expiry]).await.unwrap();
    store.finish_expiries(vec![all[0].seq, all[1].seq], sweep).await.unwrap();
    sweep = sweep.plus_millis(HOUR);
    assert_eq!(due_holds(store, sweep).await, ["hold-bravo"], "only the unfinished entry is due");
    store.finish_expiries(vec![all[2].seq], sweep).await.unwrap();
    store.finish_expiries(vec![all[2].seq], sweep).await.unwrap();
    sweep = sweep.plus_millis(HOUR);
    assert!(store.due_expiries(sweep, 10).await.unwrap().is_empty(), "every entry finished");

    let loaded = store.load_holds("conf").await.unwrap();
    assert_eq!((loaded.version, loaded.latest_at), (4, Some(T0.plus_millis(2 * HOUR))));
    let statuses: Vec<_> = loaded.holds.iter().map(|hold| (hold.id.as_str(), hold.stored_status)).collect();
    assert_eq!(statuses, [("hold-alpha", HoldStatus::Expired), ("hold-bravo", HoldStatus::Held)]);
    assert_eq!(loaded.holds[1].expires_at, b_extended);
}

/// `journal(show, after)` is exactly the show's entries after `after`, in
/// version order, each as it was committed; other shows' never mix in.
async fn the_journal_after_a_version_is_exactly_the_later_entries_in_order(f: Fixture) {
    let store = &*f.store;
    let (show, second) = (show(), second_show());
    created(store.create_show(&show, T0).await);
    created(store.create_show(&second, T0).await);
    let mut state = ShowState::new(show);
    let at = |n: i64| T0.plus_millis(n * SECOND);
    let one = decide(&mut state, "h-1", json!({"seats": ["A1"]}), "hold-one", at(0));
    let two = decide(&mut state, "h-2", json!({"seats": ["A2"], "areas": {"floor": 2}}), "hold-two", at(1));
    let extend = state.decide_extend(&HolderId::new("h-1"), &id("hold-one"), at(1));
    let three = act(&mut state, "h-1", extend, at(1));
    let confirm = state.decide_confirm(&HolderId::new("h-2"), &id("hold-two"), at(2));
    let four = act(&mut state, "h-2", confirm, at(2));
    let release = state.decide_release(&HolderId::new("h-1"), &id("hold-one"), at(3));
    let five = act(&mut state, "h-1", release, at(3));
    let all = [one, two, three, four, five];
    commit(store, "conf", &all[..1]).await.unwrap();
    let mut other = ShowState::new(second);
    let elsewhere = decide(&mut other, "h-1", json!({"seats": ["A1"]}), "hold-elsewhere", at(0));
    commit(store, "conf-two", std::slice::from_ref(&elsewhere)).await.unwrap();
    commit(store, "conf", &all[1..3]).await.unwrap();
    commit(store, "conf", &all[3..]).await.unwrap();

    let expected = entries(&all);
    assert!(matches!(expected[2].action, JournalAction::Extended { extensions: 1, .. }));
    for after in 0..=5 {
        assert_eq!(store.journal("conf", after).await.unwrap(), expected[after as usize..], "after version {after}");
    }
    assert_eq!(store.journal("conf", 99).await.unwrap(), []);
    assert_eq!(store.journal("conf-two", 0).await.unwrap(), entries(&[elsewhere]));
    assert_eq!(store.journal("no-such-show", 0).await.unwrap(), []);
}

/// Every hold id finds its show, and every holder their holds across
/// shows, newest first (then by show id, then newest version).
async fn holds_are_found_by_id_and_by_holder_newest_first_across_shows(f: Fixture) {
    let store = &*f.store;
    let (show, second) = (show(), second_show());
    created(store.create_show(&show, T0).await);
    created(store.create_show(&second, T0).await);
    let (mut one, mut two) = (ShowState::new(show), ShowState::new(second));
    let at = |n: i64| T0.plus_millis(n * SECOND);
    let seat = |seat: &str| json!({"seats": [seat]});

    let first = decide(&mut one, "h-1", seat("A1"), "hold-h1a", at(0));
    commit(store, "conf", &[first]).await.unwrap();
    let second = decide(&mut two, "h-1", seat("A1"), "hold-h1b", at(1));
    commit(store, "conf-two", &[second]).await.unwrap();
    // One batch, one instant: the later version is the newer hold.
    let third = decide(&mut one, "h-1", seat("A2"), "hold-h1c", at(2));
    let fourth = decide(&mut one, "h-1", seat("A3"), "hold-h1d", at(2));
    commit(store, "conf", &[third, fourth]).await.unwrap();
    // Two shows, one instant: by show id, descending.
    let fifth = decide(&mut one, "h-1", json!({"areas": {"floor": 1}}), "hold-h1e", at(3));
    let sixth = decide(&mut two, "h-1", seat("A2"), "hold-h1f", at(3));
    commit(store, "conf", &[fifth]).await.unwrap();
    commit(store, "conf-two", &[sixth]).await.unwrap();
    // Someone else's, the newest of all.
    let theirs = decide(&mut two, "h-2", seat("A3"), "hold-h2a", at(4));
    commit(store, "conf-two", &[theirs]).await.unwrap();

    let holds =
        |list: &[(&str, &str)]| list.iter().map(|(show, hold)| ((*show).to_owned(), id(hold))).collect::<Vec<_>>();
    assert_eq!(
        store.holder_holds(&HolderId::new("h-1")).await.unwrap(),
        holds(&[
            ("conf-two", "hold-h1f"),
            ("conf", "hold-h1e"),
            ("conf", "hold-h1d"),
            ("conf", "hold-h1c"),
            ("conf-two", "hold-h1b"),
            ("conf", "hold-h1a"),
        ])
    );
    assert_eq!(store.holder_holds(&HolderId::new("h-2")).await.unwrap(), holds(&[("conf-two", "hold-h2a")]));
    assert_eq!(store.holder_holds(&HolderId::new("h-9")).await.unwrap(), []);
    for (show, hold) in [("conf", "hold-h1a"), ("conf-two", "hold-h1b"), ("conf", "hold-h1d"), ("conf-two", "hold-h2a")]
    {
        assert_eq!(store.hold_show(&id(hold)).await.unwrap().as_deref(), Some(show), "{hold}");
    }
    assert_eq!(store.hold_show(&id("hold-none")).await.unwrap(), None);
}

/// A hold id is global: a batch that reuses one of another show's is
/// refused with `HoldIdTaken`, and nothing of that batch is written.
async fn a_hold_id_taken_by_another_show_refuses_the_whole_batch(f: Fixture) {
    let store = &*f.store;
    let (show, second) = (show(), second_show());
    created(store.create_show(&show, T0).await);
    created(store.create_show(&second, T0).await);
    let mut state = ShowState::new(show);
    let first = decide(&mut state, "h-1", json!({"seats": ["A1"]}), "hold-one", T0);
    commit(store, "conf", &[first]).await.unwrap();
    let before = Stored::read(store, "conf-two").await;

    let later = T0.plus_millis(SECOND);
    let mut other = ShowState::new(second.clone());
    let fresh = decide(&mut other, "h-3", json!({"seats": ["A2"]}), "hold-fresh", later);
    let reused = decide(&mut other, "h-3", json!({"seats": ["A1"]}), "hold-one", later);
    let taken = commit(store, "conf-two", &[fresh.clone(), reused]).await;
    assert!(matches!(&taken, Err(CommitError::HoldIdTaken(id)) if id.as_str() == "hold-one"), "{taken:?}");
    assert_nothing_written(store, "conf-two", &before, &["hold-fresh"], &["h-3"]).await;
    assert_eq!(store.hold_show(&id("hold-one")).await.unwrap().as_deref(), Some("conf"), "still the first show's");
    assert_eq!(store.journal("conf", 0).await.unwrap().len(), 1);
    assert_eq!(due_holds(store, T0.plus_millis(HOUR)).await, ["hold-one"], "no outbox entry of that batch");

    // Nothing of it stays behind: the batch without the reused id is written.
    commit(store, "conf-two", &[fresh]).await.unwrap();
    assert_eq!(store.hold_show(&id("hold-fresh")).await.unwrap().as_deref(), Some("conf-two"));
    assert_eq!(store.load_holds("conf-two").await.unwrap().version, 1);
}

/// A batch opened at an old version hands over what others committed since
/// (a shared store; a store only this process writes has nothing to hand
/// over), once; a batch at the stored version misses nothing.
async fn a_batch_at_an_old_version_returns_what_others_committed(f: Fixture) {
    let store = &*f.store;
    assert_eq!(store.shared(), f.shared);
    let show = show();
    created(store.create_show(&show, T0).await);
    let mut state = ShowState::new(show);
    let one = decide(&mut state, "h-1", json!({"seats": ["A1"]}), "hold-one", T0);
    let two = decide(&mut state, "h-2", json!({"seats": ["A2"]}), "hold-two", T0.plus_millis(SECOND));
    let three = decide(&mut state, "h-3", json!({"areas": {"floor": 1}}), "hold-three", T0.plus_millis(2 * SECOND));
    for transition in [&one, &two, &three] {
        commit(store, "conf", std::slice::from_ref(transition)).await.unwrap();
    }

    let mut batch = store.begin_batch("conf", 1).await.unwrap();
    let missed = batch.take_missed();
    if f.shared {
        assert_eq!(missed, entries(&[two, three]), "what was committed after version 1");
    } else {
        assert_eq!(missed, [], "only this process writes: nothing was missed");
    }
    assert_eq!(batch.take_missed(), [], "handed over once");
    batch.commit(none()).await.unwrap();

    let mut batch = store.begin_batch("conf", 3).await.unwrap();
    assert_eq!(batch.take_missed(), [], "at the stored version, nothing was missed");
    let now = batch.now().unwrap_or(T0.plus_millis(3 * SECOND));
    let four = decide(&mut state, "h-4", json!({"seats": ["A3"]}), "hold-four", now);
    batch.commit(vec![four.clone()].into()).await.unwrap();
    assert_eq!(store.journal("conf", 3).await.unwrap(), entries(&[four]));
}

/// A shared store's batch decides at its clock, never below the show's
/// latest stored instant; a local store's leaves it to the process's clock.
async fn a_batch_decides_at_the_store_clock_never_below_the_latest_instant(f: Fixture) {
    let store = &*f.store;
    let show = show();
    created(store.create_show(&show, T0).await);
    if !f.shared {
        assert_eq!(store.clock().await.unwrap(), None);
        let batch = store.begin_batch("conf", 0).await.unwrap();
        assert_eq!(batch.now(), None, "the process's clock decides");
        batch.commit(none()).await.unwrap();
        return;
    }
    let before = store.clock().await.unwrap().expect("a shared store has a clock");
    let batch = store.begin_batch("conf", 0).await.unwrap();
    let now = batch.now().expect("a shared store's batch has an instant");
    batch.commit(none()).await.unwrap();
    let after = store.clock().await.unwrap().unwrap();
    assert!(before <= now && now <= after, "{before:?} <= {now:?} <= {after:?}: the store's clock");

    // A decision stored an hour ahead of the store's clock (a process whose
    // clock ran fast, a clock stepped back since): batches never go below it.
    // The latest is the latest of every stored transition, even of a batch
    // whose last one is not (its writer's clock stepped back within it).
    let ahead = after.plus_millis(HOUR);
    let mut state = ShowState::new(show);
    let one = decide(&mut state, "h-1", json!({"seats": ["A1"]}), "hold-one", ahead);
    let earlier =
        decide(&mut state, "h-3", json!({"areas": {"floor": 1}}), "hold-earlier", ahead.plus_millis(-HOUR / 2));
    commit(store, "conf", &[one, earlier]).await.unwrap();
    assert_eq!(store.load_holds("conf").await.unwrap().latest_at, Some(ahead));
    let batch = store.begin_batch("conf", 2).await.unwrap();
    let now = batch.now().unwrap();
    assert!(now >= ahead, "{now:?} is below the latest stored instant {ahead:?}");
    let two = decide(&mut state, "h-2", json!({"seats": ["A2"]}), "hold-two", now);
    batch.commit(vec![two].into()).await.unwrap();
    let batch = store.begin_batch("conf", 3).await.unwrap();
    assert!(batch.now().unwrap() >= now, "never below the batch before");
    batch.commit(none()).await.unwrap();
    assert_eq!(store.load_holds("conf").await.unwrap().latest_at, Some(now));
}

/// A batch dropped before its commit (its writer stopped mid-way) writes
/// nothing and leaves nothing held: neither the show's lock nor a
/// connection (more batches are dropped here than a pool has connections).
async fn a_batch_dropped_without_commit_writes_nothing_and_frees_the_show(f: Fixture) {
    let store = &*f.store;
    let show = show();
    created(store.create_show(&show, T0).await);
    let before = Stored::read(store, "conf").await;
    for round in 0..24 {
        let opened = timeout(PATIENCE, store.begin_batch("conf", 0)).await;
        let mut batch = opened.unwrap_or_else(|_| panic!("batch {round} did not open after dropped ones")).unwrap();
        assert_eq!(batch.take_missed(), []);
        let now = batch.now().unwrap_or(T0);
        let mut scratch = ShowState::new(show.clone());
        let tentative = decide(&mut scratch, "h-1", json!({"seats": ["A1"]}), &format!("hold-drop-{round}"), now);
        drop((batch, tentative));
    }
    assert_nothing_written(store, "conf", &before, &["hold-drop-0", "hold-drop-23"], &["h-1"]).await;

    let opened = timeout(PATIENCE, store.begin_batch("conf", 0)).await;
    let batch = opened.expect("the next batch opens").unwrap();
    let mut state = ShowState::new(show);
    let hold = decide(&mut state, "h-1", json!({"seats": ["A1"]}), "hold-kept", batch.now().unwrap_or(T0));
    batch.commit(vec![hold.clone()].into()).await.unwrap();
    assert_eq!(store.journal("conf", 0).await.unwrap(), entries(&[hold]));
}

/// A batch whose commit is refused (decided without what it missed) writes
/// nothing and frees the show for the next batch.
async fn a_batch_whose_commit_is_refused_writes_nothing_and_frees_the_show(f: Fixture) {
    let store = &*f.store;
    let show = show();
    created(store.create_show(&show, T0).await);
    let mut state = ShowState::new(show.clone());
    let one = decide(&mut state, "h-1", json!({"seats": ["A1"]}), "hold-one", T0);
    commit(store, "conf", &[one]).await.unwrap();
    let before = Stored::read(store, "conf").await;

    for round in 0..3 {
        let batch = timeout(PATIENCE, store.begin_batch("conf", 0)).await.expect("a batch opens").unwrap();
        let mut stale = ShowState::new(show.clone());
        let now = batch.now().unwrap_or(T0).plus_millis(SECOND);
        let ignored = decide(&mut stale, "h-2", json!({"seats": ["A1"]}), "hold-stale", now);
        let result = batch.commit(vec![ignored].into()).await;
        assert!(matches!(result, Err(CommitError::Stale(_))), "round {round}: {result:?}");
    }
    assert_nothing_written(store, "conf", &before, &["hold-stale"], &["h-2"]).await;

    let batch = timeout(PATIENCE, store.begin_batch("conf", 1)).await.expect("the next batch opens").unwrap();
    let now = batch.now().unwrap_or(T0).plus_millis(SECOND);
    let two = decide(&mut state, "h-2", json!({"seats": ["A2"]}), "hold-two", now);
    batch.commit(vec![two].into()).await.unwrap();
    assert_eq!(store.load_holds("conf").await.unwrap().version, 2);
}

// ---------------------------------------------------------------------------
// SQLite only.

mod sqlite_store_only {
    use super::*;

    /// A storage failure inside the batch (here a trigger standing in for a
    /// full disk) is a failure, never `Stale`: retrying on fresh state cannot
    /// fix it.
    #[tokio::test]
    async fn a_failing_journal_write_is_a_failure_not_a_stale_version() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("failing.db");
        let store = SqliteStore::open(&path).await.unwrap();
        let show = show();
        store.create_show(&show, T0).await.unwrap();
        rusqlite::Connection::open(&path)
            .unwrap()
            .execute_batch(
                "CREATE TRIGGER full BEFORE INSERT ON journal BEGIN SELECT RAISE(ABORT, 'disk is full'); END;",
            )
            .unwrap();
        let mut state = ShowState::new(show);
        let hold = decide(&mut state, "h-1", json!({"seats": ["A1"]}), "hold-one", T0);
        let result = commit(&store, "conf", &[hold]).await;
        assert!(matches!(result, Err(CommitError::Failed(_))), "{result:?}");
        assert_eq!(store.load_holds("conf").await.unwrap().version, 0);
        assert_eq!(store.hold_show(&id("hold-one")).await.unwrap(), None);
    }
}

// ---------------------------------------------------------------------------
// Stores shared by processes: two handles on one store are two processes.

/// Two processes on one store.
type Pair = (Arc<dyn Store>, Arc<dyn Store>);

/// Two `PostgresStore`s opened on one database.
async fn two_postgres() -> Pair {
    let url = postgres::fresh_database().await;
    let a = PostgresStore::open(&url).await.unwrap();
    let b = PostgresStore::open(&url).await.unwrap();
    (Arc::new(a), Arc::new(b))
}

/// Two clones of one `SharedMemoryStore`, as the simulator runs two processes.
async fn two_shared_memory() -> Pair {
    let store = SharedMemoryStore::new(SystemClock::shared());
    (Arc::new(store.clone()), Arc::new(store))
}

/// A module per shared store, a test per two-process case.
macro_rules! two_process_cases {
    ($store:ident, $open:ident) => {
        mod $store {
            two_process_cases!(@cases $open;
                the_second_batch_waits_for_the_first_then_decides_on_top_of_it,
                two_stores_deciding_one_seat_from_the_same_version_one_wins,
                a_batch_does_not_wait_for_another_shows_batch,
            );
        }
    };
    (@cases $open:ident; $($case:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $case() {
                super::$case(super::$open().await).await;
            }
        )*
    };
}

two_process_cases!(postgres_two_processes, two_postgres);
two_process_cases!(shared_memory_two_processes, two_shared_memory);

/// Both open a batch for one show at once: the second waits on the
/// show's lock until the first commits, then gets the first's entries,
/// decides on top of them and commits. The journal has both, no seat twice.
async fn the_second_batch_waits_for_the_first_then_decides_on_top_of_it((a, b): Pair) {
    let show = show();
    created(a.create_show(&show, T0).await);
    assert_eq!(b.create_show(&show, T0).await.unwrap(), CreateShow::AlreadyThere);

    let mut state_a = ShowState::new(show.clone());
    let mut batch_a = a.begin_batch("conf", 0).await.unwrap();
    assert_eq!(batch_a.take_missed(), []);
    let at_a = batch_a.now().unwrap();

    let (began, mut opened) = tokio::sync::oneshot::channel();
    let second = tokio::spawn({
        let (b, show) = (Arc::clone(&b), show.clone());
        async move {
            let mut state_b = ShowState::new(show);
            let mut batch = b.begin_batch("conf", 0).await.unwrap();
            began.send(()).unwrap();
            let missed = batch.take_missed();
            apply_missed(&mut state_b, &missed);
            let at_b = batch.now().unwrap();
            let refused = attempt(&mut state_b, "h-b", json!({"seats": ["A1"]}), "hold-b-one", at_b).unwrap_err();
            let taken = decide(&mut state_b, "h-b", json!({"seats": ["A2"]}), "hold-b-two", at_b);
            batch.commit(vec![taken.clone()].into()).await.unwrap();
            (missed, at_b, refused, taken)
        }
    });

    assert!(
        timeout(BLOCKED, &mut opened).await.is_err(),
        "the second store opened a batch for the show while the first held it"
    );
    let hold_a = decide(&mut state_a, "h-a", json!({"seats": ["A1"]}), "hold-a-one", at_a);
    batch_a.commit(vec![hold_a.clone()].into()).await.unwrap();
    timeout(PATIENCE, opened).await.expect("the second batch opens once the first commits").unwrap();
    let (missed, at_b, refused, hold_b) = timeout(PATIENCE, second).await.expect("the second batch ends").unwrap();

    assert_eq!(missed, entries(std::slice::from_ref(&hold_a)), "the second saw the first's entry");
    assert!(at_b >= at_a, "one clock per show: {at_b:?} < {at_a:?}");
    assert_eq!(refused, Rejection::SeatsTaken { seats: vec!["A1".into()] }, "decided on top of the first");
    assert_eq!(hold_b.version, 2);
    let expected = entries(&[hold_a, hold_b.clone()]);
    for store in [&a, &b] {
        assert_eq!(store.journal("conf", 0).await.unwrap(), expected);
        let loaded = store.load_holds("conf").await.unwrap();
        let seats: Vec<_> = loaded.holds.iter().map(|hold| (hold.holder.as_str(), hold.seats[0].as_str())).collect();
        assert_eq!((loaded.version, seats), (2, vec![("h-a", "A1"), ("h-b", "A2")]));
    }
    // The first, behind now, gets the second's entry with its next batch.
    let mut batch = a.begin_batch("conf", 1).await.unwrap();
    let missed = batch.take_missed();
    assert_eq!(missed, entries(&[hold_b]));
    apply_missed(&mut state_a, &missed);
    assert_eq!(state_a.holds().cloned().collect::<Vec<_>>(), a.load_holds("conf").await.unwrap().holds);
    batch.commit(none()).await.unwrap();
}

/// Without the protocol: both decide the same seat from the same old
/// version and commit at once. Exactly one wins; the other is `Stale`.
async fn two_stores_deciding_one_seat_from_the_same_version_one_wins((a, b): Pair) {
    for round in 0..8 {
        let show = venue(&format!("race-{round}"), "Race", 3, 2);
        created(a.create_show(&show, T0).await);
        let show_id = show.id.to_string();
        let mine = decide(
            &mut ShowState::new(show.clone()),
            "h-a",
            json!({"seats": ["A1"]}),
            &format!("hold-a-{round:03}"),
            T0,
        );
        let theirs =
            decide(&mut ShowState::new(show), "h-b", json!({"seats": ["A1"]}), &format!("hold-b-{round:03}"), T0);
        let start = Arc::new(tokio::sync::Barrier::new(2));
        let race = |store: Arc<dyn Store>, transition: Transition| {
            let (start, show_id) = (Arc::clone(&start), show_id.clone());
            tokio::spawn(async move {
                start.wait().await;
                commit(&*store, &show_id, &[transition]).await
            })
        };
        let (first, second) = (race(Arc::clone(&a), mine.clone()), race(Arc::clone(&b), theirs.clone()));
        let results = (first.await.unwrap(), second.await.unwrap());
        let (winner, loser) = match results {
            (Ok(()), Err(CommitError::Stale(_))) => (mine, theirs),
            (Err(CommitError::Stale(_)), Ok(())) => (theirs, mine),
            other => panic!("round {round}: exactly one commit wins, the other is stale: {other:?}"),
        };
        assert_eq!(b.journal(&show_id, 0).await.unwrap(), entries(&[winner]), "round {round}");
        assert_eq!(a.hold_show(loser.change.hold_id()).await.unwrap(), None, "round {round}");
        assert_eq!(a.load_holds(&show_id).await.unwrap().version, 1, "round {round}");
    }
}

/// While one process holds a show's batch, another's batch of another
/// show opens: the lock is per show.
async fn a_batch_does_not_wait_for_another_shows_batch((a, b): Pair) {
    created(a.create_show(&show(), T0).await);
    created(a.create_show(&second_show(), T0).await);
    let batch = a.begin_batch("conf", 0).await.unwrap();
    let other = timeout(PATIENCE, b.begin_batch("conf-two", 0)).await.expect("another show's batch opens").unwrap();
    other.commit(none()).await.unwrap();
    batch.commit(none()).await.unwrap();
}

// ---------------------------------------------------------------------------
// PostgreSQL only: the sweeps' claims on the outbox.

mod postgres_only {
    use super::*;

    /// Sweeps of two processes (two each) claim due expiries at once, a few
    /// at a time, until none is left: no entry goes to two sweeps, none is left out.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn sweeps_of_two_stores_never_claim_the_same_outbox_entry() {
        const HOLDS: usize = 60;
        let (a, b) = two_postgres().await;
        let show = venue("claims", "Claims", HOLDS, 2);
        created(a.create_show(&show, T0).await);
        let mut state = ShowState::new(show);
        let transitions: Vec<_> = (1..=HOLDS)
            .map(|n| {
                decide(&mut state, &format!("h-{n}"), json!({"seats": [format!("A{n}")]}), &format!("hold-{n:04}"), T0)
            })
            .collect();
        commit(&*a, "claims", &transitions).await.unwrap();
        let due_at = T0.plus_millis(60 * SECOND);

        let start = Arc::new(tokio::sync::Barrier::new(4));
        let sweeps: Vec<_> = [&a, &a, &b, &b]
            .into_iter()
            .map(|store| {
                let (store, start) = (Arc::clone(store), Arc::clone(&start));
                tokio::spawn(async move {
                    start.wait().await;
                    let mut claimed = Vec::new();
                    loop {
                        let due = store.due_expiries(due_at, 7).await.unwrap();
                        if due.is_empty() {
                            return claimed;
                        }
                        claimed.extend(due);
                    }
                })
            })
            .collect();
        let mut claimed = Vec::new();
        for sweep in sweeps {
            claimed.extend(timeout(PATIENCE, sweep).await.expect("a sweep ends").unwrap());
        }
        let seqs: HashSet<i64> = claimed.iter().map(|due| due.seq).collect();
        assert_eq!(seqs.len(), claimed.len(), "an outbox entry went to two sweeps");
        let holds: HashSet<String> = claimed.iter().map(|due| due.hold_id.to_string()).collect();
        let expected: HashSet<String> = (1..=HOLDS).map(|n| format!("hold-{n:04}")).collect();
        assert_eq!(holds, expected, "every due entry is claimed once");
        assert!(claimed.iter().all(|due| due.deadline <= due_at && due.show_id == "claims"));
    }
}
