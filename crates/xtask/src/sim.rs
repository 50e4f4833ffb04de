//! `cargo xtask sim`: the deterministic simulator over many seeds, and the
//! mutation check that proves it finds the bugs it was built to find.

use std::path::PathBuf;
use std::process::Command;

use crate::run::{Step, root, run_checked, target_dir, tool};

/// `sim [--seeds N] [--steps M] [--seed S] [--first S] [--store memory|sqlite|shared] [--release]`
/// runs the simulator; `sim --mutations [FLAGS]` runs it once per patch in
/// `crates/sim/mutations/`, each putting back one fixed bug, and fails
/// unless every one is caught.
pub fn sim(args: &[String]) -> Result<(), String> {
    let release = args.iter().any(|a| a == "--release");
    let mutations = args.iter().any(|a| a == "--mutations");
    let flags: Vec<&String> = args.iter().filter(|a| !matches!(a.as_str(), "--release" | "--mutations")).collect();
    if mutations {
        return mutation_check(&flags, release);
    }
    build(release)?;
    run_checked(Command::new(binary(release)).args(&flags))
}

fn build(release: bool) -> Result<(), String> {
    let mut cargo = tool("cargo");
    cargo.args(["build", "--quiet", "--package", "seathold-sim"]);
    if release {
        cargo.arg("--release");
    }
    run_checked(&mut cargo)
}

fn binary(release: bool) -> PathBuf {
    target_dir().join(if release { "release" } else { "debug" }).join("seathold-sim")
}

fn mutation_check(flags: &[&String], release: bool) -> Result<(), String> {
    let dir = root().join("crates").join("sim").join("mutations");
    let mut patches: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|entry| Some(entry.ok()?.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "patch"))
        .collect();
    patches.sort();
    let mut survivors = Vec::new();
    for patch in &patches {
        let name = patch.file_stem().map_or_else(String::new, |stem| stem.to_string_lossy().into_owned());
        let step = Step::start(&format!("mutation {name}"));
        // A mutation of the multi-process protocol runs with `--store shared` (its `.args` file).
        let own: Vec<String> = std::fs::read_to_string(patch.with_extension("args"))
            .map(|text| text.split_whitespace().map(str::to_owned).collect())
            .unwrap_or_default();
        git_apply(patch, false)?;
        // Whatever happens, the patch comes out again.
        let outcome = build(release).map(|()| Command::new(binary(release)).args(flags).args(&own).output());
        git_apply(patch, true)?;
        let output = outcome?.map_err(|e| format!("cannot run the simulator: {e}"))?;
        let stderr = String::from_utf8_lossy(&output.stderr);
        match stderr.lines().find(|line| line.contains(" failed at step ")) {
            Some(found) if !output.status.success() => println!("    caught: {found}"),
            _ => {
                println!("    NOT caught: {}", String::from_utf8_lossy(&output.stdout).trim());
                survivors.push(name);
            }
        }
        step.done()?;
    }
    build(release)?;
    if survivors.is_empty() {
        println!("==> every mutation ({}) was caught", patches.len());
        Ok(())
    } else {
        Err(format!("mutations the simulator missed: {}", survivors.join(", ")))
    }
}

fn git_apply(patch: &std::path::Path, reverse: bool) -> Result<(), String> {
    let mut git = tool("git");
    git.arg("apply");
    if reverse {
        git.arg("--reverse");
    }
    run_checked(git.arg(patch))
}
