//! Places per area id in a hold's answer: a JSON object, keys in order.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::order::sort_by;

/// A map from area id to `V` kept as a Vec sorted by id: the same JSON,
/// iteration order, equality and last-wins repeats as a `BTreeMap`,
/// without a B-tree's code in the browser's wasm. Reading or collecting n
/// entries is O(n) when they come in order (as the server writes them),
/// O(n log n) otherwise; `insert` is O(n).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AreaMap<V>(Vec<(String, V)>);

impl<V> Default for AreaMap<V> {
    fn default() -> Self {
        Self(Vec::new())
    }
}

impl<V> AreaMap<V> {
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets `area`'s value; the old one, if any, as `BTreeMap::insert`.
    pub fn insert(&mut self, area: String, value: V) -> Option<V> {
        let at = match self.0.last() {
            Some((last, _)) if *last < area => Err(self.0.len()),
            _ => self.position(&area),
        };
        match at {
            Ok(at) => Some(std::mem::replace(&mut self.0[at].1, value)),
            Err(at) => {
                self.0.insert(at, (area, value));
                None
            }
        }
    }

    pub fn get(&self, area: &str) -> Option<&V> {
        let at = self.position(area).ok()?;
        Some(&self.0[at].1)
    }

    /// Takes `area` out; its value, if it was there, as `BTreeMap::remove`.
    pub fn remove(&mut self, area: &str) -> Option<V> {
        let at = self.position(area).ok()?;
        Some(self.0.remove(at).1)
    }

    /// Where `area` is, or where it would go.
    fn position(&self, area: &str) -> Result<usize, usize> {
        self.0.binary_search_by(|(id, _)| id.as_str().cmp(area))
    }

    /// Entries in area id order.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &V)> {
        self.0.iter().map(|(area, value)| (area, value))
    }

    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.0.iter().map(|(_, value)| value)
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// As `BTreeMap`'s: panics when `area` is missing.
impl<V> std::ops::Index<&str> for AreaMap<V> {
    type Output = V;

    fn index(&self, area: &str) -> &V {
        self.get(area).expect("no such area in the map")
    }
}

impl<V> FromIterator<(String, V)> for AreaMap<V> {
    fn from_iter<I: IntoIterator<Item = (String, V)>>(entries: I) -> Self {
        Self::from_entries(entries.into_iter().collect())
    }
}

impl<V> AreaMap<V> {
    /// Sorts `entries` by id, the last of repeated ids kept. Through the
    /// crate's one sort (`order.rs`), by index: no other sort in the wasm.
    fn from_entries(entries: Vec<(String, V)>) -> Self {
        if entries.windows(2).all(|pair| pair[0].0 < pair[1].0) {
            return Self(entries);
        }
        let mut order: Vec<usize> = (0..entries.len()).collect();
        sort_by(&mut order, &|a, b| entries[a].0.cmp(&entries[b].0));
        // After a stable sort, the last of equal ids is the one kept.
        let keep: Vec<bool> = (0..order.len())
            .map(|rank| order.get(rank + 1).is_none_or(|&next| entries[next].0 != entries[order[rank]].0))
            .collect();
        let mut slots: Vec<Option<(String, V)>> = entries.into_iter().map(Some).collect();
        let sorted = order.iter().zip(keep).filter(|&(_, keep)| keep).filter_map(|(&at, _)| slots[at].take()).collect();
        Self(sorted)
    }
}

impl<'a, V> IntoIterator for &'a AreaMap<V> {
    type Item = (&'a String, &'a V);
    type IntoIter = std::iter::Map<std::slice::Iter<'a, (String, V)>, fn(&'a (String, V)) -> (&'a String, &'a V)>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter().map(|(area, value)| (area, value))
    }
}

impl<V: Serialize> Serialize for AreaMap<V> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (area, value) in &self.0 {
            map.serialize_entry(area, value)?;
        }
        map.end()
    }
}

impl<'de, V: Deserialize<'de>> Deserialize<'de> for AreaMap<V> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(AreaMapVisitor(PhantomData))
    }
}

struct AreaMapVisitor<V>(PhantomData<V>);

impl<'de, V: Deserialize<'de>> Visitor<'de> for AreaMapVisitor<V> {
    type Value = AreaMap<V>;

    /// As serde's for a `BTreeMap`, so error messages stay the same.
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a map")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Self::Value, A::Error> {
        let mut entries = Vec::new();
        while let Some(entry) = access.next_entry()? {
            entries.push(entry);
        }
        Ok(AreaMap::from_entries(entries))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_writes_as_a_btree_map_would() {
        let json = r#"{"b":2,"a":1,"c":3,"a":4,"b":5,"b":6}"#;
        let map: AreaMap<i64> = serde_json::from_str(json).unwrap();
        let btree: std::collections::BTreeMap<String, i64> = serde_json::from_str(json).unwrap();
        assert_eq!(serde_json::to_string(&map).unwrap(), serde_json::to_string(&btree).unwrap());
        assert_eq!(map.iter().collect::<Vec<_>>(), btree.iter().collect::<Vec<_>>());
        assert_eq!((map.get("a"), map["b"]), (Some(&4), 6));
        let mut fewer = map.clone();
        assert_eq!((fewer.remove("a"), fewer.remove("a"), fewer.get("a")), (Some(4), None, None));
        assert_eq!(fewer.iter().collect::<Vec<_>>(), btree.iter().skip(1).collect::<Vec<_>>());
        let collected: AreaMap<i64> =
            [("y".to_owned(), 1), ("x".to_owned(), 2), ("y".to_owned(), 3)].into_iter().collect();
        assert_eq!(collected.iter().collect::<Vec<_>>(), [(&"x".to_owned(), &2), (&"y".to_owned(), &3)]);
        let wrong = serde_json::from_str::<AreaMap<i64>>("[1]").unwrap_err().to_string();
        let btree_wrong = serde_json::from_str::<std::collections::BTreeMap<String, i64>>("[1]").unwrap_err();
        assert_eq!(wrong, btree_wrong.to_string());
    }
}
