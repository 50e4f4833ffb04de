//! Kept-alive connections shared by the storm's customers: a customer takes
//! an idle one (or opens one when none is idle) and gives it back when its
//! requests are done, so 10,000 customers do not need 10,000 request
//! connections beside their 10,000 live streams (loopback has ~28,000
//! ephemeral ports, and each closed connection sits in TIME_WAIT).

use std::sync::Mutex;

use crate::http::Connection;

pub struct Pool {
    base: String,
    idle: Mutex<Vec<Connection>>,
}

impl Pool {
    pub fn new(base: &str) -> Self {
        Self { base: base.to_owned(), idle: Mutex::new(Vec::new()) }
    }

    pub fn base(&self) -> &str {
        &self.base
    }

    /// An idle open connection, or a new one: never a wait for another customer.
    pub async fn take(&self) -> anyhow::Result<Connection> {
        let idle = self.idle.lock().ok().and_then(|mut idle| {
            while let Some(connection) = idle.pop() {
                if connection.is_open() {
                    return Some(connection);
                }
            }
            None
        });
        match idle {
            Some(connection) => Ok(connection),
            None => Connection::open(&self.base).await,
        }
    }

    pub fn give(&self, connection: Connection) {
        if connection.is_open()
            && let Ok(mut idle) = self.idle.lock()
        {
            idle.push(connection);
        }
    }

    /// Connections idle now: once every customer is done, all it opened.
    pub fn idle(&self) -> usize {
        self.idle.lock().map_or(0, |idle| idle.len())
    }
}
