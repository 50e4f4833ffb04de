//! Holds in SQLite: rebuilding a show's holds, and writing decided changes
//! as conditional writes inside one transaction.

use rusqlite::{Connection, OptionalExtension, Transaction, params};

use seat_state::wire::ChangeEvent;
use seat_state::{AreaId, Change, Hold, HoldId, HoldStatus, HolderId, Quantity, SeatId, ServerMillis};

use crate::store::{CommitError, Transition};

/// Runs a statement through the connection's statement cache (parsed once).
fn exec(tx: &Transaction<'_>, sql: &str, params: impl rusqlite::Params) -> rusqlite::Result<usize> {
    tx.prepare_cached(sql)?.execute(params)
}

/// Fails the whole batch unless exactly `expected` rows changed.
fn expect_rows(changed: usize, expected: usize, what: &str) -> Result<(), CommitError> {
    if changed == expected {
        Ok(())
    } else {
        Err(CommitError::Stale(format!("{what}: {changed} rows changed, {expected} expected")))
    }
}

fn failed(error: impl Into<anyhow::Error>) -> CommitError {
    CommitError::Failed(error.into())
}

/// Every hold of a show (or of a holder), with its places.
pub fn load(connection: &Connection, filter: &str, value: &str) -> anyhow::Result<Vec<(String, Hold)>> {
    let sql = format!(
        "SELECT id, show_id, holder_id, status, created_at, expires_at, extensions, late FROM holds
         WHERE {filter} = ?1 ORDER BY created_at DESC, id DESC"
    );
    let mut holds = connection
        .prepare(&sql)?
        .query_map([value], |row| {
            Ok((
                row.get::<_, String>(0)?,
                row.get::<_, String>(1)?,
                row.get::<_, String>(2)?,
                row.get::<_, String>(3)?,
                row.get::<_, i64>(4)?,
                row.get::<_, i64>(5)?,
                row.get::<_, u32>(6)?,
                row.get::<_, bool>(7)?,
            ))
        })?
        .map(|row| {
            let (id, show_id, holder, status, created_at, expires_at, extensions, late) = row?;
            let hold = Hold {
                id: HoldId::parse(&id)?,
                holder: HolderId::new(holder),
                seats: Vec::new(),
                areas: Vec::new(),
                created_at: ServerMillis(created_at),
                expires_at: ServerMillis(expires_at),
                extensions,
                stored_status: HoldStatus::parse(&status)
                    .ok_or_else(|| anyhow::anyhow!("hold {id} has unknown status {status:?}"))?,
                late,
            };
            Ok((show_id, hold))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    let mut seats = connection.prepare_cached("SELECT seat_id FROM hold_seats WHERE hold_id = ?1 ORDER BY position")?;
    let mut areas = connection.prepare_cached("SELECT area_id, quantity FROM hold_areas WHERE hold_id = ?1")?;
    for (_, hold) in &mut holds {
        for seat in seats.query_map([hold.id.as_str()], |row| row.get::<_, String>(0))? {
            hold.seats.push(SeatId::parse(&seat?)?);
        }
        for area in areas.query_map([hold.id.as_str()], |row| Ok((row.get::<_, String>(0)?, row.get::<_, u32>(1)?)))? {
            let (area, quantity) = area?;
            let quantity =
                Quantity::new(quantity).ok_or_else(|| anyhow::anyhow!("zero quantity in hold {}", hold.id))?;
            hold.areas.push((AreaId::parse(&area)?, quantity));
        }
    }
    Ok(holds)
}

/// Writes every transition or none.
pub fn commit(connection: &mut Connection, show_id: &str, transitions: &[Transition]) -> Result<(), CommitError> {
    let transaction = connection.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate).map_err(failed)?;
    for transition in transitions {
        write_change(&transaction, show_id, transition)?;
        record(&transaction, show_id, transition)?;
    }
    if let Some(last) = transitions.last() {
        let changed = exec(
            &transaction,
            "UPDATE shows SET version = ?2 WHERE id = ?1 AND version < ?2",
            params![show_id, last.version],
        )
        .map_err(failed)?;
        expect_rows(changed, 1, "show version")?;
    }
    transaction.commit().map_err(failed)
}

fn write_change(tx: &Transaction<'_>, show_id: &str, transition: &Transition) -> Result<(), CommitError> {
    let now = transition.at.0;
    match &transition.change {
        Change::Created { hold } => create(tx, show_id, hold, now),
        Change::Extended { hold, from, to, extensions } => {
            let changed = tx
                .execute(
                    "UPDATE holds SET expires_at = ?2, extensions = ?3
                     WHERE id = ?1 AND status = 'HELD' AND expires_at = ?4 AND expires_at > ?5",
                    params![hold.as_str(), to.0, extensions, from.0, now],
                )
                .map_err(failed)?;
            expect_rows(changed, 1, "extend")?;
            exec(
                tx,
                "UPDATE seats SET hold_expires_at = ?2
                 WHERE show_id = ?3 AND seat_id IN (SELECT seat_id FROM hold_seats WHERE hold_id = ?1) AND hold_id = ?1",
                params![hold.as_str(), to.0, show_id],
            )
            .map_err(failed)?;
            exec(tx, "UPDATE hold_areas SET expires_at = ?2 WHERE hold_id = ?1", params![hold.as_str(), to.0])
                .map_err(failed)?;
            add_outbox(tx, show_id, hold, *to)
        }
        Change::Confirmed { hold, deadline, late } => confirm(tx, show_id, hold, *deadline, *late, now),
        Change::Released { hold, previous } => {
            let changed = tx
                .execute(
                    "UPDATE holds SET status = 'RELEASED' WHERE id = ?1 AND status = ?2",
                    params![hold.as_str(), previous.as_str()],
                )
                .map_err(failed)?;
            expect_rows(changed, 1, "release")?;
            clear_seats(tx, show_id, hold)
        }
        Change::Expired { hold, deadline } => {
            let changed = tx
                .execute(
                    "UPDATE holds SET status = 'EXPIRED'
                     WHERE id = ?1 AND status = 'HELD' AND expires_at = ?2 AND expires_at <= ?3",
                    params![hold.as_str(), deadline.0, now],
                )
                .map_err(failed)?;
            expect_rows(changed, 1, "expire")?;
            clear_seats(tx, show_id, hold)?;
            tx.prepare_cached("UPDATE outbox SET done_at = ?2 WHERE idempotency_key = ?1 AND done_at IS NULL")
                .and_then(|mut s| s.execute(params![expiry_key(hold, *deadline), now]))
                .map_err(failed)?;
            Ok(())
        }
    }
}

fn create(tx: &Transaction<'_>, show_id: &str, hold: &Hold, now: i64) -> Result<(), CommitError> {
    exec(
        tx,
        "INSERT INTO holds (id, show_id, holder_id, status, created_at, expires_at, extensions, late)
         VALUES (?1, ?2, ?3, 'HELD', ?4, ?5, 0, 0)",
        params![hold.id.as_str(), show_id, hold.holder.as_str(), hold.created_at.0, hold.expires_at.0],
    )
    .map_err(|error| CommitError::Stale(format!("hold {} exists: {error}", hold.id)))?;
    let mut take_seat = tx
        .prepare_cached(
            "UPDATE seats SET hold_id = ?3, hold_expires_at = ?4
             WHERE show_id = ?1 AND seat_id = ?2 AND sold = 0 AND (hold_expires_at IS NULL OR hold_expires_at <= ?5)",
        )
        .map_err(failed)?;
    let mut add_seat =
        tx.prepare_cached("INSERT INTO hold_seats (hold_id, position, seat_id) VALUES (?1, ?2, ?3)").map_err(failed)?;
    for (position, seat) in hold.seats.iter().enumerate() {
        let changed = take_seat
            .execute(params![show_id, seat.as_str(), hold.id.as_str(), hold.expires_at.0, now])
            .map_err(failed)?;
        expect_rows(changed, 1, &format!("seat {seat} free"))?;
        add_seat.execute(params![hold.id.as_str(), position, seat.as_str()]).map_err(failed)?;
    }
    let mut add_area = tx
        .prepare_cached(
            "INSERT INTO hold_areas (hold_id, show_id, area_id, quantity, expires_at, active) VALUES (?1, ?2, ?3, ?4, ?5, 1)",
        )
        .map_err(failed)?;
    for (area, quantity) in &hold.areas {
        add_area
            .execute(params![hold.id.as_str(), show_id, area.as_str(), quantity.get(), hold.expires_at.0])
            .map_err(failed)?;
        let left = area_left(tx, show_id, area.as_str(), now)?;
        if left < 0 {
            return Err(CommitError::Stale(format!("area {area} over capacity by {}", -left)));
        }
    }
    add_outbox(tx, show_id, &hold.id, hold.expires_at)
}

/// Capacity minus sold minus places of unexpired holds (negative = oversold).
fn area_left(tx: &Transaction<'_>, show_id: &str, area: &str, now: i64) -> Result<i64, CommitError> {
    tx.prepare_cached(
        "SELECT a.capacity - a.sold - COALESCE((
             SELECT SUM(ha.quantity) FROM hold_areas ha
             WHERE ha.show_id = a.show_id AND ha.area_id = a.area_id AND ha.active = 1 AND ha.expires_at > ?3), 0)
         FROM areas a WHERE a.show_id = ?1 AND a.area_id = ?2",
    )
    .and_then(|mut statement| statement.query_row(params![show_id, area, now], |row| row.get(0)))
    .map_err(failed)
}

