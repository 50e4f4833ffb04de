//! The UI's built files (API.md "On-sale (v3)"): each sent as the `.br` or
//! `.gz` beside it that the build wrote at the highest levels, when the
//! request accepts it; files whose names carry a content hash are kept by
//! browsers and CDNs for a year, everything else (the pages) is validated
//! on every use (`Last-Modified` from the file, `ETag` for show pages).

use std::path::Path;

use axum::http::HeaderValue;
use tower_http::services::{ServeDir, ServeFile};

/// Hashed names never change content.
pub const IMMUTABLE: HeaderValue = HeaderValue::from_static("public, max-age=31536000, immutable");
/// Pages: ask every time (cheaply, with a validator).
pub const NO_CACHE: HeaderValue = HeaderValue::from_static("no-cache");

/// The dist as a service: its files, precompressed where the build wrote
/// `.br`/`.gz`, and `index.html` for any other path (the app routes).
pub fn service(dist: &Path) -> ServeDir<ServeFile> {
    let index = ServeFile::new(dist.join("index.html")).precompressed_br().precompressed_gzip();
    ServeDir::new(dist).precompressed_br().precompressed_gzip().fallback(index)
}

/// The `Cache-Control` for a file served at `path`.
pub fn cache_control(path: &str) -> HeaderValue {
    if hashed(path) { IMMUTABLE } else { NO_CACHE }
}

/// Whether the file name carries a content hash as the build writes it:
/// `name-<hex>` before the extension (or before `_bg.wasm`): a 64-bit hash
/// without leading zeros, so 16 digits or (rarely) fewer.
pub fn hashed(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let stem = name.split_once('.').map_or(name, |(stem, _)| stem);
    let stem = stem.strip_suffix("_bg").unwrap_or(stem);
    stem.rsplit_once('-')
        .is_some_and(|(_, hash)| (10..=16).contains(&hash.len()) && hash.bytes().all(|b| b.is_ascii_hexdigit()))
}

#[cfg(test)]
mod tests {
    use super::hashed;

    #[test]
    fn hashed_names_are_the_builds_and_nothing_else() {
        assert!(hashed("/seathold-web-5d1f0c0e2b9a4f11_bg.wasm"));
        assert!(hashed("/seathold-web-5d1f0c0e2b9a4f11.js"));
        assert!(hashed("/style-0123456789abcdef.css"));
        assert!(!hashed("/index.html"));
        assert!(!hashed("/"));
        assert!(!hashed("/shows/demo-arena"));
        assert!(!hashed("/pkg/seat_state_js.js"));
        assert!(!hashed("/style-0123456789abcdeg.css"));
    }
}
