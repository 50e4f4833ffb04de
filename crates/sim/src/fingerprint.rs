//! A run's fingerprint: a hash of the stored journals, with server-made
//! ids (holders, holds) named by first appearance, so two runs of one seed
//! hash equal.

use std::hash::{Hash, Hasher};

use crate::driver::Sim;

impl Sim {
    pub(crate) async fn fingerprint(&self) -> anyhow::Result<u64> {
        let mut names: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
        let mut name = |id: &str| {
            let next = names.len();
            *names.entry(id.to_owned()).or_insert(next)
        };
        let mut hasher = std::hash::DefaultHasher::new();
        for show in self.oracle.shows.keys() {
            for entry in self.world.truth.journal(show, 0).await? {
                let action = format!("{:?}", entry.action);
                let hold = entry.hold_id.as_ref().map(|id| name(id.as_str()));
                (show, entry.version, entry.at.0, hold, name(entry.holder.as_str()), action).hash(&mut hasher);
            }
        }
        Ok(hasher.finish())
    }
}
