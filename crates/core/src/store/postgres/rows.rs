//! Journal rows in PostgreSQL: read after a version, written a batch at a
//! time (one statement per table, arrays unnested).

use deadpool_postgres::GenericClient;
use seat_state::{Change, Hold, HoldId, HolderId, ServerMillis};

use crate::store::checkpoint::hold_from;
use crate::store::journal::Row;
use crate::store::{JournalEntry, Transition};

/// A show's journal entries after `after`, oldest first.
pub async fn journal(client: &impl GenericClient, show_id: &str, after: i64) -> anyhow::Result<Vec<JournalEntry>> {
    journal_page(client, show_id, after, None).await
}

/// At most `limit` (`None`: all) of a show's journal entries after `after`, oldest first.
pub async fn journal_page(
    client: &impl GenericClient,
    show_id: &str,
    after: i64,
    limit: Option<i64>,
) -> anyhow::Result<Vec<JournalEntry>> {
    let rows = client
        .query(
            "SELECT version, at, hold_id, holder_id, action, places, expires_at, extensions, late
             FROM journal WHERE show_id = $1 AND version > $2 ORDER BY version LIMIT $3",
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
            "SELECT version, at, hold_id, holder_id, action, places, expires_at, extensions, late
             FROM journal WHERE hold_id = $2 AND show_id = $1 AND version <= $3 ORDER BY version",
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
            "SELECT version, at, hold_id, holder_id, action, places, expires_at, extensions, late
             FROM journal WHERE hold_id = ANY($2) AND show_id = $1 AND version <= $3 ORDER BY hold_id, version",
            &[&show_id, &ids, &version],
        )
        .await?;
    let entries = entries(&rows)?;
    entries.chunk_by(|a, b| a.hold_id == b.hold_id).filter_map(|one| hold_from(one).transpose()).collect()
}

/// Journal rows (in the column order the queries above select) as entries.
fn entries(rows: &[tokio_postgres::Row]) -> anyhow::Result<Vec<JournalEntry>> {
    rows.iter()
        .map(|row| {
            let action: String = row.get(4);
            let places: Option<String> = row.get(5);
            Ok(JournalEntry {
                version: row.get(0),
                at: ServerMillis(row.get(1)),
                hold_id: row.get::<_, Option<&str>>(2).map(HoldId::parse).transpose()?,
                holder: HolderId::new(row.get::<_, String>(3)),
                action: Row::action(&action, places.as_deref(), row.get(6), row.get(7), row.get(8))?,
            })
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
