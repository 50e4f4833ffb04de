//! The journal audit `multi_process_crash.rs` relies on finds what it is
//! meant to find: a journal written by hand with a seat held twice, a seat
//! sold twice, a confirmation after the deadline, an instant going back and
//! a missing version fails it, each for its own reason, and a clean one
//! passes.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

use anyhow::ensure;
use seathold_system_tests::Server;
use seathold_system_tests::audit::audit_journal;
use seathold_system_tests::postgres::Database;

/// (version, at, hold, action, seats of a created entry, deadline)
type Entry = (i64, i64, &'static str, &'static str, &'static [&'static str], Option<i64>);

/// A clean history of the demo theatre: two holds of A1 one after the
/// other (the first released), B1 sold, C1 held past its deadline, expired.
const CLEAN: [Entry; 7] = [
    (1, 1000, "h1", "created", &["A1"], Some(9000)),
    (2, 1100, "h1", "released", &[], None),
    (3, 1200, "h2", "created", &["A1", "B1"], Some(9000)),
    (4, 1300, "h2", "extended", &[], Some(12000)),
    (5, 1400, "h2", "confirmed", &[], None),
    (6, 1500, "h3", "created", &["C1"], Some(2000)),
    (7, 2000, "h3", "expired", &[], None),
];

async fn problems_of(database: &Database, entries: &[Entry]) -> anyhow::Result<Vec<String>> {
    let mut sql = database.connect().await?;
    sql.batch_execute("DELETE FROM journal").await?;
    for (version, at, hold, action, seats, deadline) in entries {
        let places = (*action == "created").then(|| serde_json::json!({"seats": seats, "areas": []}).to_string());
        sql.execute(
            "INSERT INTO journal (show_id, version, at, hold_id, holder_id, action, places, expires_at)
             VALUES ('demo-theatre', $1, $2, $3, 'someone', $4, $5, $6)",
            &[version, at, hold, action, &places, deadline],
        )
        .await?;
    }
    let last = entries.iter().map(|entry| entry.0).max().unwrap_or(0);
    sql.execute("UPDATE shows SET version = $1 WHERE id = 'demo-theatre'", &[&last]).await?;
    Ok(audit_journal(&mut sql, "demo-theatre").await?.problems)
}

#[tokio::test]
async fn the_journal_audit_finds_each_broken_rule() -> anyhow::Result<()> {
    let database = Database::fresh().await?;
    // A process migrates the database and creates the demo shows, then goes.
    Server::start_on_database(&database.url, &[], &[]).await?.terminate().await?;

    let clean = problems_of(&database, &CLEAN).await?;
    ensure!(clean.is_empty(), "a clean journal fails the audit: {clean:?}");

    let mut cases: Vec<(&str, Vec<Entry>)> = Vec::new();
    let mut held_twice = CLEAN.to_vec();
    held_twice[1] = (2, 1100, "h9", "created", &["A1"], Some(9000));
    cases.push(("takes A1 at 1100 from h1 (HELD", held_twice));
    let mut sold_twice = CLEAN.to_vec();
    sold_twice
        .extend([(8, 2100, "h4", "created", &["B1"][..], Some(9000)), (9, 2200, "h4", "confirmed", &[][..], None)]);
    cases.push(("B1 sold twice", sold_twice));
    let mut late = CLEAN.to_vec();
    late[6] = (7, 2000, "h3", "confirmed", &[], None);
    cases.push(("confirmed of h3 (HELD until 2000) at 2000", late));
    let mut back = CLEAN.to_vec();
    back[2].1 = 1050;
    cases.push(("v3 at 1050, before an earlier entry's 1100", back));
    let mut gap = CLEAN.to_vec();
    gap.remove(3);
    cases.push(("6 journal versions for show version 7", gap));
    for (expected, entries) in cases {
        let problems = problems_of(&database, &entries).await?;
        ensure!(
            problems.iter().any(|problem| problem.contains(expected)),
            "the audit should report {expected:?}, it reports {problems:?}"
        );
    }
    Ok(())
}
