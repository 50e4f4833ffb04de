//! Each show's definition as `GET /api/shows/{showId}` sends it, written
//! once per process: a show never changes once created, and reading,
//! validating and writing a 20,000-seat definition took the server about
//! 100 ms per request. Memory grows with the number of shows, not requests.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use crate::store::Store;

/// Serialized definitions (JSON objects, channel codes left out), by show id.
#[derive(Default)]
pub struct Definitions(RwLock<HashMap<String, Arc<str>>>);

impl Definitions {
    /// The show's definition as a JSON object; `None` for an unknown show.
    pub async fn json(&self, store: &dyn Store, show_id: &str) -> anyhow::Result<Option<Arc<str>>> {
        let poisoned = || anyhow::anyhow!("definition cache lock poisoned");
        if let Some(json) = self.0.read().map_err(|_| poisoned())?.get(show_id) {
            return Ok(Some(Arc::clone(json)));
        }
        let Some(show) = store.show(show_id).await? else { return Ok(None) };
        let json: Arc<str> = serde_json::to_string(&show.to_wire().without_codes())?.into();
        self.0.write().map_err(|_| poisoned())?.insert(show_id.to_owned(), Arc::clone(&json));
        Ok(Some(json))
    }
}

/// `definition` (a JSON object) with `serverTime` added as its last member.
pub fn with_server_time(definition: &str, server_time: i64) -> String {
    let open = definition.strip_suffix('}').unwrap_or(definition);
    let separator = if open.trim_end().ends_with('{') { "" } else { "," };
    format!("{open}{separator}\"serverTime\":{server_time}}}")
}

#[cfg(test)]
mod tests {
    use super::with_server_time;

    #[test]
    fn server_time_is_the_last_member() {
        assert_eq!(with_server_time(r#"{"id":"a"}"#, 7), r#"{"id":"a","serverTime":7}"#);
        assert_eq!(with_server_time("{}", 7), r#"{"serverTime":7}"#);
    }
}
