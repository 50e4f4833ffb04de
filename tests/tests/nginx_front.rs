//! A real nginx in front of the real server, configured by the
//! repository's `ops/nginx/seathold.conf` (docs/operating.md "On-sale:
//! compression, caching and a CDN in front"): what every customer loads
//! alike is cached once per encoding, pages are revalidated with the
//! origin, everything else passes through, and the limits key on the
//! address nginx appends to `X-Forwarded-For`.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr};
use std::time::{Duration, Instant};

use anyhow::Context;
use reqwest::header::{ACCEPT_ENCODING, CACHE_CONTROL, ETAG, IF_MODIFIED_SINCE, IF_NONE_MATCH, LAST_MODIFIED};
use serde_json::json;

use seathold_system_tests::api::Api;
use seathold_system_tests::nginx::{self, Nginx};
use seathold_system_tests::server::database_url;
use seathold_system_tests::{PATIENCE, Server};

const SHOW: &str = "demo-theatre";

/// The admin token of the pass-through test's server.
const ADMIN: &str = "nginx-front-admin-token-0123456789";

/// Ways browsers and tools write `Accept-Encoding` (`None`: no header),
/// with the encoding the origin answers each with.
const ASKING: [(Option<&str>, &str); 7] = [
    (Some("gzip, deflate, br, zstd"), "br"),
    (Some("br, gzip"), "br"),
    (Some("br"), "br"),
    (Some("gzip"), "gzip"),
    (Some("gzip;q=1.0, br;q=0"), "gzip"),
    (Some("identity"), ""),
    (None, ""),
];

/// The origin's own count of answers to `method route` with `status`
/// (its request-latency histogram's count).
async fn origin_count(server: &Server, method: &str, route: &str, status: u16) -> anyhow::Result<u64> {
    let text = reqwest::get(format!("{}/metrics", server.base_url)).await?.text().await?;
    let series = format!(
        "seathold_http_request_duration_seconds_count{{method=\"{method}\",route=\"{route}\",status=\"{status}\"}} "
    );
    Ok(text.lines().find_map(|line| line.strip_prefix(&series)).map_or(Ok(0), |count| count.trim().parse())?)
}

/// A client that leaves bodies as they came (no decompression) and gives up after `PATIENCE`.
fn client() -> reqwest::Client {
    reqwest::Client::builder().timeout(PATIENCE).build().expect("a reqwest client")
}

/// `count` cold loads of `path` at once through nginx, spread over
/// [`ASKING`]: each must be 200, and every answer for one encoding the
/// same bytes with the same `ETag`. Returns the `ETag` per encoding.
async fn cold_loads(nginx: &Nginx, path: &str, count: usize) -> anyhow::Result<HashMap<&'static str, String>> {
    let client = client();
    let loads = (0..count).map(|at| {
        let (asking, encoding) = ASKING[at % ASKING.len()];
        let mut request = client.get(format!("{}{path}", nginx.base_url));
        if let Some(asking) = asking {
            request = request.header(ACCEPT_ENCODING, asking);
        }
        let path = path.to_owned();
        async move {
            let response = request.send().await?;
            anyhow::ensure!(response.status() == 200, "GET {path} ({asking:?}): {}", response.status());
            let etag = response.headers().get(ETAG).and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned();
            let coding = response.headers().get("content-encoding").and_then(|v| v.to_str().ok()).unwrap_or("");
            let coding = if coding == "gzip" {
                "gzip"
            } else if coding == "br" {
                "br"
            } else {
                ""
            };
            anyhow::ensure!(coding == encoding, "GET {path} asking {asking:?}: sent {coding:?}, expected {encoding:?}");
            anyhow::Ok((encoding, etag, response.bytes().await?.to_vec()))
        }
    });
    let mut seen: HashMap<&str, (String, Vec<u8>)> = HashMap::new();
    for outcome in futures_join(loads).await {
        let (encoding, etag, body) = outcome?;
        match seen.get(encoding) {
            Some((first_etag, first_body)) => anyhow::ensure!(
                *first_etag == etag && *first_body == body,
                "two different answers for {path} in {encoding:?}: {first_etag} and {etag}"
            ),
            None => {
                seen.insert(encoding, (etag, body));
            }
        }
    }
    Ok(seen.into_iter().map(|(encoding, (etag, _))| (encoding, etag)).collect())
}

/// Runs every future at once on this task's runtime and collects the outcomes in order.
async fn futures_join<F: std::future::Future + Send + 'static>(futures: impl Iterator<Item = F>) -> Vec<F::Output>
where
    F::Output: Send + 'static,
{
    let handles: Vec<_> = futures.map(tokio::spawn).collect();
    let mut outcomes = Vec::with_capacity(handles.len());
    for handle in handles {
        outcomes.push(handle.await.expect("a load task panicked"));
    }
    outcomes
}

