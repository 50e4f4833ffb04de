//! `cargo xtask bench`: the flash-sale benchmark over real HTTP on loopback,
//! against the release server on fresh SQLite files beside its baselines
//! (`sale_sqlite`); with `--database postgres`, on a throwaway PostgreSQL
//! with 1 and 2 processes, next to seed 003's SQL (pgbench, `seed_sql`) on
//! the same PostgreSQL; `onsale`, the sale's opening; `queue`, its waiting
//! room; `edge`, live streams through Pushpin.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

mod edge;
mod onsale;
mod queue;
mod sale_sqlite;
mod seed_sql;

use seed_sql::checkpoint;
pub(crate) use seed_sql::{print_settings, seed_sql};

use crate::postgres::TestPostgres;
use crate::run::{Step, build_web, output_of, root, run_checked, target_dir, tool, web_dist};
use crate::{install, package};

/// Where the sale bench keeps its data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Database {
    Sqlite,
    Postgres,
}

/// `bench [sale|web|onsale|queue|edge] [--database sqlite|postgres] [FLAGS]`:
/// the flash sale (flags go to `flash-sale`), the web build in headless
/// Chromium, the on-sale minute (`bench/onsale.rs`), its waiting room
/// (`bench/queue.rs`), live streams through Pushpin (`bench/edge.rs`), or
/// (without a name) the first two.
pub fn bench(args: &[String]) -> Result<(), String> {
    let opening = args.first().filter(|name| ["onsale", "queue", "edge"].contains(&name.as_str()));
    if let Some(name) = opening {
        let step = Step::start("release build: seathold and flash-sale");
        run_checked(tool("cargo").args([
            "build",
            "--release",
            "--package",
            "seathold-server",
            "--package",
            "seathold-bench",
        ]))?;
        step.done()?;
        return match name.as_str() {
            "queue" => queue::run(&args[1..]),
            "edge" => edge::run(&args[1..]),
            _ => onsale::run(&args[1..]),
        };
    }
    let (sale, web, extra) = match args.first().map(String::as_str) {
        Some("sale") => (true, false, &args[1..]),
        Some("web") => (false, true, &args[1..]),
        _ => (true, true, args),
    };
    let (database, extra) = database_flag(extra)?;
    // `bench web` with SEATHOLD_BIN set uses that server as it is (another
    // engineer's build of the shared target dir is left alone).
    let given_server = std::env::var_os("SEATHOLD_BIN").filter(|_| !sale).map(PathBuf::from);
    if given_server.is_none() {
        let step = Step::start("release build: seathold (and flash-sale for the sale)");
        let mut build = tool("cargo");
        build.args(["build", "--release", "--package", "seathold-server"]);
        if sale {
            build.args(["--package", "seathold-bench"]);
        }
        run_checked(&mut build)?;
        step.done()?;
    }

    if sale {
        match database {
            Database::Sqlite => sale_sqlite::side_by_side(&extra)?,
            Database::Postgres => sale_on_postgres(&extra)?,
        }
    }
    if web {
        web_in_chromium(&given_server.unwrap_or_else(|| target_dir().join("release").join("seathold")))?;
    }
    Ok(())
}

/// Where an opening bench (`onsale`, `queue`) runs: SQLite with one
/// process, then `processes` processes on one throwaway PostgreSQL.
#[derive(Debug, Clone, Copy)]
struct Stores {
    sqlite: bool,
    postgres: bool,
    processes: usize,
}

impl Default for Stores {
    fn default() -> Self {
        Self { sqlite: true, postgres: true, processes: 2 }
    }
}

