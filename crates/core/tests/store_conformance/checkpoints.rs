//! Checkpoints and holds read back by id: a load starts from the latest
//! checkpoint, recalls the evicted holds the journal after it changes, and
//! restores the same seat map as the whole journal would.

use seathold_core::store::Checkpoint;

use super::*;

/// A checkpoint of `state` as a show's writer takes one.
fn checkpoint_of(state: &ShowState, latest_at: ServerMillis) -> Checkpoint {
    Checkpoint {
        version: state.version(),
        latest_at: Some(latest_at),
        holds: state.checkpoint_holds(),
        blocked: state.blocked_seats().cloned().collect(),
        retired: state.sales(),
    }
}

/// Every viewer's map of a state.
fn maps(state: &ShowState, now: ServerMillis) -> Vec<String> {
    ["h-1", "h-2", "h-3"]
        .iter()
        .map(|who| format!("{:?}", state.seat_map(Some(&HolderId::new(*who)), now)))
        .chain([format!("{:?}", state.seat_map(None, now))])
        .collect()
}

pub(crate) async fn a_load_starts_from_the_checkpoint_and_recalls_the_evicted_holds_changed_after_it(f: Fixture) {
    let store = &*f.store;
    let show = show();
    created(store.create_show(&show, T0).await);
    let mut state = ShowState::new(show.clone());
    let sold = decide(&mut state, "h-1", json!({"seats": ["A1"], "areas": {"floor": 1}}), "hold-one", T0);
    let confirm = state.decide_confirm(&HolderId::new("h-1"), &id("hold-one"), T0);
    let confirm = act(&mut state, "h-1", confirm, T0);
    let lapsing = decide(&mut state, "h-2", json!({"seats": ["A2"]}), "hold-two", T0);
    commit(store, "conf", &[sold, confirm, lapsing]).await.unwrap();
    let late = T0.plus_millis(61 * SECOND);
    let expiry = state.decide_expiry(&id("hold-two"), T0.plus_millis(60 * SECOND), late);
    let expired = act(&mut state, "h-2", Ok(expiry), late);
    let kept = decide(&mut state, "h-3", json!({"seats": ["A3"]}), "hold-three", late);
    commit(store, "conf", &[expired, kept]).await.unwrap();
    let everything = state.clone();

    // The writer lets both settled holds go, then checkpoints at version 5.
    let mut lean = state;
    assert!(lean.evict(&id("hold-one")) && lean.evict(&id("hold-two")));
    assert!(!lean.evict(&id("hold-three")), "a held hold stays");
    store.save_checkpoint("conf", &checkpoint_of(&lean, late)).await.unwrap();

    // After it: the evicted expired hold is released, a new hold is made.
    let later = late.plus_millis(SECOND);
    let mut full = everything;
    let release = full.decide_release(&HolderId::new("h-2"), &id("hold-two"), later);
    let released = act(&mut full, "h-2", release, later);
    let fresh = decide(&mut full, "h-1", json!({"areas": {"floor": 1}}), "hold-four", later);
    commit(store, "conf", &[released, fresh]).await.unwrap();

    let loaded = store.load_holds("conf").await.unwrap();
    assert_eq!((loaded.version, loaded.from_checkpoint, loaded.latest_at), (7, 5, Some(later)));
    let ids: Vec<&str> = loaded.holds.iter().map(|hold| hold.id.as_str()).collect();
    assert_eq!(ids, ["hold-two", "hold-three"], "settled holds stay out, unless changed after it");
    assert_eq!(loaded.journal.iter().map(|entry| entry.version).collect::<Vec<_>>(), [6, 7], "the journal after it");
    assert_eq!(loaded.retired.seats, [(seat_state::SeatId::parse("A1").unwrap(), HolderId::new("h-1"))]);
    assert_eq!(loaded.retired.areas.iter().map(|(area, n)| (area.as_str(), *n)).collect::<Vec<_>>(), [("floor", 1)]);
    let restored = loaded.replay(ShowState::new(show)).unwrap();
    let replayed: Vec<_> = restored.holds().map(|hold| (hold.id.as_str(), hold.stored_status)).collect();
    assert_eq!(replayed[0], ("hold-two", HoldStatus::Released), "released after the checkpoint");
    assert_eq!(replayed.len(), 3, "{replayed:?}");
    assert_eq!(maps(&restored, later), maps(&full, later), "the map the whole journal gives, for every viewer");
}

pub(crate) async fn a_hold_is_read_back_by_id_as_of_a_version(f: Fixture) {
    let store = &*f.store;
    created(store.create_show(&show(), T0).await);
    created(store.create_show(&second_show(), T0).await);
    let mut state = ShowState::new(show());
    let first = decide(&mut state, "h-1", json!({"seats": ["A1"]}), "hold-one", T0);
    let extend = state.decide_extend(&HolderId::new("h-1"), &id("hold-one"), T0);
    let extended = act(&mut state, "h-1", extend, T0);
    commit(store, "conf", &[first, extended]).await.unwrap();
    let confirm = state.decide_confirm(&HolderId::new("h-1"), &id("hold-one"), T0);
    commit(store, "conf", &[act(&mut state, "h-1", confirm, T0)]).await.unwrap();

    let hold_one = id("hold-one");
    let at = |version| store.hold_at("conf", &hold_one, version);
    assert_eq!(at(0).await.unwrap(), None, "not made yet");
    assert_eq!(at(1).await.unwrap().map(|hold| (hold.extensions, hold.stored_status)), Some((0, HoldStatus::Held)));
    assert_eq!(at(2).await.unwrap().map(|hold| hold.extensions), Some(1));
    assert_eq!(at(3).await.unwrap().as_ref(), state.hold(&id("hold-one")));
    assert_eq!(store.hold_at("conf-two", &id("hold-one"), 3).await.unwrap(), None, "another show's");
    assert_eq!(store.hold_at("conf", &id("hold-none"), 3).await.unwrap(), None);
    let both = store.holds_at("conf", &[id("hold-none"), id("hold-one")], 3).await.unwrap();
    assert_eq!(both.iter().map(|hold| hold.id.as_str()).collect::<Vec<_>>(), ["hold-one"]);
}

pub(crate) async fn the_newest_checkpoint_is_kept_and_one_ahead_of_the_journal_refused(f: Fixture) {
    let store = &*f.store;
    let show = show();
    created(store.create_show(&show, T0).await);
    let mut state = ShowState::new(show.clone());
    let first = decide(&mut state, "h-1", json!({"seats": ["A1"]}), "hold-one", T0);
    let older = checkpoint_of(&state, T0);
    let second = decide(&mut state, "h-2", json!({"seats": ["A2"]}), "hold-two", T0);
    let newer = checkpoint_of(&state, T0);
    let third = decide(&mut state, "h-3", json!({"seats": ["A3"]}), "hold-three", T0);
    let ahead = checkpoint_of(&state, T0);
    commit(store, "conf", &[first, second]).await.unwrap();
    assert!(store.save_checkpoint("conf", &ahead).await.is_err(), "version 3 is not in the journal yet");
    store.save_checkpoint("conf", &newer).await.unwrap();
    store.save_checkpoint("conf", &older).await.unwrap();
    commit(store, "conf", &[third]).await.unwrap();
    let loaded = store.load_holds("conf").await.unwrap();
    assert_eq!((loaded.version, loaded.from_checkpoint), (3, 2), "the older one did not replace the newer");
    assert_eq!(loaded_holds(store, "conf").await, state.holds().cloned().collect::<Vec<_>>());
}
