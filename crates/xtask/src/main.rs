//! `cargo xtask`: the project's own commands, so a fresh machine needs only cargo.
//!
//! - `serve [ARGS…]`: install what is missing, build the web UI, run the server with a demo show.
//! - `test`: install what is missing (browser and PostgreSQL too), then run every test and lint;
//!   the native tests get a throwaway PostgreSQL (`SEATHOLD_TEST_POSTGRES`).
//! - `setup [--test | --dev]`: only the installs (`--dev`: also Trunk, for `trunk serve`).
//! - `web`: only the release UI, into `target/web-dist` (for whole-system tests run by hand).
//! - `tidy`: `cargo fmt --check` and clippy, native and wasm32.
//! - `bench [sale|web|onsale|queue] [--database postgres] [--sessions N] [--concurrency N] [--seconds N]`:
//!   the flash-sale benchmark (on PostgreSQL: beside seed 003's SQL, 1 and 2 processes), the web
//!   build in headless Chromium (wasm size, arena render, one change), the sale's opening
//!   (`onsale`: the arena on emulated 4G, then 10,000 arriving customers on SQLite and on
//!   PostgreSQL with 2 processes), and its waiting room (`queue [--sessions N] [--streams N]`:
//!   100,000 sessions join the pre-queue, 10,000 progress streams across the draw, on SQLite
//!   and on PostgreSQL with 2 processes); `edge [--viewers N] [--seconds N]`: arena viewers on 2
//!   processes on PostgreSQL, directly and through 2 Pushpin instances, under a write storm
//!   (10,000, then 30,000 when the memory allows).
//! - `sim [--seeds N] [--steps M] [--seed S] [--store memory|sqlite|shared] [--release] [--mutations]`: the
//!   deterministic simulator; `--mutations` checks it catches each bug in `crates/sim/mutations/`.
//! - `contract`: schemathesis, every check, against a debug server's `/api/openapi.json` (also in `test`).
//! - `soak [--minutes N]`: customers buying while the server is killed (`kill -9`) every 3 s and
//!   restarted, then an audit of what they were told (a minute of it is in `test`).
//! - `postgres`: a throwaway PostgreSQL like the tests' one; prints its URL, runs until Ctrl-C.
//! - `package`: the JavaScript package of `seat-state` into `target/pkg/` (browsers, bundlers) and
//!   `target/pkg-node/` (Node).

mod bench;
mod contract;
mod install;
mod package;
mod postgres;
mod precompress;
mod run;
mod sim;
mod soak;
mod wasm_imports;
mod wasm_size;
mod web_build;

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (command, rest) = args.split_first().map_or(("", &[][..]), |(first, rest)| (first.as_str(), rest));
    let outcome = match command {
        "serve" => run::serve(rest),
        "test" => run::test(),
        "setup" => install::setup(if rest.iter().any(|a| a == "--test") {
            install::For::Test
        } else if rest.iter().any(|a| a == "--dev") {
            install::For::Dev
        } else {
            install::For::Serve
        })
        .and_then(|()| install::wasm_bindgen_ready()),
        "tidy" => run::tidy(),
        "bench" => bench::bench(rest),
        "sim" => sim::sim(rest),
        "contract" => contract::run(),
        "soak" => soak::soak(rest),
        "postgres" => postgres::serve(),
        "package" => package::package(),
        "web" => run::build_web(),
        _ => {
            eprintln!(
                "usage: cargo xtask <serve [SERVER ARGS…] | test | setup [--test | --dev] | tidy | bench [sale|web|onsale|queue|edge] [FLAGS] | sim [FLAGS] | contract | soak [--minutes N] | postgres | package | web>"
            );
            return ExitCode::from(2);
        }
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("xtask {command}: {error}");
            ExitCode::FAILURE
        }
    }
}