fn confirm(
    tx: &Transaction<'_>,
    show_id: &str,
    hold: &HoldId,
    deadline: ServerMillis,
    late: bool,
    now: i64,
) -> Result<(), CommitError> {
    // On time: still HELD at its deadline. Late: also a recorded EXPIRED, if every place is still free.
    let changed = if late {
        exec(
            tx,
            "UPDATE holds SET status = 'CONFIRMED', late = 1
             WHERE id = ?1 AND status IN ('HELD', 'EXPIRED') AND expires_at = ?2 AND expires_at <= ?3",
            params![hold.as_str(), deadline.0, now],
        )
    } else {
        exec(
            tx,
            "UPDATE holds SET status = 'CONFIRMED'
             WHERE id = ?1 AND status = 'HELD' AND expires_at = ?2 AND expires_at > ?3",
            params![hold.as_str(), deadline.0, now],
        )
    }
    .map_err(failed)?;
    expect_rows(changed, 1, "confirm")?;
    // Each seat becomes sold, provided nobody else holds or bought it meanwhile.
    let seats: Vec<String> = tx
        .prepare_cached("SELECT seat_id FROM hold_seats WHERE hold_id = ?1")
        .and_then(|mut s| s.query_map([hold.as_str()], |row| row.get(0))?.collect())
        .map_err(failed)?;
    for seat in &seats {
        let changed = tx
            .execute(
                "UPDATE seats SET sold = 1, hold_id = ?3, hold_expires_at = NULL
                 WHERE show_id = ?1 AND seat_id = ?2 AND sold = 0
                   AND (hold_id = ?3 OR hold_expires_at IS NULL OR hold_expires_at <= ?4)",
                params![show_id, seat, hold.as_str(), now],
            )
            .map_err(failed)?;
        expect_rows(changed, 1, &format!("seat {seat} still ours"))?;
    }
    deactivate_areas(tx, hold)?;
    let areas: Vec<(String, i64)> = tx
        .prepare_cached("SELECT area_id, quantity FROM hold_areas WHERE hold_id = ?1")
        .and_then(|mut s| s.query_map([hold.as_str()], |row| Ok((row.get(0)?, row.get(1)?)))?.collect())
        .map_err(failed)?;
    for (area, quantity) in &areas {
        exec(
            tx,
            "UPDATE areas SET sold = sold + ?3 WHERE show_id = ?1 AND area_id = ?2",
            params![show_id, area, quantity],
        )
        .map_err(failed)?;
        // Now counted as sold, the hold no longer counts as held: the area must not be over capacity.
        let left = area_left(tx, show_id, area, now)?;
        if left < 0 {
            return Err(CommitError::Stale(format!("area {area} over capacity by {}", -left)));
        }
    }
    Ok(())
}

