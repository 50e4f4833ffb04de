//! The orphan rule on the page: before Hold, whether the picked seats
//! would leave a seat alone in its row, judged by `seat-state`'s
//! [`seat_state::Rows::verdict`] (the server's own) over what the map
//! shows, and the nearest shift that avoids it.

use crate::model::MapModel;
use crate::words;

/// The warning for holding `picked` now, or `None` when the server would
/// not refuse it for stranding (or would refuse it first for another
/// reason: a picked seat is no longer free). Tracked: a view calling it
/// follows the picked seats and the seats it looked at.
pub fn warning(model: &MapModel, picked: &[String]) -> Option<String> {
    if model.orphan_rule == seat_state::OrphanRule::Off || picked.is_empty() {
        return None;
    }
    let taken: Vec<usize> = picked.iter().filter_map(|id| model.find(id)).collect();
    let free = |at: usize| model.free_for_me(at);
    if !taken.iter().all(|&at| free(at)) {
        return None;
    }
    let stranded = model.rows.verdict(model.orphan_rule, &taken, &free).err()?;
    let label = |at: usize| model.seats[at].label.clone();
    let shift =
        model.rows.shift(stranded[0], &taken, &free).map(|shift| (shift.by, shift.to.into_iter().map(label).collect()));
    Some(words::would_strand(&stranded.into_iter().map(label).collect::<Vec<_>>(), shift))
}
