//! Cases one store alone can run: a storage failure (SQLite's own tooling)
//! and the sweeps' outbox claims (PostgreSQL's).

use super::*;

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
