//! Where the server's random choices come from, injected beside the clock:
//! the operating system's in service, a seeded sequence in the simulator
//! (so one seed replays one run: session tokens and holder ids, made hold
//! ids and a waiting room's draw).

use std::sync::Arc;
#[cfg(any(test, feature = "testkit"))]
use std::sync::atomic::{AtomicU64, Ordering};

/// A source of random 64-bit numbers.
pub trait Randomness: Send + Sync + std::fmt::Debug + 'static {
    /// `None` when the source cannot answer (the caller tries again later).
    fn next_u64(&self) -> Option<u64>;
}

/// Shared by every part of the server.
pub type SharedRandomness = Arc<dyn Randomness>;

/// Fills `bytes` from the source; `None` when it cannot answer.
pub fn fill(randomness: &dyn Randomness, bytes: &mut [u8]) -> Option<()> {
    for chunk in bytes.chunks_mut(8) {
        let word = randomness.next_u64()?.to_le_bytes();
        chunk.copy_from_slice(&word[..chunk.len()]);
    }
    Some(())
}

/// The operating system's randomness (`getrandom`).
#[derive(Debug, Default)]
pub struct OsRandomness;

impl Randomness for OsRandomness {
    fn next_u64(&self) -> Option<u64> {
        let mut bytes = [0u8; 8];
        match getrandom::fill(&mut bytes) {
            Ok(()) => Some(u64::from_le_bytes(bytes)),
            Err(error) => {
                tracing::error!(error = %error, "no randomness from the OS");
                None
            }
        }
    }
}

/// A reproducible sequence (SplitMix64's increments, scrambled): for the
/// simulator and tests only (behind `testkit`), never for secrets.
#[cfg(any(test, feature = "testkit"))]
#[derive(Debug)]
pub struct SeededRandomness(AtomicU64);

#[cfg(any(test, feature = "testkit"))]
impl SeededRandomness {
    pub fn new(seed: u64) -> Self {
        Self(AtomicU64::new(seed))
    }
}

#[cfg(any(test, feature = "testkit"))]
impl Randomness for SeededRandomness {
    fn next_u64(&self) -> Option<u64> {
        let mut z = self.0.fetch_add(0x9e37_79b9_7f4a_7c15, Ordering::Relaxed).wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        Some(z ^ (z >> 31))
    }
}
