//! Where the web build's bytes go: the release wasm rebuilt with its
//! function names kept (`wasm-bindgen --keep-debug`, `wasm-opt -Oz -g`, as
//! Trunk runs them but with names), its code bodies summed per crate and
//! the largest functions listed, as `twiggy top` would, with no extra tool.

use std::collections::HashMap;
use std::path::Path;

use wasmparser::{KnownCustom, Name, Parser, Payload, TypeRef};

use crate::run::{run_checked, target_dir, tool};

/// How many crates and functions the report lists.
const TOP: usize = 12;

/// Prints the crates and functions that weigh most in `wasm` (cargo's
/// output for the web build, before wasm-bindgen).
pub fn print_top_contributors(wasm: &Path) -> Result<(), String> {
    let out = target_dir().join("wasm-size");
    run_checked(
        tool("wasm-bindgen")
            .args(["--target", "web", "--no-typescript", "--keep-debug", "--out-dir"])
            .arg(&out)
            .arg(wasm),
    )?;
    let bound = out.join(
        wasm.file_name().map_or_else(|| "web.wasm".into(), |name| name.to_string_lossy()).replace(".wasm", "_bg.wasm"),
    );
    let named = out.join("named.wasm");
    run_checked(tool("wasm-opt").args(["-Oz", "-g"]).arg(&bound).arg("-o").arg(&named))?;
    let bytes = std::fs::read(&named).map_err(|e| format!("{}: {e}", named.display()))?;
    let functions = function_sizes(&bytes)?;
    let total: usize = functions.iter().map(|(_, size)| size).sum();
    let mut by_crate: HashMap<String, usize> = HashMap::new();
    for (name, size) in &functions {
        *by_crate.entry(crate_of(name)).or_default() += size;
    }
    let mut crates: Vec<(String, usize)> = by_crate.into_iter().collect();
    crates.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    println!("top contributors (code bytes after wasm-opt -Oz, before gzip; {total} B of functions in all):");
    for (name, size) in crates.iter().take(TOP) {
        println!("    {size:>8} B {:>5.1} %  {name}", 100.0 * *size as f64 / total.max(1) as f64);
    }
    let mut largest = functions;
    largest.sort_by_key(|(_, size)| std::cmp::Reverse(*size));
    println!("largest functions:");
    for (name, size) in largest.iter().take(TOP) {
        println!("    {size:>8} B  {}", shorten(&demangle(name)));
    }
    Ok(())
}

/// Every function body's size with its (mangled) name.
fn function_sizes(bytes: &[u8]) -> Result<Vec<(String, usize)>, String> {
    let mut imported = 0_u32;
    let mut sizes = Vec::new();
    let mut names = HashMap::new();
    for payload in Parser::new(0).parse_all(bytes) {
        match payload.map_err(|e| e.to_string())? {
            Payload::ImportSection(imports) => {
                for import in imports {
                    if matches!(import.map_err(|e| e.to_string())?.ty, TypeRef::Func(_)) {
                        imported += 1;
                    }
                }
            }
            Payload::CodeSectionEntry(body) => sizes.push(body.range().len()),
            Payload::CustomSection(section) => {
                if let KnownCustom::Name(reader) = section.as_known() {
                    for name in reader {
                        if let Name::Function(map) = name.map_err(|e| e.to_string())? {
                            for naming in map {
                                let naming = naming.map_err(|e| e.to_string())?;
                                names.insert(naming.index, naming.name.to_owned());
                            }
                        }
                    }
                }
            }
            _ => {}
        }
    }
    Ok(sizes
        .into_iter()
        .enumerate()
        .map(|(at, size)| {
            let index = imported + u32::try_from(at).unwrap_or(u32::MAX);
            (names.remove(&index).unwrap_or_else(|| format!("function[{index}]")), size)
        })
        .collect())
}

/// A function's name as a path without its hash: the linker writes
/// `core::fmt::write::h…`; a legacy-mangled `_ZN4core3fmt5write17h…E`
/// reads the same.
fn demangle(name: &str) -> String {
    let Some(mut rest) = name.strip_prefix("_ZN") else {
        let hashed = name.len() > 19
            && name.is_char_boundary(name.len() - 19)
            && name[name.len() - 19..].starts_with("::h")
            && name[name.len() - 16..].bytes().all(|b| b.is_ascii_hexdigit());
        return if hashed { name[..name.len() - 19].to_owned() } else { name.to_owned() };
    };
    let mut parts = Vec::new();
    while let Some(digits) = rest.find(|c: char| !c.is_ascii_digit()).filter(|&end| end > 0) {
        let Ok(length) = rest[..digits].parse::<usize>() else { break };
        let Some(part) = rest.get(digits..digits + length) else { break };
        parts.push(part);
        rest = &rest[digits + length..];
    }
    if parts.last().is_some_and(|last| last.len() == 17 && last.starts_with('h')) {
        parts.pop();
    }
    let joined = parts.join("::");
    [
        ("$LT$", "<"),
        ("$GT$", ">"),
        ("$RF$", "&"),
        ("$u20$", " "),
        ("$u7b$", "{"),
        ("$u7d$", "}"),
        ("$C$", ","),
        ("..", "::"),
    ]
    .iter()
    .fold(joined, |text, (from, to)| text.replace(from, to))
    .replace("_<", "<")
}

/// The crate a function belongs to: the first path segment, or for an
/// impl (`<T as tachys::view::Render>::build`) the trait's crate.
fn crate_of(mangled: &str) -> String {
    let name = demangle(mangled);
    let path = match name.strip_prefix('<') {
        Some(inner) => inner.split_once(" as ").map_or(inner, |(_, tr)| tr).trim_start_matches(['&', '<']),
        None => name.as_str(),
    };
    let first = path.split("::").next().unwrap_or(path);
    let first = first.split(['[', '<', ' ', '>']).next().unwrap_or(first);
    if first.is_empty() || first.starts_with("function[") { "(unnamed)".to_owned() } else { first.to_owned() }
}

/// At most 110 characters, so a line fits a terminal.
fn shorten(name: &str) -> String {
    if name.chars().count() <= 110 {
        name.to_owned()
    } else {
        format!("{}…", name.chars().take(109).collect::<String>())
    }
}

#[cfg(test)]
mod tests {
    use super::{crate_of, demangle};

    #[test]
    fn legacy_names_read_as_paths_and_their_crates() {
        assert_eq!(demangle("_ZN4core3fmt5write17h0123456789abcdefE"), "core::fmt::write");
        assert_eq!(crate_of("_ZN12seathold_web3api8exchange17h0123456789abcdefE"), "seathold_web");
        let trait_impl = "_ZN53_$LT$T$u20$as$u20$tachys..view..any_view..IntoAny$GT$8into_any17h0123456789abcdefE";
        assert_eq!(demangle(trait_impl), "<T as tachys::view::any_view::IntoAny>::into_any");
        assert_eq!(crate_of(trait_impl), "tachys");
        assert_eq!(crate_of("dlmalloc"), "dlmalloc");
        let linked = "<T as tachys::view::any_view::IntoAny>::into_any::rebuild::h58473df195295115";
        assert_eq!(demangle(linked), "<T as tachys::view::any_view::IntoAny>::into_any::rebuild");
        assert_eq!(crate_of("core[c5930c85a12de822]::fmt::write::h0123456789abcdef"), "core");
    }
}
