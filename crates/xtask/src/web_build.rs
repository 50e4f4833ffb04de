//! The web UI's release bundle without compiling Trunk: the same steps
//! `trunk build --release` (0.21.14) takes for `index.html`'s `data-trunk`
//! links, with the same tools, into the same layout of files (hashed names,
//! the same `index.html` rewriting; not checked byte for byte against Trunk).
//!
//! - `rel="rust"`: `cargo build --target=wasm32-unknown-unknown --manifest-path
//!   HREF --profile PROFILE --bin BIN`, then `wasm-bindgen --target=web
//!   --no-typescript`, then `wasm-opt -OLEVEL`; the JS and wasm are named
//!   `BIN-HASH` (HASH: seahash of cargo's wasm, as Trunk).
//! - One more bundle per page that loads only its own code: a
//!   `<link data-seathold-page="/admin" rel="rust" …>` (attributes as
//!   above; Trunk ignores it) is built the same way. Then the links become
//!   one start-up script that picks the page's bundle by path, preloads it
//!   (sha384 integrity, as Trunk's `modulepreload`/`preload` links) and
//!   starts it as Trunk's start-up script does (the server's CSP allows it
//!   by the hash it reads from `index.html`). `trunk build --release` and
//!   `trunk serve` build only the main bundle: a debug build of it
//!   includes those pages (the development loop), a release build does not.
//! - `rel="css"`: the file copied as `STEM-HASH.EXT` (seahash of its bytes,
//!   not minified: Trunk's default), linked with its sha384 integrity.
//!
//! Any other `data-trunk` link or attribute is refused, so that this and
//! `trunk build --release` cannot drift apart silently (but for the page
//! bundles); `trunk serve` (`cargo xtask setup --dev`) stays the development loop.

use std::hash::Hasher;
use std::path::{Path, PathBuf};

use base64::Engine;
use sha2::{Digest, Sha384};

use crate::install;
use crate::run::{Step, root, run_checked, target_dir, tool, web_dist};

/// Trunk's `public_url` default: files are linked from the site's root.
const BASE: &str = "/";

/// One `<link data-trunk …>` of index.html: where its text is, and its attributes.
#[derive(Debug, PartialEq)]
struct TrunkLink {
    start: usize,
    end: usize,
    attributes: Vec<(String, String)>,
}

impl TrunkLink {
    fn get(&self, name: &str) -> Option<&str> {
        self.attributes.iter().find(|(key, _)| key == name).map(|(_, value)| value.as_str())
    }

    fn refuse_others(&self, known: &[&str]) -> Result<(), String> {
        match self.attributes.iter().find(|(key, _)| !known.contains(&key.as_str())) {
            Some((key, _)) => Err(format!(
                "index.html: `{key}` on a data-trunk link is not built by crates/xtask/src/web_build.rs \
                 (teach it what Trunk does with it)"
            )),
            None => Ok(()),
        }
    }
}

/// The attribute of a page bundle's link: the path it serves.
const PAGE_ATTRIBUTE: &str = "data-seathold-page";

/// What a link turns into: its replacement, and preload links for `</head>`.
struct Built {
    replacement: String,
    preloads: String,
}

/// One built wasm bundle: the page path it serves (`None`: every other
/// path), its file names and their integrity values.
#[derive(Debug, Clone, PartialEq)]
struct Bundle {
    page: Option<String>,
    js: String,
    wasm: String,
    js_integrity: String,
    wasm_integrity: String,
}

/// `cargo xtask`'s web build: index.html's bundle into `target/web-dist`.
pub fn build() -> Result<(), String> {
    let step = Step::start("web UI: cargo build (wasm32) + wasm-bindgen + wasm-opt, as `trunk build --release`");
    let index = root().join("index.html");
    let html = std::fs::read_to_string(&index).map_err(|e| format!("reading {}: {e}", index.display()))?;
    let dist = web_dist();
    let stage = dist.with_file_name("web-dist.stage");
    remove_dir(&stage)?;
    std::fs::create_dir_all(&stage).map_err(|e| format!("creating {}: {e}", stage.display()))?;

    let links = trunk_links(&html)?;
    let mut bundles = Vec::new();
    for link in links.iter().filter(|link| link.get("rel") == Some("rust")) {
        bundles.push(rust(link, &stage)?);
    }
    let mut out = String::with_capacity(html.len() + 2048);
    let mut preloads = String::new();
    let mut copied = 0;
    for link in &links {
        let built = match (link.get("rel"), link.get(PAGE_ATTRIBUTE)) {
            (Some("css"), None) => css(link, &stage)?,
            // The start-up script takes the main bundle's place; page bundles' links go.
            (Some("rust"), None) => Built { replacement: start_up_script(&bundles)?, preloads: String::new() },
            (Some("rust"), Some(_)) => Built { replacement: String::new(), preloads: String::new() },
            (other, _) => {
                return Err(format!(
                    "index.html: data-trunk rel={other:?} is not built by crates/xtask/src/web_build.rs"
                ));
            }
        };
        out.push_str(&html[copied..link.start]);
        out.push_str(&built.replacement);
        preloads.push_str(&built.preloads);
        copied = link.end;
    }
    out.push_str(&html[copied..]);
    let out = insert_before_head_end(&out, &preloads)?;
    write(&stage.join("index.html"), out.as_bytes())?;

    remove_dir(&dist)?;
    std::fs::rename(&stage, &dist).map_err(|e| format!("moving {} to {}: {e}", stage.display(), dist.display()))?;
    step.done()
}

