//! Checkpoints: a show's kept holds and retired sales at one version, so a
//! load reads the latest checkpoint and only the journal after it. The
//! journal itself stays whole (it is the audit log and the export); start-up
//! follows the holds that can still hold places, not the show's history.

use std::collections::{BTreeSet, HashSet};

use anyhow::Context;
use serde::{Deserialize, Serialize};

use seat_state::{AreaId, Change, Hold, HoldId, HoldStatus, HolderId, Quantity, Retired, SeatId, ServerMillis};

use super::journal::{hold_from, through_the_codec};
use super::{LoadedHolds, Transition};

/// A show's state at `version`, as [`seat_state::ShowState`] keeps it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Checkpoint {
    pub version: i64,
    pub latest_at: Option<ServerMillis>,
    /// The holds stored `HELD`, oldest first (settled ones are read back
    /// from the journal when a later entry changes one).
    pub holds: Vec<Hold>,
    pub blocked: Vec<SeatId>,
    /// Every sale (seats with buyers, areas' places).
    pub retired: Retired,
}

/// The stored form: plain JSON, read back with the same validation as rows.
#[derive(Serialize, Deserialize)]
struct Stored {
    version: i64,
    latest_at: Option<i64>,
    holds: Vec<StoredHold>,
    blocked: Vec<String>,
    sold_seats: Vec<(String, String)>,
    sold_areas: Vec<(String, u32)>,
    #[serde(default)]
    floors: Vec<(String, i64)>,
}

#[derive(Serialize, Deserialize)]
struct StoredHold {
    id: String,
    holder: String,
    seats: Vec<String>,
    areas: Vec<(String, u32)>,
    created_at: i64,
    created_version: i64,
    expires_at: i64,
    extensions: u32,
    status: String,
    late: bool,
}

impl Checkpoint {
    /// The JSON a store keeps.
    pub fn encode(&self) -> anyhow::Result<String> {
        let text = |items: &[SeatId]| items.iter().map(ToString::to_string).collect();
        let stored = Stored {
            version: self.version,
            latest_at: self.latest_at.map(|at| at.0),
            holds: self.holds.iter().map(StoredHold::of).collect(),
            blocked: text(&self.blocked),
            sold_seats: self.retired.seats.iter().map(|(seat, buyer)| (seat.to_string(), buyer.to_string())).collect(),
            sold_areas: self.retired.areas.iter().map(|(area, places)| (area.to_string(), *places)).collect(),
            floors: self.retired.floors.iter().map(|(seat, floor)| (seat.to_string(), *floor)).collect(),
        };
        Ok(serde_json::to_string(&stored)?)
    }

    /// Reads back what [`Self::encode`] wrote.
    pub fn decode(json: &str) -> anyhow::Result<Self> {
        let stored: Stored = serde_json::from_str(json).context("reading a checkpoint")?;
        let seats = |ids: &[String]| ids.iter().map(|id| SeatId::parse(id)).collect::<Result<Vec<_>, _>>();
        Ok(Self {
            version: stored.version,
            latest_at: stored.latest_at.map(ServerMillis),
            holds: stored.holds.into_iter().map(StoredHold::into_hold).collect::<anyhow::Result<_>>()?,
            blocked: seats(&stored.blocked)?,
            retired: Retired {
                seats: stored
                    .sold_seats
                    .into_iter()
                    .map(|(seat, buyer)| Ok((SeatId::parse(&seat)?, HolderId::new(buyer))))
                    .collect::<anyhow::Result<_>>()?,
                areas: stored
                    .sold_areas
                    .into_iter()
                    .map(|(area, places)| Ok((AreaId::parse(&area)?, places)))
                    .collect::<anyhow::Result<_>>()?,
                floors: stored
                    .floors
                    .into_iter()
                    .map(|(seat, floor)| Ok((SeatId::parse(&seat)?, floor)))
                    .collect::<anyhow::Result<_>>()?,
            },
        })
    }
}

impl StoredHold {
    fn of(hold: &Hold) -> Self {
        Self {
            id: hold.id.to_string(),
            holder: hold.holder.to_string(),
            seats: hold.seats.iter().map(ToString::to_string).collect(),
            areas: hold.areas.iter().map(|(area, quantity)| (area.to_string(), quantity.get())).collect(),
            created_at: hold.created_at.0,
            created_version: hold.created_version,
            expires_at: hold.expires_at.0,
            extensions: hold.extensions,
            status: hold.stored_status.as_str().to_owned(),
            late: hold.late,
        }
    }

