//! `bench sale` on SQLite: every figure beside a baseline measured in the
//! same run on the same machine, since machines here differ up to 3×:
//!
//! - the plain-HTTP ceiling (`GET /api/time` over the same connections);
//! - seed 003's SQL on a throwaway PostgreSQL (pgbench), when PostgreSQL is
//!   installed;
//! - churn (random single seats, 1 s holds: mostly writes) and the flash
//!   sale, each at `synchronous=full` and `synchronous=normal`, each on a
//!   fresh database file;
//! - the flash sale at `synchronous=full` with a webhook of every kind to a
//!   receiver in `flash-sale`: what deliveries cost the sale, and their
//!   rate and lag behind commit (`flash-sale` prints the `webhooks:` line).
//!
//! Then the ratios, and whether issue 14's targets hold.

use super::{SEATS, Servers, Summary, flash_sale, flash_sale_json, json_number, print_settings, seed_sql};
use crate::postgres::TestPostgres;
use crate::run::Step;

/// The durabilities, as `--database` options.
const DURABILITIES: [(&str, &str); 2] = [("full", ""), ("normal", "?synchronous=normal")];

/// Runs every case; `extra` goes to `flash-sale` (`--seconds`, `--concurrency`, …).
pub fn side_by_side(extra: &[String]) -> Result<(), String> {
    let flag = |name: &str, default: u64| -> Result<u64, String> {
        extra.iter().position(|f| f == name).map_or(Ok(default), |i| {
            extra.get(i + 1).and_then(|v| v.parse().ok()).ok_or_else(|| format!("{name} needs a number"))
        })
    };
    let (seconds, clients) = (flag("--seconds", 10)?, flag("--concurrency", 64)?);
    // The workload is this bench's to choose, case by case.
    let extra = without_workload(extra);
    let data = std::env::temp_dir().join(format!("seathold-bench-{}", std::process::id()));
    let outcome = cases(&data, &extra, seconds, clients);
    let _ = std::fs::remove_dir_all(&data);
    let figures = outcome?;
    figures.print(seconds, clients);
    Ok(())
}

fn without_workload(extra: &[String]) -> Vec<String> {
    let mut rest = Vec::new();
    let mut flags = extra.iter();
    while let Some(flag) = flags.next() {
        if flag == "--workload" {
            flags.next();
        } else {
            rest.push(flag.clone());
        }
    }
    rest
}

/// What the run measured.
struct Figures {
    ceiling: Summary,
    seed_sql: Option<(String, Summary)>,
    /// (durability, churn, flash sale)
    sqlite: Vec<(&'static str, Summary, Summary)>,
    /// The flash sale at synchronous=full with a webhook.
    with_webhook: Summary,
}

fn cases(data: &std::path::Path, extra: &[String], seconds: u64, clients: u64) -> Result<Figures, String> {
    std::fs::create_dir_all(data).map_err(|e| format!("{}: {e}", data.display()))?;
    let database = |case: &str, option: &str| format!("sqlite:{}{option}", data.join(format!("{case}.db")).display());
    let ceiling = {
        let servers = Servers::start(&database("ceiling", ""), 1)?;
        let step = Step::start(&format!("plain HTTP ceiling (GET /api/time) against {}", servers.bases[0]));
        let json = flash_sale_json(&servers, &with_workload(extra, "time"))?;
        step.done()?;
        let number = |key: &str| json_number(&json, key).ok_or_else(|| format!("no {key} in {json}"));
        Summary {
            decisions_per_second: number("requestsPerSecond")?,
            p50_ms: number("p50Ms")?,
            p99_ms: number("p99Ms")?,
            held_percent: 0.0,
        }
    };
    let seed_sql = seed_sql_if_installed(seconds, clients)?;
    let mut sqlite = Vec::new();
    for (name, option) in DURABILITIES {
        let run = |workload: &str| -> Result<Summary, String> {
            let servers = Servers::start(&database(&format!("{workload}-{name}"), option), 1)?;
            let step = Step::start(&format!("{workload}, SQLite synchronous={name}, against {}", servers.bases[0]));
            let summary = flash_sale(&servers, &with_workload(extra, workload))?;
            drop(servers);
            step.done()?;
            Ok(summary)
        };
        let churn = run("churn")?;
        let sale = run("sale")?;
        sqlite.push((name, churn, sale));
    }
    let with_webhook = {
        let servers = Servers::start(&database("sale-webhook-full", ""), 1)?;
        let step = Step::start(&format!("sale with a webhook, SQLite synchronous=full, against {}", servers.bases[0]));
        let mut flags = with_workload(extra, "sale");
        flags.extend(["--webhook".to_owned(), "on".to_owned()]);
        let summary = flash_sale(&servers, &flags)?;
        step.done()?;
        summary
    };
    Ok(Figures { ceiling, seed_sql, sqlite, with_webhook })
}

fn with_workload(extra: &[String], workload: &str) -> Vec<String> {
    let mut flags = extra.to_vec();
    flags.extend(["--workload".to_owned(), workload.to_owned()]);
    flags
}

/// Seed 003's SQL on a throwaway PostgreSQL, or `None` (said so) when
/// PostgreSQL is not installed here.
fn seed_sql_if_installed(seconds: u64, clients: u64) -> Result<Option<(String, Summary)>, String> {
    if crate::install::postgres_bin().is_none() {
        println!("    PostgreSQL is not installed: no seed-SQL baseline (`cargo xtask setup --test` installs it)");
        return Ok(None);
    }
    let postgres = TestPostgres::start()?;
    let version = print_settings(&postgres)?;
    let seed = seed_sql(&postgres, seconds, clients)?;
    Ok(Some((version, seed)))
}

impl Figures {
    fn print(&self, seconds: u64, clients: u64) {
        println!("==> side by side: {clients} connections, {seconds} s each, one machine, one run");
        println!("| case                              | decisions/s | p50 ms | p99 ms | ratio                     |");
        println!("|-----------------------------------|-------------|--------|--------|---------------------------|");
        let row = |name: &str, s: &Summary, ratio: String| {
            println!(
                "| {name:<33} | {:>11.0} | {:>6.2} | {:>6.2} | {ratio:<25} |",
                s.decisions_per_second, s.p50_ms, s.p99_ms
            );
        };
        let of = |a: &Summary, b: &Summary| a.decisions_per_second / b.decisions_per_second.max(f64::MIN_POSITIVE);
        row("plain HTTP: GET /api/time", &self.ceiling, "the ceiling".into());
        if let Some((version, seed)) = &self.seed_sql {
            // "15.18 (Debian 15.18-0+deb12u1)": the number is enough for the table.
            let version = version.split_whitespace().next().unwrap_or(version);
            row(&format!("seed 003's SQL, PostgreSQL {version}"), seed, "the baseline".into());
        }
        for (name, churn, sale) in &self.sqlite {
            let to_seed =
                self.seed_sql.as_ref().map_or(String::new(), |(_, seed)| format!("{:.2}× seed SQL", of(churn, seed)));
            row(&format!("churn, SQLite synchronous={name}"), churn, to_seed);
            row(
                &format!("flash sale, SQLite synchronous={name}"),
                sale,
                format!("{:.2}× the HTTP ceiling", of(sale, &self.ceiling)),
            );
        }
        if let Some((_, _, sale)) = self.sqlite.iter().find(|(name, ..)| *name == "full") {
            let ratio = format!("{:.2}× without", of(&self.with_webhook, sale));
            row("sale + webhook, SQLite full", &self.with_webhook, ratio);
        }
        self.print_targets(&of);
    }

