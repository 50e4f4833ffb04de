//! Every dependency a workspace crate declares is used by its code: a
//! normal or build dependency is named in the crate's `src/` (or
//! `build.rs`), a dev-dependency anywhere in the crate, as `name::…`,
//! `use name` or `extern crate name`. A few are declared only for what
//! Cargo does with them; each is allowed here with its reason.

use std::path::Path;

use serde_json::Value;

/// Dependencies no code names, each with why it is declared.
const DECLARED_FOR_CARGO: &[(&str, &str, &str)] = &[
    ("seat-state", "wasm-bindgen", "tsify's derives (feature `js`) expand to `wasm_bindgen` paths"),
    ("seathold-web", "idna_adapter", "picks reqwest's IDNA adapter without Unicode tables (~100 KB less wasm)"),
];

/// One declared dependency of one crate, as `cargo metadata` lists it.
pub struct Declared {
    pub package: String,
    /// The crate's folder.
    pub dir: String,
    /// As code names it: the rename if any, `-` as `_`.
    pub ident: String,
    pub name: String,
    /// `None` for a normal dependency; `Some("dev")` or `Some("build")`.
    pub kind: Option<String>,
}

/// Every dependency of every workspace crate.
pub fn declared(root: &Path) -> Vec<Declared> {
    let output = std::process::Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1", "--no-deps", "--offline"])
        .current_dir(root)
        .output()
        .expect("cargo metadata runs");
    assert!(output.status.success(), "cargo metadata: {}", String::from_utf8_lossy(&output.stderr));
    let metadata: Value = serde_json::from_slice(&output.stdout).expect("cargo metadata prints JSON");
    let mut found = Vec::new();
    for package in metadata["packages"].as_array().into_iter().flatten() {
        let manifest = Path::new(package["manifest_path"].as_str().unwrap_or_default());
        let dir = manifest.parent().unwrap_or(root).to_string_lossy().into_owned();
        for dep in package["dependencies"].as_array().into_iter().flatten() {
            let name = dep["name"].as_str().unwrap_or_default().to_owned();
            let ident = dep["rename"].as_str().unwrap_or(&name).replace('-', "_");
            found.push(Declared {
                package: package["name"].as_str().unwrap_or_default().to_owned(),
                dir: dir.clone(),
                ident,
                name,
                kind: dep["kind"].as_str().map(str::to_owned),
            });
        }
    }
    found
}

/// Whether `code` names the crate `ident` as code does.
pub fn names(code: &str, ident: &str) -> bool {
    code.match_indices(ident).any(|(at, _)| {
        let before = code[..at].chars().next_back();
        let after = code[at + ident.len()..].trim_start();
        let starts_word = !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
        let prefix = code[..at].trim_end();
        starts_word && (after.starts_with("::") || prefix.ends_with("use") || prefix.ends_with("extern crate"))
    })
}

/// The dependencies no code names and no reason allows, one line each.
pub fn unused(declared: &[Declared], read: impl Fn(&str, bool) -> String) -> Vec<String> {
    let mut found = Vec::new();
    for dep in declared {
        let allowed = DECLARED_FOR_CARGO.iter().any(|(package, name, _)| *package == dep.package && *name == dep.name);
        let dev = dep.kind.as_deref() == Some("dev");
        if !allowed && !names(&read(&dep.dir, dev), &dep.ident) {
            let kind = dep.kind.as_deref().map_or(String::new(), |kind| format!(" ({kind})"));
            found.push(format!("{}/Cargo.toml: {}{kind}: no code names it", dep.dir, dep.name));
        }
    }
    found
}

/// The Rust code of a crate: `src/` and `build.rs`, or (for dev-dependencies)
/// every `.rs` file in its folder.
pub fn crate_code(dir: &str, everywhere: bool) -> String {
    let dir = Path::new(dir);
    let mut code = std::fs::read_to_string(dir.join("build.rs")).unwrap_or_default();
    let mut pending = vec![if everywhere { dir.to_path_buf() } else { dir.join("src") }];
    while let Some(folder) = pending.pop() {
        for entry in std::fs::read_dir(&folder).into_iter().flatten().flatten() {
            let path = entry.path();
            let skipped = ["target", "node_modules", ".git"].iter().any(|skip| path.ends_with(skip));
            if path.is_dir() && !skipped {
                pending.push(path);
            } else if path.extension().is_some_and(|ext| ext == "rs") {
                code.push_str(&std::fs::read_to_string(&path).unwrap_or_default());
                code.push('\n');
            }
        }
    }
    code
}
