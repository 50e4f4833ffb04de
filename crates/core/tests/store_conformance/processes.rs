//! Two processes on one shared store racing for one show.

use super::*;

/// Two processes on one store.
pub(crate) type Pair = (Arc<dyn Store>, Arc<dyn Store>);

/// Two `PostgresStore`s opened on one database.
pub(crate) async fn two_postgres() -> Pair {
    let url = postgres::fresh_database().await;
    let a = PostgresStore::open(&url).await.unwrap();
    let b = PostgresStore::open(&url).await.unwrap();
    (Arc::new(a), Arc::new(b))
}

/// Two clones of one `SharedMemoryStore`, as the simulator runs two processes.
pub(crate) async fn two_shared_memory() -> Pair {
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
pub(crate) async fn the_second_batch_waits_for_the_first_then_decides_on_top_of_it((a, b): Pair) {
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

    assert_eq!(missed, vec![hold_a.clone()], "the second saw the first's entry");
    assert!(at_b >= at_a, "one clock per show: {at_b:?} < {at_a:?}");
    assert_eq!(refused, Rejection::SeatsTaken { seats: vec!["A1".into()] }, "decided on top of the first");
    assert_eq!(hold_b.version, 2);
    let expected = vec![hold_a, hold_b.clone()];
    for store in [&a, &b] {
        assert_eq!(store.journal("conf", 0).await.unwrap(), expected);
        let loaded = store.load_holds("conf").await.unwrap();
        let holds = loaded_holds(&**store, "conf").await;
        let seats: Vec<_> = holds.iter().map(|hold| (hold.holder.as_str(), hold.seats[0].as_str())).collect();
        assert_eq!((loaded.version, seats), (2, vec![("h-a", "A1"), ("h-b", "A2")]));
    }
    // The first, behind now, gets the second's entry with its next batch.
    let mut batch = a.begin_batch("conf", 1).await.unwrap();
    let missed = batch.take_missed();
    assert_eq!(missed, vec![hold_b]);
    apply_missed(&mut state_a, &missed);
    assert_eq!(state_a.holds().cloned().collect::<Vec<_>>(), loaded_holds(&*a, "conf").await);
    batch.commit(none()).await.unwrap();
}

/// Without the protocol: both decide the same seat from the same old
/// version and commit at once. Exactly one wins; the other is `Stale`.
pub(crate) async fn two_stores_deciding_one_seat_from_the_same_version_one_wins((a, b): Pair) {
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
        assert_eq!(b.journal(&show_id, 0).await.unwrap(), vec![winner], "round {round}");
        assert_eq!(a.hold_show(loser.change.hold_id().unwrap()).await.unwrap(), None, "round {round}");
        assert_eq!(a.load_holds(&show_id).await.unwrap().version, 1, "round {round}");
    }
}

/// While one process holds a show's batch, another's batch of another
/// show opens: the lock is per show.
pub(crate) async fn a_batch_does_not_wait_for_another_shows_batch((a, b): Pair) {
    created(a.create_show(&show(), T0).await);
    created(a.create_show(&second_show(), T0).await);
    let batch = a.begin_batch("conf", 0).await.unwrap();
    let other = timeout(PATIENCE, b.begin_batch("conf-two", 0)).await.expect("another show's batch opens").unwrap();
    other.commit(none()).await.unwrap();
    batch.commit(none()).await.unwrap();
}
