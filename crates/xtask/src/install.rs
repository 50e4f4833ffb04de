//! Installs each tool the commands need, skipping what is already there.
//!
//! Every step checks first and prints what it does: cold installs take
//! minutes on two cores.

use std::path::PathBuf;
use std::sync::Mutex;

use crate::run::{Background, Step, output_of, root, run_checked, target_dir, tool};

/// What the installs are for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum For {
    Serve,
    Test,
    /// `trunk serve` for the development loop: what serving needs, and Trunk.
    Dev,
}

const TRUNK_VERSION: &str = "0.21.14";
const WASM_OPT_VERSION: &str = "version 132";

/// Installs everything `purpose` needs; wasm-bindgen-cli may still be
/// installing when this returns ([`wasm_bindgen_ready`]).
pub fn setup(purpose: For) -> Result<(), String> {
    wasm_target()?;
    wasm_bindgen_cli(true)?;
    // Serving and testing build the UI without Trunk (web_build.rs): only
    // `trunk serve` needs it, and compiling it took 12.6 of a newcomer's 22 minutes.
    if purpose == For::Dev {
        trunk()?;
    }
    npm_tools()?;
    if purpose == For::Test {
        browser()?;
        postgres()?;
        nginx()?;
        pushpin()?;
    }
    Ok(())
}

/// What `cargo xtask package` needs: no Trunk, no browser.
pub fn package_tools() -> Result<(), String> {
    wasm_target()?;
    wasm_bindgen_cli(false)?;
    npm_tools()
}

fn wasm_target() -> Result<(), String> {
    let step = Step::start("wasm32 target");
    if output_of(tool("rustup").args(["target", "list", "--installed"]))
        .is_some_and(|list| list.lines().any(|line| line.trim() == "wasm32-unknown-unknown"))
    {
        return step.skip("already installed");
    }
    run_checked(tool("rustup").args(["target", "add", "wasm32-unknown-unknown"]))?;
    step.done()
}

/// The wasm-bindgen version Cargo.lock pins; the CLI must match it exactly.
pub fn locked_wasm_bindgen_version() -> Result<String, String> {
    let lock = std::fs::read_to_string(root().join("Cargo.lock")).map_err(|e| format!("reading Cargo.lock: {e}"))?;
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line == "name = \"wasm-bindgen\""
            && let Some(version) = lines.next().and_then(|l| l.strip_prefix("version = \""))
        {
            return Ok(version.trim_end_matches('"').to_owned());
        }
    }
    Err("Cargo.lock has no wasm-bindgen".into())
}

/// A `cargo install wasm-bindgen-cli` left running while the workspace
/// compiles: on a cold machine both take minutes, and two cores are rarely
/// both busy in a build's last minutes (one link, one LTO unit). Nothing
/// needs the CLI before the first wasm is compiled: [`wasm_bindgen_ready`].
static BACKGROUND_INSTALL: Mutex<Option<Background>> = Mutex::new(None);

/// Installs the CLI if missing: in the background when `background`.
fn wasm_bindgen_cli(background: bool) -> Result<(), String> {
    let version = locked_wasm_bindgen_version()?;
    let step = Step::start(&format!("wasm-bindgen-cli {version}"));
    let installed = output_of(tool("wasm-bindgen").arg("--version"));
    if installed.is_some_and(|text| text.split_whitespace().nth(1) == Some(version.as_str())) {
        return step.skip("already installed");
    }
    let mut install = tool("cargo");
    // No --locked: the reachable index lacks one of its locked dependency versions.
    // No default features: they are only TLS for the test runner's HTTP client
    // (ureq with rustls and ring), which talks plain HTTP to the local ChromeDriver;
    // without them 150 crates compile instead of 161 (measured 233 s against 366 s).
    install.args(["install", "wasm-bindgen-cli", "--version", &version, "--no-default-features"]);
    // It runs for a quarter of a second per build: opt-level 1 compiles it in
    // 142 s instead of 167 s (alone, from zero) and runs it as fast.
    install.env("CARGO_PROFILE_RELEASE_OPT_LEVEL", "1");
    if !background {
        println!("    installing with cargo (about 4 minutes on 2 cores)…");
        run_checked(&mut install)?;
        return step.done();
    }
    step.skip("installing in the background (about 4 minutes on 2 cores)")?;
    // Cargo's own temporary target dir: never waits for the workspace's build lock.
    install.env_remove("CARGO_TARGET_DIR");
    let log = target_dir().join("wasm-bindgen-cli-install.log");
    let install = Background::start(&format!("cargo install wasm-bindgen-cli {version}"), &mut install, log)?;
    *BACKGROUND_INSTALL.lock().map_err(|_| "background install lock poisoned")? = Some(install);
    Ok(())
}

