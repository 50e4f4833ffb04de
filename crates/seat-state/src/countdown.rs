//! The countdown a customer sees: a little less time than the server allows.
//!
//! The shown deadline is the hold's `expiresAt` minus a safety buffer and
//! minus the clock estimate's uncertainty, so the screen never claims time
//! the server has already taken away. Seconds are rounded down.

use crate::time::ServerMillis;

/// The visible phase of a countdown.
#[cfg_attr(feature = "js", derive(serde::Serialize, tsify::Tsify), serde(rename_all = "lowercase"))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Phase {
    /// A minute or more is shown.
    Normal,
    /// Less than a minute is shown: warn, offer to extend.
    Warning,
    /// Nothing is shown any more ("0:00"); the server may still hold it for
    /// up to the buffer plus the uncertainty.
    Expired,
}

/// What to show for one hold at one instant.
#[cfg_attr(
    feature = "js",
    derive(serde::Serialize, tsify::Tsify),
    tsify(missing_as_null),
    serde(rename_all = "camelCase")
)]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CountdownView {
    /// Whole seconds shown, at most the true remaining time minus buffer and
    /// uncertainty; 0 once expired.
    pub remaining_secs: u32,
    /// `m:ss`, e.g. `9:05` (minutes are not capped at 59).
    pub text: String,
    pub phase: Phase,
    /// Milliseconds (of server time) until the shown second changes; `None`
    /// once expired.
    pub next_change_in_millis: Option<i64>,
}

impl CountdownView {
    /// Milliseconds shown as left when the view was computed: the view
    /// changes once fewer than `remaining_secs` whole seconds remain.
    pub fn remaining_millis(&self) -> i64 {
        i64::from(self.remaining_secs) * 1000 + self.next_change_in_millis.map_or(0, |next| next - 1)
    }
}

/// Computes countdowns; see the module docs.
#[derive(Debug, Clone, Copy)]
pub struct Countdown;

impl Countdown {
    /// The buffer the UI uses unless it has a reason not to.
    pub const DEFAULT_BUFFER_MILLIS: i64 = 5_000;
    /// Below this many shown seconds the phase is `Warning`.
    pub const WARNING_SECS: u32 = 60;

    /// The buffer for holds of `hold_seconds`: the default, but at most a
    /// quarter of the hold, so a short hold starts with time on the clock
    /// instead of already expired.
    pub fn buffer_for_hold(hold_seconds: i64) -> i64 {
        Self::DEFAULT_BUFFER_MILLIS.min(hold_seconds.saturating_mul(1000) / 4).max(0)
    }

    /// The countdown to `expires_at` at `server_now`, shortened by
    /// `uncertainty_millis` and `buffer_millis` (negative values count as 0).
    pub fn at(
        expires_at: ServerMillis,
        server_now: ServerMillis,
        uncertainty_millis: i64,
        buffer_millis: i64,
    ) -> CountdownView {
        let shown_millis = shown_millis(expires_at, server_now, uncertainty_millis, buffer_millis);
        let secs = u32::try_from(shown_millis.max(0) / 1000).unwrap_or(u32::MAX);
        view(secs, shown_millis)
    }
}

/// Time left on screen, in milliseconds (may be negative).
fn shown_millis(expires_at: ServerMillis, now: ServerMillis, uncertainty: i64, buffer: i64) -> i64 {
    expires_at.0.saturating_sub(now.0).saturating_sub(uncertainty.max(0)).saturating_sub(buffer.max(0))
}

/// The view showing `secs` while `shown_millis` (≥ secs·1000) remain.
fn view(secs: u32, shown_millis: i64) -> CountdownView {
    if secs == 0 {
        return CountdownView {
            remaining_secs: 0,
            text: "0:00".into(),
            phase: Phase::Expired,
            next_change_in_millis: None,
        };
    }
    CountdownView {
        remaining_secs: secs,
        text: format!("{}:{:02}", secs / 60, secs % 60),
        phase: if secs < Countdown::WARNING_SECS { Phase::Warning } else { Phase::Normal },
        // The shown second drops once fewer than secs·1000 ms remain.
        next_change_in_millis: Some(shown_millis - i64::from(secs) * 1000 + 1),
    }
}

/// A countdown that never goes up for the same deadline, even when the
/// estimate of server time moves back (a new clock sample): a new deadline
/// (an extension) starts afresh.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SteadyCountdown {
    last: Option<(ServerMillis, u32)>,
}

impl SteadyCountdown {
    /// Like [`Countdown::at`], but never more than last shown for this deadline.
    pub fn view(
        &mut self,
        expires_at: ServerMillis,
        server_now: ServerMillis,
        uncertainty_millis: i64,
        buffer_millis: i64,
    ) -> CountdownView {
        let shown_millis = shown_millis(expires_at, server_now, uncertainty_millis, buffer_millis);
        let mut secs = u32::try_from(shown_millis.max(0) / 1000).unwrap_or(u32::MAX);
        if let Some((deadline, last)) = self.last
            && deadline == expires_at
        {
            secs = secs.min(last);
        }
        self.last = Some((expires_at, secs));
        view(secs, shown_millis)
    }
}
