//! Cases about what a store keeps: shows, sessions, commits and refusals,
//! the outbox, the journal, hold ids.

use super::*;

/// Creating a show: new, the very same again, a different one under its id.
pub(crate) async fn creating_a_show_is_created_then_already_there_then_a_conflict(f: Fixture) {
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
pub(crate) async fn shows_are_listed_oldest_first_and_read_back(f: Fixture) {
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
pub(crate) async fn a_session_finds_its_holder(f: Fixture) {
    let store = &*f.store;
    store.create_session("hash-1", "h-1", T0).await.unwrap();
    store.create_session("hash-2", "h-2", T0.plus_millis(SECOND)).await.unwrap();
    let seen = |holder: &str, at: ServerMillis| Some(SessionSeen { holder: holder.to_owned(), last_seen_at: at });
    assert_eq!(store.session_holder("hash-1").await.unwrap(), seen("h-1", T0));
    assert_eq!(store.session_holder("hash-2").await.unwrap(), seen("h-2", T0.plus_millis(SECOND)));
    assert_eq!(store.session_holder("hash-3").await.unwrap(), None);
    // Seen later; a late touch for an earlier instant moves nothing back.
    store.touch_session("hash-1", T0.plus_millis(5 * SECOND)).await.unwrap();
    store.touch_session("hash-1", T0.plus_millis(2 * SECOND)).await.unwrap();
    store.touch_session("hash-3", T0.plus_millis(5 * SECOND)).await.unwrap();
    assert_eq!(store.session_holder("hash-1").await.unwrap(), seen("h-1", T0.plus_millis(5 * SECOND)));
    assert_eq!(store.session_holder("hash-3").await.unwrap(), None, "touching an unknown session makes none");
}

/// A committed hold is loaded back as decided, with the show's version, the
/// version it was created at and the latest decision instant.
pub(crate) async fn a_commit_is_loaded_back_with_its_version_holds_and_latest_instant(f: Fixture) {
    let store = &*f.store;
    let show = show();
    created(store.create_show(&show, T0).await);
    let empty = store.load_holds("conf").await.unwrap();
    assert_eq!((empty.version, loaded_holds(store, "conf").await.len(), empty.latest_at), (0, 0, None));

    let mut state = ShowState::new(show.clone());
    let first = decide(&mut state, "h-1", json!({"seats": ["A1"], "areas": {"floor": 1}}), "hold-one", T0);
    commit(store, "conf", &[first]).await.unwrap();
    let loaded = store.load_holds("conf").await.unwrap();
    assert_eq!((loaded.version, loaded.latest_at), (1, Some(T0)));
    let holds = loaded_holds(store, "conf").await;
    assert_eq!(holds, state.holds().cloned().collect::<Vec<_>>());
    let hold = &holds[0];
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
    let holds = loaded_holds(store, "conf").await;
    assert_eq!(holds, state.holds().cloned().collect::<Vec<_>>(), "every hold, oldest first");
    assert_eq!(holds.iter().map(|hold| hold.created_version).collect::<Vec<_>>(), [1, 2, 3]);

    // A later change of a hold shows in its status; the latest instant follows.
    let end = T0.plus_millis(9 * SECOND);
    let confirm = state.decide_confirm(&HolderId::new("h-2"), &id("hold-two"), end);
    let confirmed = act(&mut state, "h-2", confirm, end);
    commit(store, "conf", &[confirmed]).await.unwrap();
    let loaded = store.load_holds("conf").await.unwrap();
    assert_eq!((loaded.version, loaded.latest_at), (4, Some(end)));
    let holds = loaded_holds(store, "conf").await;
    assert_eq!(holds, state.holds().cloned().collect::<Vec<_>>());
    assert_eq!(holds[1].stored_status, HoldStatus::Confirmed);
}

/// A decision made on a state that missed a hold (its seat is taken by now)
/// is refused as a whole: not even its free seat is written.
pub(crate) async fn a_stale_commit_for_a_held_seat_is_refused_whole(f: Fixture) {
    let store = &*f.store;
    let show = show();
    created(store.create_show(&show, T0).await);
    let mut state = ShowState::new(show.clone());
    let first = decide(&mut state, "h-1", json!({"seats": ["A1"]}), "hold-one", T0);
    commit(store, "conf", &[first]).await.unwrap();
    let before = Stored::read(store, "conf").await;

    let mut stale = ShowState::new(show.clone());
    let conflicting = decide(&mut stale, "h-2", json!({"seats": ["A2", "A1"]}), "hold-two", T0.plus_millis(SECOND));
    let result = commit(store, "conf", &[conflicting]).await;
    assert_not_oversold(store, &show, T0.plus_millis(SECOND)).await;
    assert!(matches!(result, Err(CommitError::Stale(_))), "{result:?}");
    assert_nothing_written(store, "conf", &before, &["hold-two"], &["h-2"]).await;
    assert_eq!(due_holds(store, T0.plus_millis(HOUR)).await, ["hold-one"], "no outbox entry for it");
}

/// A decision that would put an area over capacity, made on a state that
/// missed a hold, is refused as a whole, with the rest of its batch.
pub(crate) async fn a_stale_commit_over_an_area_capacity_is_refused_whole(f: Fixture) {
    let store = &*f.store;
    let show = show();
    created(store.create_show(&show, T0).await);
    let mut state = ShowState::new(show.clone());
    let first = decide(&mut state, "h-1", json!({"areas": {"floor": 1}}), "hold-one", T0);
    commit(store, "conf", &[first]).await.unwrap();
    let before = Stored::read(store, "conf").await;

    let mut stale = ShowState::new(show.clone());
    let now = T0.plus_millis(SECOND);
    let seat = decide(&mut stale, "h-2", json!({"seats": ["A2"]}), "hold-two", now);
    let too_many = decide(&mut stale, "h-3", json!({"areas": {"floor": 2}}), "hold-three", now);
    let result = commit(store, "conf", &[seat, too_many]).await;
    assert_not_oversold(store, &show, now).await;
    assert!(matches!(result, Err(CommitError::Stale(_))), "{result:?}");
    assert_nothing_written(store, "conf", &before, &["hold-two", "hold-three"], &["h-2", "h-3"]).await;
    assert_eq!(due_holds(store, T0.plus_millis(HOUR)).await, ["hold-one"], "no outbox entry for them");
}

/// Only transitions that continue the stored version, consecutively, are
/// written: behind, ahead or with a gap, the batch is refused whole.
pub(crate) async fn a_commit_at_a_wrong_version_is_refused_whole(f: Fixture) {
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
pub(crate) async fn due_outbox_entries_come_oldest_first_until_finished(f: Fixture) {
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
    let holds = loaded_holds(store, "conf").await;
    let statuses: Vec<_> = holds.iter().map(|hold| (hold.id.as_str(), hold.stored_status)).collect();
    assert_eq!(statuses, [("hold-alpha", HoldStatus::Expired), ("hold-bravo", HoldStatus::Held)]);
    assert_eq!(holds[1].expires_at, b_extended);
}

/// `journal(show, after)` is exactly the show's entries after `after`, in
/// version order, each as it was committed; other shows' never mix in.
pub(crate) async fn the_journal_after_a_version_is_exactly_the_later_entries_in_order(f: Fixture) {
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
    let seats = |ids: &[&str]| ids.iter().map(|seat| seat_state::SeatId::parse(seat).unwrap()).collect::<Vec<_>>();
    let block = state.decide_block(&seats(&["A2", "A3"]), "desk");
    let six = act(&mut state, "operator", block, at(4));
    let unblock = state.decide_unblock(&seats(&["A2"]));
    let seven = act(&mut state, "operator", unblock, at(4));
    let all = [one, two, three, four, five, six, seven];
    commit(store, "conf", &all[..1]).await.unwrap();
    let mut other = ShowState::new(second);
    let elsewhere = decide(&mut other, "h-1", json!({"seats": ["A1"]}), "hold-elsewhere", at(0));
    commit(store, "conf-two", std::slice::from_ref(&elsewhere)).await.unwrap();
    commit(store, "conf", &all[1..3]).await.unwrap();
    commit(store, "conf", &all[3..]).await.unwrap();

    let expected = all.to_vec();
    assert!(matches!(expected[2].change, Change::Extended { extensions: 1, .. }));
    assert!(matches!(&expected[5].change, Change::Blocked { reason, .. } if reason == "desk"));
    for after in 0..=7 {
        assert_eq!(store.journal("conf", after).await.unwrap(), expected[after as usize..], "after version {after}");
    }
    assert_eq!(store.journal("conf", 99).await.unwrap(), []);
    assert_eq!(store.journal("conf-two", 0).await.unwrap(), vec![elsewhere]);
    assert_eq!(store.journal("no-such-show", 0).await.unwrap(), []);
    let replayed = writer(store, &self::show()).await;
    let blocked: Vec<_> = replayed.blocked_seats().cloned().collect();
    assert_eq!(blocked, seats(&["A3"]), "blocked, then A2 unblocked");
}

/// Every hold id finds its show, and every holder their holds across
/// shows, newest first (then by show id, then newest version).
pub(crate) async fn holds_are_found_by_id_and_by_holder_newest_first_across_shows(f: Fixture) {
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
pub(crate) async fn a_hold_id_taken_by_another_show_refuses_the_whole_batch(f: Fixture) {
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