/// `rel="css"`: copied with its content hash in the name.
fn css(link: &TrunkLink, stage: &Path) -> Result<Built, String> {
    link.refuse_others(&["data-trunk", "rel", "href"])?;
    let href = link.get("href").ok_or("index.html: a data-trunk rel=css link has no href")?;
    let source = root().join(href);
    let bytes = read(&source)?;
    let stem = source.file_stem().unwrap_or_default().to_string_lossy();
    let extension = source.extension().unwrap_or_default().to_string_lossy();
    let name = format!("{stem}-{:x}.{extension}", seahash::hash(&bytes));
    write(&stage.join(&name), &bytes)?;
    Ok(Built {
        replacement: format!(r#"<link rel="stylesheet" href="{BASE}{name}" integrity="{}"/>"#, integrity(&bytes)),
        preloads: String::new(),
    })
}

/// `rel="rust"`: cargo, wasm-bindgen and wasm-opt.
fn rust(link: &TrunkLink, stage: &Path) -> Result<Bundle, String> {
    link.refuse_others(&[
        "data-trunk",
        PAGE_ATTRIBUTE,
        "rel",
        "href",
        "data-bin",
        "data-wasm-opt",
        "data-cargo-profile",
    ])?;
    let manifest = root().join(link.get("href").unwrap_or("Cargo.toml"));
    let package = package_name(&manifest)?;
    let bin = link.get("data-bin").unwrap_or(&package).to_owned();
    let bin = bin.as_str();
    let profile = link.get("data-cargo-profile").unwrap_or("release");

    let mut cargo = tool("cargo");
    cargo.args(["build", "--target=wasm32-unknown-unknown", "--manifest-path"]).arg(&manifest);
    cargo.args(["--profile", profile, "--bin", bin]);
    run_checked(&mut cargo)?;
    // Cargo's `release` profile lives in target/…/release, as every other one in its own name.
    let wasm = target_dir().join("wasm32-unknown-unknown").join(profile).join(format!("{bin}.wasm"));
    let hashed = format!("{bin}-{:x}", seahash_of(&read(&wasm)?));
    install::wasm_bindgen_ready()?;

    // Apart from Trunk's own folders, so a `trunk build` running at the same time cannot mix in.
    let work = target_dir().join("xtask-web");
    let bindgen_out = work.join("wasm-bindgen");
    remove_dir(&bindgen_out)?;
    run_checked(
        tool("wasm-bindgen")
            .arg("--target=web")
            .arg(format!("--out-dir={}", bindgen_out.display()))
            .arg(format!("--out-name={bin}"))
            .arg(&wasm)
            .arg("--no-typescript"),
    )?;
    if bindgen_out.join("snippets").exists() {
        return Err("wasm-bindgen wrote snippets/: crates/xtask/src/web_build.rs does not copy them yet".into());
    }
    let js = format!("{hashed}.js");
    let bg_wasm = format!("{hashed}_bg.wasm");
    copy(&bindgen_out.join(format!("{bin}.js")), &stage.join(&js))?;
    copy(&bindgen_out.join(format!("{bin}_bg.wasm")), &stage.join(&bg_wasm))?;

    match link.get("data-wasm-opt").unwrap_or("0") {
        "0" | "off" => {}
        level => {
            let optimized = work.join(format!("{bin}_bg.wasm"));
            let mut opt = tool("wasm-opt");
            opt.arg(format!("--output={}", optimized.display())).arg(format!("-O{level}"));
            // Function names kept, for a CPU profile that names them (`SEATHOLD_BENCH_PROFILE`).
            if std::env::var_os("SEATHOLD_WEB_NAMES").is_some() {
                opt.arg("-g");
            }
            run_checked(opt.arg(stage.join(&bg_wasm)))?;
            copy(&optimized, &stage.join(&bg_wasm))?;
        }
    }

    Ok(Bundle {
        page: link.get(PAGE_ATTRIBUTE).map(str::to_owned),
        js_integrity: integrity(&read(&stage.join(&js))?),
        wasm_integrity: integrity(&read(&stage.join(&bg_wasm))?),
        js,
        wasm: bg_wasm,
    })
}

/// Trunk's start-up (wasm-bindgen ≥ 0.2.93 takes an object;
/// `window.wasmBindings` and the `TrunkApplicationStarted` event as Trunk's),
/// for the bundle of the page's path: a classic script, so the page's
/// bundle is preloaded (as Trunk's `modulepreload`/`preload` links, with
/// integrity) while the head is parsed, and started once the body is there
/// (and, on a show page, its picture of the map painted).
fn start_up_script(bundles: &[Bundle]) -> Result<String, String> {
    let json = |text: &str| format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""));
    let entry = |bundle: &Bundle| {
        format!(
            "[{}, {}, {}, {}]",
            json(&format!("{BASE}{}", bundle.js)),
            json(&bundle.js_integrity),
            json(&format!("{BASE}{}", bundle.wasm)),
            json(&bundle.wasm_integrity)
        )
    };
    let main =
        bundles.iter().find(|bundle| bundle.page.is_none()).ok_or("index.html has no data-trunk rel=rust link")?;
    let pages: Vec<String> = bundles
        .iter()
        .filter_map(|bundle| {
            Some(format!("{}: {}", json(bundle.page.as_deref()?.trim_end_matches('/')), entry(bundle)))
        })
        .collect();
    Ok(format!(
        r#"
<script>
(() => {{
  const pages = {{{pages}}};
  const [js, jsIntegrity, wasm, wasmIntegrity] = pages[location.pathname.replace(/\/+$/, "")] || {main};
  const preload = (rel, href, integrity, extra) => {{
    const link = Object.assign(document.createElement("link"), {{ rel, href, integrity, crossOrigin: "anonymous" }});
    for (const [name, value] of Object.entries(extra)) link.setAttribute(name, value);
    document.head.appendChild(link);
  }};
  preload("modulepreload", js, jsIntegrity, {{}});
  preload("preload", wasm, wasmIntegrity, {{ as: "fetch", type: "application/wasm" }});
  const body = new Promise((ready) =>
    document.body ? ready() : addEventListener("DOMContentLoaded", ready, {{ once: true }}));
  // A show page's HTML carries the server's picture of its map: the app
  // starts once a frame has painted it (at most 300 ms: hidden tabs paint none).
  const painted = body.then(() => document.getElementById("prepaint") && new Promise((done) => {{
    requestAnimationFrame(() => setTimeout(done, 0));
    setTimeout(done, 300);
  }}));
  Promise.all([import(js), painted]).then(async ([bindings]) => {{
    const started = await bindings.default({{ module_or_path: wasm }});
    window.wasmBindings = bindings;
    dispatchEvent(new CustomEvent("TrunkApplicationStarted", {{ detail: {{ wasm: started }} }}));
  }});
}})();
</script>"#,
        pages = pages.join(", "),
        main = entry(main),
    ))
}

