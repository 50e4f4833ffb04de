//! `cargo xtask package`: `crates/seat-state-js` as two npm packages,
//! `target/pkg/` (an ES module for browsers and bundlers) and
//! `target/pkg-node/` (CommonJS for Node), each with `package.json`, `.d.ts`
//! and the crate's README; plus the JS tests (`node --test`, `tsc --noEmit`).

use std::path::{Path, PathBuf};

use crate::run::{Step, root, run_checked, target_dir, tool, web_dist};
use crate::{bench, install};

/// The package name JavaScript developers install and import.
const NAME: &str = "seathold-seat-state";
/// The cargo profile (the workspace's Cargo.toml says why it is its own).
const PROFILE: &str = "wasm-package";
/// wasm-opt's flags: smallest code, run until nothing shrinks, without the
/// tool-name and feature-list sections (nothing reads them at run time).
const WASM_OPT: [&str; 4] = ["-Oz", "--converge", "--strip-producers", "--strip-target-features"];
/// wasm-bindgen's file stem for the crate.
const STEM: &str = "seat_state_js";

/// The browser / bundler package.
pub fn web_dir() -> PathBuf {
    root().join("target").join("pkg")
}

/// The Node package.
pub fn node_dir() -> PathBuf {
    root().join("target").join("pkg-node")
}

/// The optimized wasm both packages share.
pub fn web_wasm() -> PathBuf {
    web_dir().join(format!("{STEM}_bg.wasm"))
}

/// `cargo xtask package`: the installs it needs, then both packages.
pub fn package() -> Result<(), String> {
    install::package_tools()?;
    build()
}

/// Builds both packages (tools already installed).
pub fn build() -> Result<(), String> {
    let step = Step::start(&format!("JS package: cargo build -p seat-state-js ({PROFILE})"));
    run_checked(tool("cargo").args([
        "build",
        "--package",
        "seat-state-js",
        "--target",
        "wasm32-unknown-unknown",
        "--profile",
        PROFILE,
    ]))?;
    step.done()?;
    let wasm = target_dir().join("wasm32-unknown-unknown").join(PROFILE).join(format!("{STEM}.wasm"));
    install::wasm_bindgen_ready()?;
    let version = crate_version()?;
    // Optimized once when both targets bind the same wasm (compared, not assumed).
    let mut optimized: Option<(Vec<u8>, PathBuf)> = None;
    for (dir, target, manifest) in
        [(web_dir(), "web", web_manifest(&version)), (node_dir(), "nodejs", node_manifest(&version))]
    {
        let step = Step::start(&format!(
            "JS package: wasm-bindgen --target {target}, wasm-opt {} → {}",
            WASM_OPT.join(" "),
            dir.display()
        ));
        if dir.exists() {
            std::fs::remove_dir_all(&dir).map_err(|e| format!("removing {}: {e}", dir.display()))?;
        }
        run_checked(tool("wasm-bindgen").args(["--target", target, "--out-dir"]).arg(&dir).arg(&wasm))?;
        let bound = dir.join(format!("{STEM}_bg.wasm"));
        let bytes = std::fs::read(&bound).map_err(|e| format!("reading {}: {e}", bound.display()))?;
        match &optimized {
            Some((same, done)) if *same == bytes => copy(done, &bound)?,
            _ => {
                run_checked(tool("wasm-opt").args(WASM_OPT).arg(&bound).arg("-o").arg(&bound))?;
                optimized = Some((bytes, bound.clone()));
            }
        }
        write(&dir.join("package.json"), &manifest)?;
        copy(&root().join("crates/seat-state-js/README.md"), &dir.join("README.md"))?;
        step.done()?;
    }
    println!("    JS package wasm: {} B gzip -9, {}", bench::gzip_9_size(&web_wasm())?, web_wasm().display());
    Ok(())
}

/// Copies `examples/vanilla/` and the browser package into the UI's dist, so
/// `seathold serve --web DIST` serves the example at `/examples/vanilla/`.
pub fn into_web_dist() -> Result<(), String> {
    let example = web_dist().join("examples").join("vanilla");
    copy_dir(&root().join("examples").join("vanilla"), &example)?;
    copy_dir(&web_dir(), &example.join("pkg"))
}

/// The JS tests: the Node package through a whole cycle (`node --test`),
/// and a typed consumer against the browser package's `.d.ts` (`tsc --noEmit`).
pub fn test_js() -> Result<(), String> {
    let tests = root().join("crates/seat-state-js/tests");
    let step = Step::start("JS package: node --test (Node build)");
    run_checked(tool("node").arg("--test").arg(tests.join("node.test.mjs")))?;
    step.done()?;
    let step = Step::start("JS package: tsc --noEmit on a typed consumer");
    run_checked(tool("tsc").args(["--noEmit", "--project"]).arg(tests.join("ts")))?;
    step.done()
}

fn crate_version() -> Result<String, String> {
    let manifest = std::fs::read_to_string(root().join("crates/seat-state-js/Cargo.toml"))
        .map_err(|e| format!("reading seat-state-js's Cargo.toml: {e}"))?;
    manifest
        .lines()
        .find_map(|line| line.strip_prefix("version = \""))
        .map(|version| version.trim_end_matches('"').to_owned())
        .ok_or_else(|| "seat-state-js's Cargo.toml has no version".into())
}

fn web_manifest(version: &str) -> String {
    format!(
        r#"{{
  "name": "{NAME}",
  "version": "{version}",
  "description": "Seathold's seat-state rules for the browser: clock sync, countdowns, the live seat map.",
  "license": "MIT OR Apache-2.0",
  "type": "module",
  "main": "{STEM}.js",
  "module": "{STEM}.js",
  "types": "{STEM}.d.ts",
  "files": ["{STEM}_bg.wasm", "{STEM}.js", "{STEM}.d.ts", "{STEM}_bg.wasm.d.ts"],
  "sideEffects": false
}}
"#
    )
}

fn node_manifest(version: &str) -> String {
    format!(
        r#"{{
  "name": "{NAME}",
  "version": "{version}",
  "description": "Seathold's seat-state rules for Node: clock sync, countdowns, the live seat map.",
  "license": "MIT OR Apache-2.0",
  "main": "{STEM}.js",
  "types": "{STEM}.d.ts",
  "files": ["{STEM}_bg.wasm", "{STEM}.js", "{STEM}.d.ts", "{STEM}_bg.wasm.d.ts"]
}}
"#
    )
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("writing {}: {e}", path.display()))
}

fn copy(from: &Path, to: &Path) -> Result<(), String> {
    std::fs::copy(from, to).map(drop).map_err(|e| format!("copying {} to {}: {e}", from.display(), to.display()))
}

/// Copies the files of `from` (not its sub-folders) into `to`, made afresh.
fn copy_dir(from: &Path, to: &Path) -> Result<(), String> {
    if to.exists() {
        std::fs::remove_dir_all(to).map_err(|e| format!("removing {}: {e}", to.display()))?;
    }
    std::fs::create_dir_all(to).map_err(|e| format!("creating {}: {e}", to.display()))?;
    for entry in std::fs::read_dir(from).map_err(|e| format!("reading {}: {e}", from.display()))? {
        let path = entry.map_err(|e| e.to_string())?.path();
        if path.is_file() {
            copy(&path, &to.join(path.file_name().unwrap_or_default()))?;
        }
    }
    Ok(())
}
