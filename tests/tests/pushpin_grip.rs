//! The live streams on Pushpin (GRIP): viewers connect to a real Pushpin
//! (`ops/pushpin/pushpin.conf`) in front of the real server, which answers
//! their `…/events` with a GRIP hold and publishes each tick's frame to
//! Pushpin once. Under a write storm every viewer (JSON, `only=taken`,
//! compact) ends with the map `GET /seats` answers, each event following
//! the one before it and its id above the one before it on the same
//! connection (a snapshot's too): while a third of the publishes are lost on the way
//! (Pushpin finds the gap by `prev-id` and asks the server), across an
//! origin killed mid-storm and restarted (Pushpin holds the streams), and
//! across a Pushpin killed and restarted (viewers come back with
//! `Last-Event-ID` and get what they missed, not a snapshot).

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::Context;
use seat_state::wire::SeatMap;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use seathold_system_tests::PATIENCE;
use seathold_system_tests::api::{Api, EventStream, one_row};
use seathold_system_tests::pushpin::Pushpin;
use seathold_system_tests::server::{Server, create_show, logs};
use seathold_system_tests::viewer::Viewer;

const SHOW: &str = "grip";
const SEATS: usize = 300;
const KEY: &str = "grip-test-key-0123456789abcdef";

/// One viewer through Pushpin: its map, and how often its stream was cut.
struct Watch {
    name: &'static str,
    query: &'static str,
    viewer: Mutex<Viewer>,
    /// Streams opened (the first included).
    connections: AtomicUsize,
    /// A fault in what arrived (a gap, ids going back): the test fails.
    fault: Mutex<Option<String>>,
}

impl Watch {
    fn version(&self) -> Option<i64> {
        self.viewer.lock().unwrap().version
    }
}

