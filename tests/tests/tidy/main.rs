//! The boundaries docs/architecture.md marks *(tidy)*, checked by reading
//! the source tree and the crate graph (rust-analyzer's "tidy" tests): a
//! broken boundary fails here with its file and line, or its chain.

mod crate_graph;
mod dependencies;
mod imports;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Code that never knows HTTP: the core crate (which the crate graph guards
/// too), and the server's command line and demo shows.
const HTTP_FREE: &[&str] = &["crates/core/src/", "crates/server/src/config.rs", "crates/server/src/demo.rs"];

/// The one place that knows SQL.
const STORE: &str = "crates/core/src/store/";

/// Words that mean a file knows HTTP.
const HTTP_WORDS: &[&str] = &["axum::", "axum_", "use axum", "http::", "hyper::", "tower_http::"];

/// Words that mean a file knows SQL or a database driver.
const SQL_WORDS: &[&str] = &[
    "rusqlite",
    "tokio_postgres",
    "deadpool_postgres",
    "\"SELECT ",
    "\"INSERT ",
    "\"UPDATE ",
    "\"DELETE ",
    "\"CREATE TABLE",
    "\"BEGIN",
];

/// Ways of reading a clock or sleeping on one.
const CLOCK_WORDS: &[&str] =
    &["SystemTime", "Instant::now", "Date::now", "performance()", "chrono::", "thread::sleep", "UNIX_EPOCH"];

/// What `seat-state` always depends on.
const SEAT_STATE_DEPENDENCIES: &[&str] = &["serde"];

/// What `seat-state` may depend on behind a feature: utoipa for the server's
/// OpenAPI document, tsify and wasm-bindgen for the JavaScript package.
const SEAT_STATE_OPTIONAL_DEPENDENCIES: &[&str] = &["utoipa", "tsify", "wasm-bindgen"];

/// One broken rule at one place.
#[derive(Debug, PartialEq, Eq)]
struct Violation {
    file: String,
    line: usize,
    rule: &'static str,
    text: String,
}

/// A source file as the rules see it: its path from the root and its lines.
struct Source {
    path: String,
    text: String,
}

impl Source {
    /// Lines with their numbers, comments cut off (doc comments name things freely).
    fn code_lines(&self) -> impl Iterator<Item = (usize, &str)> {
        self.text.lines().enumerate().map(|(at, line)| (at + 1, without_comment(line)))
    }

    fn find(&self, rule: &'static str, words: &[&str]) -> Vec<Violation> {
        self.code_lines()
            .filter(|(_, code)| words.iter().any(|word| code.contains(word)))
            .map(|(line, code)| Violation { file: self.path.clone(), line, rule, text: code.trim().to_owned() })
            .collect()
    }

    fn is_under(&self, prefix: &str) -> bool {
        self.path.starts_with(prefix)
    }
}

/// The code of a line before any `//` that is not inside a string literal.
fn without_comment(line: &str) -> &str {
    let mut in_string = false;
    let mut escaped = false;
    let bytes = line.as_bytes();
    for (at, &byte) in bytes.iter().enumerate() {
        match byte {
            _ if escaped => escaped = false,
            b'\\' if in_string => escaped = true,
            b'"' => in_string = !in_string,
            b'/' if !in_string && bytes.get(at + 1) == Some(&b'/') => return &line[..at],
            _ => {}
        }
    }
    line
}

/// Every rule over a set of sources.
fn check(sources: &[Source]) -> Vec<Violation> {
    let mut found = Vec::new();
    for source in sources {
        let in_server = source.is_under("crates/server/src/") || source.is_under("crates/core/src/");
        let in_rules = source.is_under("crates/seat-state/src/");
        let in_web = source.is_under("web/src/");
        let in_core = HTTP_FREE.iter().any(|module| source.is_under(module));
        // The web's API module: `api.rs` and its submodules under `api/`.
        let in_web_api = source.path == "web/src/api.rs" || source.is_under("web/src/api/");
        if in_core || in_rules || (in_web && !in_web_api) {
            found.extend(source.find("HTTP in the server's core, seat-state or web model", HTTP_WORDS));
        }
        if (in_server && !source.is_under(STORE)) || in_rules || in_web {
            found.extend(source.find("SQL outside crates/core/src/store/", SQL_WORDS));
        }
        if in_web && !in_web_api {
            found.extend(source.find("an API URL outside web/src/api.rs", &["\"/api", "/api/"]));
        }
        if in_web && is_web_model(&source.path) {
            found.extend(source.find("model code importing components", &["components::"]));
        }
        if in_rules {
            found.extend(source.find("a clock read in seat-state", CLOCK_WORDS));
        }
        if source.is_under("crates/server/src/routes/") {
            found.extend(source.find("a route reading the store (the core's services answer)", &[".store."]));
        }
    }
    found
}

/// Web code that is not a component and not the crate's root.
fn is_web_model(path: &str) -> bool {
    !path.starts_with("web/src/components/") && path != "web/src/lib.rs" && path != "web/src/main.rs"
}

/// Dependencies of a `Cargo.toml` outside the allowed lists (dev-dependencies aside).
fn extra_dependencies(path: &str, manifest: &str, allowed: &[&str], optional: &[&str]) -> Vec<Violation> {
    let mut found = Vec::new();
    let mut in_dependencies = false;
    for (at, line) in manifest.lines().enumerate() {
        let line = line.trim();
        if line.starts_with('[') {
            in_dependencies = line.ends_with("dependencies]") && !line.contains("dev-dependencies");
            continue;
        }
        let name = line.split(['=', '.', ' ']).next().unwrap_or_default();
        let allowed_here = allowed.contains(&name) || (line.contains("optional = true") && optional.contains(&name));
        if in_dependencies && !name.is_empty() && !name.starts_with('#') && !allowed_here {
            found.push(Violation {
                file: path.to_owned(),
                line: at + 1,
                rule: "a seat-state dependency outside serde (and optional utoipa, tsify, wasm-bindgen)",
                text: line.to_owned(),
            });
        }
    }
    found
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every `.rs` file under `dir`, with its path from the root.
fn sources_under(dir: &str) -> Vec<Source> {
    let mut sources = Vec::new();
    let mut pending = vec![root().join(dir)];
    while let Some(folder) = pending.pop() {
        let entries = std::fs::read_dir(&folder).unwrap_or_else(|e| panic!("{}: {e}", folder.display()));
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|ext| ext == "rs") {
                let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                let relative = path.strip_prefix(root()).unwrap_or(&path).to_string_lossy().replace('\\', "/");
                sources.push(Source { path: relative, text });
            }
        }
    }
    sources.sort_by(|a, b| a.path.cmp(&b.path));
    sources
}

