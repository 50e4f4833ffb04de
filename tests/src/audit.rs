//! An audit of a show's journal read straight from PostgreSQL, with its own
//! model of the rules (not the server's): the versions are 1, 2, … up to
//! the show's version; instants never go back; a seat is taken only when
//! no active hold has it and it is not sold; a hold is extended or
//! confirmed only while active, released unless confirmed or released,
//! expired only at or after its deadline; no seat is confirmed twice.
//! Seats only: area quantities are not audited.

use std::collections::{BTreeMap, HashMap};

use anyhow::Context;
use serde_json::Value;

/// What a show's journal says, replayed.
#[derive(Debug, Default)]
pub struct JournalAudit {
    /// The show's stored version.
    pub version: i64,
    /// Journal entries.
    pub entries: usize,
    /// Every hold's status (`HELD`, `CONFIRMED`, `RELEASED`, `EXPIRED`) and
    /// deadline after the last entry.
    pub holds: BTreeMap<String, (&'static str, i64)>,
    /// Each sold seat's confirmed holds (more than one is a seat sold twice).
    pub sold: HashMap<String, Vec<String>>,
    /// Every broken rule found, in journal order.
    pub problems: Vec<String>,
}

/// One seat's latest hold while replaying.
struct SeatHold {
    hold_id: String,
    status: &'static str,
    expires_at: i64,
}

/// Reads and replays `show`'s journal.
pub async fn audit_journal(sql: &mut tokio_postgres::Client, show: &str) -> anyhow::Result<JournalAudit> {
    // One snapshot: the version and the journal agree.
    let snapshot = sql
        .build_transaction()
        .isolation_level(tokio_postgres::IsolationLevel::RepeatableRead)
        .read_only(true)
        .start()
        .await?;
    let version: i64 = snapshot.query_one("SELECT version FROM shows WHERE id = $1", &[&show]).await?.get(0);
    let rows = snapshot
        .query(
            "SELECT version, at, hold_id, action, places, expires_at FROM journal WHERE show_id = $1 ORDER BY version",
            &[&show],
        )
        .await?;
    snapshot.commit().await?;
    let mut audit = JournalAudit { version, entries: rows.len(), ..JournalAudit::default() };
    let versions: Vec<i64> = rows.iter().map(|row| row.get(0)).collect();
    if versions != (1..=version).collect::<Vec<_>>() {
        let first_gap = versions.iter().zip(1..).find(|(v, n)| **v != *n);
        audit.problems.push(format!(
            "{show}: {} journal versions for show version {version}; the first out of place (found, expected): \
             {first_gap:?}",
            versions.len()
        ));
    }

    let mut seats: HashMap<String, SeatHold> = HashMap::new();
    let mut hold_seats: HashMap<String, Vec<String>> = HashMap::new();
    let mut latest_at = i64::MIN;
    for row in &rows {
        let (version, at, hold_id, action): (i64, i64, Option<String>, String) =
            (row.get(0), row.get(1), row.get(2), row.get(3));
        let (places, expires_at): (Option<String>, Option<i64>) = (row.get(4), row.get(5));
        if at < latest_at {
            audit.problems.push(format!("v{version} at {at}, before an earlier entry's {latest_at}"));
        }
        latest_at = latest_at.max(at);
        // A block or unblock (the box office's) names no hold.
        let Some(hold_id) = hold_id else { continue };
        if action == "created" {
            // `places` is {"seats": [...], "areas": [[id, quantity], ...]}.
            let places: Value = serde_json::from_str(places.as_deref().unwrap_or("null"))
                .with_context(|| format!("v{version}: places {places:?}"))?;
            let taken: Vec<String> = places["seats"]
                .as_array()
                .with_context(|| format!("v{version}: no seats in places {places}"))?
                .iter()
                .map(|seat| seat.as_str().unwrap_or_default().to_owned())
                .collect();
            let deadline = expires_at.with_context(|| format!("v{version}: created without a deadline"))?;
            for seat in &taken {
                let taken_from = seats
                    .get(seat)
                    .filter(|before| before.status == "CONFIRMED" || before.status == "HELD" && before.expires_at > at);
                if let Some(before) = taken_from {
                    audit.problems.push(format!(
                        "v{version}: {hold_id} takes {seat} at {at} from {} ({}, until {})",
                        before.hold_id, before.status, before.expires_at
                    ));
                }
                let latest = SeatHold { hold_id: hold_id.clone(), status: "HELD", expires_at: deadline };
                seats.insert(seat.clone(), latest);
            }
            if audit.holds.insert(hold_id.clone(), ("HELD", deadline)).is_some() {
                audit.problems.push(format!("v{version}: {hold_id} created twice"));
            }
            hold_seats.insert(hold_id, taken);
            continue;
        }
        let Some(&(status, deadline)) = audit.holds.get(&hold_id) else {
            audit.problems.push(format!("v{version}: {action} of unknown hold {hold_id}"));
            continue;
        };
        let active = status == "HELD" && deadline > at;
        let (status, deadline) = match action.as_str() {
            "extended" if active => ("HELD", expires_at.unwrap_or(deadline)),
            "confirmed" if active => ("CONFIRMED", deadline),
            "released" if status != "CONFIRMED" && status != "RELEASED" => ("RELEASED", deadline),
            "expired" if status == "HELD" && deadline <= at => ("EXPIRED", deadline),
            _ => {
                audit.problems.push(format!("v{version}: {action} of {hold_id} ({status} until {deadline}) at {at}"));
                continue;
            }
        };
        audit.holds.insert(hold_id.clone(), (status, deadline));
        for seat in hold_seats.get(&hold_id).into_iter().flatten() {
            if action == "confirmed" {
                audit.sold.entry(seat.clone()).or_default().push(hold_id.clone());
            }
            if let Some(latest) = seats.get_mut(seat).filter(|latest| latest.hold_id == hold_id) {
                (latest.status, latest.expires_at) = (status, deadline);
            }
        }
    }
    for (seat, holds) in &audit.sold {
        if holds.len() > 1 {
            audit.problems.push(format!("{seat} sold twice: {holds:?}"));
        }
    }
    Ok(audit)
}
