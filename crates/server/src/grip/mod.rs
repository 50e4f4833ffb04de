//! GRIP (the Generic Realtime Intermediary Protocol that Pushpin and Fastly
//! Fanout speak): a proxy in front holds the viewers' live streams, and the
//! server publishes each show's frames to it once per tick.
//!
//! A request to `…/events` that carries a valid `Grip-Sig` (an HS256 JWT
//! signed with the proxy's key, [`signature`]) came through the proxy: it
//! is answered with the snapshot (or the frames after `Grip-Last` /
//! `Last-Event-ID`) and instructions: `Grip-Hold: stream`, the show's
//! channel with the version that answer ends at (`prev-id`: the proxy
//! passes on only a frame that follows it), a link
//! the proxy asks when it finds a publish missing (`Grip-Link`), and the
//! keep-alive comment. [`publish::Publisher`] receives every frame from the
//! show hubs (the core's `FrameSink`) and POSTs it to each proxy's publish
//! API, in order, with the frame's version as the item's `id` and the
//! version it follows as `prev-id`.

pub mod metrics;
pub mod publish;
pub mod signature;

use std::sync::Arc;

use axum::http::HeaderMap;

pub use metrics::GripMetrics;

/// How the server speaks GRIP (`--grip-publish`, `SEATHOLD_GRIP_KEY`,
/// `--grip-instance`).
#[derive(Clone)]
pub struct GripSettings {
    /// Each proxy's publish endpoint (`…/publish/`).
    pub publish: Vec<String>,
    /// The key the proxies sign `Grip-Sig` with.
    pub key: Arc<[u8]>,
    /// Names this process's channels apart from other processes' on one
    /// database (their frames are cut at other instants).
    pub instance: Option<String>,
}

impl std::fmt::Debug for GripSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The key is a secret: never in a log.
        f.debug_struct("GripSettings").field("publish", &self.publish).field("instance", &self.instance).finish()
    }
}

/// GRIP at work: the key, the channel names and the publisher.
pub struct Grip {
    key: Arc<[u8]>,
    naming: Naming,
    pub publisher: Arc<publish::Publisher>,
    metrics: Arc<GripMetrics>,
}

/// The channel names of a process.
#[derive(Debug, Clone)]
pub struct Naming {
    instance: Option<String>,
}

impl Naming {
    /// `show-<id>` (JSON frames, also for `only=taken`, whose changes are
    /// the same bytes) or `show-<id>.compact`, with `@<instance>` after the
    /// id when this process has one.
    pub fn channel(&self, show_id: &str, compact: bool) -> String {
        let instance = self.instance.as_deref().map(|name| format!("@{name}")).unwrap_or_default();
        let form = if compact { ".compact" } else { "" };
        format!("show-{show_id}{instance}{form}")
    }
}

impl Grip {
    /// Starts the publisher's tasks (one per proxy).
    pub fn start(settings: GripSettings, metrics: Arc<GripMetrics>) -> Arc<Self> {
        let naming = Naming { instance: settings.instance.clone() };
        let publisher = publish::Publisher::start(&settings.publish, naming.clone(), Arc::clone(&metrics));
        Arc::new(Self { key: settings.key, naming, publisher, metrics })
    }

    /// Whether the request came through a proxy that holds our key: its
    /// `Grip-Sig` verifies and has not expired at `now_ms`.
    pub fn signed(&self, headers: &HeaderMap, now_ms: i64) -> bool {
        let Some(token) = headers.get("grip-sig").and_then(|value| value.to_str().ok()) else { return false };
        let valid = signature::verify(token.trim(), &self.key, now_ms / 1000);
        if !valid {
            tracing::warn!(
                "a request with a Grip-Sig that does not verify with SEATHOLD_GRIP_KEY: answered as a plain stream"
            );
        }
        valid
    }

    pub fn channel(&self, show_id: &str, compact: bool) -> String {
        self.naming.channel(show_id, compact)
    }

    /// Counts a hold by where its viewer started from (`metrics::HoldFrom`).
    pub fn held(&self, from: &'static str) {
        self.metrics.holds.get_or_create(&metrics::HoldFrom { from }).inc();
    }
}

/// The version the proxy says its held viewer has (`Grip-Last: <channel>;
/// last-id=<id>`) when it asks a `Grip-Link` after finding a publish
/// missing: on the channel of show `show_id` in this form, of any process
/// (versions are the show's, not a process's; a proxy whose first origin
/// is down asks another).
pub fn last_id(headers: &HeaderMap, show_id: &str, compact: bool) -> Option<i64> {
    headers
        .get_all("grip-last")
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .find_map(|entry| {
            let mut parts = entry.split(';').map(str::trim);
            if !same_stream(parts.next()?, show_id, compact) {
                return None;
            }
            parts.find_map(|part| part.strip_prefix("last-id=")).and_then(|id| id.trim_matches('"').parse().ok())
        })
}

/// Whether `channel` is show `show_id`'s in this form, with or without an
/// instance (`[a-z0-9-]`, so `@b.compact` is never the JSON form's).
fn same_stream(channel: &str, show_id: &str, compact: bool) -> bool {
    let form = if compact { ".compact" } else { "" };
    let Some(rest) = channel.strip_prefix("show-").and_then(|rest| rest.strip_prefix(show_id)) else { return false };
    let Some(rest) = rest.strip_suffix(form) else { return false };
    rest.is_empty()
        || rest.strip_prefix('@').is_some_and(|instance| {
            !instance.is_empty() && instance.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        })
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;

    use super::*;

    #[test]
    fn channels_are_named_per_show_form_and_instance() {
        let one = Naming { instance: None };
        assert_eq!(one.channel("demo-arena", false), "show-demo-arena");
        assert_eq!(one.channel("demo-arena", true), "show-demo-arena.compact");
        let named = Naming { instance: Some("b".into()) };
        assert_eq!(named.channel("demo-arena", true), "show-demo-arena@b.compact");
    }

    #[test]
    fn grip_last_is_read_for_the_show_and_form_asked() {
        let mut headers = HeaderMap::new();
        headers.append("grip-last", HeaderValue::from_static("show-x.compact; last-id=7"));
        headers.append("grip-last", HeaderValue::from_static("show-x; last-id=\"12\""));
        assert_eq!(last_id(&headers, "x", false), Some(12));
        assert_eq!(last_id(&headers, "x", true), Some(7));
        assert_eq!(last_id(&headers, "y", false), None);
        // Another process's channel of the same stream.
        let mut other = HeaderMap::new();
        other.append("grip-last", HeaderValue::from_static("show-x@a.compact; last-id=9"));
        assert_eq!(last_id(&other, "x", true), Some(9));
        assert_eq!(last_id(&other, "x", false), None);
        assert!(!same_stream("show-xy", "x", false));
        assert!(!same_stream("show-x@", "x", false));
    }
}
