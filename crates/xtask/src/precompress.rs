//! The dist's files compressed once, at build time, at the highest levels
//! (API.md "On-sale (v3)"): `NAME.br` and `NAME.gz` beside each text or
//! wasm file, which the server sends as they are to a browser that accepts
//! them (`crates/server/src/static_files.rs`).

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::run::Step;

/// What is worth compressing; images and fonts come compressed.
const COMPRESSIBLE: [&str; 9] = ["html", "js", "mjs", "css", "wasm", "json", "svg", "txt", "ts"];

/// Writes `.br` and `.gz` beside every compressible file under `dist`.
pub fn precompress(dist: &Path) -> Result<(), String> {
    let step = Step::start("web UI: brotli 11 and gzip 9 of every file, once");
    let mut files = Vec::new();
    collect(dist, &mut files)?;
    // Two cores: the largest file (the wasm) on one, the rest on the other.
    files.sort_by_key(|file| std::cmp::Reverse(std::fs::metadata(file).map_or(0, |m| m.len())));
    let (first, rest) = files.split_first().map_or((None, &[][..]), |(first, rest)| (Some(first), rest));
    std::thread::scope(|scope| {
        let big = first.map(|file| scope.spawn(move || compress(file)));
        let others: Result<(), String> = rest.iter().try_for_each(|file| compress(file));
        big.map_or(Ok(()), |big| big.join().unwrap_or_else(|_| Err("brotli panicked".into())))?;
        others
    })?;
    println!("    {} files", files.len());
    step.done()
}

fn collect(dir: &Path, files: &mut Vec<PathBuf>) -> Result<(), String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("reading {}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry.map_err(|e| format!("reading {}: {e}", dir.display()))?.path();
        if path.is_dir() {
            collect(&path, files)?;
        } else if path.extension().and_then(|e| e.to_str()).is_some_and(|e| COMPRESSIBLE.contains(&e)) {
            files.push(path);
        }
    }
    Ok(())
}

fn compress(file: &Path) -> Result<(), String> {
    let bytes = std::fs::read(file).map_err(|e| format!("reading {}: {e}", file.display()))?;
    let failed = |e: std::io::Error| format!("compressing {}: {e}", file.display());
    let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    gzip.write_all(&bytes).map_err(failed)?;
    let gzip = gzip.finish().map_err(failed)?;
    let params = brotli::enc::BrotliEncoderParams { quality: 11, lgwin: 24, ..Default::default() };
    let mut brotli = Vec::new();
    brotli::BrotliCompress(&mut &bytes[..], &mut brotli, &params).map_err(failed)?;
    let beside = |suffix: &str| {
        let mut name = file.as_os_str().to_owned();
        name.push(suffix);
        PathBuf::from(name)
    };
    for (path, body) in [(beside(".gz"), gzip), (beside(".br"), brotli)] {
        std::fs::write(&path, body).map_err(|e| format!("writing {}: {e}", path.display()))?;
    }
    Ok(())
}
