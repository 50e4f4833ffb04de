//! Live changes (v4) as properties (native only: proptest needs the OS).
//! The changes of a tick conflated into one event (`Conflation`) show the
//! browser's map what every change one by one shows, also when its snapshot
//! lies inside a conflated event's versions; a lost conflated event is
//! still a gap; the compact forms (`CompactChange`, `CompactMap`) decode to
//! what they encode. Two sources of changes: facts drawn at random (any
//! state after any other), and a real `ShowState` deciding random requests
//! (holders, a channel, access seats, blocks, extensions, expiry).
#![cfg(not(target_arch = "wasm32"))]
// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

use std::collections::BTreeSet;

use proptest::prelude::*;
use serde_json::json;

use seat_state::sync::{AreaView, Input, Output};
use seat_state::wire::{
    AreaFact, AreaHoldFact, ChangeEvent, CompactChange, CompactMap, Conflation, HoldOrder, SeatFact, SeatMap,
    SeatOrder, ShowInput,
};
use seat_state::{
    ClockSample, Decision, HoldId, HolderId, LocalMillis, PlaceId, SeatMapSync, SeatState, SeatView, ServerMillis,
    Show, ShowState, seat_state,
};

pub(crate) const NOW: i64 = 1_764_460_000_000;
/// The version of the first snapshot of a drawn story.
pub(crate) const V0: i64 = 100;

mod bits;
mod browser;
mod drawn;
mod examples;
mod real;

use bits::*;
use browser::*;
