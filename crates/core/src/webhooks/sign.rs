//! The `Seathold-Signature` header: `t=<unix seconds>,v1=<hex HMAC-SHA256
//! keyed by the secret's UTF-8 bytes over "<t>.<body>">` (API.md "A delivery").

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

/// The header's name.
pub const HEADER: &str = "seathold-signature";

/// The HMAC over `"<t>.<body>"`.
fn mac(secret: &str, t: i64, body: &[u8]) -> Hmac<Sha256> {
    // HMAC takes a key of any length: this never fails.
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap_or_else(|_| unreachable!());
    mac.update(t.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    mac
}

/// The header's value for `body` sent at `t` (Unix seconds).
pub fn signature(secret: &str, t: i64, body: &[u8]) -> String {
    format!("t={t},v1={}", hex::encode(mac(secret, t, body).finalize().into_bytes()))
}

/// Whether `header` signs `body` with `secret`: what a receiver checks
/// (in constant time), returning the signed instant `t`. A receiver should
/// also refuse a `t` far from its own clock (a replayed delivery).
pub fn verify(header: &str, secret: &str, body: &[u8]) -> Option<i64> {
    let mut t = None;
    let mut v1 = None;
    for part in header.split(',') {
        match part.trim().split_once('=') {
            Some(("t", value)) => t = value.parse::<i64>().ok(),
            Some(("v1", value)) => v1 = hex::decode(value).ok(),
            _ => {}
        }
    }
    let (t, v1) = (t?, v1?);
    mac(secret, t, body).verify_slice(&v1).ok().map(|()| t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signature_verifies_with_its_secret_and_body_only() {
        let body = br#"{"id":"s:1"}"#;
        let header = signature("whsec", 1_764_460_000, body);
        assert!(header.starts_with("t=1764460000,v1="), "{header}");
        assert_eq!(header.len(), "t=1764460000,v1=".len() + 64);
        assert_eq!(verify(&header, "whsec", body), Some(1_764_460_000));
        assert_eq!(verify(&header, "other", body), None);
        assert_eq!(verify(&header, "whsec", br#"{"id":"s:2"}"#), None);
        assert_eq!(verify(&header.replace("t=1764460000", "t=1764460001"), "whsec", body), None);
        assert_eq!(verify("v1=00", "whsec", body), None);
    }

    /// The same value Python's `hmac.new(b"whsec_test", b'1764460000.{"id":"impro:7"}', sha256)` gives.
    #[test]
    fn the_mac_is_hmac_sha256_over_t_dot_body() {
        let header = signature("whsec_test", 1_764_460_000, br#"{"id":"impro:7"}"#);
        assert_eq!(header, "t=1764460000,v1=dd8167b6e0f4392d8e957bf42410d26f00112113cdd2b81a5eb5fcf63bf60eb8");
    }
}
