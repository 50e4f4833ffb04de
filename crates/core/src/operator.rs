//! The box office's operator view of a show, computed from what the
//! writer and the journal say: active holds, stats, the journal as text.

use std::collections::HashMap;

use seat_state::wire::{HoldCounts, OnSaleMinute, OperatorHold, PlaceCounts, SeatMap};
use seat_state::{Change, Hold, ServerMillis, Show};

use crate::store::Transition;

/// Active holds as the operator's list shows them.
pub fn hold_list(active: &[Hold]) -> Vec<OperatorHold> {
    active
        .iter()
        .map(|hold| OperatorHold {
            hold_id: hold.id.to_string(),
            holder: hold.holder.to_string(),
            seats: hold.seats.iter().map(ToString::to_string).collect(),
            areas: hold.areas.iter().map(|(area, quantity)| (area.to_string(), i64::from(quantity.get()))).collect(),
            created_at: hold.created_at.0,
            expires_at: hold.expires_at.0,
            extensions: i64::from(hold.extensions),
        })
        .collect()
}

/// Seats and area places by state at the map's instant: in all, and seats
/// per category.
pub fn place_counts(show: &Show, map: &SeatMap) -> (PlaceCounts, HashMap<String, PlaceCounts>) {
    let now = map.server_time;
    let mut total = PlaceCounts::default();
    let mut by_category: HashMap<String, PlaceCounts> = HashMap::new();
    for (seat, fact) in show.seats.iter().zip(&map.seats) {
        let held = fact.hold_expires_at.is_some_and(|deadline| deadline > now);
        // A seat blocked while held or sold counts as held or sold: the
        // block only keeps it from the next hold.
        let count = |counts: &mut PlaceCounts| match (fact.sold, held, fact.blocked) {
            (true, _, _) => counts.sold += 1,
            (false, true, _) => counts.held += 1,
            (false, false, true) => counts.blocked += 1,
            (false, false, false) => counts.free += 1,
        };
        count(&mut total);
        if let Some(category) = &seat.category {
            count(by_category.entry(category.clone()).or_default());
        }
    }
    for area in &map.areas {
        let held: i64 = area.holds.iter().filter(|hold| hold.expires_at > now).map(|hold| hold.quantity).sum();
        let (sold, held) = (area.sold.max(0) as u64, held.max(0) as u64);
        total.sold += sold;
        total.held += held;
        total.free += (area.capacity.max(0) as u64).saturating_sub(sold + held);
    }
    (total, by_category)
}

/// Holds by outcome, and the median seconds from creation to confirmation.
pub fn hold_counts(journal: &[Transition]) -> (HoldCounts, Option<f64>) {
    let mut counts = HoldCounts::default();
    let mut created_at = HashMap::new();
    let mut to_confirm = Vec::new();
    for entry in journal {
        match &entry.change {
            Change::Created { hold } => {
                counts.created += 1;
                created_at.insert(&hold.id, entry.at);
            }
            Change::Confirmed { hold, .. } => {
                counts.confirmed += 1;
                if let Some(created) = created_at.get(hold) {
                    to_confirm.push((entry.at.0 - created.0) as f64 / 1000.0);
                }
            }
            Change::Expired { .. } => counts.expired += 1,
            Change::Released { .. } => counts.released += 1,
            Change::Extended { .. } | Change::Blocked { .. } | Change::Unblocked { .. } => {}
        }
    }
    to_confirm.sort_by(f64::total_cmp);
    let median = match to_confirm.len() {
        0 => None,
        n if n % 2 == 1 => Some(to_confirm[n / 2]),
        n => Some((to_confirm[n / 2 - 1] + to_confirm[n / 2]) / 2.0),
    };
    (counts, median)
}

/// A minute in milliseconds.
pub const MINUTE: i64 = 60_000;

/// How many minutes the operator's charts show.
pub const CHART_MINUTES: usize = 60;