    fn into_hold(self) -> anyhow::Result<Hold> {
        Ok(Hold {
            id: HoldId::parse(&self.id)?,
            holder: HolderId::new(self.holder),
            seats: self.seats.iter().map(|seat| SeatId::parse(seat)).collect::<Result<_, _>>()?,
            areas: self
                .areas
                .iter()
                .map(|(area, places)| {
                    Ok((AreaId::parse(area)?, Quantity::new(*places).context("a hold of zero places")?))
                })
                .collect::<anyhow::Result<_>>()?,
            created_at: ServerMillis(self.created_at),
            created_version: self.created_version,
            expires_at: ServerMillis(self.expires_at),
            extensions: self.extensions,
            stored_status: HoldStatus::parse(&self.status).context("a checkpointed hold's status")?,
            late: self.late,
        })
    }
}

/// Holds the journal after a checkpoint changes but neither the checkpoint
/// keeps nor that journal creates: evicted holds changed later (a late
/// confirm or a release of a long-expired hold). The store reads each as of
/// the checkpoint's version.
pub fn missing_holds(checkpoint: &Checkpoint, tail: &[Transition]) -> Vec<HoldId> {
    let mut known: HashSet<&HoldId> = checkpoint.holds.iter().map(|hold| &hold.id).collect();
    let mut missing = BTreeSet::new();
    for entry in tail {
        match &entry.change {
            Change::Created { hold } => _ = known.insert(&hold.id),
            change => {
                if let Some(id) = change.hold_id().filter(|id| !known.contains(id)) {
                    missing.insert(id.clone());
                }
            }
        }
    }
    missing.into_iter().collect()
}

/// What a load hands the writer: the checkpoint (if any) with `recalled`
/// holds (read for [`missing_holds`]) and the journal after it, to replay.
/// Recalled confirmed holds stay out: their sales are already retired.
pub fn load_from(
    version: i64,
    checkpoint: Option<Checkpoint>,
    recalled: Vec<Hold>,
    tail: Vec<Transition>,
) -> LoadedHolds {
    let latest_at = tail.iter().map(|entry| entry.at).max();
    let Some(checkpoint) = checkpoint else {
        return LoadedHolds { version, latest_at, journal: tail, ..LoadedHolds::default() };
    };
    let mut holds = checkpoint.holds;
    holds.extend(recalled.into_iter().filter(|hold| hold.stored_status != HoldStatus::Confirmed));
    holds.sort_by_key(|hold| hold.created_version);
    LoadedHolds {
        version,
        holds,
        blocked: checkpoint.blocked,
        journal: tail,
        latest_at: latest_at.max(checkpoint.latest_at),
        retired: checkpoint.retired,
        from_checkpoint: checkpoint.version,
    }
}

/// A hold as a journal kept in memory (entry `i` at version `i + 1`) makes
/// it up to `version`: the memory stores' [`super::Store::hold_at`].
pub fn hold_in(journal: &[Transition], hold: &HoldId, version: i64) -> anyhow::Result<Option<Hold>> {
    let upto = usize::try_from(version.max(0)).unwrap_or(0).min(journal.len());
    let entries: Vec<Transition> = journal[..upto]
        .iter()
        .filter(|transition| transition.change.hold_id() == Some(hold))
        .map(through_the_codec)
        .collect::<anyhow::Result<_>>()?;
    hold_from(&entries)
}

/// A load from a journal kept in memory and its checkpoint's JSON: the
/// memory stores' [`super::Store::load_holds`], through the same codec and
/// steps as the SQL stores.
pub fn load_in(journal: &[Transition], checkpoint: Option<&str>) -> anyhow::Result<LoadedHolds> {
    let version = journal.len() as i64;
    let checkpoint = checkpoint.map(Checkpoint::decode).transpose()?;
    let after = checkpoint.as_ref().map_or(0, |checkpoint| checkpoint.version);
    let from = usize::try_from(after).unwrap_or(0).min(journal.len());
    let tail: Vec<Transition> = journal[from..].iter().map(through_the_codec).collect::<anyhow::Result<_>>()?;
    let recalled = match &checkpoint {
        Some(checkpoint) => missing_holds(checkpoint, &tail)
            .iter()
            .filter_map(|id| hold_in(journal, id, after).transpose())
            .collect::<anyhow::Result<_>>()?,
        None => Vec::new(),
    };
    Ok(load_from(version, checkpoint, recalled, tail))
}