/// Waits for a background wasm-bindgen-cli install, if one is running.
pub fn wasm_bindgen_ready() -> Result<(), String> {
    match BACKGROUND_INSTALL.lock().map_err(|_| "background install lock poisoned")?.take() {
        Some(install) => install.wait(),
        None => Ok(()),
    }
}

fn trunk() -> Result<(), String> {
    let step = Step::start(&format!("trunk {TRUNK_VERSION}"));
    let installed = output_of(tool("trunk").arg("--version"));
    if installed.is_some_and(|text| text.split_whitespace().nth(1) == Some(TRUNK_VERSION)) {
        return step.skip("already installed");
    }
    println!("    installing with cargo (about 11 minutes on 2 cores)…");
    run_checked(tool("cargo").args(["install", "trunk", "--version", TRUNK_VERSION, "--locked"]))?;
    step.done()
}

/// Where npm tools live: outside the clone, so they survive fresh clones.
pub fn tools_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("SEATHOLD_TOOLS_DIR") {
        return PathBuf::from(dir);
    }
    let home = std::env::var_os("HOME").map_or_else(|| root().join("target"), PathBuf::from);
    home.join(".cache").join("seathold").join("tools")
}

/// Where `cargo install` puts binaries.
pub fn cargo_bin() -> PathBuf {
    std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cargo")))
        .unwrap_or_default()
        .join("bin")
}

/// axe-core's browser bundle, injected into pages by the accessibility audit.
pub fn axe_script() -> PathBuf {
    tools_dir().join("node_modules").join("axe-core").join("axe.min.js")
}

/// `node_modules/.bin` of the tools, to put first on PATH.
pub fn tools_bin() -> PathBuf {
    tools_dir().join("node_modules").join(".bin")
}

