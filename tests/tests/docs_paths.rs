//! The docs (README.md and every `docs/*.md`) name only what exists: every
//! backticked path and every `cargo xtask <command>` they mention. A rename that forgets the doc
//! fails here, with each stale name and its line.
//!
//! What counts as a path: a backticked span of letters, digits and `_.-/`
//! with a `/` in it or ending in a source file's extension. One that starts
//! with a top-level folder (`crates/…`, `tests/…`) is read from the
//! workspace root; any other is the end of a path in the repository
//! (`engine/actor.rs` inside a crate's section), and a bare file name must
//! be a file somewhere in it. Spans starting with `/` are URLs; `target/…`
//! is build output, never in a clean checkout.

use std::path::{Path, PathBuf};

/// Extensions that make a span without `/` a file name.
const FILE_EXTENSIONS: &[&str] =
    &["rs", "toml", "md", "json", "html", "css", "js", "mjs", "ts", "sql", "py", "lock", "args", "patch", "sh"];

/// Folders of build output and dependencies, never walked.
const SKIPPED_DIRS: &[&str] = &[".git", "target", "node_modules"];

/// One name in the doc, with the line it is on.
#[derive(Debug, PartialEq, Eq)]
struct Named {
    line: usize,
    text: String,
}

/// Every path-like backticked span, in order.
fn paths_named(doc: &str) -> Vec<Named> {
    let mut found = Vec::new();
    let mut line = 1;
    for (at, piece) in doc.split('`').enumerate() {
        let in_code = at % 2 == 1;
        let text = piece.trim();
        if in_code && is_path(text) {
            found.push(Named { line, text: text.to_owned() });
        }
        line += piece.matches('\n').count();
    }
    found
}

fn is_path(text: &str) -> bool {
    let plain = !text.is_empty() && text.chars().all(|c| c.is_ascii_alphanumeric() || "_.-/".contains(c));
    let has_extension =
        text.rsplit_once('.').is_some_and(|(stem, ext)| !stem.is_empty() && FILE_EXTENSIONS.contains(&ext));
    plain && !text.starts_with('/') && !text.starts_with("target/") && (text.contains('/') || has_extension)
}

/// Every `cargo xtask <command>` in the doc, line breaks counted as spaces.
fn xtask_commands_named(doc: &str) -> Vec<Named> {
    let mut found = Vec::new();
    let words: Vec<(usize, &str)> = doc
        .lines()
        .enumerate()
        .flat_map(|(at, line)| line.split_whitespace().map(move |word| (at + 1, word)))
        .collect();
    for window in words.windows(3) {
        let [(line, first), (_, second), (_, third)] = window else { continue };
        if first.trim_start_matches('`') == "cargo" && *second == "xtask" {
            let command: String = third.chars().take_while(|c| c.is_ascii_lowercase() || *c == '-').collect();
            if !command.is_empty() {
                found.push(Named { line: *line, text: command });
            }
        }
    }
    found
}

/// The commands `crates/xtask/src/main.rs` dispatches: its `"name" =>` arms.
fn xtask_commands(main_rs: &str) -> Vec<String> {
    main_rs
        .lines()
        .filter_map(|line| line.trim().strip_prefix('"')?.split_once("\" =>").map(|(name, _)| name.to_owned()))
        .collect()
}

/// Every file and folder under the root, as `/`-separated paths from it.
fn tree(root: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(folder) = pending.pop() {
        let entries = std::fs::read_dir(&folder).unwrap_or_else(|e| panic!("{}: {e}", folder.display()));
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            let relative = path.strip_prefix(root).unwrap_or(&path).to_string_lossy().replace('\\', "/");
            if path.is_dir() {
                if !SKIPPED_DIRS.contains(&name.as_str()) {
                    found.push(format!("{relative}/"));
                    pending.push(path);
                }
            } else {
                found.push(relative);
            }
        }
    }
    found
}

