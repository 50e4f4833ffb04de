//! The box office's answers about one show: its active holds, its stats,
//! the last hour by the minute and its journal, each describing one instant
//! of the show's writer. `None`: no such show.

use std::sync::Arc;

use seat_state::ServerMillis;
use seat_state::wire::{OnSaleHistory, OperatorHoldList, ShowStats};

use crate::engine::queue::QueueError;
use crate::engine::{EngineError, Engines};
use crate::operator;
use crate::store::{Store, Transition};

#[derive(Clone)]
pub struct Operator {
    store: Arc<dyn Store>,
    engines: Arc<Engines>,
}

impl Operator {
    pub fn new(store: Arc<dyn Store>, engines: Arc<Engines>) -> Self {
        Self { store, engines }
    }

    /// The show's active holds with their holders, oldest first.
    pub async fn holds(&self, show_id: &str, now: ServerMillis) -> Result<Option<OperatorHoldList>, EngineError> {
        let Some(engine) = self.engines.show(show_id).await? else { return Ok(None) };
        let view = engine.operator_view(now).await?;
        Ok(Some(OperatorHoldList { holds: operator::hold_list(&view.value.holds), server_time: view.at.0 }))
    }

    /// Places by state (in all and per category), holds by outcome,
    /// conversion and the median time to confirm. The holds are counted
    /// from the journal up to the map's version: both halves describe one
    /// instant.
    pub async fn stats(&self, show_id: &str, now: ServerMillis) -> Result<Option<ShowStats>, EngineError> {
        let Some(engine) = self.engines.show(show_id).await? else { return Ok(None) };
        let view = engine.operator_view(now).await?;
        let Some(show) = self.store.show(show_id).await.map_err(EngineError::Storage)? else { return Ok(None) };
        let journal = self.journal_through(show_id, view.value.version).await?;
        let (places, by_category) = operator::place_counts(&show, &view.value.map);
        let (holds, median_seconds_to_confirm) = operator::hold_counts(&journal);
        let conversion = if holds.created == 0 { 0.0 } else { holds.confirmed as f64 / holds.created as f64 };
        Ok(Some(ShowStats {
            places,
            by_category: by_category.into_iter().collect(),
            holds,
            conversion,
            median_seconds_to_confirm,
            server_time: view.at.0,
        }))
    }

    /// The last hour minute by minute: holds created, confirmed and expired
    /// in each, and the waiting room's length and admissions at each
    /// minute's end (`None` without one).
    pub async fn on_sale(&self, show_id: &str, now: ServerMillis) -> Result<Option<OnSaleHistory>, QueueError> {
        let Some(engine) = self.engines.show(show_id).await? else { return Ok(None) };
        let starts = operator::last_hour(now);
        let version = engine.version().await?.value;
        let journal = self.journal_through(show_id, version).await?;
        let mut minutes = operator::per_minute(&journal, &starts);
        let mut server_time = now;
        if let Some(queue) = self.engines.queue(show_id, &engine).await? {
            // A minute's figures as it ended, or as they stand in the minute under way.
            let ends = starts.iter().map(|start| start.plus_millis(operator::MINUTE - 1).min(now)).collect();
            let history = queue.history(ends).await?;
            server_time = server_time.max(history.at);
            for (minute, at) in minutes.iter_mut().zip(history.value) {
                (minute.queue_length, minute.admitted_through) = (Some(at.length), Some(at.admitted_through));
            }
        }
        Ok(Some(OnSaleHistory { minutes, server_time: server_time.0 }))
    }

    /// The audit journal, oldest first, as the show's writer had it at one
    /// instant (`operator::csv` and `operator::json_lines` write it out).
    pub async fn journal(&self, show_id: &str) -> Result<Option<Vec<Transition>>, EngineError> {
        let Some(engine) = self.engines.show(show_id).await? else { return Ok(None) };
        let version = engine.version().await?.value;
        Ok(Some(self.journal_through(show_id, version).await?))
    }

    /// The show's journal up to `version`: a later entry is another
    /// process's, not yet applied by this writer.
    async fn journal_through(&self, show_id: &str, version: i64) -> Result<Vec<Transition>, EngineError> {
        let mut journal = self.store.journal(show_id, 0).await.map_err(EngineError::Storage)?;
        journal.retain(|entry| entry.version <= version);
        Ok(journal)
    }
}
