//! Security headers on every answer: the web UI gets a strict
//! Content-Security-Policy that its wasm app works under; API answers get
//! one that allows nothing (JSON is never to be rendered as a page).

use std::path::Path;
use std::sync::Arc;

use axum::http::header::{CONTENT_SECURITY_POLICY, REFERRER_POLICY, X_CONTENT_TYPE_OPTIONS, X_FRAME_OPTIONS};
use axum::http::{HeaderMap, HeaderValue};
use base64::Engine;
use sha2::{Digest, Sha256};

/// The policies of one server, fixed at start.
#[derive(Clone)]
pub struct Policies {
    ui: HeaderValue,
    api: HeaderValue,
}

impl Policies {
    /// Trunk's `index.html` starts the app with an inline module script:
    /// allowed by its hash, so that no other inline script runs.
    pub fn for_web(web_dist: Option<&Path>) -> Arc<Self> {
        let index = web_dist.and_then(|dist| std::fs::read_to_string(dist.join("index.html")).ok());
        let ui = ui_policy(index.as_deref().unwrap_or(""));
        let api = "default-src 'none'; frame-ancestors 'none'";
        Arc::new(Self {
            ui: HeaderValue::from_str(&ui).unwrap_or(HeaderValue::from_static(api)),
            api: HeaderValue::from_static(api),
        })
    }

    /// Adds the headers to an answer: `api` for anything under `/api/`,
    /// else a UI page. The one middleware at the edge calls it (`app.rs`).
    pub fn add_to(&self, headers: &mut HeaderMap, api: bool) {
        let policy = if api { &self.api } else { &self.ui };
        headers.insert(CONTENT_SECURITY_POLICY, policy.clone());
        headers.insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
        headers.insert(REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
        // For browsers that predate frame-ancestors.
        headers.insert(X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    }
}

/// `'wasm-unsafe-eval'` lets the page compile its wasm (nothing else is
/// eval'd); style attributes are allowed because Leptos sets `style=` that way.
pub fn ui_policy(index_html: &str) -> String {
    let hashes: String = inline_scripts(index_html)
        .map(|script| format!(" 'sha256-{}'", base64::engine::general_purpose::STANDARD.encode(Sha256::digest(script))))
        .collect();
    format!(
        "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'{hashes}; style-src 'self'; \
         style-src-attr 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; object-src 'none'; \
         base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    )
}

/// The text of every `<script>` without `src`, exactly as the browser hashes it.
fn inline_scripts(html: &str) -> impl Iterator<Item = &str> {
    html.split("<script").skip(1).filter_map(|rest| {
        let (attributes, rest) = rest.split_once('>')?;
        let (body, _) = rest.split_once("</script>")?;
        (!attributes.contains("src=")).then_some(body)
    })
}
