//! Cases about the batch protocol: what a batch hands over, its clock, a
//! batch dropped or refused.

use super::*;

/// A batch opened at an old version hands over what others committed since
/// (a shared store; a store only this process writes has nothing to hand
/// over), once; a batch at the stored version misses nothing.
pub(crate) async fn a_batch_at_an_old_version_returns_what_others_committed(f: Fixture) {
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
        assert_eq!(missed, vec![two, three], "what was committed after version 1");
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
    assert_eq!(store.journal("conf", 3).await.unwrap(), vec![four]);
}

/// A shared store's batch decides at its clock, never below the show's
/// latest stored instant; a local store's leaves it to the process's clock.
pub(crate) async fn a_batch_decides_at_the_store_clock_never_below_the_latest_instant(f: Fixture) {
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
pub(crate) async fn a_batch_dropped_without_commit_writes_nothing_and_frees_the_show(f: Fixture) {
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
    assert_eq!(store.journal("conf", 0).await.unwrap(), vec![hold]);
}

/// A batch whose commit is refused (decided without what it missed) writes
/// nothing and frees the show for the next batch.
pub(crate) async fn a_batch_whose_commit_is_refused_writes_nothing_and_frees_the_show(f: Fixture) {
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