fn report(violations: &[Violation]) -> String {
    let mut report = String::new();
    for v in violations {
        let _ = writeln!(report, "{}:{}: {}: {}", v.file, v.line, v.rule, v.text);
    }
    report
}

#[test]
fn the_source_tree_keeps_the_readmes_boundaries() {
    let mut sources = Vec::new();
    for dir in ["crates/core/src", "crates/server/src", "crates/seat-state/src", "web/src"] {
        sources.extend(sources_under(dir));
    }
    assert!(sources.len() > 30, "the tree was not found: {} files under {}", sources.len(), root().display());
    let mut violations = check(&sources);
    let manifest_path = "crates/seat-state/Cargo.toml";
    let manifest = std::fs::read_to_string(root().join(manifest_path)).expect("seat-state's manifest");
    violations.extend(extra_dependencies(
        manifest_path,
        &manifest,
        SEAT_STATE_DEPENDENCIES,
        SEAT_STATE_OPTIONAL_DEPENDENCIES,
    ));
    violations.extend(web_models_reaching_components(&sources));
    assert!(violations.is_empty(), "boundaries broken:\n{}", report(&violations));
}

/// Web model code reaching a component through any chain of modules.
fn web_models_reaching_components(sources: &[Source]) -> Vec<Violation> {
    let graph = imports::ModuleGraph::new("web/src/", sources);
    let is_component = |module: &str| module == "components" || module.starts_with("components::");
    let is_model = |module: &str| !module.is_empty() && !is_component(module);
    graph
        .reaching(is_model, is_component)
        .into_iter()
        .map(|(file, line, chain)| Violation { file, line, rule: "model code reaching components", text: chain })
        .collect()
}