/// The first instants of the last hour's minutes, oldest first: whole
/// minutes of the server's clock, the last one the minute `now` is in.
pub fn last_hour(now: ServerMillis) -> Vec<ServerMillis> {
    let current = now.0.div_euclid(MINUTE) * MINUTE;
    (0..CHART_MINUTES as i64).rev().map(|back| ServerMillis(current - back * MINUTE)).collect()
}

/// Holds created, confirmed and expired in each minute starting at
/// `starts` (ascending, a minute apart), as [`OnSaleMinute`]s without the
/// queue's figures.
pub fn per_minute(journal: &[Transition], starts: &[ServerMillis]) -> Vec<OnSaleMinute> {
    let mut minutes: Vec<OnSaleMinute> =
        starts.iter().map(|start| OnSaleMinute { at: start.0, ..OnSaleMinute::default() }).collect();
    let Some(first) = starts.first() else { return minutes };
    for entry in journal {
        let Ok(at) = usize::try_from((entry.at.0 - first.0).div_euclid(MINUTE)) else { continue };
        let Some(minute) = minutes.get_mut(at) else { continue };
        match entry.change {
            Change::Created { .. } => minute.holds += 1,
            Change::Confirmed { .. } => minute.confirms += 1,
            Change::Expired { .. } => minute.expiries += 1,
            _ => {}
        }
    }
    minutes
}

/// One journal entry's fields, for JSON Lines and CSV alike.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExportedEntry {
    pub version: i64,
    pub at: i64,
    /// Absent for a block or unblock.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hold_id: Option<String>,
    /// The hold's holder, or `operator` for the box office's own releases,
    /// blocks and unblocks.
    pub holder: String,
    pub action: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seats: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub areas: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub extensions: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub late: Option<bool>,
    /// A block's reason.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl From<&Transition> for ExportedEntry {
    fn from(entry: &Transition) -> Self {
        let mut exported = Self {
            version: entry.version,
            at: entry.at.0,
            hold_id: entry.change.hold_id().map(ToString::to_string),
            holder: entry.holder.to_string(),
            action: "",
            seats: None,
            areas: None,
            expires_at: None,
            extensions: None,
            late: None,
            reason: None,
        };
        let listed =
            |seats: &[seat_state::SeatId]| Some(seats.iter().map(ToString::to_string).collect::<Vec<_>>().join(" "));
        exported.action = match &entry.change {
            Change::Created { hold } => {
                exported.seats = listed(&hold.seats);
                let areas = hold.areas.iter().map(|(area, quantity)| format!("{area}:{}", quantity.get()));
                exported.areas = Some(areas.collect::<Vec<_>>().join(" "));
                exported.expires_at = Some(hold.expires_at.0);
                "created"
            }
            Change::Extended { to, extensions, .. } => {
                (exported.expires_at, exported.extensions) = (Some(to.0), Some(*extensions));
                "extended"
            }
            Change::Confirmed { late, .. } => {
                exported.late = Some(*late);
                "confirmed"
            }
            Change::Released { .. } => "released",
            Change::Expired { .. } => "expired",
            Change::Blocked { seats, reason } => {
                (exported.seats, exported.reason) = (listed(seats), Some(reason.clone()));
                "blocked"
            }
            Change::Unblocked { seats } => {
                exported.seats = listed(seats);
                "unblocked"
            }
        };
        exported
    }
}

/// The journal as JSON Lines: one object per entry, oldest first.
pub fn json_lines(journal: &[Transition]) -> anyhow::Result<String> {
    let mut text = String::new();
    for entry in journal {
        text.push_str(&serde_json::to_string(&ExportedEntry::from(entry))?);
        text.push('\n');
    }
    Ok(text)
}

