//! The PostgreSQL migrations on a real database (the throwaway server that
//! `cargo xtask test` starts, its URL in `SEATHOLD_TEST_POSTGRES`).

use seat_state::Change;

use super::{MIGRATIONS, PostgresStore};
use crate::store::{Store, fresh_test_database, journal_before_conditions};

/// A new, empty database on the test server, and a client connected to it.
async fn fresh_database() -> (String, tokio_postgres::Client) {
    let url = fresh_test_database().await;
    let (client, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls).await.expect("connect");
    tokio::spawn(connection);
    (url, client)
}

/// Runs the first `count` migrations as `PostgresStore::migrate` would.
async fn migrate_to(client: &tokio_postgres::Client, count: usize) {
    client.batch_execute("CREATE TABLE seathold_migrations (version INT PRIMARY KEY)").await.unwrap();
    for (version, sql) in MIGRATIONS.iter().take(count).enumerate() {
        client.batch_execute(sql).await.unwrap_or_else(|error| panic!("migration {}: {error}", version + 1));
        let version = i32::try_from(version + 1).unwrap();
        client.execute("INSERT INTO seathold_migrations (version) VALUES ($1)", &[&version]).await.unwrap();
    }
}

#[tokio::test]
async fn rows_written_before_conditions_were_kept_read_back_with_the_conditions_their_writes_checked() {
    let (url, client) = fresh_database().await;
    migrate_to(&client, 6).await;
    client.batch_execute(&journal_before_conditions::rows()).await.unwrap();

    // Opening the store runs the rest: the conditions are filled in.
    let store = PostgresStore::open(&url).await.unwrap();
    let changes: Vec<Change> =
        store.journal("s", 3).await.unwrap().into_iter().map(|transition| transition.change).collect();
    assert_eq!(changes, journal_before_conditions::changes_after_the_creations());
    let applied: i64 = client.query_one("SELECT count(*) FROM seathold_migrations", &[]).await.unwrap().get(0);
    assert_eq!(applied, i64::try_from(MIGRATIONS.len()).unwrap(), "every migration ran once");
}
