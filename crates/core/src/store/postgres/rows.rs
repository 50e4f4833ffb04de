//! Journal rows in PostgreSQL: read after a version, written a batch at a
//! time (one statement per table, arrays unnested).

use deadpool_postgres::GenericClient;
use seat_state::{Change, Hold, HoldId};

use crate::store::Transition;
use crate::store::journal::{Row, StoredRow, hold_from, select_journal};

/// A show's journal entries after `after`, oldest first.
pub async fn journal(client: &impl GenericClient, show_id: &str, after: i64) -> anyhow::Result<Vec<Transition>> {
    journal_page(client, show_id, after, None).await
}

/// At most `limit` (`None`: all) of a show's journal entries after `after`, oldest first.
pub async fn journal_page(
    client: &impl GenericClient,
    show_id: &str,
    after: i64,
    limit: Option<i64>,
) -> anyhow::Result<Vec<Transition>> {
    let rows = client
        .query(
            select_journal!("WHERE show_id = $1 AND version > $2 ORDER BY version LIMIT $3"),
            &[&show_id, &after, &limit],
        )
        .await?;
    entries(&rows)
}

/// One hold as the show's journal up to `version` makes it.
pub async fn hold_at(
    client: &impl GenericClient,
    show_id: &str,
    hold: &HoldId,
    version: i64,
) -> anyhow::Result<Option<Hold>> {
    let rows = client
        .query(
            select_journal!("WHERE hold_id = $2 AND show_id = $1 AND version <= $3 ORDER BY version"),
            &[&show_id, &hold.as_str(), &version],
        )
        .await?;
    hold_from(&entries(&rows)?)
}

/// Several holds as the show's journal up to `version` makes them, in one
/// round trip; ids the show does not have are left out.
pub async fn holds_at(
    client: &impl GenericClient,
    show_id: &str,
    holds: &[HoldId],
    version: i64,
) -> anyhow::Result<Vec<Hold>> {
    let ids: Vec<&str> = holds.iter().map(HoldId::as_str).collect();
    let rows = client
        .query(
            select_journal!("WHERE hold_id = ANY($2) AND show_id = $1 AND version <= $3 ORDER BY hold_id, version"),
            &[&show_id, &ids, &version],
        )
        .await?;
    let entries = entries(&rows)?;
    entries
        .chunk_by(|a, b| a.change.hold_id() == b.change.hold_id())
        .filter_map(|one| hold_from(one).transpose())
        .collect()
}

/// Journal rows (selected by `select_journal!`) as entries.
fn entries(rows: &[tokio_postgres::Row]) -> anyhow::Result<Vec<Transition>> {
    rows.iter()
        .map(|row| {
            StoredRow {
                version: row.get(0),
                at: row.get(1),
                hold_id: row.get(2),
                holder_id: row.get(3),
                action: row.get(4),
                places: row.get(5),
                expires_at: row.get(6),
                extensions: row.get(7),
                late: row.get(8),
                checked_deadline: row.get(9),
                checked_status: row.get(10),
            }
            .transition()
        })
        .collect()
}

/// The journal rows of a batch, column by column.
#[derive(Default)]
pub struct Columns {
    pub version: Vec<i64>,
    pub at: Vec<i64>,
    pub hold_id: Vec<Option<String>>,
    pub holder_id: Vec<String>,
    pub action: Vec<&'static str>,
    pub places: Vec<Option<String>>,
    pub expires_at: Vec<Option<i64>>,
    pub extensions: Vec<Option<i64>>,
    pub late: Vec<Option<bool>>,
    pub checked_deadline: Vec<Option<i64>>,
    pub checked_status: Vec<Option<&'static str>>,
}

/// New holds' ids with their holder and order, and outbox deadlines.
#[derive(Default)]
pub struct Claims {
    pub hold_id: Vec<String>,
    pub holder_id: Vec<String>,
    pub created_at: Vec<i64>,
    pub version: Vec<i64>,
    pub outbox_hold: Vec<String>,
    pub outbox_deadline: Vec<i64>,
}

/// Splits a batch into the columns its statements take.
pub fn columns(transitions: &[Transition]) -> (Columns, Claims) {
    let (mut journal, mut claims) = (Columns::default(), Claims::default());
    for transition in transitions {
        let row = Row::of(&transition.change);
        journal.version.push(transition.version);
        journal.at.push(transition.at.0);
        journal.hold_id.push(transition.change.hold_id().map(ToString::to_string));
        journal.holder_id.push(transition.holder.to_string());
        journal.action.push(row.action);
        journal.places.push(row.places);
        journal.expires_at.push(row.expires_at);
        journal.extensions.push(row.extensions);
        journal.late.push(row.late);
        journal.checked_deadline.push(row.checked_deadline);
        journal.checked_status.push(row.checked_status);
        match &transition.change {
            Change::Created { hold } => {
                claims.hold_id.push(hold.id.to_string());
                claims.holder_id.push(hold.holder.to_string());
                claims.created_at.push(hold.created_at.0);
                claims.version.push(hold.created_version);
                claims.outbox_hold.push(hold.id.to_string());
                claims.outbox_deadline.push(hold.expires_at.0);
            }
            Change::Extended { hold, to, .. } => {
                claims.outbox_hold.push(hold.to_string());
                claims.outbox_deadline.push(to.0);
            }
            Change::Confirmed { .. }
            | Change::Released { .. }
            | Change::Expired { .. }
            | Change::Blocked { .. }
            | Change::Unblocked { .. } => {}
        }
    }
    (journal, claims)
}