/// Whether `named` is a path from the root, or the end of one under it.
fn exists(named: &str, tree: &[String]) -> bool {
    // A trailing `/` names a folder; without it, a file or a folder.
    let wants_dir = named.ends_with('/');
    let named = named.trim_end_matches('/');
    // A path that starts at a top-level folder (`tests/…`) is read from the
    // root only: `tests/tidy.rs` is not `tests/tests/tidy.rs`.
    let from_root = named.split_once('/').is_some_and(|(first, _)| tree.contains(&format!("{first}/")));
    let suffix = format!("/{named}");
    tree.iter().filter(|entry| !wants_dir || entry.ends_with('/')).any(|entry| {
        let entry = entry.trim_end_matches('/');
        entry == named || (!from_root && entry.ends_with(&suffix))
    })
}

/// What the doc names that does not exist, one line each.
fn missing(doc_name: &str, doc: &str, tree: &[String], commands: &[String]) -> Vec<String> {
    let mut missing = Vec::new();
    for path in paths_named(doc) {
        if !exists(&path.text, tree) {
            missing.push(format!("{doc_name}:{}: path `{}` names nothing in the repository", path.line, path.text));
        }
    }
    for command in xtask_commands_named(doc) {
        if !commands.contains(&command.text) {
            missing.push(format!(
                "{doc_name}:{}: `cargo xtask {}` is not a command of crates/xtask/src/main.rs (it has: {})",
                command.line,
                command.text,
                commands.join(", ")
            ));
        }
    }
    missing
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// README.md and every `docs/*.md`, as paths from the root.
fn docs(root: &Path) -> Vec<String> {
    let folder = std::fs::read_dir(root.join("docs")).expect("docs/");
    let mut docs: Vec<String> = folder
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".md"))
        .map(|name| format!("docs/{name}"))
        .collect();
    docs.sort();
    docs.insert(0, "README.md".to_owned());
    docs
}

#[test]
fn every_doc_names_only_paths_and_commands_that_exist() {
    let root = root();
    let main_rs = std::fs::read_to_string(root.join("crates/xtask/src/main.rs")).expect("xtask's main.rs");
    let commands = xtask_commands(&main_rs);
    assert!(commands.len() > 5, "no commands found in crates/xtask/src/main.rs: {commands:?}");
    let tree = tree(&root);
    let docs = docs(&root);
    assert!(docs.iter().any(|doc| doc == "docs/architecture.md"), "the code map is not among {docs:?}");
    let mut missing_names = Vec::new();
    for doc_name in &docs {
        let doc = std::fs::read_to_string(root.join(doc_name)).unwrap_or_else(|e| panic!("{doc_name}: {e}"));
        if doc_name == "docs/architecture.md" {
            assert!(paths_named(&doc).len() > 20, "the doc names almost no paths: is this the code map?");
        }
        missing_names.extend(missing(doc_name, &doc, &tree, &commands));
    }
    assert!(missing_names.is_empty(), "{} stale name(s):\n{}", missing_names.len(), missing_names.join("\n"));
}

#[test]
fn a_stale_path_or_command_is_reported_with_its_line() {
    let tree: Vec<String> = [
        "crates/",
        "crates/server/",
        "crates/server/src/",
        "crates/server/src/app.rs",
        "tests/",
        "tests/tests/",
        "tests/tests/tidy.rs",
    ]
    .map(String::from)
    .to_vec();
    let commands = vec!["serve".to_owned(), "test".to_owned()];
    let doc = "`crates/server/src/app.rs` and `src/app.rs`, `app.rs`, `crates/server/`\n\
               `tests/tidy.rs`, `crates/server/src/app.rs/` and `lost.rs`; `/api/time`, `target/pkg/`,\n\
               `ShowState::apply`, `text plain`, `cargo xtask test`; `cargo xtask\nbogus`, `cargo xtask …`";
    assert_eq!(
        missing("doc.md", doc, &tree, &commands),
        [
            "doc.md:2: path `tests/tidy.rs` names nothing in the repository",
            "doc.md:2: path `crates/server/src/app.rs/` names nothing in the repository",
            "doc.md:2: path `lost.rs` names nothing in the repository",
            "doc.md:3: `cargo xtask bogus` is not a command of crates/xtask/src/main.rs (it has: serve, test)",
        ]
    );
}

#[test]
fn the_commands_are_read_from_xtasks_match() {
    let main_rs = "    let outcome = match command {\n        \"serve\" => run::serve(rest),\n        \
                   \"tidy\" => run::tidy(),\n        _ => {\n";
    assert_eq!(xtask_commands(main_rs), ["serve", "tidy"]);
}
