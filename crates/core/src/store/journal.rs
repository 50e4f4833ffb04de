//! The journal as every store keeps it: one entry per transition, and how
//! entries become holds again. The SQL stores share one row codec.

use std::collections::{BTreeSet, HashMap};

use seat_state::{AreaId, Change, Hold, HoldId, HoldStatus, HolderId, Quantity, SeatId, ServerMillis, ShowState};

use super::{LoadedHolds, Transition};

/// One entry of a show's journal (its audit log), as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JournalEntry {
    /// The show's version once this entry is applied.
    pub version: i64,
    /// The instant it was decided at.
    pub at: ServerMillis,
    /// The hold it changed; `None` for a block or unblock.
    pub hold_id: Option<HoldId>,
    /// Whose hold it is; the operator for a block or unblock.
    pub holder: HolderId,
    pub action: JournalAction,
}

/// What a journal entry did to its hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JournalAction {
    Created {
        seats: Vec<SeatId>,
        areas: Vec<(AreaId, Quantity)>,
        expires_at: ServerMillis,
    },
    Extended {
        expires_at: ServerMillis,
        extensions: u32,
    },
    Confirmed {
        late: bool,
    },
    Released,
    Expired,
    /// The box office took these seats off sale.
    Blocked {
        seats: Vec<SeatId>,
        reason: String,
    },
    /// The box office put these seats back on sale.
    Unblocked {
        seats: Vec<SeatId>,
    },
}

impl From<&Transition> for JournalEntry {
    fn from(transition: &Transition) -> Self {
        let action = match &transition.change {
            Change::Created { hold } => JournalAction::Created {
                seats: hold.seats.clone(),
                areas: hold.areas.clone(),
                expires_at: hold.expires_at,
            },
            Change::Extended { to, extensions, .. } => {
                JournalAction::Extended { expires_at: *to, extensions: *extensions }
            }
            Change::Confirmed { late, .. } => JournalAction::Confirmed { late: *late },
            Change::Released { .. } => JournalAction::Released,
            Change::Expired { .. } => JournalAction::Expired,
            Change::Blocked { seats, reason } => {
                JournalAction::Blocked { seats: seats.clone(), reason: reason.clone() }
            }
            Change::Unblocked { seats } => JournalAction::Unblocked { seats: seats.clone() },
        };
        Self {
            version: transition.version,
            at: transition.at,
            hold_id: transition.change.hold_id().cloned(),
            holder: transition.holder.clone(),
            action,
        }
    }
}

impl JournalEntry {
    /// The hold a `created` entry made, as it was then.
    pub fn created_hold(&self) -> Option<Hold> {
        let JournalAction::Created { seats, areas, expires_at } = &self.action else { return None };
        Some(Hold {
            id: self.hold_id.clone()?,
            holder: self.holder.clone(),
            seats: seats.clone(),
            areas: areas.clone(),
            created_at: self.at,
            created_version: self.version,
            expires_at: *expires_at,
            extensions: 0,
            stored_status: HoldStatus::Held,
            late: false,
        })
    }

    /// The change this entry made, as `state` (at the version before it)
    /// applies it; `None` when it names a hold `state` does not have.
    pub fn change_for(&self, state: &ShowState) -> Option<Change> {
        self.change_of(|id| state.hold(id))
    }

    /// The change this entry made, given the hold it names as it stood
    /// before: the row keeps what the change set, and the conditions it
    /// was written under come from the hold.
    fn change_of<'a>(&self, stored: impl FnOnce(&HoldId) -> Option<&'a Hold>) -> Option<Change> {
        match &self.action {
            JournalAction::Blocked { seats, reason } => {
                return Some(Change::Blocked { seats: seats.clone(), reason: reason.clone() });
            }
            JournalAction::Unblocked { seats } => return Some(Change::Unblocked { seats: seats.clone() }),
            _ => {}
        }
        if let Some(hold) = self.created_hold() {
            return Some(Change::Created { hold });
        }
        let stored = stored(self.hold_id.as_ref()?)?;
        let hold = stored.id.clone();
        Some(match self.action {
            JournalAction::Created { .. } | JournalAction::Blocked { .. } | JournalAction::Unblocked { .. } => {
                return None;
            }
            JournalAction::Extended { expires_at, extensions } => {
                Change::Extended { hold, from: stored.expires_at, to: expires_at, extensions }
            }
            JournalAction::Confirmed { late } => Change::Confirmed { hold, deadline: stored.expires_at, late },
            JournalAction::Released => Change::Released { hold, previous: stored.stored_status },
            JournalAction::Expired => Change::Expired { hold, deadline: stored.expires_at },
        })
    }
}