/// The hold no longer counts against its areas.
fn deactivate_areas(tx: &Transaction<'_>, hold: &HoldId) -> Result<(), CommitError> {
    tx.prepare_cached("UPDATE hold_areas SET active = 0 WHERE hold_id = ?1 AND active = 1")
        .and_then(|mut s| s.execute([hold.as_str()]))
        .map_err(failed)?;
    Ok(())
}

fn clear_seats(tx: &Transaction<'_>, show_id: &str, hold: &HoldId) -> Result<(), CommitError> {
    deactivate_areas(tx, hold)?;
    // By the hold's own seats, one primary-key lookup each (never a scan of the venue).
    tx.prepare_cached(
        "UPDATE seats SET hold_id = NULL, hold_expires_at = NULL
         WHERE show_id = ?1 AND seat_id IN (SELECT seat_id FROM hold_seats WHERE hold_id = ?2) AND hold_id = ?2 AND sold = 0",
    )
    .and_then(|mut s| s.execute(params![show_id, hold.as_str()]))
    .map_err(failed)?;
    Ok(())
}

/// Names one expiry of one hold: downstream effects use it to happen once.
fn expiry_key(hold: &HoldId, deadline: ServerMillis) -> String {
    format!("expire:{hold}:{}", deadline.0)
}