#[tokio::test]
async fn nginx_caches_the_definition_and_hashed_files_once_per_encoding_and_revalidates_pages() -> anyhow::Result<()> {
    let server = Server::start(&["--trust-forwarded-for"]).await?;
    let nginx = Nginx::start(&server.base_url).await?;
    let context = || format!("--- nginx error log:\n{}\n--- server log:\n{}", nginx.error_log(), server.log());

    // The definition: 100 cold loads, one origin answer per encoding.
    let definition = format!("/api/shows/{SHOW}");
    let before = origin_count(&server, "GET", "/api/shows/{showId}", 200).await?;
    let etags = cold_loads(&nginx, &definition, 100).await.with_context(context)?;
    let origin = origin_count(&server, "GET", "/api/shows/{showId}", 200).await? - before;
    let logged = nginx.logged_at_least(&format!("GET {definition}"), 100).await?;
    let misses: Vec<_> = logged.iter().filter(|entry| entry.reached_origin()).collect();
    println!(
        "definition: 100 cold loads → {origin} origin GETs ({} encodings), nginx: {} hits",
        etags.len(),
        logged.iter().filter(|entry| entry.cache == "HIT").count()
    );
    anyhow::ensure!(etags.len() == 3, "three encodings expected: {etags:?}");
    anyhow::ensure!(origin == 3, "the origin answered the definition {origin} times for 100 cold loads: {misses:?}");
    anyhow::ensure!(misses.len() == 3 && logged.len() == 100, "nginx's log: {logged:?}");

    // A browser that has it asks with its tag: nginx answers 304 itself.
    let response = client()
        .get(format!("{}{definition}", nginx.base_url))
        .header(ACCEPT_ENCODING, "br")
        .header(IF_NONE_MATCH, &etags["br"])
        .send()
        .await?;
    anyhow::ensure!(response.status() == 304, "If-None-Match on the cached definition: {}", response.status());
    anyhow::ensure!(origin_count(&server, "GET", "/api/shows/{showId}", 304).await? == 0, "a 304 reached the origin");
    anyhow::ensure!(
        origin_count(&server, "GET", "/api/shows/{showId}", 200).await? - before == 3,
        "a load reached the origin"
    );

    // The UI's hashed files: the same, and their year-long Cache-Control passes.
    let dist = std::path::PathBuf::from(std::env::var("SEATHOLD_WEB_DIST")?);
    for suffix in ["_bg.wasm", ".js"] {
        let file = nginx::hashed_file(&dist, suffix)?;
        let etags = cold_loads(&nginx, &file, 100).await.with_context(context)?;
        let logged = nginx.logged_at_least(&format!("GET {file}"), 100).await?;
        let misses = logged.iter().filter(|entry| entry.reached_origin()).count();
        println!("{file}: 100 cold loads → {misses} origin GETs ({} encodings)", etags.len());
        anyhow::ensure!(misses == 3 && logged.len() == 100, "{file}: {misses} origin GETs for 100 loads: {logged:?}");
        let response = client().get(format!("{}{file}", nginx.base_url)).header(ACCEPT_ENCODING, "br").send().await?;
        let cache = response.headers().get(CACHE_CONTROL).and_then(|v| v.to_str().ok()).unwrap_or_default();
        anyhow::ensure!(cache.contains("immutable"), "{file} through nginx: Cache-Control {cache:?}");
        anyhow::ensure!(response.headers().get("x-cache-status").is_some_and(|v| v == "HIT"), "{file} not a HIT");
    }

    // A show's page: never kept by nginx; each use is revalidated by the origin.
    let page = format!("/shows/{SHOW}");
    let first = client().get(format!("{}{page}", nginx.base_url)).header(ACCEPT_ENCODING, "br").send().await?;
    anyhow::ensure!(first.status() == 200, "the page: {}", first.status());
    let cache = first.headers().get(CACHE_CONTROL).and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned();
    anyhow::ensure!(cache == "no-cache", "the page's Cache-Control: {cache:?}");
    anyhow::ensure!(first.headers().get("x-cache-status").is_none(), "nginx cached a page");
    let tag = first.headers().get(ETAG).context("the page's ETag")?.to_str()?.to_owned();
    let again = |tag: String| {
        let url = format!("{}{page}", nginx.base_url);
        async move { client().get(url).header(ACCEPT_ENCODING, "br").header(IF_NONE_MATCH, tag).send().await }
    };
    let revalidated = again(tag.clone()).await?;
    anyhow::ensure!(revalidated.status() == 304, "the page with its tag: {}", revalidated.status());
    let last = nginx.logged_at_least(&format!("GET {page}"), 2).await?.pop().context("the page in nginx's log")?;
    anyhow::ensure!(last.upstream == "304", "the origin did not revalidate the page: {last:?}");

    // A seat sells: the next revalidation gets the new page, not a kept one.
    let api = Api::at(&nginx.base_url, "nginx");
    let token = api.session().await?;
    api.post(&format!("/api/shows/{SHOW}/holds"), Some(&token), Some(&json!({"seats": ["A1"]})))
        .await?
        .expect(201, "a hold through nginx")?;
    let started = Instant::now();
    let mut page_uses = 2;
    loop {
        let answer = again(tag.clone()).await?;
        page_uses += 1;
        if answer.status() == 200 {
            let new_tag = answer.headers().get(ETAG).context("the new page's ETag")?.to_str()?.to_owned();
            anyhow::ensure!(new_tag != tag, "200 with the same tag {tag}");
            println!("page: revalidated with the origin, new tag after {:?}", started.elapsed());
            break;
        }
        anyhow::ensure!(answer.status() == 304, "the page: {}", answer.status());
        anyhow::ensure!(started.elapsed() < PATIENCE, "the page never changed after a hold");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let pages = nginx.logged_at_least(&format!("GET {page}"), page_uses).await?;
    anyhow::ensure!(
        pages.iter().all(|entry| entry.reached_origin() && entry.cache == "-"),
        "a page use did not reach the origin: {pages:?}"
    );

    // index.html (any other page): Last-Modified, revalidated the same way.
    let index = client().get(format!("{}/", nginx.base_url)).send().await?;
    let modified = index.headers().get(LAST_MODIFIED).context("index.html's Last-Modified")?.clone();
    let index = client().get(format!("{}/", nginx.base_url)).header(IF_MODIFIED_SINCE, modified).send().await?;
    anyhow::ensure!(index.status() == 304, "index.html with If-Modified-Since: {}", index.status());
    let last = nginx.logged_at_least("GET /", 2).await?.pop().context("/ in nginx's log")?;
    anyhow::ensure!(last.upstream == "304", "the origin did not revalidate /: {last:?}");
    Ok(())
}

#[tokio::test]
async fn writes_seat_maps_the_clock_and_live_streams_pass_through_nginx() -> anyhow::Result<()> {
    let data = tempfile::tempdir()?;
    let server = Server::start_on_database(
        &database_url(data.path()),
        &["--trust-forwarded-for"],
        &[("SEATHOLD_ADMIN_TOKEN", ADMIN)],
    )
    .await?;
    let nginx = Nginx::start(&server.base_url).await?;
    let api = Api::at(&nginx.base_url, "nginx");

    // A live stream through nginx, and a session.
    let mut stream = api.events(SHOW).await?;
    let snapshot = stream.next().await?.context("the stream ended before its snapshot")?;
    anyhow::ensure!(snapshot.kind == "snapshot", "first event: {snapshot:?}");
    let (mut events, _reader) = stream.forward();
    let token = api.session().await?;

    // The clock: every sample from the origin.
    for _ in 0..3 {
        api.get("/api/time", None).await?.expect(200, "the clock through nginx")?;
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    anyhow::ensure!(
        origin_count(&server, "GET", "/api/time", 200).await? == 3,
        "a clock sample did not reach the origin"
    );

    // A write, the seat map around it, and the change on the stream.
    let seats = format!("/api/shows/{SHOW}/seats");
    let before = api.get(&seats, None).await?;
    before.expect(200, "the seat map through nginx")?;
    anyhow::ensure!(before.seat_is_free("A1")?, "A1 taken at the start");
    let sent = Instant::now();
    let hold = api.post(&format!("/api/shows/{SHOW}/holds"), Some(&token), Some(&json!({"seats": ["A1"]}))).await?;
    hold.expect(201, "a hold through nginx")?;
    let arrived = until_seat(&mut events, "A1", false).await?;
    let delay = arrived.saturating_duration_since(sent);
    println!("a hold's change through nginx: {delay:?} after the hold was sent");
    anyhow::ensure!(delay < Duration::from_secs(2), "the change took {delay:?} through nginx");
    let after = api.get(&seats, None).await?;
    anyhow::ensure!(
        !after.seat_is_free("A1")? && after.int("version")? > before.int("version")?,
        "stale map: {after:?}"
    );
    anyhow::ensure!(
        origin_count(&server, "GET", "/api/shows/{showId}/seats", 200).await? == 2,
        "a seat map was cached"
    );

    // The session's holds and the operator's figures, asked twice each: every answer the origin's.
    for _ in 0..2 {
        api.get("/api/holds", Some(&token)).await?.expect(200, "the session's holds through nginx")?;
        let stats = api.get(&format!("/api/admin/shows/{SHOW}/stats"), Some(ADMIN)).await?;
        stats.expect(200, "the operator's figures through nginx")?;
        anyhow::ensure!(stats.body["held"] == 1, "stale figures: {stats:?}");
    }
    anyhow::ensure!(origin_count(&server, "GET", "/api/holds", 200).await? == 2, "the session's holds were cached");
    let stats = origin_count(&server, "GET", "/api/admin/shows/{showId}/stats", 200).await?;
    anyhow::ensure!(stats == 2, "the operator's figures reached the origin {stats} times of 2");

    // Quiet for longer than the 10 s keep-alive: the stream stays open and
    // the next change still arrives.
    tokio::time::sleep(Duration::from_secs(11)).await;
    let hold_id = hold.body["holdId"].as_str().context("the hold's id")?;
    let sent = Instant::now();
    let release = api.call(reqwest::Method::DELETE, &format!("/api/holds/{hold_id}"), Some(&token), None).await?;
    release.expect(204, "a release through nginx")?;
    let arrived = until_seat(&mut events, "A1", true).await?;
    let delay = arrived.saturating_duration_since(sent);
    println!("after 11 s quiet, a release's change through nginx: {delay:?} after it was sent");
    anyhow::ensure!(delay < Duration::from_secs(2), "the release's change took {delay:?} through nginx");

    // Nothing of these was cached or answered by nginx alone.
    for entry in nginx.access_log()? {
        anyhow::ensure!(entry.cache == "-" && entry.reached_origin(), "not passed through: {entry:?}");
    }
    Ok(())
}

/// Waits for a `change` event listing `seat` free (`free`) or taken; its arrival.
async fn until_seat(
    events: &mut tokio::sync::mpsc::UnboundedReceiver<seathold_system_tests::api::Event>,
    seat: &str,
    free: bool,
) -> anyhow::Result<Instant> {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        let event = tokio::time::timeout_at(deadline, events.recv())
            .await
            .with_context(|| format!("no change for {seat} in time"))?
            .context("the stream ended")?;
        let Some(listed) = event.data["seats"].as_array().and_then(|seats| seats.iter().find(|s| s["id"] == seat))
        else {
            continue;
        };
        let now = event.data["serverTime"].as_i64().context("a change without serverTime")?;
        let is_free = listed["sold"] == false && listed["holdExpiresAt"].as_i64().is_none_or(|at| at <= now);
        if is_free == free {
            return Ok(event.arrived);
        }
    }
}

#[tokio::test]
async fn limits_key_on_the_address_nginx_appends_to_x_forwarded_for() -> anyhow::Result<()> {
    let data = tempfile::tempdir()?;
    let server = Server::start_on_database(
        &database_url(data.path()),
        &["--trust-forwarded-for", "--sessions-per-address", "3"],
        &[("SEATHOLD_RATE_LIMITS", "on")],
    )
    .await?;
    let nginx = Nginx::start(&server.base_url).await?;
    // Two customers on two addresses (loopback has them all), one nginx.
    let from = |last: u8| {
        reqwest::Client::builder()
            .local_address(IpAddr::V4(Ipv4Addr::new(127, 0, 0, last)))
            .timeout(PATIENCE)
            .build()
            .expect("a client on its own address")
    };
    let (first, second) = (from(2), from(3));
    let session = |client: &reqwest::Client, spoof: Option<&str>| {
        let mut request = client.post(format!("{}/api/sessions", nginx.base_url));
        if let Some(spoof) = spoof {
            request = request.header("x-forwarded-for", spoof);
        }
        async move { anyhow::Ok(request.send().await?.status().as_u16()) }
    };
    for n in 1..=3 {
        anyhow::ensure!(session(&first, None).await? == 201, "session {n} from 127.0.0.2");
    }
    let refused = first.post(format!("{}/api/sessions", nginx.base_url)).send().await?;
    anyhow::ensure!(refused.status() == 429, "a 4th session from 127.0.0.2: {}", refused.status());
    anyhow::ensure!(refused.headers().contains_key("retry-after"), "429 without Retry-After");
    // Writing another address first does not help: nginx appends the one it saw.
    anyhow::ensure!(session(&first, Some("203.0.113.7")).await? == 429, "a spoofed X-Forwarded-For escaped the limit");
    // The other address has its own budget through the same nginx.
    for n in 1..=3 {
        anyhow::ensure!(session(&second, None).await? == 201, "session {n} from 127.0.0.3");
    }
    let clients: std::collections::BTreeSet<String> =
        nginx.logged_at_least("POST /api/sessions", 8).await?.into_iter().map(|entry| entry.client).collect();
    anyhow::ensure!(clients == ["127.0.0.2".to_owned(), "127.0.0.3".to_owned()].into(), "nginx saw {clients:?}");
    Ok(())
}
