//! The PostgreSQL baseline of `bench sale`: seed 003's SQL (one hold
//! decision per transaction) under pgbench on a throwaway PostgreSQL, and
//! the server settings that decide its commit rate.

use std::path::Path;
use std::process::Command;

use super::{SEATS, Summary};
use crate::postgres::TestPostgres;
use crate::run::{Step, run_checked};

/// `psql` on one database of the cluster; its output.
pub(crate) fn psql(postgres: &TestPostgres, database: &str, sql: &str) -> Result<String, String> {
    let output = postgres
        .client("psql")
        .args(["-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-d", database, "-c", sql])
        .output()
        .map_err(|e| format!("psql: {e}"))?;
    if !output.status.success() {
        return Err(format!("psql {sql:?} failed: {}", String::from_utf8_lossy(&output.stderr)));
    }
    Ok(String::from_utf8_lossy(&output.stdout).trim().to_owned())
}

/// Every case starts with no dirty pages of the case before.
pub(crate) fn checkpoint(postgres: &TestPostgres) -> Result<(), String> {
    psql(postgres, "postgres", "CHECKPOINT").map(drop)
}

/// The settings that matter for commit throughput; returns the version.
pub(crate) fn print_settings(postgres: &TestPostgres) -> Result<String, String> {
    let version = psql(postgres, "postgres", "SHOW server_version")?;
    let settings = psql(
        postgres,
        "postgres",
        "SELECT name || ' = ' || current_setting(name) FROM pg_settings WHERE name IN \
         ('synchronous_commit', 'fsync', 'wal_sync_method', 'full_page_writes', 'wal_level', 'commit_delay', \
         'shared_buffers', 'wal_buffers', 'max_wal_size', 'checkpoint_timeout', 'max_connections') ORDER BY name",
    )?;
    // fsync costs what the folder's file system makes it cost (tmpfs: nothing).
    let file_system = crate::run::output_of(Command::new("stat").args(["-f", "-c", "%T"]).arg(postgres.dir()))
        .unwrap_or_else(|| "unknown".into());
    println!("    PostgreSQL {version}, data in {} ({file_system}), settings:", postgres.dir().display());
    for line in settings.lines() {
        println!("      {line}");
    }
    Ok(version)
}

/// Seed 003's SQL: one hold decision per transaction, `SELECT … FOR UPDATE`
/// of the seat then a conditional `UPDATE` (held if free or expired), on a
/// fresh database of the same PostgreSQL, under pgbench.
pub(crate) fn seed_sql(postgres: &TestPostgres, seconds: u64, clients: u64) -> Result<Summary, String> {
    const DATABASE: &str = "seed_sql";
    const SCRIPT: &str = "\\set seat random(0, 19999)
\\set holder random(1, 10000)
BEGIN;
SELECT holder, held_until FROM seats WHERE id = :seat FOR UPDATE;
UPDATE seats SET holder = :holder, held_until = now() + interval '1 second', grants = grants + 1
  WHERE id = :seat AND (held_until IS NULL OR held_until <= now());
COMMIT;
";
    postgres.create_database(DATABASE)?;
    psql(
        postgres,
        DATABASE,
        &format!(
            "CREATE TABLE seats (id int PRIMARY KEY, holder int, held_until timestamptz, grants bigint NOT NULL \
             DEFAULT 0); INSERT INTO seats (id) SELECT generate_series(0, {})",
            SEATS - 1
        ),
    )?;
    psql(postgres, DATABASE, "VACUUM ANALYZE seats")?;
    checkpoint(postgres)?;
    let folder = std::env::temp_dir().join(format!("seathold-pgbench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    std::fs::create_dir_all(&folder).map_err(|e| format!("{}: {e}", folder.display()))?;
    let outcome = pgbench(postgres, &folder, SCRIPT, seconds, clients);
    let _ = std::fs::remove_dir_all(&folder);
    let (decisions, mut latencies) = outcome?;
    let granted: f64 = psql(postgres, DATABASE, "SELECT sum(grants) FROM seats")?.parse().unwrap_or(0.0);
    latencies.sort_unstable();
    let percentile = |fraction: f64| {
        latencies
            .get(((latencies.len().max(1) - 1) as f64 * fraction).round() as usize)
            .map_or(0.0, |&us| us as f64 / 1000.0)
    };
    let summary = Summary {
        decisions_per_second: decisions as f64 / seconds as f64,
        p50_ms: percentile(0.5),
        p99_ms: percentile(0.99),
        held_percent: if decisions > 0 { 100.0 * granted / decisions as f64 } else { 0.0 },
    };
    println!(
        "seed 003's SQL: {decisions} decisions in {seconds} s ({:.0}/s), {granted:.0} held ({:.0} %), latency p50 \
         {:.2} ms, p99 {:.2} ms",
        summary.decisions_per_second, summary.held_percent, summary.p50_ms, summary.p99_ms
    );
    Ok(summary)
}

/// Runs pgbench with `script`; the transactions it logged and their latencies (µs).
fn pgbench(
    postgres: &TestPostgres,
    folder: &Path,
    script: &str,
    seconds: u64,
    clients: u64,
) -> Result<(u64, Vec<u64>), String> {
    let script_file = folder.join("hold.sql");
    std::fs::write(&script_file, script).map_err(|e| format!("{}: {e}", script_file.display()))?;
    println!("    pgbench script (one hold decision per transaction):");
    for line in script.lines() {
        println!("      {line}");
    }
    let step = Step::start(&format!(
        "seed 003's SQL: pgbench -c {clients} -j 2 -T {seconds} -M prepared, {SEATS} seats, 1 s holds"
    ));
    let mut command = postgres.client("pgbench");
    command
        .args(["-n", "-c", &clients.to_string(), "-j", "2", "-T", &seconds.to_string(), "-M", "prepared", "-f"])
        .arg(&script_file)
        .args(["-l", "--log-prefix"])
        .arg(folder.join("tx"))
        .arg("seed_sql")
        .current_dir(folder);
    run_checked(&mut command)?;
    step.done()?;
    // One line per transaction: client, number, latency (µs), script, epoch s, µs.
    let mut latencies = Vec::new();
    for entry in std::fs::read_dir(folder).map_err(|e| format!("{}: {e}", folder.display()))? {
        let path = entry.map_err(|e| e.to_string())?.path();
        if !path.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("tx.")) {
            continue;
        }
        let log = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        latencies.extend(log.lines().filter_map(|line| line.split_whitespace().nth(2)?.parse::<u64>().ok()));
    }
    if latencies.is_empty() {
        return Err("pgbench logged no transactions".into());
    }
    Ok((latencies.len() as u64, latencies))
}