/// The holds (and blocked seats) a journal describes after `holds` (as a
/// checkpoint keeps them; empty for the whole journal), oldest first: how
/// every store rebuilds a show. `version` is the show's stored version.
pub fn replay_onto(holds: Vec<Hold>, version: i64, journal: &[JournalEntry]) -> anyhow::Result<LoadedHolds> {
    let mut blocked = BTreeSet::new();
    let mut loaded = replay_blocked_onto(holds, &mut blocked, version, journal)?;
    loaded.blocked = blocked.into_iter().collect();
    Ok(loaded)
}

/// As [`replay_onto`], with the blocked seats kept in `blocked`.
pub(super) fn replay_blocked_onto(
    mut holds: Vec<Hold>,
    blocked: &mut BTreeSet<SeatId>,
    version: i64,
    journal: &[JournalEntry],
) -> anyhow::Result<LoadedHolds> {
    let mut by_id: HashMap<HoldId, usize> = holds.iter().enumerate().map(|(at, hold)| (hold.id.clone(), at)).collect();
    for entry in journal {
        match &entry.action {
            JournalAction::Blocked { seats, .. } => blocked.extend(seats.iter().cloned()),
            JournalAction::Unblocked { seats } => seats.iter().for_each(|seat| _ = blocked.remove(seat)),
            _ => {}
        }
        let Some(hold_id) = &entry.hold_id else { continue };
        if let Some(hold) = entry.created_hold() {
            by_id.insert(hold_id.clone(), holds.len());
            holds.push(hold);
            continue;
        }
        let hold = by_id
            .get(hold_id)
            .and_then(|&at| holds.get_mut(at))
            .ok_or_else(|| anyhow::anyhow!("the journal names unknown hold {hold_id}"))?;
        // seat-state's transition of a hold, as the writer made it: a
        // committed entry always fits the hold it followed.
        let change = entry.change_of(|_| Some(&*hold)).filter(|change| hold.fits(change));
        let change = change.ok_or_else(|| {
            anyhow::anyhow!("journal entry {} does not fit hold {hold_id} as it stood", entry.version)
        })?;
        hold.take(&change);
    }
    let latest_at = journal.iter().map(|entry| entry.at).max();
    Ok(LoadedHolds { version, holds, blocked: Vec::new(), latest_at, retired: Default::default(), from_checkpoint: 0 })
}

/// A journal row's columns after its show, version, instant, hold and holder.
pub struct Row {
    pub action: &'static str,
    /// created: `{"seats": ["B7", …], "areas": [["standing", 2], …]}`;
    /// blocked: `{"seats": […], "reason": "…"}`; unblocked: `{"seats": […]}`.
    pub places: Option<String>,
    /// created, extended: the deadline from now on.
    pub expires_at: Option<i64>,
    /// extended: how many extensions so far.
    pub extensions: Option<i64>,
    /// confirmed: after the deadline under `honorIfFree`.
    pub late: Option<bool>,
}

/// The `places` of a `created`, `blocked` or `unblocked` row.
#[derive(serde::Serialize, serde::Deserialize)]
struct Places {
    seats: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    areas: Vec<(String, u32)>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
}

impl Places {
    fn seats(seats: &[SeatId], reason: Option<&str>) -> Option<String> {
        let seats = seats.iter().map(ToString::to_string).collect();
        serde_json::to_string(&Self { seats, areas: Vec::new(), reason: reason.map(str::to_owned) }).ok()
    }

    fn read(action: &str, places: Option<&str>) -> anyhow::Result<Self> {
        Ok(serde_json::from_str(places.ok_or_else(|| anyhow::anyhow!("{action} without places"))?)?)
    }

    fn seat_ids(&self) -> anyhow::Result<Vec<SeatId>> {
        Ok(self.seats.iter().map(|seat| SeatId::parse(seat)).collect::<Result<_, _>>()?)
    }
}

