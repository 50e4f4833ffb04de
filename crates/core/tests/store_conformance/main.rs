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
use seathold_core::clock::SystemClock;
use seathold_core::store::{
    CommitError, CreateShow, DueExpiry, MemoryStore, PostgresStore, SessionSeen, SharedMemoryStore, SqliteStore, Store,
    Transition,
};

mod batches;
mod checkpoints;
#[path = "../postgres/mod.rs"]
mod postgres;
mod processes;
mod records;
mod stores_alone;
mod support;
mod webhooks;

use batches::*;
use checkpoints::*;
use processes::*;
use records::*;
use support::*;
use webhooks::*;

pub(crate) const T0: ServerMillis = ServerMillis(1_800_000_000_000);
pub(crate) const SECOND: i64 = 1_000;
pub(crate) const HOUR: i64 = 3_600_000;
/// How long a batch that could open has surely opened.
pub(crate) const BLOCKED: Duration = Duration::from_millis(500);
/// How long anything that should happen may take on a loaded machine.
pub(crate) const PATIENCE: Duration = Duration::from_secs(30);

// ---------------------------------------------------------------------------
// The harness: every case, for every store.

/// A fresh, empty store of one kind.
pub(crate) struct Fixture {
    pub(crate) store: Arc<dyn Store>,
    /// Whether several processes share the store: its batches lock the show,
    /// decide at its clock and return what others committed.
    pub(crate) shared: bool,
    /// The SQLite file's folder, removed at the end.
    pub(crate) _dir: Option<tempfile::TempDir>,
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
                a_load_starts_from_the_checkpoint_and_recalls_the_evicted_holds_changed_after_it,
                a_hold_is_read_back_by_id_as_of_a_version,
                the_newest_checkpoint_is_kept_and_one_ahead_of_the_journal_refused,
                a_webhook_gets_what_is_committed_after_it_and_all_of_a_later_show,
                a_claimed_lane_is_nobody_elses_until_let_go_or_its_lease_ends,
                a_step_needs_the_cursor_it_started_from_and_is_counted,
                a_rewound_lane_is_due_at_once_and_a_deleted_webhook_has_none,
                the_journal_comes_a_page_at_a_time,
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