/// Keeps a viewer's stream open through `base`: reads every event into its
/// map and, whenever the stream ends or cannot be opened, opens it again
/// with `Last-Event-ID`, as a browser's EventSource does.
async fn watch(base: String, watch: Arc<Watch>) {
    let client = reqwest::Client::new();
    loop {
        let mut request =
            client.get(format!("{base}/api/shows/{SHOW}/events{}", watch.query)).header("accept", "text/event-stream");
        if let Some(version) = watch.version() {
            request = request.header("last-event-id", version.to_string());
        }
        let response = match request.send().await {
            Ok(response) if response.status() == 200 => response,
            _ => {
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let grip_leak = response.headers().keys().find(|name| name.as_str().starts_with("grip-")).cloned();
        if let Some(name) = grip_leak {
            *watch.fault.lock().unwrap() = Some(format!("{}: Pushpin passed the instruction {name} on", watch.name));
            return;
        }
        watch.connections.fetch_add(1, Ordering::SeqCst);
        let mut stream = EventStream::from_response(response);
        // API.md: ids strictly rise per connection (a snapshot's too).
        let mut last_id = i64::MIN;
        while let Ok(Some(event)) = stream.next().await {
            let id = event.id.as_deref().and_then(|id| id.parse::<i64>().ok()).unwrap_or(i64::MIN);
            let taken = if id > last_id {
                watch.viewer.lock().unwrap().take(&event)
            } else {
                Err(anyhow::anyhow!("{} id {:?} after id {last_id} on one connection", event.kind, event.id))
            };
            last_id = id;
            if let Err(error) = taken {
                *watch.fault.lock().unwrap() = Some(format!("{}: {error:#}", watch.name));
                return;
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// One customer's storm through `api`: holds of one to three seats (and
/// sometimes area places), then confirm, release or (rarely) keep, until `writes`
/// were answered (or half of `PATIENCE` passed). Connection failures and
/// refusals (an origin down) are skipped, as a customer retries; returns
/// the writes answered.
async fn customer(api: Api, n: usize, writes: usize) -> usize {
    let started = Instant::now();
    let token = loop {
        match api.session().await {
            Ok(token) => break token,
            Err(_) if started.elapsed() < PATIENCE / 2 => tokio::time::sleep(Duration::from_millis(50)).await,
            Err(_) => return 0,
        }
    };
    let mut written = 0;
    for round in 0.. {
        if written >= writes || started.elapsed() > PATIENCE / 2 {
            break;
        }
        let first = (n * 7 + round * 13) % SEATS + 1;
        let seats: Vec<String> = (0..1 + round % 3).map(|k| format!("A{}", (first + k - 1) % SEATS + 1)).collect();
        let mut body = json!({"seats": seats});
        if round % 4 == 0 {
            body["areas"] = json!({"floor": 1 + round % 2});
        }
        let hold = match api.post(&format!("/api/shows/{SHOW}/holds"), Some(&token), Some(&body)).await {
            Ok(hold) if hold.status == 201 => hold,
            Ok(_) => continue,
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        written += 1;
        let Some(id) = hold.body["holdId"].as_str() else { continue };
        // Confirmed, released, or (one in six) kept.
        let (method, path) = match round % 6 {
            0 | 3 => (reqwest::Method::POST, format!("/api/holds/{id}/confirm")),
            5 => continue,
            _ => (reqwest::Method::DELETE, format!("/api/holds/{id}")),
        };
        if api.call(method, &path, Some(&token), None).await.is_ok_and(|settled| matches!(settled.status, 200 | 204)) {
            written += 1;
        }
    }
    written
}

/// A storm of `customers`, each until `writes` were answered, through `api`; the writes answered.
async fn storm(api: &Api, customers: usize, writes: usize, seed: usize) -> usize {
    let tasks: Vec<_> = (0..customers).map(|n| tokio::spawn(customer(api.clone(), seed + n, writes))).collect();
    let mut written = 0;
    for task in tasks {
        written += task.await.unwrap_or(0);
    }
    written
}

/// A hold and its release: one more frame, published whole.
async fn one_more_change(api: &Api) -> anyhow::Result<()> {
    let token = api.session().await?;
    let hold =
        api.post(&format!("/api/shows/{SHOW}/holds"), Some(&token), Some(&json!({"areas": {"floor": 1}}))).await?;
    hold.expect(201, "one more hold")?;
    let id = hold.body["holdId"].as_str().context("a hold id")?;
    api.call(reqwest::Method::DELETE, &format!("/api/holds/{id}"), Some(&token), None).await?.expect(204, "its release")
}

/// Waits until every viewer shows the map the origin answers.
async fn converge(
    origin: &Api,
    watches: &[Arc<Watch>],
    phase: &str,
    context: impl Fn() -> String,
) -> anyhow::Result<Duration> {
    let map: SeatMap = serde_json::from_value(origin.get(&format!("/api/shows/{SHOW}/seats"), None).await?.body)?;
    let started = Instant::now();
    loop {
        let mut waiting = Vec::new();
        for watch in watches {
            if let Some(fault) = watch.fault.lock().unwrap().clone() {
                anyhow::bail!("{phase}: {fault}\n{}", context());
            }
            if let Some(why) = watch.viewer.lock().unwrap().differs(&map) {
                waiting.push(format!("{}: {why}", watch.name));
            }
        }
        if waiting.is_empty() {
            return Ok(started.elapsed());
        }
        anyhow::ensure!(
            started.elapsed() < PATIENCE,
            "{phase}: viewers did not converge on v{}: {waiting:?}\n{}",
            map.version,
            context()
        );
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

/// The origin's count of GRIP holds whose viewer started `from` (`seathold_grip_holds_total`).
async fn grip_holds(origin: &str, from: &str) -> anyhow::Result<u64> {
    let metrics = reqwest::get(format!("http://{origin}/metrics")).await?.text().await?;
    let series = format!("seathold_grip_holds_total{{from=\"{from}\"}} ");
    Ok(metrics.lines().find_map(|line| line.strip_prefix(&series)).map_or(Ok(0), |count| count.trim().parse())?)
}

/// A publish API in front of Pushpin's that loses every third request
/// while `lossy` (answering 200, as a network that lost the frame after it
/// left would look to the server), and forwards the rest.
struct LossyRelay {
    url: String,
    lossy: Arc<AtomicBool>,
    lost: Arc<AtomicUsize>,
    forwarded: Arc<AtomicUsize>,
}

impl LossyRelay {
    async fn start(target: String) -> anyhow::Result<Self> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let url = format!("http://{}", listener.local_addr()?);
        let (lossy, lost, forwarded) = (Arc::new(AtomicBool::new(false)), Arc::default(), Arc::default());
        let relay = Self { url, lossy: Arc::clone(&lossy), lost: Arc::clone(&lost), forwarded: Arc::clone(&forwarded) };
        let client = reqwest::Client::new();
        let seen = Arc::new(AtomicUsize::new(0));
        tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                let (target, client, lossy, lost, forwarded, seen) = (
                    target.clone(),
                    client.clone(),
                    Arc::clone(&lossy),
                    Arc::clone(&lost),
                    Arc::clone(&forwarded),
                    Arc::clone(&seen),
                );
                tokio::spawn(async move {
                    let _ = relay_connection(socket, &target, &client, &lossy, &lost, &forwarded, &seen).await;
                });
            }
        });
        Ok(relay)
    }
}

/// One keep-alive connection of the relay: request after request.
async fn relay_connection(
    mut socket: tokio::net::TcpStream,
    target: &str,
    client: &reqwest::Client,
    lossy: &AtomicBool,
    lost: &AtomicUsize,
    forwarded: &AtomicUsize,
    seen: &AtomicUsize,
) -> anyhow::Result<()> {
    let mut buffer = Vec::new();
    loop {
        let head_end = loop {
            if let Some(at) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
                break at + 4;
            }
            let mut chunk = [0; 8192];
            let read = socket.read(&mut chunk).await?;
            if read == 0 {
                return Ok(());
            }
            buffer.extend_from_slice(&chunk[..read]);
        };
        let head = String::from_utf8_lossy(&buffer[..head_end]).to_ascii_lowercase();
        let length: usize = head
            .lines()
            .find_map(|line| line.strip_prefix("content-length:"))
            .and_then(|value| value.trim().parse().ok())
            .unwrap_or(0);
        while buffer.len() < head_end + length {
            let mut chunk = [0; 8192];
            let read = socket.read(&mut chunk).await?;
            anyhow::ensure!(read > 0, "the body was cut off");
            buffer.extend_from_slice(&chunk[..read]);
        }
        let body: Vec<u8> = buffer.drain(..head_end + length).skip(head_end).collect();
        let status = if lossy.load(Ordering::SeqCst) && seen.fetch_add(1, Ordering::SeqCst) % 3 == 1 {
            lost.fetch_add(1, Ordering::SeqCst);
            200
        } else {
            let answer = client
                .post(format!("{target}/publish/"))
                .header("content-type", "application/json")
                .body(body)
                .send()
                .await;
            match answer {
                Ok(answer) => {
                    forwarded.fetch_add(1, Ordering::SeqCst);
                    answer.status().as_u16()
                }
                Err(_) => 502,
            }
        };
        socket.write_all(format!("HTTP/1.1 {status} X\r\ncontent-length: 0\r\n\r\n").as_bytes()).await?;
    }
}

#[tokio::test]
async fn viewers_through_pushpin_converge_under_lost_publishes_an_origin_restart_and_a_pushpin_restart()
-> anyhow::Result<()> {
    // The show, created before the server starts.
    let data = Arc::new(tempfile::tempdir()?);
    let show = json!({"id": SHOW, "name": "GRIP", "seats": one_row(SEATS), "maxActiveHoldsPerHolder": 1000,
                      "areas": [{"id": "floor", "name": "Floor", "capacity": 1000}]});
    create_show(data.path(), &show).await?;

    // Pushpin in front of the origin's fixed address; the origin publishes through the relay.
    let origin_addr = format!("127.0.0.1:{}", std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port());
    let mut pushpin = Pushpin::start(&[&origin_addr], KEY).await?;
    let relay = LossyRelay::start(pushpin.publish_url.clone()).await?;
    let args = ["--addr", &origin_addr, "--grip-publish", &relay.url, "--tick", "50ms"];
    let env = [("SEATHOLD_GRIP_KEY", KEY)];
    let mut server = Server::start_in_api_only(Arc::clone(&data), &args, &env).await?;
    pushpin.until_proxying("/api/time").await?;
    let origin = Api::at(&format!("http://{origin_addr}"), "origin");
    let through = Api::at(&pushpin.base_url, "pushpin");
    let order = through.seat_order(SHOW).await?;

    let watches: Vec<Arc<Watch>> = [
        ("json", "", false),
        ("json-2", "", false),
        ("only-taken", "?only=taken", false),
        ("compact", "?format=compact", true),
        ("compact-2", "?format=compact", true),
    ]
    .into_iter()
    .map(|(name, query, compact)| {
        Arc::new(Watch {
            name,
            query,
            viewer: Mutex::new(Viewer::new(order.clone(), compact)),
            connections: AtomicUsize::new(0),
            fault: Mutex::new(None),
        })
    })
    .collect();
    let readers: Vec<_> =
        watches.iter().map(|watch| tokio::spawn(self::watch(pushpin.base_url.clone(), Arc::clone(watch)))).collect();
    let context = |server: &Server, pushpin: &Pushpin| format!("{}\n{}", logs(&[("origin", server)]), pushpin.logs());
    converge(&origin, &watches, "the start", || context(&server, &pushpin)).await?;

    // 1. A third of the publishes lost on the way to Pushpin.
    let asked_before = grip_holds(&origin_addr, "grip_last").await?;
    relay.lossy.store(true, Ordering::SeqCst);
    let written = storm(&through, 4, 30, 0).await;
    relay.lossy.store(false, Ordering::SeqCst);
    // Pushpin finds a lost frame when the next one names another prev-id.
    one_more_change(&through).await?;
    let took = converge(&origin, &watches, "lost publishes", || context(&server, &pushpin)).await?;
    let lost = relay.lost.load(Ordering::SeqCst);
    println!(
        "lost publishes: {written} writes, {lost} of {} publish requests lost, {} requests from Pushpin with \
         Grip-Last for what it missed; converged {took:?} after the last write",
        lost + relay.forwarded.load(Ordering::SeqCst),
        grip_holds(&origin_addr, "grip_last").await? - asked_before,
    );
    anyhow::ensure!(lost > 0, "the relay lost nothing: the test did not test recovery");
    let recovered = grip_holds(&origin_addr, "grip_last").await? - asked_before;
    anyhow::ensure!(recovered > 0, "Pushpin never asked the origin for what it missed");
    let before: Vec<usize> = watches.iter().map(|watch| watch.connections.load(Ordering::SeqCst)).collect();

    // 2. The origin killed in the middle of a storm, then restarted on its address.
    let storming = {
        let through = through.clone();
        tokio::spawn(async move { storm(&through, 4, 40, 100).await })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    server.kill_9().await?;
    tokio::time::sleep(Duration::from_millis(300)).await;
    server = Server::start_in_api_only(Arc::clone(&data), &args, &env).await?;
    let written = storming.await?;
    one_more_change(&through).await?;
    let took = converge(&origin, &watches, "origin restart", || context(&server, &pushpin)).await?;
    let after: Vec<usize> = watches.iter().map(|watch| watch.connections.load(Ordering::SeqCst)).collect();
    println!(
        "origin killed mid-storm and restarted: {written} writes answered, streams reopened {:?} (Pushpin held the rest), \
         converged {took:?} after the last write",
        after.iter().zip(&before).map(|(a, b)| a - b).collect::<Vec<_>>()
    );

    // 3. Pushpin killed; writes go on at the origin; Pushpin restarted: the
    //    viewers come back with Last-Event-ID and get the frames they missed.
    let snapshots: Vec<usize> = watches.iter().map(|watch| watch.viewer.lock().unwrap().snapshots).collect();
    pushpin.kill();
    let written = storm(&origin, 2, 10, 200).await;
    pushpin.restart().await?;
    pushpin.until_proxying("/api/time").await?;
    one_more_change(&through).await?;
    let took = converge(&origin, &watches, "Pushpin restart", || context(&server, &pushpin)).await?;
    for (watch, (snapshots, before)) in watches.iter().zip(snapshots.iter().zip(&after)) {
        let (now, connections) = (watch.viewer.lock().unwrap().snapshots, watch.connections.load(Ordering::SeqCst));
        anyhow::ensure!(connections > *before, "{}: its stream was not cut when Pushpin was killed", watch.name);
        anyhow::ensure!(
            now == *snapshots,
            "{}: resumed with a snapshot, not the frames it missed ({snapshots} → {now})",
            watch.name
        );
    }
    println!(
        "Pushpin killed and restarted: {written} writes at the origin meanwhile; every viewer resumed with the frames it missed, converged {took:?} after the last write"
    );

    // The origin published frames and never held a viewer's stream itself.
    let metrics = reqwest::get(format!("http://{origin_addr}/metrics")).await?.text().await?;
    let published = metrics
        .lines()
        .find_map(|line| line.strip_prefix("seathold_grip_items_published_total "))
        .and_then(|count| count.trim().parse::<u64>().ok())
        .unwrap_or(0);
    anyhow::ensure!(published > 0, "the restarted origin published nothing");
    for channel in [format!("channel=show-{SHOW}"), format!("channel=show-{SHOW}.compact")] {
        let held = pushpin.handler_log("subscribe").iter().any(|line| line.ends_with(&channel));
        anyhow::ensure!(held, "Pushpin never held a stream on {channel}");
    }
    for (watch, reader) in watches.iter().zip(readers) {
        reader.abort();
        let viewer = watch.viewer.lock().unwrap();
        println!(
            "{}: {} snapshots, {} changes, {} streams",
            watch.name,
            viewer.snapshots,
            viewer.changes,
            watch.connections.load(Ordering::SeqCst)
        );
    }
    Ok(())
}
