//! Bodies compressed once and answered many times (API.md "On-sale (v3)"):
//! a show's definition, a show's page. Each is kept as identity, gzip and
//! brotli bytes with an `ETag` derived from its content; an answer picks
//! the encoding the request accepts and says `304` to a request whose
//! `If-None-Match` already names it. What is compressed per request goes
//! through the compression layer instead (`app.rs`).

use std::io::Write;

use axum::body::{Body, Bytes};
use axum::http::header::{
    ACCEPT_ENCODING, CACHE_CONTROL, CONTENT_ENCODING, CONTENT_TYPE, ETAG, HeaderValue, IF_NONE_MATCH, VARY,
};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};

/// One body in every encoding, with its validator.
#[derive(Debug)]
pub struct Encoded {
    identity: Bytes,
    gzip: Bytes,
    brotli: Bytes,
    /// Hex of the body's SHA-256 (first 128 bits): the `ETag` without quotes
    /// or encoding suffix, the same on every process for the same bytes.
    tag: String,
}

/// How hard each codec works on a body that is compressed once.
#[derive(Debug, Clone, Copy)]
pub struct Effort {
    /// Brotli quality, 0–11.
    pub brotli: u32,
    /// Brotli window, log2 bytes (10–24).
    pub brotli_window: u32,
    /// Deflate level, 0–9.
    pub gzip: u32,
}

impl Effort {
    /// For a body compressed once per process and kept (a show's definition).
    pub const MOST: Self = Self { brotli: 11, brotli_window: 24, gzip: 9 };
}

/// A content coding this server answers in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Coding {
    Brotli,
    Gzip,
    Identity,
}

impl Encoded {
    /// Compresses `body` both ways (CPU-heavy: call it off the runtime's threads).
    pub fn new(body: Bytes, effort: Effort) -> std::io::Result<Self> {
        let tag = hex::encode(&Sha256::digest(&body)[..16]);
        let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(effort.gzip));
        gzip.write_all(&body)?;
        let gzip = gzip.finish()?;
        let mut brotli = Vec::new();
        let params = brotli::enc::BrotliEncoderParams {
            quality: i32::try_from(effort.brotli).unwrap_or(11),
            lgwin: i32::try_from(effort.brotli_window).unwrap_or(22),
            ..Default::default()
        };
        brotli::BrotliCompress(&mut &body[..], &mut brotli, &params)?;
        Ok(Self { identity: body, gzip: gzip.into(), brotli: brotli.into(), tag })
    }

    /// The uncompressed bytes.
    pub fn identity(&self) -> &Bytes {
        &self.identity
    }

    /// The bytes sent for `coding`.
    pub fn bytes(&self, coding: Coding) -> &Bytes {
        match coding {
            Coding::Brotli => &self.brotli,
            Coding::Gzip => &self.gzip,
            Coding::Identity => &self.identity,
        }
    }

    /// The strong `ETag` of the body in `coding` (each coding its own bytes,
    /// so its own tag: the content's hash with a suffix).
    pub fn etag(&self, coding: Coding) -> String {
        match coding {
            Coding::Brotli => format!("\"{}-br\"", self.tag),
            Coding::Gzip => format!("\"{}-gz\"", self.tag),
            Coding::Identity => format!("\"{}\"", self.tag),
        }
    }

    /// Whether `If-None-Match` names this content, in any coding (weak
    /// comparison: `W/` is ignored; `*` matches).
    pub fn matches(&self, request: &HeaderMap) -> bool {
        request.get_all(IF_NONE_MATCH).iter().filter_map(|value| value.to_str().ok()).flat_map(|v| v.split(',')).any(
            |tag| {
                let tag = tag.trim();
                let opaque = tag.strip_prefix("W/").unwrap_or(tag).trim_matches('"');
                tag == "*" || opaque.split('-').next() == Some(self.tag.as_str())
            },
        )
    }

    /// The answer to a `GET` with `request`'s headers: `304` when it names
    /// this content, else the body in the coding it prefers.
    pub fn respond(&self, request: &HeaderMap, content_type: &'static str, cache_control: &'static str) -> Response {
        let coding = preferred(request);
        let etag = HeaderValue::from_str(&self.etag(coding)).unwrap_or_else(|_| HeaderValue::from_static("\"\""));
        let mut headers = HeaderMap::new();
        headers.insert(ETAG, etag);
        headers.insert(CACHE_CONTROL, HeaderValue::from_static(cache_control));
        headers.insert(VARY, HeaderValue::from_static("accept-encoding"));
        if self.matches(request) {
            return (StatusCode::NOT_MODIFIED, headers).into_response();
        }
        headers.insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
        if let Some(name) = coding.header() {
            headers.insert(CONTENT_ENCODING, HeaderValue::from_static(name));
        }
        (headers, Body::from(self.bytes(coding).clone())).into_response()
    }
}

