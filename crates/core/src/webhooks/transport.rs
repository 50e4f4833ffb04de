//! How a signed delivery reaches its receiver. In service that is an HTTP
//! POST (the server's reqwest transport); the simulator brings a receiver of
//! its own, so the real sender (lanes, leases, retries, ordering) runs under
//! its clock. The sender, not the transport, bounds how long one POST may
//! take.

use async_trait::async_trait;

/// Carries one POST of a delivery's body.
#[async_trait]
pub trait Transport: Send + Sync + 'static {
    /// POSTs `body` (JSON) to `url` with the `Seathold-Signature` header
    /// `signature`: the receiver's status code, or why there was none.
    async fn post(&self, url: &str, signature: &str, body: Vec<u8>) -> Result<u16, String>;

    /// A status as `lastError` shows it: the number, or with its reason
    /// where the transport knows one (`500 Internal Server Error`).
    fn status_text(&self, status: u16) -> String {
        status.to_string()
    }
}
