//! Boundaries on a crate's module graph: which module names which through
//! `crate::` paths. A rule forbids a module from *reaching* another, so a
//! break through a third file fails as well as a direct one.

use std::collections::{BTreeMap, HashMap};

use super::Source;

/// One `crate::` mention: the module it names, from which line.
#[derive(Debug, Clone)]
struct Edge {
    to: String,
    line: usize,
}

/// The modules of one crate and the edges between them.
pub struct ModuleGraph {
    /// Module path (`components::seat`, `""` for the root) → its file.
    files: BTreeMap<String, String>,
    edges: HashMap<String, Vec<Edge>>,
}

impl ModuleGraph {
    /// The graph of the crate whose sources sit under `src` (e.g. `web/src/`).
    pub fn new(src: &str, sources: &[Source]) -> Self {
        let in_crate: Vec<&Source> = sources.iter().filter(|source| source.is_under(src)).collect();
        let files: BTreeMap<String, String> = in_crate
            .iter()
            .filter_map(|source| module_of(&source.path[src.len()..]).map(|module| (module, source.path.clone())))
            .collect();
        let mut edges = HashMap::new();
        for source in in_crate {
            let Some(module) = module_of(&source.path[src.len()..]) else { continue };
            let mut out = Vec::new();
            for (line, code) in source.code_lines() {
                for path in crate_paths(code) {
                    if let Some(to) = longest_module(&files, &path).filter(|to| *to != module) {
                        out.push(Edge { to, line });
                    }
                }
            }
            edges.insert(module, out);
        }
        Self { files, edges }
    }

    /// For each module `from` selects, the first chain of mentions that
    /// reaches a module `to` selects: `a.rs:3 → b.rs:9 → components::seat`.
    pub fn reaching(&self, from: impl Fn(&str) -> bool, to: impl Fn(&str) -> bool) -> Vec<(String, usize, String)> {
        let mut found = Vec::new();
        for (module, file) in &self.files {
            if !from(module) || to(module) {
                continue;
            }
            if let Some((line, chain)) = self.chain(module, &to) {
                found.push((file.clone(), line, chain));
            }
        }
        found
    }

    /// Breadth first, so the chain printed is a shortest one.
    fn chain(&self, start: &str, to: &impl Fn(&str) -> bool) -> Option<(usize, String)> {
        let mut came_from: HashMap<&str, (&str, usize)> = HashMap::new();
        let mut queue = std::collections::VecDeque::from([start]);
        while let Some(module) = queue.pop_front() {
            for edge in self.edges.get(module).into_iter().flatten() {
                if edge.to == start || came_from.contains_key(edge.to.as_str()) {
                    continue;
                }
                came_from.insert(&edge.to, (module, edge.line));
                if to(&edge.to) {
                    return Some(self.describe(start, &edge.to, &came_from));
                }
                queue.push_back(&edge.to);
            }
        }
        None
    }

    /// The chain as `file:line` steps, and the line of its first step.
    fn describe(&self, start: &str, end: &str, came_from: &HashMap<&str, (&str, usize)>) -> (usize, String) {
        let mut steps = Vec::new();
        let mut at = end;
        while at != start {
            let (previous, line) = came_from[at];
            steps.push((previous, line));
            at = previous;
        }
        steps.reverse();
        let first_line = steps.first().map_or(0, |(_, line)| *line);
        let mut chain: Vec<String> =
            steps.iter().map(|(module, line)| format!("{}:{line}", self.files[*module])).collect();
        chain.push(end.to_owned());
        (first_line, chain.join(" → "))
    }
}

/// `components/seat.rs` → `components::seat`; `api/mod.rs` → `api`; `lib.rs` → the root.
fn module_of(relative: &str) -> Option<String> {
    let stem = relative.strip_suffix(".rs")?;
    if stem.starts_with("bin/") || stem == "main" {
        return None;
    }
    let stem = stem.strip_suffix("/mod").unwrap_or(stem);
    Some(if stem == "lib" { String::new() } else { stem.replace('/', "::") })
}

/// Every module path a line names after `crate::`, groups spread out:
/// `use crate::{a::B, c};` names `a::B` and `c`.
fn crate_paths(code: &str) -> Vec<String> {
    let mut paths = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        rest = &rest[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            paths.extend(group[..end].split(',').map(|item| path_prefix(item.trim())));
            rest = &group[end..];
        } else {
            paths.push(path_prefix(rest));
        }
    }
    paths.retain(|path| !path.is_empty());
    paths
}

fn path_prefix(text: &str) -> String {
    text.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == ':').collect()
}

/// The deepest module `path` lies in (`components::seat::Seat` → `components::seat`).
fn longest_module(files: &BTreeMap<String, String>, path: &str) -> Option<String> {
    let parts: Vec<&str> = path.split("::").filter(|part| !part.is_empty()).collect();
    (1..=parts.len()).rev().map(|len| parts[..len].join("::")).find(|module| files.contains_key(module))
}