/// The journal as CSV, with a header; seats and areas space-separated.
pub fn csv(journal: &[Transition]) -> anyhow::Result<String> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer.write_record([
        "version",
        "at",
        "holdId",
        "holder",
        "action",
        "seats",
        "areas",
        "expiresAt",
        "extensions",
        "late",
        "reason",
    ])?;
    for entry in journal {
        let e = ExportedEntry::from(entry);
        let text = |value: Option<String>| value.unwrap_or_default();
        writer.write_record([
            e.version.to_string(),
            e.at.to_string(),
            text(e.hold_id),
            e.holder,
            e.action.to_owned(),
            text(e.seats),
            text(e.areas),
            text(e.expires_at.map(|t| t.to_string())),
            text(e.extensions.map(|n| n.to_string())),
            text(e.late.map(|late| late.to_string())),
            text(e.reason),
        ])?;
    }
    Ok(String::from_utf8(writer.into_inner()?)?)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use seat_state::{HoldId, HoldStatus, HolderId};

    use super::*;

    fn entry(version: i64, at: i64, hold: &str, change: impl FnOnce(HoldId) -> Change) -> Transition {
        let hold_id = HoldId::parse(hold).expect("a valid hold id");
        Transition { version, at: ServerMillis(at), holder: HolderId::new("h"), change: change(hold_id) }
    }

    const DEADLINE: ServerMillis = ServerMillis(999_999);

    fn created(id: HoldId) -> Change {
        let hold = Hold {
            id,
            holder: HolderId::new("h"),
            seats: vec![],
            areas: vec![],
            created_at: ServerMillis(0),
            created_version: 1,
            expires_at: DEADLINE,
            extensions: 0,
            stored_status: HoldStatus::Held,
            late: false,
        };
        Change::Created { hold }
    }

    fn confirmed(late: bool) -> impl FnOnce(HoldId) -> Change {
        move |hold| Change::Confirmed { hold, deadline: DEADLINE, late }
    }

    fn expired(hold: HoldId) -> Change {
        Change::Expired { hold, deadline: DEADLINE }
    }

    #[test]
    fn the_median_time_to_confirm_pairs_each_confirmation_with_its_creation() {
        let journal = [
            entry(1, 0, "hold-one", created),
            entry(2, 1000, "hold-two", created),
            entry(3, 4000, "hold-one", confirmed(false)),
            entry(4, 11_000, "hold-two", confirmed(true)),
            entry(5, 12_000, "hold-thr", created),
            entry(6, 13_000, "hold-thr", expired),
        ];
        let (counts, median) = hold_counts(&journal);
        assert_eq!(counts, HoldCounts { created: 3, confirmed: 2, expired: 1, released: 0 });
        assert_eq!(median, Some(7.0), "4 s and 10 s");
        assert_eq!(hold_counts(&journal[..2]).1, None);
    }

    #[test]
    fn the_last_hour_is_sixty_whole_minutes_ending_with_the_current_one() {
        let hour = last_hour(ServerMillis(7_200_000 + 61_500));
        assert_eq!(hour.len(), CHART_MINUTES);
        assert_eq!(hour.last(), Some(&ServerMillis(7_200_000 + 60_000)));
        assert_eq!(hour.first(), Some(&ServerMillis(7_200_000 + 60_000 - 59 * MINUTE)));
        assert!(hour.windows(2).all(|pair| pair[1].0 - pair[0].0 == MINUTE));
    }

    #[test]
    fn each_entry_counts_in_the_minute_it_was_decided_in_and_older_ones_not_at_all() {
        let journal = [
            entry(1, 59_999, "hold-old", created),
            entry(2, 60_000, "hold-one", created),
            entry(3, 119_999, "hold-two", created),
            entry(4, 120_000, "hold-one", confirmed(false)),
            entry(5, 150_000, "hold-two", expired),
            entry(6, 150_001, "hold-old", |hold| Change::Released { hold, previous: HoldStatus::Expired }),
        ];
        let minutes = per_minute(&journal, &[ServerMillis(60_000), ServerMillis(120_000)]);
        let counts: Vec<(u64, u64, u64)> = minutes.iter().map(|m| (m.holds, m.confirms, m.expiries)).collect();
        assert_eq!(counts, [(2, 0, 0), (0, 1, 1)]);
        assert_eq!(minutes[1].at, 120_000);
        assert_eq!(minutes[0].queue_length, None, "the queue's figures are not the journal's");
    }
}
