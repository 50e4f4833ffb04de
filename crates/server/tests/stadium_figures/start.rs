//! The real binary with `--demo` on a fresh SQLite file, then again on the
//! same file: how long until it listens, how much memory it holds once
//! the stadium is loaded, and that the stadium's seat maps and a hold work.

use std::fmt;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use seat_state::wire::{BitsMap, CompactMap, SeatMap, SeatOrder, ShowDocument, decode_set, is_set};
use serde_json::{Value, json};

const STADIUM: &str = seathold_server::demo::STADIUM_SHOW_ID;

/// One start's figures.
pub struct Start {
    /// From spawning the process to its `listening on` line.
    listening: Duration,
    /// The first seat map of the stadium (its writer loads it then).
    first_map: Duration,
    /// Resident memory once the stadium was loaded and held on, and its peak.
    rss_kib: u64,
    peak_kib: u64,
}

pub struct Figures {
    profile: &'static str,
    starts: Vec<(&'static str, Start)>,
}

impl fmt::Display for Figures {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (what, start) in &self.starts {
            writeln!(
                f,
                "seathold serve --demo ({}, {what}): listening after {} ms, first stadium seat map after {} ms, \
                 resident {:.1} MiB (peak {:.1} MiB)",
                self.profile,
                start.listening.as_millis(),
                start.first_map.as_millis(),
                start.rss_kib as f64 / 1024.0,
                start.peak_kib as f64 / 1024.0
            )?;
        }
        Ok(())
    }
}

/// Starts the server twice on one database and checks the stadium each time.
pub fn run() -> Figures {
    let dir = tempfile::tempdir().unwrap();
    let database = format!("sqlite:{}", dir.path().join("stadium.db").display());
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let mut starts = Vec::new();
    for what in ["new database", "again on it"] {
        let (mut child, address, listening) = spawn(&database);
        let first_map = runtime.block_on(check(&address, what == "new database"));
        let (rss_kib, peak_kib) = memory(child.id());
        child.kill().unwrap();
        child.wait().unwrap();
        starts.push((what, Start { listening, first_map, rss_kib, peak_kib }));
    }
    let profile = if cfg!(debug_assertions) { "debug build" } else { "release build" };
    Figures { profile, starts }
}

/// `seathold serve --demo` on `database`: the child, its address and how
/// long it took to listen.
fn spawn(database: &str) -> (Child, String, Duration) {
    let began = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_seathold"))
        .args(["serve", "--demo", "--addr", "127.0.0.1:0", "--database", database, "--rate-limits", "off"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut lines = BufReader::new(stdout).lines();
    let address = loop {
        let line = lines.next().expect("the server printed its address").unwrap();
        if let Some(address) = line.strip_prefix("listening on ") {
            break address.to_owned();
        }
    };
    (child, address, began.elapsed())
}

/// The stadium's definition, seat maps and a hold, through HTTP; how long
/// the first seat map took.
async fn check(base: &str, fresh: bool) -> Duration {
    let client = reqwest::Client::new();
    let get = |path: String| client.get(format!("{base}{path}")).send();
    let began = Instant::now();
    let bits: BitsMap = get(format!("/api/shows/{STADIUM}/seats?format=bits")).await.unwrap().json().await.unwrap();
    let first_map = began.elapsed();
    let shows: Value = get("/api/shows".into()).await.unwrap().json().await.unwrap();
    let listed = shows["shows"].as_array().unwrap().iter().find(|show| show["id"] == STADIUM).unwrap().clone();
    assert_eq!(listed["seatCount"], 200_000);
    let definition =
        client.get(format!("{base}/api/shows/{STADIUM}")).header("accept-encoding", "br").send().await.unwrap();
    assert_eq!(definition.headers()["content-encoding"], "br");
    let on_the_wire = definition.bytes().await.unwrap().len();
    assert!(on_the_wire <= super::DEFINITION_BROTLI_MAX, "{on_the_wire} B");
    let document: ShowDocument = get(format!("/api/shows/{STADIUM}")).await.unwrap().json().await.unwrap();
    let order = SeatOrder::of_document(&document);
    assert_eq!(order.len(), 200_000, "the rows expand to every seat");
    let free_at_start = bits.decode_every(&order).unwrap();
    assert!(!fresh || free_at_start.seats.iter().all(|fact| !fact.sold && fact.hold_expires_at.is_none()));

    // A customer holds two seats side by side in the upper tier.
    let session: Value = client.post(format!("{base}/api/sessions")).send().await.unwrap().json().await.unwrap();
    let token = session["token"].as_str().unwrap().to_owned();
    let at = order.len() - 10 - 40 * usize::from(!fresh);
    let seats = [order.id(at).to_owned(), order.id(at + 1).to_owned()];
    let hold = client
        .post(format!("{base}/api/shows/{STADIUM}/holds"))
        .bearer_auth(&token)
        .json(&json!({"seats": seats}))
        .send()
        .await
        .unwrap();
    assert_eq!(hold.status(), 201, "{:?}", hold.text().await);
    let with_session = |path: String| client.get(format!("{base}{path}")).bearer_auth(&token).send();
    let taken: SeatMap =
        with_session(format!("/api/shows/{STADIUM}/seats?only=taken")).await.unwrap().json().await.unwrap();
    let held: Vec<&str> = taken.seats.iter().filter(|f| f.hold_expires_at.is_some()).map(|f| f.id.as_str()).collect();
    assert!(seats.iter().all(|seat| held.contains(&seat.as_str())), "{held:?}");
    let compact: CompactMap =
        with_session(format!("/api/shows/{STADIUM}/seats?format=compact")).await.unwrap().json().await.unwrap();
    let bits: BitsMap =
        with_session(format!("/api/shows/{STADIUM}/seats?format=bits")).await.unwrap().json().await.unwrap();
    let held_bits = decode_set(&bits.h, order.len()).unwrap();
    assert!(is_set(&held_bits, at) && is_set(&held_bits, at + 1));
    // Read a moment apart: the same seats, held to the same instant, mine.
    let (bits, compact) = (bits.decode_every(&order).unwrap(), compact.decode_every(&order).unwrap());
    assert!(bits.seats == compact.seats, "the bit sets and the compact map disagree");
    assert_eq!((bits.seats[at].mine, bits.seats[at + 1].mine), (Some(true), Some(true)));
    first_map
}

/// The process's resident memory and its peak, in KiB.
fn memory(pid: u32) -> (u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let field = |name: &str| {
        let line = status.lines().find(|line| line.starts_with(name)).unwrap();
        line.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap()
    };
    (field("VmRSS:"), field("VmHWM:"))
}
