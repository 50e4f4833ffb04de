//! `cargo xtask bench`: the flash-sale benchmark over real HTTP on loopback,
//! against the release server on a fresh SQLite file.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use crate::run::{Step, run_checked, target_dir, tool};

/// Builds both programs in release mode, runs the sale, stops the server.
pub fn bench(extra: &[String]) -> Result<(), String> {
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

    // Both durabilities: every commit synced to disk, and synced at checkpoints only.
    for (name, option) in [("synchronous=full", ""), ("synchronous=normal", "?synchronous=normal")] {
        flash_sale(name, option, extra)?;
    }
    Ok(())
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
