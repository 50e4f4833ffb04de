//! Native code leaking into the browser build shows up as imports from the
//! module "env" (libc, C symbols); the wasm must have none.

use std::path::Path;

use wasmparser::{Parser, Payload, TypeRef};

/// Fails if any `.wasm` under `dir` imports from "env".
pub fn check_no_env_imports(dir: &Path) -> Result<(), String> {
    let mut checked = 0;
    for entry in std::fs::read_dir(dir).map_err(|e| format!("reading {}: {e}", dir.display()))? {
        let path = entry.map_err(|e| e.to_string())?.path();
        if path.extension().is_some_and(|ext| ext == "wasm") {
            let leaked = env_imports(&path)?;
            if !leaked.is_empty() {
                return Err(format!("{} imports from \"env\": {}", path.display(), leaked.join(", ")));
            }
            println!("    {}: no \"env\" imports", path.display());
            checked += 1;
        }
    }
    if checked == 0 { Err(format!("no .wasm in {}", dir.display())) } else { Ok(()) }
}

fn env_imports(path: &Path) -> Result<Vec<String>, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("reading {}: {e}", path.display()))?;
    let mut leaked = Vec::new();
    for payload in Parser::new(0).parse_all(&bytes) {
        if let Payload::ImportSection(imports) = payload.map_err(|e| e.to_string())? {
            for import in imports {
                let import = import.map_err(|e| e.to_string())?;
                if import.module == "env" {
                    let kind = if matches!(import.ty, TypeRef::Func(_)) { "function" } else { "item" };
                    leaked.push(format!("{kind} {}", import.name));
                }
            }
        }
    }
    Ok(leaked)
}
