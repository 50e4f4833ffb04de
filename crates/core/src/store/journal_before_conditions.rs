//! A journal written before its rows kept their conditions (SQLite's
//! migration 11, PostgreSQL's 7), and what it must read back as once
//! migrated: the same rows on both databases.

use seat_state::{Change, HoldId, HoldStatus, ServerMillis};

/// Show `s` at version 8: three holds made, one extended, expired and
/// released, one released while held, one confirmed.
pub fn rows() -> String {
    let created = |version: i64, hold: &str, deadline: i64| {
        format!(
            "INSERT INTO journal (show_id, version, at, hold_id, holder_id, action, places, expires_at)
             VALUES ('s', {version}, {version}, '{hold}', 'h', 'created', '{{\"seats\":[]}}', {deadline});"
        )
    };
    let row = |version: i64, hold: &str, action: &str| {
        format!(
            "INSERT INTO journal (show_id, version, at, hold_id, holder_id, action, expires_at, extensions)
             VALUES ('s', {version}, {version}, '{hold}', 'h', '{action}', 200, 1);"
        )
    };
    [
        "INSERT INTO shows (id, name, seat_count, area_count, version, created_at) VALUES ('s', 'S', 1, 0, 8, 0);"
            .to_owned(),
        created(1, "hold-aaaa", 100),
        created(2, "hold-bbbb", 150),
        created(3, "hold-cccc", 300),
        row(4, "hold-aaaa", "extended"),
        row(5, "hold-aaaa", "expired"),
        row(6, "hold-aaaa", "released"),
        row(7, "hold-bbbb", "released"),
        row(8, "hold-cccc", "confirmed"),
    ]
    .concat()
}

/// The journal after version 3, as the conditions each write checked.
pub fn changes_after_the_creations() -> Vec<Change> {
    let id = |name: &str| HoldId::parse(name).expect("a hold id");
    vec![
        Change::Extended { hold: id("hold-aaaa"), from: ServerMillis(100), to: ServerMillis(200), extensions: 1 },
        Change::Expired { hold: id("hold-aaaa"), deadline: ServerMillis(200) },
        Change::Released { hold: id("hold-aaaa"), previous: HoldStatus::Expired },
        Change::Released { hold: id("hold-bbbb"), previous: HoldStatus::Held },
        Change::Confirmed { hold: id("hold-cccc"), deadline: ServerMillis(300), late: false },
    ]
}
