//! The webhook log on the operator's page (`/admin`), in a real browser
//! against the real binary and a real receiver on 127.0.0.1: while the
//! receiver answers 500 the log shows the event pending, its attempts and
//! the failing status; once the receiver takes it, nothing is pending and
//! the last status is the receiver's 204.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use std::sync::atomic::{AtomicU16, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use seathold_system_tests::api::Api;
use seathold_system_tests::{Customer, Server};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const TOKEN: &str = "operator-webhooks-secret";
const THEATRE: &str = "demo-theatre";

/// A receiver answering every POST with the status it is set to.
struct Receiver {
    url: String,
    status: Arc<AtomicU16>,
    received: Arc<AtomicUsize>,
}

impl Receiver {
    async fn start(status: u16) -> anyhow::Result<Self> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let url = format!("http://{}/hooks", listener.local_addr()?);
        let (status, received) = (Arc::new(AtomicU16::new(status)), Arc::new(AtomicUsize::new(0)));
        let (answer, count) = (Arc::clone(&status), Arc::clone(&received));
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                let (answer, count) = (Arc::clone(&answer), Arc::clone(&count));
                tokio::spawn(async move {
                    if read_request(&mut stream).await.is_some() {
                        count.fetch_add(1, Ordering::SeqCst);
                        let status = answer.load(Ordering::SeqCst);
                        let head = format!("HTTP/1.1 {status} X\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
                        let _ = stream.write_all(head.as_bytes()).await;
                    }
                });
            }
        });
        Ok(Self { url, status, received })
    }
}

/// Reads one request's head and body; `None` if the connection ends first.
async fn read_request(stream: &mut tokio::net::TcpStream) -> Option<()> {
    let mut bytes = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let read = stream.read(&mut chunk).await.ok()?;
        if read == 0 {
            return None;
        }
        bytes.extend_from_slice(&chunk[..read]);
        let Some(end) = bytes.windows(4).position(|window| window == b"\r\n\r\n") else { continue };
        let head = String::from_utf8_lossy(&bytes[..end]).to_ascii_lowercase();
        let length = head
            .lines()
            .find_map(|line| line.strip_prefix("content-length:"))
            .and_then(|value| value.trim().parse::<usize>().ok())
            .unwrap_or(0);
        if bytes.len() >= end + 4 + length {
            return Some(());
        }
    }
}

/// The one webhook's delivery counts, as the admin API has them.
async fn deliveries(api: &Api) -> anyhow::Result<Value> {
    let answer = api.call(reqwest::Method::GET, "/api/admin/webhooks", Some(TOKEN), None).await?;
    answer.expect(200, "the webhooks")?;
    Ok(answer.body["webhooks"][0]["deliveries"].clone())
}

/// Waits until the admin API's counts satisfy `done`.
async fn wait_deliveries(api: &Api, what: &str, done: impl Fn(&Value) -> bool) -> anyhow::Result<Value> {
    let deadline = Instant::now() + Duration::from_secs(40);
    loop {
        let counts = deliveries(api).await?;
        if done(&counts) {
            return Ok(counts);
        }
        anyhow::ensure!(Instant::now() < deadline, "timed out waiting for {what}: {counts}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Blocks or unblocks A20: a change on the show's stream, which makes
/// the page reload its board (webhook log included) within a second.
async fn nudge(api: &Api, method: reqwest::Method) -> anyhow::Result<()> {
    let path = format!("/api/admin/shows/{THEATRE}/blocked");
    let body = json!({"seats": ["A20"], "reason": "a test nudge"});
    let answer = api.call(method, &path, Some(TOKEN), Some(&body)).await?;
    anyhow::ensure!(answer.status == 200, "block or unblock A20: {answer:?}");
    Ok(())
}

/// The text of `[data-delivery=KEY]` in the webhook's row.
fn cell(key: &str) -> String {
    format!("document.querySelector('tr[data-webhook-id] [data-delivery=\"{key}\"]')?.textContent.trim()")
}

#[tokio::test]
async fn the_webhook_log_shows_failing_attempts_then_the_acknowledgement() -> anyhow::Result<()> {
    let server = Server::start_with_env(&[], &[("SEATHOLD_ADMIN_TOKEN", TOKEN)]).await?;
    let api = Api::new(&server, "server");
    let receiver = Receiver::start(500).await?;
    let webhook = json!({"url": receiver.url, "secret": "a-shared-secret", "events": ["held"]});
    let created = api.call(reqwest::Method::POST, "/api/admin/webhooks", Some(TOKEN), Some(&webhook)).await?;
    created.expect(201, "the webhook")?;
    let webhook_id = created.body["id"].as_str().unwrap().to_owned();

    let customer = api.session().await?;
    let (path, body) = (format!("/api/shows/{THEATRE}/holds"), json!({"seats": ["C5"]}));
    api.post(&path, Some(&customer), Some(&body)).await?.expect(201, "a customer's hold")?;
    let failing = wait_deliveries(&api, "a failed attempt", |counts| counts["attempts"].as_u64() >= Some(1)).await?;
    assert_eq!((failing["pending"].clone(), failing["lastStatus"].clone()), (json!(1), json!(500)), "{failing}");

    let operator = Customer::start(&server, "operator").await?;
    let page = &operator.browser;
    page.client.goto(&format!("{}/admin", server.base_url)).await?;
    page.wait_for("the token form", "!!document.querySelector('[data-field=\"admin-token\"]')?.offsetParent").await?;
    let fill = format!(
        "(() => {{ const field = document.querySelector('[data-field=admin-token]'); field.value = {};
           field.dispatchEvent(new Event('input', {{bubbles: true}})); return true; }})()",
        Value::from(TOKEN)
    );
    page.eval(&fill).await?;
    page.find("[data-action=\"sign-in\"]").await?.click().await?;
    let row = format!("document.querySelector('tr[data-webhook-id=\"{webhook_id}\"]')");
    page.wait_for("the webhook's row", &row).await?;
    page.wait_for("one event pending", &format!("{} === '1'", cell("pending"))).await?;
    page.wait_for("the receiver's 500", &format!("{} === '500'", cell("last-status"))).await?;
    let attempts = page.eval(&cell("attempts")).await?;
    assert!(attempts.as_str().and_then(|n| n.parse::<u64>().ok()) >= Some(1), "attempts: {attempts}");
    let error = page.eval(&cell("last-error")).await?;
    assert!(error.as_str().is_some_and(|text| !text.is_empty() && text != "—"), "the failure's reason: {error}");
    assert!(page.eval(&format!("{row}.textContent.includes({})", Value::from(receiver.url.as_str()))).await? == true);
    operator.screenshot("admin-webhook-failing").await?;

    // The receiver comes back: the retry is taken and nothing is pending.
    receiver.status.store(204, Ordering::SeqCst);
    wait_deliveries(&api, "the acknowledgement", |counts| counts["pending"] == 0 && counts["lastStatus"] == 204)
        .await?;
    nudge(&api, reqwest::Method::POST).await?;
    page.wait_for("nothing pending", &format!("{} === '0'", cell("pending"))).await?;
    page.wait_for("the receiver's 204", &format!("{} === '204'", cell("last-status"))).await?;
    assert_eq!(page.eval(&cell("failed")).await?, json!("0"), "nothing parked");
    nudge(&api, reqwest::Method::DELETE).await?;
    assert!(receiver.received.load(Ordering::SeqCst) >= 2, "a failed attempt and the one taken");
    assert_eq!(operator.alert().await?, "", "nothing went wrong on the page");
    operator.screenshot("admin-webhook-delivered").await?;
    Ok(())
}