fn npm_tools() -> Result<(), String> {
    let step = Step::start("npm tools (binaryen 132 for wasm-opt, axe-core for the accessibility audit, typescript)");
    let dir = tools_dir();
    let wanted =
        std::fs::read(root().join(".tools/package.json")).map_err(|e| format!("reading .tools/package.json: {e}"))?;
    let same_manifest = std::fs::read(dir.join("package.json")).is_ok_and(|have| have == wanted);
    let wasm_opt = output_of(tool(tools_bin().join("wasm-opt")).arg("--version"));
    let installed = axe_script().is_file() && tools_bin().join("tsc").is_file();
    if same_manifest && wasm_opt.is_some_and(|text| text.contains(WASM_OPT_VERSION)) && installed {
        return step.skip("already installed");
    }
    std::fs::create_dir_all(&dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    for file in ["package.json", "package-lock.json"] {
        std::fs::copy(root().join(".tools").join(file), dir.join(file)).map_err(|e| format!("copying {file}: {e}"))?;
    }
    run_checked(tool("npm").args(["ci", "--no-audit", "--no-fund"]).current_dir(&dir))?;
    if !axe_script().is_file() {
        return Err(format!("npm ci did not install {}", axe_script().display()));
    }
    step.done()
}

fn browser() -> Result<(), String> {
    let step = Step::start("Chromium and ChromeDriver (apt)");
    let have = |program: &str| output_of(tool(program).arg("--version")).is_some();
    if have("chromium") && have("chromedriver") {
        return step.skip("already installed");
    }
    apt_install(&["chromium", "chromium-driver"])?;
    step.done()
}

/// Where Debian's `nginx` puts the binary (tests/src/nginx.rs starts it).
const NGINX: &str = "/usr/sbin/nginx";

/// Debian's `nginx`, for the whole-system test that runs the repository's
/// `ops/nginx/seathold.conf` in front of the server. Installing it starts
/// no service where policy-rc.d forbids it (containers); the tests start
/// their own nginx on a free port either way.
fn nginx() -> Result<(), String> {
    let step = Step::start("nginx (apt: nginx)");
    if output_of(tool(NGINX).arg("-v")).is_some() {
        return step.skip(&format!("already installed ({NGINX})"));
    }
    apt_install(&["nginx"])?;
    if output_of(tool(NGINX).arg("-v")).is_none() {
        return Err(format!("apt installed nginx, but {NGINX} -v does not run"));
    }
    step.done()
}

/// Debian's `pushpin` (1.36, which brings `zurl` and `condure`), for the
/// whole-system test that runs `ops/pushpin/pushpin.conf` in front of the
/// server; like nginx, the tests start their own instances.
pub fn pushpin() -> Result<(), String> {
    let step = Step::start("Pushpin with zurl (apt: pushpin)");
    let have = |program: &str| output_of(tool(program).arg("--version")).is_some();
    if have("pushpin") && have("zurl") && have("condure") {
        return step.skip("already installed");
    }
    apt_install(&["pushpin"])?;
    if !(have("pushpin") && have("zurl") && have("condure")) {
        return Err("apt installed pushpin, but pushpin, zurl or condure --version does not run".into());
    }
    step.done()
}

/// Whether this process runs as root (CI sessions often do).
pub fn is_root() -> bool {
    output_of(tool("id").arg("-u")).is_some_and(|uid| uid.trim() == "0")
}

/// `apt-get update`, then `apt-get install -y PACKAGES` (through sudo unless root).
fn apt_install(packages: &[&str]) -> Result<(), String> {
    let root = is_root();
    let apt = |args: &[&str]| {
        let mut command = tool(if root { "apt-get" } else { "sudo" });
        if !root {
            command.arg("apt-get");
        }
        command.args(args).env("DEBIAN_FRONTEND", "noninteractive");
        run_checked(&mut command)
    };
    apt(&["update"])?;
    apt(&["install", "-y"].iter().chain(packages).copied().collect::<Vec<_>>())
}

/// Where Debian's PostgreSQL packages put the server's programs.
const POSTGRES_LIB: &str = "/usr/lib/postgresql";

/// The programs the throwaway test database needs, all from one major version.
const POSTGRES_PROGRAMS: [&str; 4] = ["initdb", "pg_ctl", "postgres", "createdb"];

/// `/usr/lib/postgresql/<major>/bin` of the newest installed major version
/// that has every program the tests use, if any.
pub fn postgres_bin() -> Option<PathBuf> {
    std::fs::read_dir(POSTGRES_LIB)
        .ok()?
        .flatten()
        .filter_map(|entry| {
            let major: u32 = entry.file_name().to_str()?.parse().ok()?;
            let bin = entry.path().join("bin");
            POSTGRES_PROGRAMS.iter().all(|program| bin.join(program).is_file()).then_some((major, bin))
        })
        .max_by_key(|(major, _)| *major)
        .map(|(_, bin)| bin)
}

/// Debian's `postgresql` (server and client programs, and the unprivileged
/// `postgres` user the tests run it as when we are root).
pub fn postgres() -> Result<(), String> {
    let step = Step::start("PostgreSQL server (apt: postgresql)");
    let user_ok = || !is_root() || output_of(tool("id").args(["-u", "postgres"])).is_some();
    if let Some(bin) = postgres_bin()
        && user_ok()
    {
        return step.skip(&format!("already installed ({})", bin.display()));
    }
    apt_install(&["postgresql"])?;
    if postgres_bin().is_none() {
        return Err(format!(
            "apt installed postgresql, but no {POSTGRES_LIB}/<major>/bin has all of {}",
            POSTGRES_PROGRAMS.join(", ")
        ));
    }
    if !user_ok() {
        return Err("apt installed postgresql, but there is no `postgres` user to run it as".into());
    }
    step.done()
}
