//! Boundaries on the crate graph, as Cargo resolves it: a crate that reaches
//! HTTP through any dependency, however deep, breaks them.

use std::collections::{BTreeSet, HashMap};

use serde_json::Value;

/// Crates that speak HTTP, with their `-*` families (`hyper-util`, `tower-http`…).
const HTTP_CRATES: &[&str] = &["axum", "http", "tower", "hyper", "h2"];

/// The resolved graph: each package's name, and its normal (not dev, not build) dependencies.
pub struct Graph {
    names: HashMap<String, String>,
    normal_deps: HashMap<String, Vec<String>>,
}

impl Graph {
    /// The workspace's graph from `cargo metadata`.
    pub fn of_workspace(root: &std::path::Path) -> Self {
        let output = std::process::Command::new(env!("CARGO"))
            .args(["metadata", "--format-version", "1", "--locked"])
            .current_dir(root)
            .output()
            .expect("cargo metadata runs");
        assert!(output.status.success(), "cargo metadata: {}", String::from_utf8_lossy(&output.stderr));
        Self::parse(&serde_json::from_slice(&output.stdout).expect("cargo metadata prints JSON"))
    }

    pub fn parse(metadata: &Value) -> Self {
        let names = metadata["packages"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|package| (text(&package["id"]), text(&package["name"])))
            .collect();
        let mut normal_deps = HashMap::new();
        for node in metadata["resolve"]["nodes"].as_array().into_iter().flatten() {
            let deps = node["deps"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|dep| dep["dep_kinds"].as_array().into_iter().flatten().any(|kind| kind["kind"].is_null()))
                .map(|dep| text(&dep["pkg"]))
                .collect();
            normal_deps.insert(text(&node["id"]), deps);
        }
        Self { names, normal_deps }
    }

    /// Every HTTP crate `package` depends on normally, each with the chain that reaches it.
    pub fn http_reached_by(&self, package: &str) -> Vec<String> {
        let start = self.names.iter().find(|(_, name)| *name == package).map(|(id, _)| id.clone());
        let start = start.unwrap_or_else(|| panic!("{package} is not in the workspace's graph"));
        let mut chains: HashMap<String, Vec<String>> = HashMap::from([(start.clone(), vec![package.to_owned()])]);
        let mut pending = vec![start];
        let mut found = BTreeSet::new();
        while let Some(id) = pending.pop() {
            let chain = chains[&id].clone();
            for dep in self.normal_deps.get(&id).into_iter().flatten() {
                if chains.contains_key(dep) {
                    continue;
                }
                let name = self.names.get(dep).cloned().unwrap_or_else(|| dep.clone());
                let mut longer = chain.clone();
                longer.push(name.clone());
                if is_http(&name) {
                    found.insert(longer.join(" → "));
                }
                chains.insert(dep.clone(), longer);
                pending.push(dep.clone());
            }
        }
        found.into_iter().collect()
    }
}

fn is_http(name: &str) -> bool {
    HTTP_CRATES.iter().any(|family| name == *family || name.starts_with(&format!("{family}-")))
}

fn text(value: &Value) -> String {
    value.as_str().unwrap_or_default().to_owned()
}
