//! Cold arena page loads per second, measured alone: what a customer's
//! first visit asks of the origin (the page, the definition, the compact
//! seat map, compressed), over many kept-alive connections.

use std::time::{Duration, Instant};

use hyper::Method;
use hyper::header::{ACCEPT_ENCODING, HeaderValue};

use super::SHOW;
use super::steps::percentile;
use crate::http::Connection;

/// What the loads came to.
#[derive(Debug, Default)]
pub struct Loads {
    pub per_second: f64,
    pub p50_ms: f64,
    pub p99_ms: f64,
    pub bytes_per_load: f64,
    pub errors: u64,
    pub count: usize,
}

/// `connections` workers, each loading page + definition + map in turn until `duration` has passed.
pub async fn page_loads(
    bases: &[String],
    connections: usize,
    duration: Duration,
    query: &str,
) -> anyhow::Result<Loads> {
    let mut opened = Vec::with_capacity(connections);
    for worker in 0..connections {
        opened.push(Connection::open(&bases[worker % bases.len()]).await?);
    }
    let paths = [format!("/shows/{SHOW}"), format!("/api/shows/{SHOW}"), format!("/api/shows/{SHOW}/seats{query}")];
    let started = Instant::now();
    let deadline = started + duration;
    let mut workers = Vec::new();
    for mut connection in opened {
        let paths = paths.clone();
        workers.push(tokio::spawn(async move {
            let headers = [(ACCEPT_ENCODING, HeaderValue::from_static("br, gzip"))];
            let (mut micros, mut errors) = (Vec::new(), 0u64);
            let before = connection.received();
            while Instant::now() < deadline {
                let sent = Instant::now();
                for path in &paths {
                    if connection.send_with(Method::GET, path, &headers, None).await?.status != 200 {
                        errors += 1;
                    }
                }
                micros.push(sent.elapsed().as_secs_f64() * 1000.0);
            }
            anyhow::Ok((micros, errors, connection.received() - before))
        }));
    }
    let (mut ms, mut errors, mut bytes) = (Vec::new(), 0, 0);
    for worker in workers {
        let (part, part_errors, part_bytes) = worker.await??;
        ms.extend(part);
        errors += part_errors;
        bytes += part_bytes;
    }
    let elapsed = started.elapsed().as_secs_f64();
    ms.sort_by(f64::total_cmp);
    Ok(Loads {
        per_second: ms.len() as f64 / elapsed,
        p50_ms: percentile(&ms, 0.5),
        p99_ms: percentile(&ms, 0.99),
        bytes_per_load: if ms.is_empty() { 0.0 } else { bytes as f64 / ms.len() as f64 },
        errors,
        count: ms.len(),
    })
}
