//! The core's webhook `Transport` in service: HTTP with reqwest ([`Http`]).

use async_trait::async_trait;
use reqwest::header::CONTENT_TYPE;

use seathold_core::webhooks::sign;
use seathold_core::webhooks::transport::Transport;

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

    fn status_text(&self, status: u16) -> String {
        reqwest::StatusCode::from_u16(status).map_or_else(|_| status.to_string(), |status| status.to_string())
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
