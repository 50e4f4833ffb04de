//! What a seat map says is sold, read the same way by every audit.

use std::collections::HashSet;

use serde_json::Value;

/// The ids of the seats a seat map (`GET /api/shows/{id}/seats`) shows as sold.
pub fn sold_seats(map: &Value) -> HashSet<&str> {
    map["seats"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|seat| seat["sold"] == true)
        .filter_map(|seat| seat["id"].as_str())
        .collect()
}