/// Every `<link data-trunk …>` in order, with its attributes.
fn trunk_links(html: &str) -> Result<Vec<TrunkLink>, String> {
    let mut links = Vec::new();
    let mut from = 0;
    while let Some(found) = html[from..].find("<link") {
        let start = from + found;
        let end = start + html[start..].find('>').ok_or("index.html: a <link has no `>`")? + 1;
        let body = html[start + "<link".len()..end - 1].trim_end_matches('/');
        let attributes = attributes(body)?;
        if attributes.iter().any(|(key, _)| key == "data-trunk" || key == PAGE_ATTRIBUTE) {
            links.push(TrunkLink { start, end, attributes });
        }
        from = end;
    }
    Ok(links)
}

/// `name="value"` and bare `name` attributes of a tag.
fn attributes(mut body: &str) -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    loop {
        body = body.trim_start();
        if body.is_empty() {
            return Ok(out);
        }
        let name_end = body.find(|c: char| c == '=' || c.is_whitespace()).unwrap_or(body.len());
        let name = body[..name_end].to_ascii_lowercase();
        body = &body[name_end..];
        if let Some(rest) = body.strip_prefix('=') {
            let quote = rest.chars().next().filter(|c| *c == '"' || *c == '\'');
            let quote = quote.ok_or_else(|| format!("index.html: attribute `{name}` needs a quoted value"))?;
            let rest = &rest[1..];
            let close = rest.find(quote).ok_or_else(|| format!("index.html: attribute `{name}` is not closed"))?;
            out.push((name, rest[..close].to_owned()));
            body = &rest[close + 1..];
        } else {
            out.push((name, String::new()));
        }
    }
}

