//! The SQLite schema's migrations, in order, and the tests that old rows
//! survive each one.

use rusqlite_migration::{M, Migrations};

/// Every migration, oldest first.
pub(super) fn all() -> Migrations<'static> {
    Migrations::new(vec![
        M::up(include_str!("../../../migrations/0001_shows.sql")),
        M::up(include_str!("../../../migrations/0002_sessions.sql")),
        M::up(include_str!("../../../migrations/0003_holds.sql")),
        M::up(include_str!("../../../migrations/0004_hold_ids.sql")),
        M::up(include_str!("../../../migrations/0005_blocked_seats.sql")),
        M::up(include_str!("../../../migrations/0006_session_last_seen.sql")),
        M::up(include_str!("../../../migrations/0007_checkpoints.sql")),
        M::up(include_str!("../../../migrations/0008_journal_check_without_list.sql")),
        M::up(include_str!("../../../migrations/0009_queue.sql")),
        M::up(include_str!("../../../migrations/0010_webhooks.sql")),
        M::up(include_str!("../../../migrations/0011_journal_conditions.sql")),
    ])
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use rusqlite::Connection;

    use seat_state::Change;

    use super::super::holds;
    use super::all as migrations;
    use crate::store::journal_before_conditions;

    #[test]
    fn rows_written_before_conditions_were_kept_read_back_with_the_conditions_their_writes_checked() {
        let mut db = Connection::open_in_memory().unwrap();
        migrations().to_version(&mut db, 10).unwrap();
        db.execute_batch(&journal_before_conditions::rows()).unwrap();
        migrations().to_latest(&mut db).unwrap();
        let changes: Vec<Change> =
            holds::journal(&db, "s", 3).unwrap().into_iter().map(|transition| transition.change).collect();
        assert_eq!(changes, journal_before_conditions::changes_after_the_creations());
    }

    #[test]
    fn migrations_keep_journal_rows_and_sessions_and_check_who_names_a_hold() {
        let mut db = Connection::open_in_memory().unwrap();
        migrations().validate().unwrap();
        migrations().to_version(&mut db, 4).unwrap();
        db.execute_batch(
            "INSERT INTO shows (id, name, seat_count, area_count, version, created_at) VALUES ('s', 'S', 1, 0, 2, 0);
             INSERT INTO journal (show_id, version, at, hold_id, holder_id, action, places, expires_at)
                 VALUES ('s', 1, 10, 'hold-0001', 'h', 'created', '{\"seats\":[\"A1\"],\"areas\":[]}', 99);
             INSERT INTO journal (show_id, version, at, hold_id, holder_id, action) VALUES ('s', 2, 20, 'hold-0001', 'h', 'released');
             INSERT INTO sessions (token_sha256, holder_id, created_at) VALUES ('t', 'h', 7);",
        )
        .unwrap();
        migrations().to_latest(&mut db).unwrap();
        let kept: Vec<(i64, String)> = db
            .prepare("SELECT version, action FROM journal ORDER BY version")
            .unwrap()
            .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(kept, [(1, "created".to_owned()), (2, "released".to_owned())]);
        let seen: i64 = db.query_row("SELECT last_seen_at FROM sessions", [], |row| row.get(0)).unwrap();
        assert_eq!(seen, 7, "an existing session counts as seen when it was made");
        let insert = |version: i64, hold: Option<&str>, action: &str| {
            db.execute(
                "INSERT INTO journal (show_id, version, at, hold_id, holder_id, action, places)
                 VALUES ('s', ?1, 30, ?2, 'operator', ?3, '{\"seats\":[\"A1\"]}')",
                rusqlite::params![version, hold, action],
            )
        };
        insert(3, None, "blocked").unwrap();
        assert!(insert(4, None, "released").is_err(), "a hold's transition names its hold");
        assert!(insert(4, Some("hold-0001"), "unblocked").is_err(), "a block names no hold");
        assert!(insert(4, Some("hold-0001"), "bought").is_err(), "only the known actions");
        assert!(insert(4, Some("hold-0001"), "Released").is_err(), "compared as written (BINARY)");
        let by_hold: String = db
            .query_row(
                "EXPLAIN QUERY PLAN SELECT version FROM journal WHERE hold_id = 'x' AND version <= 9",
                [],
                |row| row.get(3),
            )
            .unwrap();
        assert!(by_hold.contains("journal_by_hold"), "{by_hold}");
    }

    /// SQLite fills an ephemeral B-tree with an `IN (…)` list's values on
    /// every INSERT a CHECK with one runs; the journal's checks are written
    /// so that its INSERT (one per transition) builds none.
    #[test]
    fn the_journal_insert_builds_no_ephemeral_table() {
        let mut db = Connection::open_in_memory().unwrap();
        migrations().to_latest(&mut db).unwrap();
        let opcodes: Vec<String> = db
            .prepare(
                "EXPLAIN INSERT INTO journal (show_id, version, at, hold_id, holder_id, action, places, expires_at, \
                 extensions, late) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            )
            .unwrap()
            .query_map(rusqlite::params_from_iter([rusqlite::types::Null; 10]), |row| row.get(1))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert!(opcodes.iter().any(|opcode| opcode == "Insert" || opcode == "IdxInsert"), "{opcodes:?}");
        assert!(!opcodes.iter().any(|opcode| opcode == "OpenEphemeral"), "{opcodes:?}");
    }
}
