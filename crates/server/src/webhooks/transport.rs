//! How a signed delivery reaches its receiver. In service that is HTTP
//! with reqwest ([`Http`]); the simulator brings a receiver of its own, so
//! the real sender (lanes, leases, retries, ordering) runs under its clock.
//! The sender, not the transport, bounds how long one POST may take.

use async_trait::async_trait;
use reqwest::header::CONTENT_TYPE;

use super::sign;

/// Carries one POST of a delivery's body.
#[async_trait]
pub trait Transport: Send + Sync + 'static {
    /// POSTs `body` (JSON) to `url` with the `Seathold-Signature` header
    /// `signature`: the receiver's HTTP status, or why there was none.
    async fn post(&self, url: &str, signature: &str, body: Vec<u8>) -> Result<u16, String>;
}

/// HTTP with reqwest.
pub struct Http(reqwest::Client);

impl Http {
    pub fn new() -> anyhow::Result<Self> {
        let client = reqwest::Client::builder()
            // A redirect is not an acknowledgement, and would send the body elsewhere.
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("seathold-webhooks/", env!("CARGO_PKG_VERSION")))
            .build()?;
        Ok(Self(client))
    }
}

#[async_trait]
impl Transport for Http {
    async fn post(&self, url: &str, signature: &str, body: Vec<u8>) -> Result<u16, String> {
        let sent = self
            .0
            .post(url)
            .header(CONTENT_TYPE, "application/json")
            .header(sign::HEADER, signature)
            .body(body)
            .send()
            .await;
        sent.map(|answer| answer.status().as_u16()).map_err(|error| describe(&error))
    }
}

/// An error and its causes on one line (the sender cuts it for the log).
fn describe(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(next) = cause {
        text.push_str(": ");
        text.push_str(&next.to_string());
        cause = next.source();
    }
    text
}