impl Row {
    /// The row a change is written as.
    pub fn of(change: &Change) -> Self {
        let row = |action| Self { action, places: None, expires_at: None, extensions: None, late: None };
        match change {
            Change::Created { hold } => {
                let places = Places {
                    seats: hold.seats.iter().map(ToString::to_string).collect(),
                    areas: hold.areas.iter().map(|(area, quantity)| (area.to_string(), quantity.get())).collect(),
                    reason: None,
                };
                Self {
                    places: serde_json::to_string(&places).ok(),
                    expires_at: Some(hold.expires_at.0),
                    ..row("created")
                }
            }
            Change::Extended { to, extensions, .. } => {
                Self { expires_at: Some(to.0), extensions: Some(i64::from(*extensions)), ..row("extended") }
            }
            Change::Confirmed { late, .. } => Self { late: Some(*late), ..row("confirmed") },
            Change::Released { .. } => row("released"),
            Change::Expired { .. } => row("expired"),
            Change::Blocked { seats, reason } => Self { places: Places::seats(seats, Some(reason)), ..row("blocked") },
            Change::Unblocked { seats } => Self { places: Places::seats(seats, None), ..row("unblocked") },
        }
    }

    /// The action a row records.
    pub fn action(
        action: &str,
        places: Option<&str>,
        expires_at: Option<i64>,
        extensions: Option<i64>,
        late: Option<bool>,
    ) -> anyhow::Result<JournalAction> {
        let deadline =
            || expires_at.map(ServerMillis).ok_or_else(|| anyhow::anyhow!("a {action} entry without a deadline"));
        Ok(match action {
            "created" => {
                let places = Places::read(action, places)?;
                JournalAction::Created {
                    seats: places.seat_ids()?,
                    areas: places
                        .areas
                        .iter()
                        .map(|(area, quantity)| {
                            let quantity = Quantity::new(*quantity).ok_or_else(|| anyhow::anyhow!("zero quantity"))?;
                            Ok((AreaId::parse(area)?, quantity))
                        })
                        .collect::<anyhow::Result<_>>()?,
                    expires_at: deadline()?,
                }
            }
            "extended" => {
                JournalAction::Extended { expires_at: deadline()?, extensions: u32::try_from(extensions.unwrap_or(0))? }
            }
            "confirmed" => JournalAction::Confirmed { late: late.unwrap_or(false) },
            "released" => JournalAction::Released,
            "expired" => JournalAction::Expired,
            "blocked" => {
                let places = Places::read(action, places)?;
                JournalAction::Blocked { seats: places.seat_ids()?, reason: places.reason.unwrap_or_default() }
            }
            "unblocked" => JournalAction::Unblocked { seats: Places::read(action, places)?.seat_ids()? },
            other => anyhow::bail!("unknown journal action {other:?}"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(version: i64, action: JournalAction) -> JournalEntry {
        let hold_id = Some(HoldId::parse("hold-one").unwrap());
        JournalEntry { version, at: ServerMillis(version), hold_id, holder: HolderId::new("ann"), action }
    }

    fn created() -> JournalEntry {
        let seats = vec![SeatId::parse("A1").unwrap()];
        entry(1, JournalAction::Created { seats, areas: Vec::new(), expires_at: ServerMillis(100) })
    }

    #[test]
    fn a_load_replays_each_entry_through_the_holds_own_transition() {
        let extended = entry(2, JournalAction::Extended { expires_at: ServerMillis(200), extensions: 1 });
        let loaded = replay_onto(Vec::new(), 3, &[created(), extended, entry(3, JournalAction::Expired)]).unwrap();
        let hold = &loaded.holds[0];
        assert_eq!((hold.expires_at, hold.extensions, hold.stored_status), (ServerMillis(200), 1, HoldStatus::Expired));
    }

    #[test]
    fn an_entry_that_does_not_fit_its_hold_fails_the_load() {
        let extended = entry(3, JournalAction::Extended { expires_at: ServerMillis(200), extensions: 1 });
        let error = replay_onto(Vec::new(), 3, &[created(), entry(2, JournalAction::Expired), extended]).unwrap_err();
        assert_eq!(error.to_string(), "journal entry 3 does not fit hold hold-one as it stood");
    }
}
