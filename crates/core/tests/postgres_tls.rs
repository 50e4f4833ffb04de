//! TLS to PostgreSQL, by the URL's `sslmode`, against the throwaway server
//! `cargo xtask test` starts: it serves TLS with a certificate for
//! 127.0.0.1 signed by a throwaway CA (`SEATHOLD_TEST_POSTGRES_CA`), and
//! plain text too. What each session does is read on the server's side
//! (`pg_stat_ssl`), from a plain-text connection of the test's own.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

mod postgres;

use seathold_core::store::{PostgresStore, Store};

/// An unrelated CA (its key thrown away): it signed nothing the server has.
const UNRELATED_CA: &str = "-----BEGIN CERTIFICATE-----
MIIBkTCCATagAwIBAgIUDviQaS+8rXNxuQwmgHYaxgiJvqswCgYIKoZIzj0EAwIw
JTEjMCEGA1UEAwwaU2VhdGhvbGQgdW5yZWxhdGVkIHRlc3QgQ0EwIBcNMjYxMTMw
MjIzMTI3WhgPMjEyNjExMDYyMjMxMjdaMCUxIzAhBgNVBAMMGlNlYXRob2xkIHVu
cmVsYXRlZCB0ZXN0IENBMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEicHf4iga
nrqOmlkTCFsRE5X4G/SsKf2a3JHTZ4OOkhyQYdRwrLBAVR+Ogbkctg+AMsINfFo0
5OiZH+JAFaqBZKNCMEAwDwYDVR0TAQH/BAUwAwEB/zAOBgNVHQ8BAf8EBAMCAQYw
HQYDVR0OBBYEFFFvM13Xw0gl2I20OMdk8vwuX1eDMAoGCCqGSM49BAMCA0kAMEYC
IQCraUPjqKgv22t0HfMflwuiocStnoDbDPIQ6NtxEJyzAgIhAP0CDOzK9N1Bh6Li
idYct/grFB9grgPwomTxgn1P3F4S
-----END CERTIFICATE-----
";

/// The throwaway server's CA certificate (PEM).
fn test_ca() -> String {
    std::env::var("SEATHOLD_TEST_POSTGRES_CA").unwrap_or_else(|_| {
        panic!(
            "SEATHOLD_TEST_POSTGRES_CA is not set: run the tests with `cargo xtask test`, which starts a throwaway \
             PostgreSQL serving TLS and names its CA certificate there"
        )
    })
}

/// A session of the database at `url` as the server sees it.
#[derive(Debug)]
struct Session {
    ssl: bool,
    version: Option<String>,
    query: String,
}

/// The client sessions on `url`'s database but the asking one (that is, the
/// sessions of the stores opened on it), read over plain text.
async fn sessions(url: &str) -> Vec<Session> {
    let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls).await.unwrap();
    tokio::spawn(connection);
    let rows = client
        .query(
            "SELECT s.ssl, s.version, a.query FROM pg_stat_activity a JOIN pg_stat_ssl s USING (pid)
             WHERE a.datname = current_database() AND a.backend_type = 'client backend'
               AND a.pid <> pg_backend_pid()
             ORDER BY a.pid",
            &[],
        )
        .await
        .unwrap();
    rows.iter().map(|row| Session { ssl: row.get(0), version: row.get(1), query: row.get(2) }).collect()
}

/// The error opening a store on `url` fails with, in full.
async fn refusal(url: &str) -> String {
    match PostgresStore::open(url).await {
        Ok(_) => panic!("{url} was opened"),
        Err(error) => {
            let error = format!("{error:#}");
            println!("{url}: {error}");
            error
        }
    }
}

#[tokio::test]
async fn require_with_the_servers_ca_encrypts_the_pool_and_the_listen_connection() {
    let ca = test_ca();
    let url = postgres::fresh_database().await;
    let store = PostgresStore::open(&format!("{url}?sslmode=require&sslrootcert={ca}")).await.unwrap();
    store.ping().await.unwrap();
    assert!(store.list_shows().await.unwrap().is_empty());

    let sessions = sessions(&url).await;
    assert!(sessions.len() >= 2, "a pooled connection and the LISTEN one: {sessions:?}");
    assert!(sessions.iter().any(|s| s.query == "LISTEN seathold_changes"), "{sessions:?}");
    for session in &sessions {
        assert!(session.ssl, "a session without TLS: {session:?}");
        assert!(session.version.as_deref().is_some_and(|v| v.starts_with("TLSv1.")), "{session:?}");
    }
}

#[tokio::test]
async fn verify_full_is_require() {
    let ca = test_ca();
    let url = postgres::fresh_database().await;
    let store = PostgresStore::open(&format!("{url}?sslmode=verify-full&sslrootcert={ca}")).await.unwrap();
    store.ping().await.unwrap();
    let sessions = sessions(&url).await;
    assert!(!sessions.is_empty() && sessions.iter().all(|s| s.ssl), "{sessions:?}");
}

#[tokio::test]
async fn disable_and_prefer_stay_in_plain_text_though_the_server_offers_tls() {
    test_ca();
    for query in ["", "?sslmode=prefer", "?sslmode=disable"] {
        let url = postgres::fresh_database().await;
        let store = PostgresStore::open(&format!("{url}{query}")).await.unwrap();
        store.ping().await.unwrap();
        let sessions = sessions(&url).await;
        assert!(sessions.len() >= 2, "{query:?}: {sessions:?}");
        assert!(sessions.iter().all(|s| !s.ssl), "{query:?}: a session with TLS: {sessions:?}");
    }
}

#[tokio::test]
async fn a_certificate_from_another_ca_is_refused() {
    test_ca();
    let url = postgres::fresh_database().await;
    let other = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(other.path(), UNRELATED_CA).unwrap();
    let other = other.path().display();
    let error = refusal(&format!("{url}?sslmode=require&sslrootcert={other}")).await;
    assert!(error.contains("error performing TLS handshake"), "{error}");
    assert!(error.contains("invalid peer certificate: UnknownIssuer"), "{error}");
    assert!(error.contains(&format!("checked against {other}")), "{error}");
    assert!(sessions(&url).await.is_empty(), "nothing stays connected");
}

#[tokio::test]
async fn the_system_roots_do_not_know_the_throwaway_ca() {
    test_ca();
    let url = postgres::fresh_database().await;
    let error = refusal(&format!("{url}?sslmode=require")).await;
    // Without system roots at all, the store says so before connecting.
    assert!(
        error.contains("invalid peer certificate: UnknownIssuer") || error.contains("no system root certificates"),
        "{error}"
    );
}

#[tokio::test]
async fn a_certificate_for_another_host_is_refused() {
    let ca = test_ca();
    let url = postgres::fresh_database().await;
    // The server's certificate names 127.0.0.1 and localhost; connect to
    // 127.0.0.1 under another name.
    let (_, rest) = url.split_once("@127.0.0.1:").unwrap();
    let misnamed =
        format!("postgres://postgres@seathold.invalid:{rest}?hostaddr=127.0.0.1&sslmode=require&sslrootcert={ca}");
    let error = refusal(&misnamed).await;
    assert!(error.contains("invalid peer certificate: certificate not valid for name \"seathold.invalid\""), "{error}");
}

#[tokio::test]
async fn sslrootcert_without_require_is_refused() {
    let ca = test_ca();
    let url = postgres::fresh_database().await;
    let error = refusal(&format!("{url}?sslrootcert={ca}")).await;
    assert!(error.contains("only used with sslmode=require"), "{error}");
}
