//! The in-process session cache: bounded, and it remembers unknown tokens
//! for a short while, so that a bot presenting made-up tokens costs one
//! store lookup per token per window, not one per request.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use seat_state::ServerMillis;

/// How long an unknown token is answered 401 without asking the store. A
/// real token is never presented before its session exists (the client
/// learns it from the answer that created it), so this never hides one.
pub const UNKNOWN_FOR_MS: i64 = 10_000;

/// Two generations of a map: lookups move entries to the young one, and
/// when it is full the old one is dropped whole. Least recently used
/// entries go first, at O(1) per operation; at most `2 × half` entries.
struct Generations<V> {
    young: HashMap<String, V>,
    old: HashMap<String, V>,
    half: usize,
}

impl<V: Clone> Generations<V> {
    fn new(capacity: usize) -> Self {
        Self { young: HashMap::new(), old: HashMap::new(), half: (capacity / 2).max(1) }
    }

    fn get(&mut self, key: &str) -> Option<V> {
        if let Some(value) = self.young.get(key) {
            return Some(value.clone());
        }
        let value = self.old.remove(key)?;
        self.insert(key.to_owned(), value.clone());
        Some(value)
    }

    fn insert(&mut self, key: String, value: V) {
        if self.young.len() >= self.half && !self.young.contains_key(&key) {
            self.old = std::mem::take(&mut self.young);
        }
        self.young.insert(key, value);
    }

    fn remove(&mut self, key: &str) {
        self.young.remove(key);
        self.old.remove(key);
    }

    fn len(&self) -> usize {
        self.young.len() + self.old.len()
    }
}

/// Known sessions by token hash with when this process last knew them seen
/// (stored or touched), and tokens recently found unknown, each bounded.
pub struct SessionCache {
    known: Mutex<Generations<(Arc<str>, ServerMillis)>>,
    /// Token hash → until when it is answered unknown.
    unknown: Mutex<Generations<ServerMillis>>,
    /// Lookups that went to the store (a figure for tests and metrics).
    store_lookups: AtomicU64,
}

impl Default for SessionCache {
    fn default() -> Self {
        Self::new(DEFAULT_CAPACITY)
    }
}

/// About 20 MB at most: far more customers than any one sale has at once.
pub const DEFAULT_CAPACITY: usize = 100_000;

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // Nothing here can panic half-way through a change: keep serving.
    mutex.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl SessionCache {
    /// A cache of at most `capacity` sessions and as many unknown tokens.
    pub fn new(capacity: usize) -> Self {
        Self {
            known: Mutex::new(Generations::new(capacity)),
            unknown: Mutex::new(Generations::new(capacity)),
            store_lookups: AtomicU64::new(0),
        }
    }

    pub fn count_store_lookup(&self) {
        self.store_lookups.fetch_add(1, Ordering::Relaxed);
    }

    pub fn store_lookups(&self) -> u64 {
        self.store_lookups.load(Ordering::Relaxed)
    }

    /// Remembers a session's holder, last seen at `seen`.
    pub fn remember(&self, hash: String, holder: Arc<str>, seen: ServerMillis) {
        lock(&self.unknown).remove(&hash);
        lock(&self.known).insert(hash, (holder, seen));
    }

    /// A known session's holder and when it was last seen.
    pub fn get(&self, hash: &str) -> Option<(Arc<str>, ServerMillis)> {
        lock(&self.known).get(hash)
    }

    /// Forgets a session (it expired).
    pub fn forget(&self, hash: &str) {
        lock(&self.known).remove(hash);
    }

    /// Whether `hash` was found unknown less than `UNKNOWN_FOR_MS` before `now`.
    pub fn known_unknown(&self, hash: &str, now: ServerMillis) -> bool {
        lock(&self.unknown).get(hash).is_some_and(|until| now < until)
    }

    pub fn remember_unknown(&self, hash: String, now: ServerMillis) {
        lock(&self.unknown).insert(hash, ServerMillis(now.0 + UNKNOWN_FOR_MS));
    }

    /// Sessions held now.
    pub fn len(&self) -> usize {
        lock(&self.known).len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
