//! After the storm: every process's full seat map against what customers
//! were told. No seat in two `201` holds; the sold seats are exactly the
//! confirmed (`200`) holds' seats; the held seats are exactly those of the
//! holds neither confirmed nor released. Every answer is accounted for.
//! Then every sampled viewer's map (its snapshot and every event after
//! it) against `GET …/seats` of its process.

use std::collections::{BTreeMap, HashSet};
use std::time::{Duration, Instant};

use seat_state::wire::{SeatMap, SeatOrder};
use serde_json::Value;

use super::Held;
use super::stream::Seen;
use super::viewer::ViewerMap;

/// One line saying what held, or the first thing that did not.
pub async fn check(bases: &[String], show: &str, holds: &[Held]) -> Result<String, String> {
    let mut held_once = HashSet::new();
    for seat in holds.iter().flat_map(|held| &held.seats) {
        if !held_once.insert(seat.as_str()) {
            return Err(format!("seat {seat} was held by two 201 answers"));
        }
    }
    if let Some(held) = holds.iter().find(|held| held.seats.len() != 2) {
        return Err(format!("hold {} has {} seats, not 2", held.hold_id, held.seats.len()));
    }
    let seats = |keep: fn(&Held) -> bool| -> HashSet<&str> {
        holds.iter().filter(|held| keep(held)).flat_map(|held| held.seats.iter().map(String::as_str)).collect()
    };
    let confirmed = seats(|held| held.confirmed());
    let still_held = seats(|held| !held.confirmed() && !held.released);
    let mut versions = Vec::new();
    for base in bases {
        let map = settled_map(base, bases, show).await?;
        versions.push(map["version"].as_i64().unwrap_or_default());
        let now = map["serverTime"].as_i64().unwrap_or_default();
        let sold = crate::sold::sold_seats(&map);
        let held: HashSet<&str> = map["seats"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|seat| seat["sold"] != true && seat["holdExpiresAt"].as_i64().is_some_and(|at| at > now))
            .filter_map(|seat| seat["id"].as_str())
            .collect();
        if sold != confirmed {
            return Err(format!(
                "{base}: {} seats sold on the map, {} confirmed to customers",
                sold.len(),
                confirmed.len()
            ));
        }
        if held != still_held {
            return Err(format!(
                "{base}: {} seats held on the map, {} held for customers",
                held.len(),
                still_held.len()
            ));
        }
    }
    Ok(format!(
        "no seat held twice; {} holds (201), {} confirmed (200) = the {} seats sold on the map{}, {} seats still \
         held = the holds neither confirmed nor released",
        holds.len(),
        holds.iter().filter(|held| held.confirmed()).count(),
        confirmed.len(),
        if bases.len() > 1 { format!(" of every process (versions {versions:?})") } else { String::new() },
        still_held.len()
    ))
}

/// The full seat map of `base`, once every process has the same version
/// (another process's commits reach it by catch-up; at most 10 s).
async fn settled_map(base: &str, bases: &[String], show: &str) -> Result<Value, String> {
    let get = async |base: &str| -> Result<Value, String> {
        let url = format!("{base}/api/shows/{show}/seats");
        let answer = reqwest::get(&url).await.map_err(|e| format!("{url}: {e}"))?;
        answer.json().await.map_err(|e| format!("{url}: {e}"))
    };
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let map = get(base).await?;
        let mut newest = map["version"].as_i64().unwrap_or_default();
        for other in bases {
            newest = newest.max(get(other).await?["version"].as_i64().unwrap_or_default());
        }
        if map["version"].as_i64() == Some(newest) || Instant::now() > deadline {
            return Ok(map);
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Every sample stream still open at the end: its map is at its process's
/// version and shows every seat as `GET …/seats` does (sold, held until
/// the same deadline, or free, as of that map's `serverTime`; blocked or not).
pub async fn viewers(seen: &[Seen], order: &SeatOrder, show: &str) -> Result<String, String> {
    let mut maps: BTreeMap<&str, (ViewerMap, i64)> = BTreeMap::new();
    let mut checked = 0;
    for stream in seen.iter().filter(|stream| stream.sample && stream.opened.is_some() && stream.lost.is_none()) {
        let viewer = stream.map.as_ref().ok_or("a sample stream ended without a map")?;
        if !maps.contains_key(stream.base.as_str()) {
            let url = format!("{}/api/shows/{show}/seats", stream.base);
            let answer = reqwest::get(&url).await.map_err(|e| format!("{url}: {e}"))?;
            let map: SeatMap = answer.json().await.map_err(|e| format!("{url}: {e}"))?;
            let read = ViewerMap::of_map(&map, order).map_err(|e| format!("{url}: {e}"))?;
            maps.insert(&stream.base, (read, map.server_time));
        }
        let Some((map, now)) = maps.get(stream.base.as_str()) else { continue };
        if viewer.version != map.version {
            return Err(format!("a viewer of {} at v{}, its map at v{}", stream.base, viewer.version, map.version));
        }
        if let Some(difference) = viewer.differs_as_of(map, *now, order) {
            return Err(format!("a viewer of {} at v{}: {difference}", stream.base, viewer.version));
        }
        checked += 1;
    }
    let versions: Vec<i64> = maps.values().map(|(map, _)| map.version).collect();
    Ok(format!("every one of the {checked} sampled viewers' maps = GET /seats of its process (v{versions:?})"))
}