fn add_outbox(tx: &Transaction<'_>, show_id: &str, hold: &HoldId, deadline: ServerMillis) -> Result<(), CommitError> {
    tx.prepare_cached(
        "INSERT OR IGNORE INTO outbox (idempotency_key, show_id, hold_id, deadline) VALUES (?1, ?2, ?3, ?4)",
    )
    .and_then(|mut s| s.execute(params![expiry_key(hold, deadline), show_id, hold.as_str(), deadline.0]))
    .map_err(failed)?;
    Ok(())
}

fn record(tx: &Transaction<'_>, show_id: &str, transition: &Transition) -> Result<(), CommitError> {
    let (action, detail) = audit_detail(&transition.change);
    tx.prepare_cached(
        "INSERT INTO audit (at, show_id, hold_id, holder_id, action, detail) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )
    .and_then(|mut s| {
        s.execute(params![
            transition.at.0,
            show_id,
            transition.change.hold_id().as_str(),
            transition.holder.as_str(),
            action,
            detail
        ])
    })
    .map_err(failed)?;
    let event = serde_json::to_string(&transition.event).map_err(failed)?;
    tx.prepare_cached("INSERT INTO change_log (show_id, version, event) VALUES (?1, ?2, ?3)")
        .and_then(|mut s| s.execute(params![show_id, transition.version, event]))
        .map_err(failed)?;
    Ok(())
}

fn audit_detail(change: &Change) -> (&'static str, String) {
    match change {
        Change::Created { hold } => {
            let seats: Vec<&str> = hold.seats.iter().map(SeatId::as_str).collect();
            let areas: Vec<String> = hold.areas.iter().map(|(a, q)| format!("{a}x{}", q.get())).collect();
            ("created", format!("seats={} areas={} expires_at={}", seats.join(","), areas.join(","), hold.expires_at.0))
        }
        Change::Extended { from, to, extensions, .. } => {
            ("extended", format!("from={} to={} extensions={extensions}", from.0, to.0))
        }
        Change::Confirmed { deadline, late, .. } => ("confirmed", format!("deadline={} late={late}", deadline.0)),
        Change::Released { previous, .. } => ("released", format!("previous={previous}")),
        Change::Expired { deadline, .. } => ("expired", format!("deadline={}", deadline.0)),
    }
}

/// The latest `limit` change events of a show, oldest first.
pub fn recent_events(connection: &Connection, show_id: &str, limit: usize) -> anyhow::Result<Vec<ChangeEvent>> {
    let mut events = connection
        .prepare("SELECT event FROM change_log WHERE show_id = ?1 ORDER BY version DESC LIMIT ?2")?
        .query_map(params![show_id, limit], |row| row.get::<_, String>(0))?
        .map(|json| Ok(serde_json::from_str(&json?)?))
        .collect::<anyhow::Result<Vec<ChangeEvent>>>()?;
    events.reverse();
    Ok(events)
}

/// The show of a hold.
pub fn hold_show(connection: &Connection, hold_id: &str) -> anyhow::Result<Option<String>> {
    Ok(connection.query_row("SELECT show_id FROM holds WHERE id = ?1", [hold_id], |row| row.get(0)).optional()?)
}
