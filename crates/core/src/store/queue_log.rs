//! A show's queue log as every store keeps it (API.md "Waiting room (v3)"):
//! its own sequence beside the journal, since a join changes no seat and
//! must not move the seat map's version. The SQL stores share this codec.

use seat_state::{HolderId, QueueEntry, QueueEvent, ServerMillis};

/// The columns after show, seq and instant.
pub struct QueueRow {
    pub kind: &'static str,
    pub holder: Option<String>,
    /// joined: `{"address": …}`; drawn: `{"seed": …}`; set: the settings given.
    pub data: String,
}

#[derive(serde::Serialize, serde::Deserialize, Default)]
struct Data {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    address: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    seed: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    rate: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    paused: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    closed: Option<bool>,
}

impl QueueRow {
    pub fn of(event: &QueueEvent) -> Self {
        let (kind, holder, data) = match event {
            QueueEvent::Joined { holder, address } => {
                ("joined", Some(holder.to_string()), Data { address: Some(address.clone()), ..Data::default() })
            }
            QueueEvent::Drawn { seed } => ("drawn", None, Data { seed: Some(*seed), ..Data::default() }),
            QueueEvent::Set { rate, paused, closed } => {
                ("set", None, Data { rate: *rate, paused: *paused, closed: *closed, ..Data::default() })
            }
        };
        // Serializing a struct of strings, numbers and booleans cannot fail.
        Self { kind, holder, data: serde_json::to_string(&data).unwrap_or_default() }
    }

    /// The entry a stored row records.
    pub fn entry(seq: i64, at: i64, kind: &str, holder: Option<String>, data: &str) -> anyhow::Result<QueueEntry> {
        let data: Data = serde_json::from_str(data)?;
        let event = match kind {
            "joined" => QueueEvent::Joined {
                holder: HolderId::new(holder.ok_or_else(|| anyhow::anyhow!("a joined entry without a holder"))?),
                address: data.address.unwrap_or_default(),
            },
            "drawn" => {
                QueueEvent::Drawn { seed: data.seed.ok_or_else(|| anyhow::anyhow!("a drawn entry without a seed"))? }
            }
            "set" => QueueEvent::Set { rate: data.rate, paused: data.paused, closed: data.closed },
            other => anyhow::bail!("unknown queue entry kind {other:?}"),
        };
        Ok(QueueEntry { seq: u64::try_from(seq)?, at: ServerMillis(at), event })
    }
}

/// Checks that `entries` continue a log whose last seq is `last`.
pub fn continues(last: u64, entries: &[QueueEntry]) -> bool {
    entries.iter().enumerate().all(|(at, entry)| entry.seq == last + 1 + at as u64)
}
