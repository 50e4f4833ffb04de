//! Caps on open live-event streams, in total and per client address: each
//! stream holds a task, a subscription and a socket for as long as it lives.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

use super::ClientAddress;
use crate::error::AppError;

/// How many live streams may be open.
#[derive(Debug, Clone, Copy)]
pub struct StreamCaps {
    pub total: usize,
    pub per_address: usize,
}

impl Default for StreamCaps {
    /// Generous per address: a venue's or a carrier's NAT puts many
    /// customers behind one address.
    fn default() -> Self {
        Self { total: 10_000, per_address: 256 }
    }
}

/// The streams open now, by address.
pub struct StreamSlots {
    caps: StreamCaps,
    open: Arc<Mutex<Open>>,
}

#[derive(Default)]
struct Open {
    total: usize,
    by_address: HashMap<IpAddr, usize>,
}

/// One open stream; its slot frees when this is dropped (the stream ends).
pub struct StreamSlot {
    address: IpAddr,
    open: Arc<Mutex<Open>>,
}

impl StreamSlots {
    pub fn new(caps: StreamCaps) -> Self {
        Self { caps, open: Arc::default() }
    }

    /// A slot for one more stream from `address`, or 503 when full.
    pub fn take(&self, ClientAddress(address): ClientAddress) -> Result<StreamSlot, AppError> {
        let mut open = self.open.lock().map_err(|_| AppError::TooManyStreams)?;
        let mine = open.by_address.get(&address).copied().unwrap_or(0);
        if open.total >= self.caps.total || mine >= self.caps.per_address {
            return Err(AppError::TooManyStreams);
        }
        open.total += 1;
        open.by_address.insert(address, mine + 1);
        Ok(StreamSlot { address, open: Arc::clone(&self.open) })
    }

    /// Streams open now.
    pub fn open(&self) -> usize {
        self.open.lock().map_or(0, |open| open.total)
    }
}

impl Drop for StreamSlot {
    fn drop(&mut self) {
        if let Ok(mut open) = self.open.lock() {
            open.total -= 1;
            if let Some(count) = open.by_address.get_mut(&self.address) {
                *count -= 1;
                if *count == 0 {
                    open.by_address.remove(&self.address);
                }
            }
        }
    }
}