#[test]
fn the_core_crate_reaches_no_http_crate() {
    let graph = crate_graph::Graph::of_workspace(&root());
    let reached = graph.http_reached_by("seathold-core");
    assert!(reached.is_empty(), "seathold-core depends on HTTP:\n{}", reached.join("\n"));
    assert!(
        !graph.http_reached_by("seathold-server").is_empty(),
        "the check sees nothing: the server, which serves HTTP, reaches no HTTP crate"
    );
}

#[test]
fn every_declared_dependency_is_named_by_its_code() {
    let declared = dependencies::declared(&root());
    assert!(declared.iter().any(|dep| dep.package == "seathold-server"), "cargo metadata listed no workspace crate");
    let unused = dependencies::unused(&declared, dependencies::crate_code);
    assert!(unused.is_empty(), "dependencies nothing uses:\n{}", unused.join("\n"));
}

#[test]
fn a_dependency_no_code_names_is_reported_with_its_crate() {
    let dep = |package: &str, name: &str, kind: Option<&str>| dependencies::Declared {
        package: package.to_owned(),
        dir: format!("crates/{package}"),
        ident: name.replace('-', "_"),
        name: name.to_owned(),
        kind: kind.map(str::to_owned),
    };
    let declared = [
        dep("a", "serde-json", None),
        dep("a", "tokio", Some("dev")),
        dep("a", "hex", None),
        dep("a", "mytokio", None),
        dep("seathold-web", "idna_adapter", None),
    ];
    // Normal dependencies are looked for in src/ only; dev-dependencies in tests too.
    let read = |_: &str, everywhere: bool| {
        let src = "use serde_json::Value;\nlet x = mytokio_like::f(); // hex\n";
        if everywhere { format!("{src}#[tokio::test]\n") } else { src.to_owned() }
    };
    assert_eq!(
        dependencies::unused(&declared, read),
        ["crates/a/Cargo.toml: hex: no code names it", "crates/a/Cargo.toml: mytokio: no code names it"]
    );
}

#[test]
fn a_dependency_reaching_http_is_named_with_its_chain() {
    let metadata = serde_json::json!({
        "packages": [
            {"id": "core", "name": "seathold-core"}, {"id": "log", "name": "tracing"},
            {"id": "client", "name": "reqwest"}, {"id": "hu", "name": "hyper-util"}, {"id": "t", "name": "tempfile"}
        ],
        "resolve": {"nodes": [
            {"id": "core", "deps": [
                {"pkg": "log", "dep_kinds": [{"kind": null}]},
                {"pkg": "t", "dep_kinds": [{"kind": "dev"}]}
            ]},
            {"id": "log", "deps": [{"pkg": "client", "dep_kinds": [{"kind": null}]}]},
            {"id": "client", "deps": [{"pkg": "hu", "dep_kinds": [{"kind": null}]}]},
            {"id": "t", "deps": [{"pkg": "hu", "dep_kinds": [{"kind": null}]}]}
        ]}
    });
    let graph = crate_graph::Graph::parse(&metadata);
    assert_eq!(graph.http_reached_by("seathold-core"), ["seathold-core → tracing → reqwest → hyper-util"]);
}

#[test]
fn a_model_reaching_a_component_through_another_file_is_named_with_its_chain() {
    let sources = [
        source("web/src/lib.rs", "pub mod components;\npub mod model;\npub mod words;\n"),
        source("web/src/model.rs", "use crate::model::Thing;\n\nuse crate::{words::label, price};\n"),
        source("web/src/price.rs", "fn p() {}\n"),
        source(
            "web/src/words.rs",
            "// crate::components in a comment is fine\nfn f() { crate::components::seat::draw(); }\n",
        ),
        source("web/src/components/mod.rs", "pub mod seat;\n"),
        source("web/src/components/seat.rs", "use crate::model::Thing;\n"),
    ];
    let found: Vec<(String, usize, String)> =
        web_models_reaching_components(&sources).into_iter().map(|v| (v.file, v.line, v.text)).collect();
    assert_eq!(
        found,
        [
            ("web/src/model.rs".to_owned(), 3, "web/src/model.rs:3 → web/src/words.rs:2 → components::seat".to_owned()),
            ("web/src/words.rs".to_owned(), 2, "web/src/words.rs:2 → components::seat".to_owned()),
        ]
    );
}