impl Stores {
    /// Takes `--database sqlite|postgres` (only that one) or `--processes
    /// N`; `false` for any other flag.
    fn take(&mut self, flag: &str, value: impl FnOnce() -> Result<String, String>) -> Result<bool, String> {
        match flag {
            "--processes" => self.processes = value()?.parse().map_err(|_| "--processes needs a number")?,
            "--database" => match value()?.as_str() {
                "sqlite" => self.postgres = false,
                "postgres" | "postgresql" => self.sqlite = false,
                other => return Err(format!("--database is sqlite or postgres, not {other:?}")),
            },
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Runs `one(databases, processes, label, flags)` on fresh SQLite files
    /// in `data` (one per name), its figures saved, then on as many fresh
    /// databases of one throwaway PostgreSQL, those figures printed beside.
    fn each<const N: usize>(
        self,
        data: &Path,
        names: [&str; N],
        mut one: impl FnMut(&[String; N], usize, &str, &[String]) -> Result<(), String>,
    ) -> Result<(), String> {
        let saved = data.join("sqlite-figures.json");
        if self.sqlite {
            let databases = names.map(|name| format!("sqlite:{}", data.join(format!("{name}.db")).display()));
            one(&databases, 1, "SQLite, 1 process", &["--save".into(), saved.display().to_string()])?;
        }
        if self.postgres {
            if crate::install::postgres_bin().is_none() {
                println!("    PostgreSQL is not installed: no PostgreSQL run (`cargo xtask setup --test` installs it)");
                return Ok(());
            }
            let postgres = TestPostgres::start()?;
            let mut databases = Vec::with_capacity(N);
            for name in names {
                databases.push(postgres.create_database(&format!("seathold_{name}"))?);
            }
            let databases: [String; N] = databases.try_into().map_err(|_| "one database per name")?;
            let beside = if saved.exists() { vec!["--beside".into(), saved.display().to_string()] } else { Vec::new() };
            let plural = if self.processes == 1 { "" } else { "es" };
            one(&databases, self.processes, &format!("PostgreSQL, {} process{plural}", self.processes), &beside)?;
        }
        Ok(())
    }
}

/// `N cores (CPU model), date`: the machine a bench's figures are of.
fn machine_and_date() -> String {
    let date = output_of(tool("date").args(["-u", "+%Y-%m-%d %H:%M UTC"])).unwrap_or_default();
    let cores = output_of(&mut tool("nproc")).unwrap_or_default();
    let cpu = output_of(tool("grep").args(["-m1", "model name", "/proc/cpuinfo"])).unwrap_or_default();
    let cpu = cpu.split_once(':').map_or(cpu.as_str(), |(_, model)| model.trim());
    format!("{cores} cores ({cpu}), {date}")
}

/// Takes `--database sqlite|postgres` (or `--database=…`) out of the flags.
fn database_flag(extra: &[String]) -> Result<(Database, Vec<String>), String> {
    let mut database = Database::Sqlite;
    let mut rest = Vec::new();
    let mut flags = extra.iter();
    while let Some(flag) = flags.next() {
        let value = match flag.strip_prefix("--database") {
            Some("") => flags.next().ok_or("--database needs sqlite or postgres")?.as_str(),
            Some(value) if value.starts_with('=') => &value[1..],
            _ => {
                rest.push(flag.clone());
                continue;
            }
        };
        database = match value {
            "sqlite" => Database::Sqlite,
            "postgres" | "postgresql" => Database::Postgres,
            other => return Err(format!("--database is sqlite or postgres, not {other:?}")),
        };
    }
    Ok((database, rest))
}

/// Wasm size (gzip -9), arena first render and one live change, on the
/// release web build; then the stack's size floor.
fn web_in_chromium(server: &Path) -> Result<(), String> {
    install::setup(install::For::Test)?;
    build_web()?;
    for entry in std::fs::read_dir(web_dist()).map_err(|e| format!("{}: {e}", web_dist().display()))? {
        let path = entry.map_err(|e| e.to_string())?.path();
        if path.extension().is_some_and(|ext| ext == "wasm") {
            let size = gzip_9_size(&path)?;
            let name = path.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default();
            // The customer's bundle is the one issue 16's size target counts; /admin loads its own.
            if name.starts_with("seathold-web-") {
                let met = if size <= 180_000 { "met" } else { "MISSED" };
                println!("release wasm (customer): {size} B gzip -9 (target ≤ 180,000: {met}), {}", path.display());
            } else {
                println!("release wasm ({name}, loaded on its own page): {size} B gzip -9, {}", path.display());
            }
        }
    }
    let web_wasm = target_dir().join("wasm32-unknown-unknown").join("wasm-release").join("seathold-web.wasm");
    crate::wasm_size::print_top_contributors(&web_wasm)?;
    let js = package::web_wasm();
    println!("JS package wasm: {} B gzip -9 (target 61,440), {}", gzip_9_size(&js)?, js.display());
    let step = Step::start("web: release build in headless Chromium (tests/benches/web.rs)");
    run_checked(
        tool("cargo")
            .args(["bench", "--package", "seathold-system-tests", "--bench", "web"])
            .env("SEATHOLD_BIN", server)
            .env("SEATHOLD_WEB_DIST", web_dist()),
    )?;
    step.done()?;
    wasm_floor()
}

/// The size floor of the web stack (`crates/bench/wasm-floor`), built like
/// the UI: the same profile, wasm-bindgen and `wasm-opt -Oz` as Trunk runs.
fn wasm_floor() -> Result<(), String> {
    let manifest = root().join("crates").join("bench").join("wasm-floor").join("Cargo.toml");
    let out = target_dir().join("wasm-floor");
    for (name, features) in
        [("Leptos counter", ""), ("Leptos counter + one reqwest GET read by serde-wasm-bindgen", "reqwest")]
    {
        let step = Step::start(&format!("size floor: {name}"));
        let mut build = tool("cargo");
        build.args(["build", "--target", "wasm32-unknown-unknown", "--profile", "wasm-release", "--manifest-path"]);
        run_checked(build.arg(&manifest).args(["--features", features]))?;
        let wasm = target_dir().join("wasm32-unknown-unknown").join("wasm-release").join("wasm-floor.wasm");
        run_checked(
            tool("wasm-bindgen").args(["--target", "web", "--no-typescript", "--out-dir"]).arg(&out).arg(&wasm),
        )?;
        let bound = out.join("wasm-floor_bg.wasm");
        let optimized = out.join("optimized.wasm");
        // Only `-Oz`, as Trunk calls it.
        run_checked(tool("wasm-opt").arg("-Oz").arg(&bound).arg("-o").arg(&optimized))?;
        println!("{name}: {} B gzip -9", gzip_9_size(&optimized)?);
        step.done()?;
    }
    Ok(())
}

/// The size of a file compressed with `gzip -9`, as the web size target counts it.
pub fn gzip_9_size(path: &Path) -> Result<usize, String> {
    let gzipped = tool("gzip").args(["-9", "-c"]).arg(path).output().map_err(|e| format!("gzip: {e}"))?;
    if !gzipped.status.success() {
        return Err(format!("gzip failed on {}", path.display()));
    }
    Ok(gzipped.stdout.len())
}

/// The flash sale against one release server on a fresh SQLite file.
/// Seats of the comparison, as the flash sale's show has them.
pub(crate) const SEATS: u32 = 20_000;

/// `bench sale --database postgres`: on one throwaway PostgreSQL, seed
/// 003's SQL under pgbench, then Seathold with 1 and with 2 processes (a
/// fresh database each), then the three side by side.
fn sale_on_postgres(extra: &[String]) -> Result<(), String> {
    let flag = |name: &str, default: u64| -> Result<u64, String> {
        extra.iter().position(|f| f == name).map_or(Ok(default), |i| {
            extra.get(i + 1).and_then(|v| v.parse().ok()).ok_or_else(|| format!("{name} needs a number"))
        })
    };
    let seconds = flag("--seconds", 10)?;
    let clients = flag("--concurrency", 64)?;
    // Mostly writes, as a sale is, and the seed SQL's workload: one random
    // seat per hold. `--workload sale` runs today's flash sale instead.
    let mut extra = extra.to_vec();
    if !extra.iter().any(|f| f == "--workload") {
        extra.extend(["--workload".to_owned(), "churn".to_owned()]);
    }

    install::postgres()?;
    let postgres = TestPostgres::start()?;
    let version = print_settings(&postgres)?;

    let seed = seed_sql(&postgres, seconds, clients)?;
    let mut cases = Vec::new();
    for processes in [1, 2] {
        let database = postgres.create_database(&format!("seathold_bench_{processes}p"))?;
        checkpoint(&postgres)?;
        let servers = Servers::start(&database, processes)?;
        let step = Step::start(&format!(
            "flash sale, PostgreSQL, {processes} process{} against {}",
            if processes == 1 { "" } else { "es" },
            servers.bases.join(", ")
        ));
        let summary = flash_sale(&servers, &extra)?;
        drop(servers);
        step.done()?;
        cases.push((processes, summary));
    }
    drop(postgres);

    println!(
        "==> side by side: PostgreSQL {version}, synchronous_commit=on, {clients} connections, {SEATS} seats, \
         1 s holds, {seconds} s each"
    );
    println!("| case                           | decisions/s | p50 ms | p99 ms | held  | ratio to seed SQL |");
    println!("|--------------------------------|-------------|--------|--------|-------|-------------------|");
    let row = |name: &str, s: &Summary| {
        println!(
            "| {name:<30} | {:>11.0} | {:>6.2} | {:>6.2} | {:>3.0} % | {:>16.2}× |",
            s.decisions_per_second,
            s.p50_ms,
            s.p99_ms,
            s.held_percent,
            s.decisions_per_second / seed.decisions_per_second.max(f64::MIN_POSITIVE)
        );
    };
    row("seed 003's SQL (pgbench)", &seed);
    for (processes, summary) in &cases {
        row(&format!("Seathold, {processes} process{}", if *processes == 1 { "" } else { "es" }), summary);
    }
    for (processes, summary) in &cases {
        let ratio = summary.decisions_per_second / seed.decisions_per_second.max(f64::MIN_POSITIVE);
        let met = ratio >= 4.0 && summary.p99_ms < 20.0;
        println!(
            "target ≥ 4× the seed SQL with p99 < 20 ms, {processes} process{}: {} ({ratio:.2}×, p99 {:.2} ms)",
            if *processes == 1 { "" } else { "es" },
            if met { "met" } else { "MISSED" },
            summary.p99_ms
        );
    }
    if let [(_, one), (_, two)] = cases.as_slice() {
        let ratio = two.decisions_per_second / one.decisions_per_second.max(f64::MIN_POSITIVE);
        println!(
            "target 2 processes not slower than 1: {} ({ratio:.2}× of 1 process's decisions/s)",
            if ratio >= 1.0 { "met" } else { "MISSED" }
        );
        println!(
            "{{\"bench\":\"sale_postgres\",\"seedSqlDecisionsPerSecond\":{:.0},\"seedSqlP99Ms\":{:.2},\
             \"oneProcessDecisionsPerSecond\":{:.0},\"oneProcessP99Ms\":{:.2},\"twoProcessesDecisionsPerSecond\":{:.0},\
             \"twoProcessesP99Ms\":{:.2},\"seconds\":{seconds},\"connections\":{clients}}}",
            seed.decisions_per_second,
            seed.p99_ms,
            one.decisions_per_second,
            one.p99_ms,
            two.decisions_per_second,
            two.p99_ms
        );
    }
    Ok(())
}

/// What one case measured.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Summary {
    pub(crate) decisions_per_second: f64,
    pub(crate) p50_ms: f64,
    pub(crate) p99_ms: f64,
    /// Share of the hold decisions that held the seat.
    pub(crate) held_percent: f64,
}

/// `sh -c` for a server: its open-file limit raised to the hard limit, the
/// hard limit first to 65,536 where it is lower and may rise (as root):
/// 20,000 live streams need more sockets than a hard limit of 20,000.
const RAISE_OPEN_FILES_AND_EXEC: &str = "h=$(ulimit -Hn); case $h in unlimited) ;; *) [ \"$h\" -ge 65536 ] || \
     ulimit -Hn 65536 2>/dev/null;; esac; ulimit -n \"$(ulimit -Hn)\"; exec \"$0\" \"$@\"";

/// Release `seathold serve` processes on one database, stopped on drop.
pub(crate) struct Servers {
    children: Vec<Child>,
    pub(crate) bases: Vec<String>,
    admin_token: String,
}

impl Servers {
    pub(crate) fn start(database: &str, count: usize) -> Result<Self, String> {
        Self::start_with(database, count, &[])
    }

