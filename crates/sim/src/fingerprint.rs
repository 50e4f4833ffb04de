//! A run's fingerprint: a hash of the stored journals. Every id the servers
//! make comes from the run's clock and seed, so two runs of one seed hash
//! equal as they are.

use std::hash::{Hash, Hasher};

use crate::driver::Sim;

impl Sim {
    pub(crate) async fn fingerprint(&self) -> anyhow::Result<u64> {
        let mut hasher = std::hash::DefaultHasher::new();
        for show in self.oracle.shows.keys() {
            for entry in self.world.truth.journal(show, 0).await? {
                let change = format!("{:?}", entry.change);
                (show, entry.version, entry.at.0, entry.holder.as_str(), change).hash(&mut hasher);
            }
        }
        Ok(hasher.finish())
    }
}
