//! `Grip-Sig`: a JSON Web Token (RFC 7519) signed with HMAC-SHA256 by the
//! proxy's key, whose claims carry `iss` (the proxy) and `exp` (Unix
//! seconds). Verified with the `hmac` and `sha2` the webhooks use, not a
//! JWT library: one algorithm, three fields.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

fn mac(key: &[u8], signed: &str) -> Hmac<Sha256> {
    // HMAC takes a key of any length: this never fails.
    let mut mac = Hmac::<Sha256>::new_from_slice(key).unwrap_or_else(|_| unreachable!());
    mac.update(signed.as_bytes());
    mac
}

/// Whether `token` is an HS256 JWT signed with `key` (in constant time)
/// whose `exp` is after `now_s`.
pub fn verify(token: &str, key: &[u8], now_s: i64) -> bool {
    let mut parts = token.split('.');
    let (Some(header), Some(claims), Some(signature), None) = (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return false;
    };
    let Ok(signature) = URL_SAFE_NO_PAD.decode(signature.trim_end_matches('=')) else { return false };
    if mac(key, &token[..header.len() + 1 + claims.len()]).verify_slice(&signature).is_err() {
        return false;
    }
    let decode = |part: &str| {
        URL_SAFE_NO_PAD
            .decode(part.trim_end_matches('='))
            .ok()
            .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok())
    };
    let (Some(header), Some(claims)) = (decode(header), decode(claims)) else { return false };
    // Signed with the key, but only HS256 is what we checked.
    header["alg"] == "HS256" && claims["exp"].as_i64().is_some_and(|exp| exp > now_s)
}

/// A token as a proxy signs it: for tests and tools.
pub fn sign(key: &[u8], issuer: &str, exp_s: i64) -> String {
    let header = URL_SAFE_NO_PAD.encode(br#"{"typ":"JWT","alg":"HS256"}"#);
    let claims = URL_SAFE_NO_PAD.encode(serde_json::json!({"iss": issuer, "exp": exp_s}).to_string());
    let signed = format!("{header}.{claims}");
    let signature = URL_SAFE_NO_PAD.encode(mac(key, &signed).finalize().into_bytes());
    format!("{signed}.{signature}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_verifies_with_its_key_until_it_expires() {
        let token = sign(b"changeme", "pushpin", 1_000);
        assert!(verify(&token, b"changeme", 999));
        assert!(!verify(&token, b"changeme", 1_000), "expired");
        assert!(!verify(&token, b"another key", 999));
        assert!(!verify("not.a.token", b"changeme", 999));
        assert!(!verify(&format!("{token}.x"), b"changeme", 999));
    }

    #[test]
    fn a_token_pushpin_made_verifies() {
        // Debian's Pushpin 1.36 (sig_iss=pushpin, sig_key=changeme), read
        // off a request it forwarded: `{"typ":"JWT","alg":"HS256"}`,
        // `{"exp":1796405429,"iss":"pushpin"}` (an hour after it was made).
        let token = "eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzI1NiJ9.eyJleHAiOjE3OTY0MDU0MjksImlzcyI6InB1c2hwaW4ifQ.\
                     dQRRUob1lkf7EV8kwN1XJu8xvSCLea9eogp0jpmcDLQ";
        assert!(verify(token, b"changeme", 1_796_401_829));
        assert!(!verify(token, b"changeme", 1_796_405_429), "expired");
        assert!(!verify(token, b"changeMe", 1_796_401_829));
    }

    #[test]
    fn another_algorithm_is_refused_even_when_signed() {
        let header = URL_SAFE_NO_PAD.encode(br#"{"alg":"none"}"#);
        let claims = URL_SAFE_NO_PAD.encode(br#"{"exp":2000}"#);
        let signed = format!("{header}.{claims}");
        let signature = URL_SAFE_NO_PAD.encode(mac(b"k", &signed).finalize().into_bytes());
        assert!(!verify(&format!("{signed}.{signature}"), b"k", 1));
    }
}