fn source(path: &str, text: &str) -> Source {
    Source { path: path.to_owned(), text: text.to_owned() }
}

#[test]
fn each_rule_names_the_file_and_line_it_breaks() {
    let sources = [
        source("crates/core/src/engine/actor.rs", "fn ok() {}\nuse axum::http::StatusCode;\n"),
        source("crates/core/src/sweep.rs", "// SELECT in a comment is fine\nlet q = \"SELECT 1\";\n"),
        source("web/src/live_map.rs", "use crate::components::seat::Seat;\nlet u = \"/api/shows\";\n"),
        source("crates/seat-state/src/clock.rs", "/// SystemTime in docs\nlet t = std::time::SystemTime::now();\n"),
        source("crates/server/src/routes/shows.rs", "let shows = state.core.shows.list();\nstate.store.show(id);\n"),
    ];
    let found: Vec<(String, usize, &str)> = check(&sources).into_iter().map(|v| (v.file, v.line, v.rule)).collect();
    assert_eq!(
        found,
        [
            ("crates/core/src/engine/actor.rs".to_owned(), 2, "HTTP in the server's core, seat-state or web model"),
            ("crates/core/src/sweep.rs".to_owned(), 2, "SQL outside crates/core/src/store/"),
            ("web/src/live_map.rs".to_owned(), 2, "an API URL outside web/src/api.rs"),
            ("web/src/live_map.rs".to_owned(), 1, "model code importing components"),
            ("crates/seat-state/src/clock.rs".to_owned(), 2, "a clock read in seat-state"),
            (
                "crates/server/src/routes/shows.rs".to_owned(),
                2,
                "a route reading the store (the core's services answer)"
            ),
        ]
    );
}

#[test]
fn the_places_allowed_to_break_a_rule_pass() {
    let sources = [
        source("crates/server/src/routes/holds.rs", "use axum::Json;\n"),
        source("crates/core/src/store/sqlite/mod.rs", "use rusqlite::Connection;\nlet q = \"SELECT 1\";\n"),
        source("web/src/api.rs", "get(\"/api/shows\")\n"),
        source("web/src/components/show_view.rs", "use crate::components::seat::Seat;\n"),
        source("web/src/api.rs", "let u = \"http://x\"; // a URL's slashes are not a comment\n"),
    ];
    assert_eq!(check(&sources), []);
}

#[test]
fn seat_state_may_depend_only_on_serde_and_optional_describers() {
    let manifest = "[dependencies]\nserde.workspace = true\nutoipa = { workspace = true, optional = true }\n\
                    tsify = { version = \"0.5\" }\ntokio = \"1\"\n[dev-dependencies]\nproptest = \"1\"\n\
                    [target.'cfg(unix)'.dependencies]\nlibc = \"0.2\"\n";
    let found: Vec<(usize, String)> =
        extra_dependencies("Cargo.toml", manifest, SEAT_STATE_DEPENDENCIES, SEAT_STATE_OPTIONAL_DEPENDENCIES)
            .into_iter()
            .map(|v| (v.line, v.text))
            .collect();
    assert_eq!(
        found,
        [
            (4, "tsify = { version = \"0.5\" }".to_owned()),
            (5, "tokio = \"1\"".to_owned()),
            (9, "libc = \"0.2\"".to_owned())
        ]
    );
}

/// `cargo xtask sim --mutations` puts back old bugs from patches; a patch
/// that no longer applies would leave a bug untested, so each must apply
/// to the tree as it is (`crates/sim/mutations/regenerate.py` rewrites them).
#[test]
fn every_mutation_patch_applies_to_the_tree() {
    let dir = root().join("crates/sim/mutations");
    let mut patches: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "patch"))
        .collect();
    patches.sort();
    assert!(patches.len() >= 10, "the patches were not found in {}", dir.display());
    let stale: Vec<String> = patches
        .iter()
        .filter_map(|patch| {
            let output = std::process::Command::new("git")
                .args(["apply", "--check"])
                .arg(patch)
                .current_dir(root())
                .output()
                .expect("git runs");
            (!output.status.success())
                .then(|| format!("{}: {}", patch.display(), String::from_utf8_lossy(&output.stderr).trim()))
        })
        .collect();
    assert!(stale.is_empty(), "mutation patches that no longer apply:\n{}", stale.join("\n"));
}
