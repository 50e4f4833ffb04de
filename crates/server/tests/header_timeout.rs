//! A client that sends its headers slowly (slowloris) is cut off at the
//! header deadline; complete requests are served as before. A real socket,
//! on tokio's paused clock: the deadline passes without waiting for it.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

mod support;

use std::net::SocketAddr;
use std::time::Duration;

use support::TestApp;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use seathold_server::listen;

const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

async fn served_time(address: SocketAddr) -> String {
    let mut client = TcpStream::connect(address).await.unwrap();
    client.write_all(b"GET /api/time HTTP/1.1\r\nHost: seathold\r\nConnection: close\r\n\r\n").await.unwrap();
    let mut answer = String::new();
    client.read_to_string(&mut answer).await.unwrap();
    answer
}

#[tokio::test(start_paused = true)]
async fn headers_that_never_finish_lose_their_connection_at_the_deadline() {
    let app = TestApp::new(None).await;
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(listen::serve(listener, app.router.clone(), HEADER_TIMEOUT, std::future::pending()));
    assert!(served_time(address).await.starts_with("HTTP/1.1 200"), "a whole request is served");

    let mut slow = TcpStream::connect(address).await.unwrap();
    slow.write_all(b"GET /api/time HTTP/1.1\r\nHost: seathold\r\n").await.unwrap();
    let started = tokio::time::Instant::now();
    let mut answer = Vec::new();
    // Returns once the server closes the connection (hyper may say 408 first).
    slow.read_to_end(&mut answer).await.unwrap();
    assert!(started.elapsed() >= HEADER_TIMEOUT, "cut off only at the deadline: {:?}", started.elapsed());
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.is_empty() || answer.starts_with("HTTP/1.1 408"), "{answer}");

    assert!(served_time(address).await.starts_with("HTTP/1.1 200"), "others are still served");
}