fn insert_before_head_end(html: &str, text: &str) -> Result<String, String> {
    let at = html.find("</head>").ok_or("index.html has no </head>")?;
    Ok(format!("{}{text}{}", &html[..at], &html[at..]))
}

/// The `name = "…"` of a Cargo.toml's `[package]`.
fn package_name(manifest: &Path) -> Result<String, String> {
    let text = std::fs::read_to_string(manifest).map_err(|e| format!("reading {}: {e}", manifest.display()))?;
    text.split("[package]")
        .nth(1)
        .and_then(|package| package.lines().find_map(|line| line.trim().strip_prefix("name = \"")))
        .map(|name| name.trim_end_matches('"').to_owned())
        .ok_or_else(|| format!("{} has no [package] name", manifest.display()))
}

/// Trunk's file hash for the wasm (its streaming `SeaHasher`).
fn seahash_of(bytes: &[u8]) -> u64 {
    let mut hasher = seahash::SeaHasher::new();
    hasher.write(bytes);
    hasher.finish()
}

/// A subresource-integrity value, sha384 as Trunk's default.
fn integrity(bytes: &[u8]) -> String {
    format!("sha384-{}", base64::engine::general_purpose::STANDARD.encode(Sha384::digest(bytes)))
}

fn read(path: &Path) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("reading {}: {e}", path.display()))
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), String> {
    std::fs::write(path, bytes).map_err(|e| format!("writing {}: {e}", path.display()))
}

fn copy(from: &Path, to: &Path) -> Result<(), String> {
    std::fs::copy(from, to).map(drop).map_err(|e| format!("copying {} to {}: {e}", from.display(), to.display()))
}

fn remove_dir(dir: &PathBuf) -> Result<(), String> {
    match std::fs::remove_dir_all(dir) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(format!("removing {}: {e}", dir.display())),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_trunk_links_and_their_attributes() {
        let html = r#"<head><link rel="icon" href="x.png"><link data-trunk rel="css" href="web/style.css" />
<link data-trunk rel="rust" href="web/Cargo.toml" data-bin='b' data-wasm-opt="z"/></head>"#;
        let links = trunk_links(html).unwrap();
        assert_eq!(links.len(), 2);
        assert_eq!(&html[links[0].start..links[0].end], r#"<link data-trunk rel="css" href="web/style.css" />"#);
        assert_eq!(links[0].get("href"), Some("web/style.css"));
        assert_eq!(links[1].get("data-bin"), Some("b"));
        assert_eq!(links[1].get("data-trunk"), Some(""));
        assert!(links[1].refuse_others(&["data-trunk", "rel", "href", "data-bin"]).is_err());
    }

    #[test]
    fn the_start_up_script_picks_a_pages_bundle_by_path_and_the_main_one_otherwise() {
        let bundle = |page: Option<&str>, name: &str| Bundle {
            page: page.map(str::to_owned),
            js: format!("{name}.js"),
            wasm: format!("{name}_bg.wasm"),
            js_integrity: format!("sha384-{name}-js"),
            wasm_integrity: format!("sha384-{name}-wasm"),
        };
        let script = start_up_script(&[bundle(None, "main"), bundle(Some("/admin/"), "admin")]).unwrap();
        assert!(
            script.contains(
                r#"const pages = {"/admin": ["/admin.js", "sha384-admin-js", "/admin_bg.wasm", "sha384-admin-wasm"]};"#
            ),
            "{script}"
        );
        assert!(
            script.contains(r#"|| ["/main.js", "sha384-main-js", "/main_bg.wasm", "sha384-main-wasm"];"#),
            "{script}"
        );
        assert!(start_up_script(&[bundle(Some("/admin"), "admin")]).is_err(), "no main bundle");
    }

    #[test]
    fn hashes_as_trunk_names_files() {
        // Trunk streams the wasm through SeaHasher and hashes CSS in one call: the same value.
        let bytes = b"body { margin: 0 }\n".repeat(100);
        assert_eq!(seahash_of(&bytes), seahash::hash(&bytes));
    }
}