    /// Issue 14's targets, each met or MISSED.
    fn print_targets(&self, of: &dyn Fn(&Summary, &Summary) -> f64) {
        let verdict = |met: bool| if met { "met" } else { "MISSED" };
        let Some((_, full_churn, full_sale)) = self.sqlite.iter().find(|(name, ..)| *name == "full") else { return };
        match &self.seed_sql {
            Some((_, seed)) => {
                let ratio = of(full_churn, seed);
                println!(
                    "target churn at synchronous=full ≥ 4× seed SQL with p99 < 20 ms: {} ({ratio:.2}×, p99 {:.2} ms)",
                    verdict(ratio >= 4.0 && full_churn.p99_ms < 20.0),
                    full_churn.p99_ms
                );
            }
            None => println!("target churn ≥ 4× seed SQL: not measured (no PostgreSQL)"),
        }
        if let Some((_, normal_churn, _)) = self.sqlite.iter().find(|(name, ..)| *name == "normal") {
            let ratio = of(normal_churn, full_churn);
            println!("target churn at synchronous=normal faster than full: {} ({ratio:.2}×)", verdict(ratio > 1.0));
        }
        let ratio = of(full_sale, &self.ceiling);
        println!(
            "target flash sale at synchronous=full ≥ 0.4× the HTTP ceiling: {} ({ratio:.2}×)",
            verdict(ratio >= 0.4)
        );
        let seed = self.seed_sql.as_ref().map_or(0.0, |(_, seed)| seed.decisions_per_second);
        let figure = |name: &str, pick: fn(&(&'static str, Summary, Summary)) -> f64| {
            self.sqlite.iter().find(|case| case.0 == name).map_or(0.0, pick)
        };
        println!(
            "{{\"bench\":\"sale_sqlite\",\"ceilingRequestsPerSecond\":{:.0},\"seedSqlDecisionsPerSecond\":{seed:.0},\
             \"churnFullDecisionsPerSecond\":{:.0},\"churnFullP99Ms\":{:.2},\"churnNormalDecisionsPerSecond\":{:.0},\
             \"saleFullDecisionsPerSecond\":{:.0},\"saleFullP99Ms\":{:.2},\"saleNormalDecisionsPerSecond\":{:.0},\
             \"seats\":{SEATS}}}",
            self.ceiling.decisions_per_second,
            figure("full", |case| case.1.decisions_per_second),
            figure("full", |case| case.1.p99_ms),
            figure("normal", |case| case.1.decisions_per_second),
            figure("full", |case| case.2.decisions_per_second),
            figure("full", |case| case.2.p99_ms),
            figure("normal", |case| case.2.decisions_per_second),
        );
    }
}
