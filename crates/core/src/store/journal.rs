//! The journal as every store keeps it: each entry is the [`Transition`] its
//! writer committed, seat-state's `Change` with the condition it was
//! decided under (what `ShowState::apply` checks), written as one row. The
//! SQL stores share this row codec; a load hands the entries to the writer,
//! which applies them with `ShowState::apply` (the one transition model).

use seat_state::{AreaId, Change, Hold, HoldId, HoldStatus, HolderId, Quantity, SeatId, ServerMillis, ShowState};

use super::{LoadedHolds, Transition};

impl LoadedHolds {
    /// The show as storage has it: the checkpoint's holds, then the journal
    /// after it applied in order through [`ShowState::apply`]. `state` is a
    /// fresh state of the show. Fails when an entry does not apply as the
    /// next version (a journal that contradicts itself).
    pub fn replay(self, mut state: ShowState) -> anyhow::Result<ShowState> {
        state.restore_retired(&self.retired);
        for hold in self.holds {
            state.restore(hold);
        }
        state.restore_blocked(&self.blocked);
        state.set_version(self.from_checkpoint);
        for entry in &self.journal {
            state.apply_next(entry.version, &entry.change).map_err(anyhow::Error::msg)?;
        }
        anyhow::ensure!(
            state.version() == self.version,
            "the journal ends at version {} but the show is at {}",
            state.version(),
            self.version
        );
        Ok(state)
    }
}

/// One hold as its own entries (oldest first, its creation first) make it,
/// through seat-state's transition of a hold; `None` for no entries.
pub fn hold_from(entries: &[Transition]) -> anyhow::Result<Option<Hold>> {
    let Some((first, rest)) = entries.split_first() else { return Ok(None) };
    let Change::Created { hold } = &first.change else {
        anyhow::bail!("journal entry {} changes a hold the journal does not create before it", first.version)
    };
    let mut hold = hold.clone();
    for entry in rest {
        anyhow::ensure!(
            hold.fits(&entry.change),
            "journal entry {} does not fit hold {} as it stood",
            entry.version,
            hold.id
        );
        hold.take(&entry.change);
    }
    Ok(Some(hold))
}

/// A journal row's columns after its show, version, instant, hold and holder.
#[derive(Default)]
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
    /// extended, confirmed, expired: the deadline the write found.
    pub checked_deadline: Option<i64>,
    /// released: the status the write found (`HELD` or `EXPIRED`).
    pub checked_status: Option<&'static str>,
}

/// A journal row as read back, every column.
pub struct StoredRow {
    pub version: i64,
    pub at: i64,
    pub hold_id: Option<String>,
    pub holder_id: String,
    pub action: String,
    pub places: Option<String>,
    pub expires_at: Option<i64>,
    pub extensions: Option<i64>,
    pub late: Option<bool>,
    pub checked_deadline: Option<i64>,
    pub checked_status: Option<String>,
}

/// A journal query selecting every column in [`StoredRow`]'s order, then
/// `$rest` (a literal: the whole query is one constant, made at compile time).
macro_rules! select_journal {
    ($rest:literal) => {
        concat!(
            "SELECT version, at, hold_id, holder_id, action, places, expires_at, extensions, late, checked_deadline, ",
            "checked_status FROM journal ",
            $rest
        )
    };
}
pub(crate) use select_journal;

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

    fn areas(&self) -> anyhow::Result<Vec<(AreaId, Quantity)>> {
        self.areas
            .iter()
            .map(|(area, quantity)| {
                let quantity = Quantity::new(*quantity).ok_or_else(|| anyhow::anyhow!("zero quantity"))?;
                Ok((AreaId::parse(area)?, quantity))
            })
            .collect()
    }
}

impl Row {
    /// The row a change is written as.
    pub fn of(change: &Change) -> Self {
        let row = |action| Self { action, ..Self::default() };
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
            Change::Extended { from, to, extensions, .. } => Self {
                expires_at: Some(to.0),
                extensions: Some(i64::from(*extensions)),
                checked_deadline: Some(from.0),
                ..row("extended")
            },
            Change::Confirmed { deadline, late, .. } => {
                Self { late: Some(*late), checked_deadline: Some(deadline.0), ..row("confirmed") }
            }
            Change::Released { previous, .. } => Self { checked_status: Some(previous.as_str()), ..row("released") },
            Change::Expired { deadline, .. } => Self { checked_deadline: Some(deadline.0), ..row("expired") },
            Change::Blocked { seats, reason } => Self { places: Places::seats(seats, Some(reason)), ..row("blocked") },
            Change::Unblocked { seats } => Self { places: Places::seats(seats, None), ..row("unblocked") },
        }
    }
}