    /// [`Servers::start`] with more `serve` flags, each process allowed as
    /// many open files as the system lets it (a socket per live stream).
    pub(crate) fn start_with(database: &str, count: usize, flags: &[&str]) -> Result<Self, String> {
        Self::start_logging(database, count, flags, "warn")
    }

    /// [`Servers::start_with`] with its own `RUST_LOG`.
    pub(crate) fn start_logging(database: &str, count: usize, flags: &[&str], log: &str) -> Result<Self, String> {
        let admin_token = format!("bench-{}-{}", std::process::id(), database.len());
        let mut servers = Self { children: Vec::new(), bases: Vec::new(), admin_token };
        for n in 1..=count {
            // `exec` keeps the server's pid the child's, for signals and /proc.
            let mut server = Command::new("sh")
                .args(["-c", RAISE_OPEN_FILES_AND_EXEC])
                .arg(target_dir().join("release").join("seathold"))
                // The load comes from one address: rate limits would measure themselves.
                .args(["serve", "--addr", "127.0.0.1:0", "--database", database, "--rate-limits", "off"])
                .args(flags)
                .env("SEATHOLD_ADMIN_TOKEN", &servers.admin_token)
                .env("RUST_LOG", log)
                .stdout(Stdio::piped())
                .spawn()
                .map_err(|e| format!("starting seathold: {e}"))?;
            let stdout = server.stdout.take().ok_or("no stdout")?;
            servers.children.push(server);
            let mut lines = BufReader::new(stdout).lines();
            let base = lines
                .by_ref()
                .map_while(Result::ok)
                .find_map(|line| line.strip_prefix("listening on ").map(str::to_owned))
                .ok_or("seathold exited before listening")?;
            // Whatever it says later (warnings under load) shows, and its
            // writes never fail for want of a reader.
            let prefix = if count == 1 { "    [seathold] ".to_owned() } else { format!("    [seathold {n}] ") };
            std::thread::spawn(move || {
                for line in lines.map_while(Result::ok) {
                    println!("{prefix}{line}");
                }
            });
            servers.bases.push(base);
        }
        Ok(servers)
    }
}

impl Servers {
    /// The processes' ids, for `/proc/<pid>`.
    pub(crate) fn pids(&self) -> Vec<u32> {
        self.children.iter().map(Child::id).collect()
    }
}

impl Drop for Servers {
    fn drop(&mut self) {
        for server in &mut self.children {
            let _ = Command::new("kill").args(["-TERM", &server.id().to_string()]).status();
        }
        for server in &mut self.children {
            let _ = server.wait();
        }
    }
}

/// Runs `flash-sale` against every process (output shown as it comes) and
/// reads its JSON line.
pub(crate) fn flash_sale(servers: &Servers, extra: &[String]) -> Result<Summary, String> {
    let json = flash_sale_json(servers, extra)?;
    let number = |key: &str| json_number(&json, key).ok_or_else(|| format!("no {key} in {json}"));
    let holds = number("holds")?;
    Ok(Summary {
        decisions_per_second: number("holdDecisionsPerSecond")?,
        p50_ms: number("holdP50Ms")?,
        p99_ms: number("holdP99Ms")?,
        held_percent: if holds > 0.0 { 100.0 * number("held")? / holds } else { 0.0 },
    })
}

/// Runs `flash-sale` (output shown as it comes); its JSON line.
pub(crate) fn flash_sale_json(servers: &Servers, extra: &[String]) -> Result<String, String> {
    let mut load = Command::new(target_dir().join("release").join("flash-sale"))
        .arg(servers.bases.join(","))
        .arg(&servers.admin_token)
        .args(extra)
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("starting flash-sale: {e}"))?;
    let stdout = load.stdout.take().ok_or("no stdout")?;
    let mut json = None;
    for line in BufReader::new(stdout).lines().map_while(Result::ok) {
        println!("{line}");
        if line.starts_with('{') && line.contains("\"bench\"") {
            json = Some(line);
        }
    }
    let status = load.wait().map_err(|e| format!("flash-sale: {e}"))?;
    if !status.success() {
        return Err(format!("flash-sale failed: {status}"));
    }
    json.ok_or_else(|| "flash-sale printed no JSON line".to_owned())
}

/// The number after `"key":` in a flat JSON line.
pub(crate) fn json_number(json: &str, key: &str) -> Option<f64> {
    let at = json.find(&format!("\"{key}\":"))? + key.len() + 3;
    let rest = &json[at..];
    let end = rest.find([',', '}']).unwrap_or(rest.len());
    rest[..end].trim().parse().ok()
}
