//! `cargo xtask bench`: the flash-sale benchmark over real HTTP on loopback,
//! against the release server on a fresh SQLite file.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

use crate::install;
use crate::run::{Step, build_web, root, run_checked, target_dir, tool, web_dist};

/// `bench [sale|web] [FLAGS]`: the flash sale (flags go to `flash-sale`),
/// the web build in headless Chromium, or (without a name) both.
pub fn bench(args: &[String]) -> Result<(), String> {
    let (sale, web, extra) = match args.first().map(String::as_str) {
        Some("sale") => (true, false, &args[1..]),
        Some("web") => (false, true, &args[1..]),
        _ => (true, true, args),
    };
    let step = Step::start("release build: seathold (and flash-sale for the sale)");
    let mut build = tool("cargo");
    build.args(["build", "--release", "--package", "seathold-server"]);
    if sale {
        build.args(["--package", "seathold-bench"]);
    }
    run_checked(&mut build)?;
    step.done()?;

    if sale {
        // Both durabilities: every commit synced to disk, and synced at checkpoints only.
        for (name, option) in [("synchronous=full", ""), ("synchronous=normal", "?synchronous=normal")] {
            flash_sale(name, option, extra)?;
        }
    }
    if web {
        web_in_chromium()?;
    }
    Ok(())
}

/// Wasm size (gzip -9), arena first render and one live change, on the
/// release web build; then the stack's size floor.
fn web_in_chromium() -> Result<(), String> {
    install::setup(install::For::Test)?;
    build_web()?;
    for entry in std::fs::read_dir(web_dist()).map_err(|e| format!("{}: {e}", web_dist().display()))? {
        let path = entry.map_err(|e| e.to_string())?.path();
        if path.extension().is_some_and(|ext| ext == "wasm") {
            println!("release wasm: {} B gzip -9, {}", gzip_9_size(&path)?, path.display());
        }
    }
    let step = Step::start("web: release build in headless Chromium (tests/benches/web.rs)");
    run_checked(
        tool("cargo")
            .args(["bench", "--package", "seathold-system-tests", "--bench", "web"])
            .env("SEATHOLD_BIN", target_dir().join("release").join("seathold"))
            .env("SEATHOLD_WEB_DIST", web_dist()),
    )?;
    step.done()?;
    wasm_floor()
}

fn flash_sale(name: &str, option: &str, extra: &[String]) -> Result<(), String> {
    let data = std::env::temp_dir().join(format!("seathold-bench-{}", std::process::id()));
    std::fs::create_dir_all(&data).map_err(|e| e.to_string())?;
    let admin_token = format!("bench-{}-{}", std::process::id(), data.display().to_string().len());
    let release = target_dir().join("release");
    let mut server = Command::new(release.join("seathold"))
        .args(["serve", "--addr", "127.0.0.1:0", "--database"])
        .arg(format!("sqlite:{}{option}", data.join("bench.db").display()))
        .env("SEATHOLD_ADMIN_TOKEN", &admin_token)
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("starting seathold: {e}"))?;
    let stdout = server.stdout.take().ok_or("no stdout")?;
    let base = BufReader::new(stdout)
        .lines()
        .map_while(Result::ok)
        .find_map(|line| line.strip_prefix("listening on ").map(str::to_owned))
        .ok_or("seathold exited before listening")?;

    let step = Step::start(&format!("flash sale, SQLite {name}, against {base}"));
    let outcome = run_checked(Command::new(release.join("flash-sale")).arg(&base).arg(&admin_token).args(extra));
    let _ = Command::new("kill").args(["-TERM", &server.id().to_string()]).status();
    let _ = server.wait();
    let _ = std::fs::remove_dir_all(&data);
    outcome?;
    step.done()
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
fn gzip_9_size(path: &Path) -> Result<usize, String> {
    let gzipped = tool("gzip").args(["-9", "-c"]).arg(path).output().map_err(|e| format!("gzip: {e}"))?;
    if !gzipped.status.success() {
        return Err(format!("gzip failed on {}", path.display()));
    }
    Ok(gzipped.stdout.len())
}
