//! The webhook receiver the simulation owns: the server's real sender
//! (lanes, leases, retries, its timeout) posts to it through the sender's
//! `Transport` seam, and it answers as a flaky service would, each attempt
//! chosen by its own seeded RNG (not the driver's, so adding webhooks left
//! the customers' choices as they were).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;

use seathold_core::webhooks::transport::Transport;

/// What the receiver did with one POST that reached it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// 2xx at once.
    Acknowledged(u16),
    /// 5xx at once.
    Failed(u16),
    /// Never answers: the sender's timeout must cut it off.
    Hangs,
    /// 2xx, but only well after the sender's timeout.
    Late,
}

/// One POST that reached the receiver (a refused connection leaves none).
#[derive(Debug, Clone)]
pub struct Receipt {
    pub url: String,
    pub signature: String,
    pub body: Vec<u8>,
    pub answer: Answer,
    /// Whether its 2xx got back to the sender (a late one is dropped first).
    pub acknowledged: bool,
}

struct Inner {
    rng: fastrand::Rng,
    healed: bool,
    receipts: Vec<Receipt>,
    refused: u64,
    /// POSTs taken and not answered yet (hanging, or to be answered late).
    open: usize,
}

/// Shared by every process's sender; the checks read its receipts.
pub struct Receiver {
    inner: Mutex<Inner>,
    /// The sender's timeout: a late answer comes twice as late.
    timeout: Duration,
}

impl Receiver {
    pub fn new(seed: u64, timeout: Duration) -> Arc<Self> {
        // Its own sequence, apart from the driver's and the servers'.
        let rng = fastrand::Rng::with_seed(seed ^ 0x5eed_0f7e_c317_e5a1);
        let inner = Inner { rng, healed: false, receipts: Vec::new(), refused: 0, open: 0 };
        Arc::new(Self { inner: Mutex::new(inner), timeout })
    }

    /// From now on every POST is acknowledged at once.
    pub fn heal(&self) {
        if let Ok(mut inner) = self.inner.lock() {
            inner.healed = true;
        }
    }

    /// Receipts from `from` on, in the order they arrived.
    pub fn receipts_from(&self, from: usize) -> Vec<Receipt> {
        self.inner.lock().map(|inner| inner.receipts.get(from..).unwrap_or_default().to_vec()).unwrap_or_default()
    }

    /// POSTs taken, and connections refused.
    pub fn counts(&self) -> (u64, u64) {
        self.inner.lock().map(|inner| (inner.receipts.len() as u64, inner.refused)).unwrap_or_default()
    }

    /// POSTs the receiver holds open now.
    pub fn open(&self) -> usize {
        self.inner.lock().map(|inner| inner.open).unwrap_or_default()
    }

    /// A number in `0..n` from the receiver's sequence (for faults planned
    /// around deliveries, also apart from the driver's).
    pub fn roll(&self, n: u32) -> u32 {
        self.inner.lock().map(|mut inner| inner.rng.u32(0..n)).unwrap_or_default()
    }

    /// Takes a POST: `None` when the connection is refused, else where its
    /// receipt is and how to answer.
    fn take(&self, url: &str, signature: &str, body: Vec<u8>) -> Option<(usize, Answer)> {
        let mut inner = self.inner.lock().ok()?;
        let answer = if inner.healed {
            Answer::Acknowledged(200)
        } else {
            match inner.rng.u32(0..100) {
                0..75 => Answer::Acknowledged([200, 202, 204][inner.rng.usize(0..3)]),
                75..83 => Answer::Failed([500, 503][inner.rng.usize(0..2)]),
                83..88 => Answer::Hangs,
                88..92 => Answer::Late,
                _ => {
                    inner.refused += 1;
                    return None;
                }
            }
        };
        let receipt =
            Receipt { url: url.to_owned(), signature: signature.to_owned(), body, answer, acknowledged: false };
        inner.receipts.push(receipt);
        Some((inner.receipts.len() - 1, answer))
    }

    fn acknowledged(&self, at: usize) {
        if let Ok(mut inner) = self.inner.lock()
            && let Some(receipt) = inner.receipts.get_mut(at)
        {
            receipt.acknowledged = true;
        }
    }
}

#[async_trait]
impl Transport for Receiver {
    async fn post(&self, url: &str, signature: &str, body: Vec<u8>) -> Result<u16, String> {
        let Some((at, answer)) = self.take(url, signature, body) else {
            return Err("error sending request: connection refused".to_owned());
        };
        match answer {
            Answer::Acknowledged(status) => {
                self.acknowledged(at);
                Ok(status)
            }
            Answer::Failed(status) => Ok(status),
            Answer::Hangs => {
                let _open = Open::new(self);
                std::future::pending().await
            }
            Answer::Late => {
                let _open = Open::new(self);
                tokio::time::sleep(self.timeout * 2).await;
                // Only if the sender is still waiting (it should not be).
                self.acknowledged(at);
                Ok(200)
            }
        }
    }
}

/// Counts a POST as open until its future ends or is dropped (the sender's
/// timeout, or its process's restart).
struct Open<'a>(&'a Receiver);

impl<'a> Open<'a> {
    fn new(receiver: &'a Receiver) -> Self {
        if let Ok(mut inner) = receiver.inner.lock() {
            inner.open += 1;
        }
        Self(receiver)
    }
}

impl Drop for Open<'_> {
    fn drop(&mut self) {
        if let Ok(mut inner) = self.0.inner.lock() {
            inner.open = inner.open.saturating_sub(1);
        }
    }
}