impl StoredRow {
    /// The transition this row records.
    pub fn transition(self) -> anyhow::Result<Transition> {
        let action = self.action.as_str();
        let version = self.version;
        let hold = || -> anyhow::Result<HoldId> {
            let id = self.hold_id.as_deref().ok_or_else(|| anyhow::anyhow!("a {action} entry without a hold"))?;
            Ok(HoldId::parse(id)?)
        };
        let deadline = |column: Option<i64>, what: &str| {
            column.map(ServerMillis).ok_or_else(|| anyhow::anyhow!("{action} entry {version} without its {what}"))
        };
        let checked = || deadline(self.checked_deadline, "checked deadline");
        let places = || Places::read(action, self.places.as_deref());
        let change = match action {
            "created" => {
                let places = places()?;
                Change::Created {
                    hold: Hold {
                        id: hold()?,
                        holder: HolderId::new(self.holder_id.clone()),
                        seats: places.seat_ids()?,
                        areas: places.areas()?,
                        created_at: ServerMillis(self.at),
                        created_version: version,
                        expires_at: deadline(self.expires_at, "deadline")?,
                        extensions: 0,
                        stored_status: HoldStatus::Held,
                        late: false,
                    },
                }
            }
            "extended" => Change::Extended {
                hold: hold()?,
                from: checked()?,
                to: deadline(self.expires_at, "deadline")?,
                extensions: u32::try_from(self.extensions.unwrap_or(0))?,
            },
            "confirmed" => Change::Confirmed { hold: hold()?, deadline: checked()?, late: self.late.unwrap_or(false) },
            "released" => {
                let found = self.checked_status.as_deref().and_then(HoldStatus::parse);
                let previous =
                    found.ok_or_else(|| anyhow::anyhow!("released entry {version} without its checked status"))?;
                Change::Released { hold: hold()?, previous }
            }
            "expired" => Change::Expired { hold: hold()?, deadline: checked()? },
            "blocked" => {
                let places = places()?;
                Change::Blocked { seats: places.seat_ids()?, reason: places.reason.unwrap_or_default() }
            }
            "unblocked" => Change::Unblocked { seats: places()?.seat_ids()? },
            other => anyhow::bail!("unknown journal action {other:?}"),
        };
        Ok(Transition { change, holder: HolderId::new(self.holder_id), at: ServerMillis(self.at), version })
    }
}

impl StoredRow {
    /// The row a store keeps for `transition`, every column.
    pub fn written(transition: &Transition) -> Self {
        let row = Row::of(&transition.change);
        Self {
            version: transition.version,
            at: transition.at.0,
            hold_id: transition.change.hold_id().map(ToString::to_string),
            holder_id: transition.holder.to_string(),
            action: row.action.to_owned(),
            places: row.places,
            expires_at: row.expires_at,
            extensions: row.extensions,
            late: row.late,
            checked_deadline: row.checked_deadline,
            checked_status: row.checked_status.map(str::to_owned),
        }
    }
}

/// A transition written as a row and read back: what a memory store keeps
/// passes through the same codec as the SQL stores'.
pub fn through_the_codec(transition: &Transition) -> anyhow::Result<Transition> {
    StoredRow::written(transition).transition()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn transition(version: i64, change: Change) -> Transition {
        Transition { change, holder: HolderId::new("ann"), at: ServerMillis(version), version }
    }

    fn hold_id() -> HoldId {
        HoldId::parse("hold-one").unwrap()
    }

    fn created() -> Transition {
        let hold = Hold {
            id: hold_id(),
            holder: HolderId::new("ann"),
            seats: vec![SeatId::parse("A1").unwrap()],
            areas: vec![(AreaId::parse("floor").unwrap(), Quantity::new(2).unwrap())],
            created_at: ServerMillis(1),
            created_version: 1,
            expires_at: ServerMillis(100),
            extensions: 0,
            stored_status: HoldStatus::Held,
            late: false,
        };
        transition(1, Change::Created { hold })
    }

    #[test]
    fn every_change_reads_back_as_written_its_condition_included() {
        let hold = hold_id;
        let seats = vec![SeatId::parse("B2").unwrap()];
        let changes = [
            created(),
            transition(
                2,
                Change::Extended { hold: hold(), from: ServerMillis(100), to: ServerMillis(200), extensions: 1 },
            ),
            transition(3, Change::Confirmed { hold: hold(), deadline: ServerMillis(200), late: true }),
            transition(4, Change::Released { hold: hold(), previous: HoldStatus::Expired }),
            transition(5, Change::Expired { hold: hold(), deadline: ServerMillis(200) }),
            transition(6, Change::Blocked { seats: seats.clone(), reason: "desk".to_owned() }),
            transition(7, Change::Unblocked { seats }),
        ];
        for written in changes {
            let read = through_the_codec(&written).unwrap();
            assert_eq!(
                (read.change, read.holder, read.at, read.version),
                (written.change, written.holder, written.at, written.version)
            );
        }
    }

    #[test]
    fn a_row_without_its_condition_is_refused_by_name() {
        let expired = transition(2, Change::Expired { hold: hold_id(), deadline: ServerMillis(100) });
        let stored = StoredRow { checked_deadline: None, ..StoredRow::written(&expired) };
        assert_eq!(stored.transition().unwrap_err().to_string(), "expired entry 2 without its checked deadline");
    }

    #[test]
    fn a_hold_is_rebuilt_from_its_own_entries_and_one_that_does_not_fit_fails() {
        let extended = transition(
            2,
            Change::Extended { hold: hold_id(), from: ServerMillis(100), to: ServerMillis(200), extensions: 1 },
        );
        let expired = transition(3, Change::Expired { hold: hold_id(), deadline: ServerMillis(200) });
        let hold = hold_from(&[created(), extended.clone(), expired]).unwrap().unwrap();
        assert_eq!((hold.expires_at, hold.extensions, hold.stored_status), (ServerMillis(200), 1, HoldStatus::Expired));
        let stale = transition(3, Change::Expired { hold: hold_id(), deadline: ServerMillis(100) });
        let error = hold_from(&[created(), extended, stale]).unwrap_err();
        assert_eq!(error.to_string(), "journal entry 3 does not fit hold hold-one as it stood");
    }
}