impl Coding {
    /// Its `Content-Encoding` value; `None` for identity.
    pub fn header(self) -> Option<&'static str> {
        match self {
            Self::Brotli => Some("br"),
            Self::Gzip => Some("gzip"),
            Self::Identity => None,
        }
    }
}

/// The coding to answer `request` in: brotli, then gzip, when its
/// `Accept-Encoding` accepts them (a `q` above 0, by name or by `*`);
/// identity otherwise, even where it says `identity;q=0` (never `406`).
pub fn preferred(request: &HeaderMap) -> Coding {
    let mut brotli = None;
    let mut gzip = None;
    let mut any = None;
    for value in request.get_all(ACCEPT_ENCODING).iter().filter_map(|value| value.to_str().ok()) {
        for item in value.split(',') {
            let mut parts = item.split(';');
            let name = parts.next().unwrap_or_default().trim().to_ascii_lowercase();
            let quality = parts
                .filter_map(|param| param.trim().strip_prefix("q=").or_else(|| param.trim().strip_prefix("Q=")))
                .find_map(|q| q.trim().parse::<f32>().ok())
                .unwrap_or(1.0);
            match name.as_str() {
                "br" => brotli = Some(quality),
                "gzip" | "x-gzip" => gzip = Some(quality),
                "*" => any = Some(quality),
                _ => {}
            }
        }
    }
    let accepted = |named: Option<f32>| named.or(any).is_some_and(|q| q > 0.0);
    if accepted(brotli) {
        Coding::Brotli
    } else if accepted(gzip) {
        Coding::Gzip
    } else {
        Coding::Identity
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn asking(accept: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(ACCEPT_ENCODING, HeaderValue::from_str(accept).expect("ascii"));
        headers
    }

    #[test]
    fn the_coding_follows_accept_encoding_and_never_refuses() {
        assert_eq!(preferred(&asking("gzip, deflate, br, zstd")), Coding::Brotli);
        assert_eq!(preferred(&asking("gzip")), Coding::Gzip);
        assert_eq!(preferred(&asking("br;q=0, gzip;q=0.5")), Coding::Gzip);
        assert_eq!(preferred(&asking("*")), Coding::Brotli);
        assert_eq!(preferred(&asking("*;q=0, gzip")), Coding::Gzip);
        assert_eq!(preferred(&asking("identity;q=0")), Coding::Identity);
        assert_eq!(preferred(&asking("deflate")), Coding::Identity);
        assert_eq!(preferred(&HeaderMap::new()), Coding::Identity);
    }

    #[test]
    fn every_coding_decodes_to_the_body_and_a_named_tag_is_not_modified() {
        let body = Bytes::from("{\"seats\":[".to_owned() + &"{\"id\":\"A1\"},".repeat(200) + "{}]}");
        let encoded = Encoded::new(body.clone(), Effort { brotli: 5, brotli_window: 18, gzip: 6 }).expect("compresses");
        let mut unzipped = Vec::new();
        std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&encoded.bytes(Coding::Gzip)[..]), &mut unzipped)
            .expect("gunzips");
        assert_eq!(unzipped, body);
        let mut unbrotli = Vec::new();
        brotli::BrotliDecompress(&mut &encoded.bytes(Coding::Brotli)[..], &mut unbrotli).expect("decodes");
        assert_eq!(unbrotli, body);
        assert!(encoded.bytes(Coding::Brotli).len() < body.len() / 10);

        let mut request = asking("br");
        let answer = encoded.respond(&request, "application/json", "public, max-age=60");
        assert_eq!(answer.status(), StatusCode::OK);
        assert_eq!(answer.headers()[CONTENT_ENCODING], "br");
        let tag = answer.headers()[ETAG].clone();
        request.insert(IF_NONE_MATCH, tag);
        assert_eq!(encoded.respond(&request, "application/json", "x").status(), StatusCode::NOT_MODIFIED);
        // A cache that kept the identity bytes, weakly tagged, is as current.
        request.insert(
            IF_NONE_MATCH,
            HeaderValue::from_str(&format!("W/{}", encoded.etag(Coding::Identity))).expect("ascii"),
        );
        assert_eq!(encoded.respond(&request, "application/json", "x").status(), StatusCode::NOT_MODIFIED);
        request.insert(IF_NONE_MATCH, HeaderValue::from_static("\"other\", \"0123\""));
        assert_eq!(encoded.respond(&request, "application/json", "x").status(), StatusCode::OK);
    }
}
