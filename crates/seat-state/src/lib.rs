//! Seathold's rules, as pure functions the browser and the server share.
//!
//! Nothing here reads a clock, touches the network or a database, or spawns
//! a task: every function that depends on time takes the server's `now` as
//! an argument. The browser predicts with these functions; the server
//! decides with the very same ones, so what the map shows is what the
//! server will decide.
//!
//! - [`ShowState`] (module [`venue`]) is one show's authoritative state. Its
//!   `decide_*` functions return `Result<Decision, Rejection>`; a
//!   [`Decision::Apply`] names one [`Change`], and [`ShowState::apply`]
//!   records it (the stores write it conditional on the show's version).
//! - [`HoldRequest::parse`] validates a request body; each [`Rejection`]
//!   names one of API.md's error codes (several may share one).
//! - [`Queue`] (module [`queue`]) is a show's waiting room: its log, the
//!   seeded draw and the admission formula.
//! - [`SeatMapSync`] (module [`sync`]) is the browser's live map: snapshot,
//!   change events in version order, clock samples ([`ClockSync`]), and
//!   buffered countdowns ([`Countdown`]).
//! - [`sync::Connection`] is the browser's connection policy: the live
//!   stream's back-off, `Retry-After`, polling and clock re-sampling.
//!
//! Predict, then decide:
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use seat_state::sync::Input;
//! use seat_state::wire::{HoldRequestBody, ShowInput};
//! use seat_state::{
//!     Decision, HoldId, HolderId, HoldRequest, Rejection, SeatMapSync, SeatState, ServerMillis,
//!     Show, ShowState,
//! };
//!
//! let show = Show::parse(&serde_json::from_str::<ShowInput>(
//!     r#"{"id": "impro", "name": "Improv night", "holdSeconds": 600,
//!         "seats": [{"id": "B7", "x": 70, "y": 20}, {"id": "B8", "x": 80, "y": 20}]}"#,
//! )?)?;
//! let mut server = ShowState::new(show.clone());
//! let now = ServerMillis(1_764_460_000_000);
//!
//! // Bob's browser shows the live map (its clock agrees with the server's).
//! let mut bob = SeatMapSync::new();
//! bob.handle_input(Input::Tick(seat_state::LocalMillis(now.0)));
//! bob.handle_input(Input::Snapshot(server.seat_map(None, now)));
//!
//! // Alice holds B7: the server decides, writes, applies, publishes.
//! let body: HoldRequestBody = serde_json::from_str(r#"{"holdId": "alice-001", "seats": ["B7"]}"#)?;
//! let request = HoldRequest::parse(&body, &show, HoldId::parse("unused-id")?)?;
//! let alice = HolderId::new("alice");
//! let Decision::Apply(change) = server.decide_create(&alice, &request, now)? else {
//!     unreachable!("a new hold on a free seat is created")
//! };
//! server.apply(&change);
//! bob.handle_input(Input::Change(server.change_event(&change, now)));
//!
//! // Bob's map predicts B7 is taken, and the server decides just that.
//! assert_eq!(bob.seat("B7").map(|s| s.state), Some(SeatState::Held));
//! let bob_id = HolderId::new("bob");
//! let mine = |ids: &[&str]| HoldRequest {
//!     hold_id: HoldId::parse("bob-0001").expect("valid"),
//!     seats: ids.iter().map(|id| seat_state::SeatId::parse(id).expect("valid")).collect(),
//!     areas: vec![],
//!     best: None,
//!     channel: None,
//!     access: false,
//! };
//! let refused = server.decide_create(&bob_id, &mine(&["B7", "B8"]), now);
//! assert_eq!(refused, Err(Rejection::SeatsTaken { seats: vec!["B7".into()] }));
//! assert_eq!(refused.unwrap_err().message(), "B7 was just taken.");
//!
//! // Ten minutes later, with no message from the server, both agree B7 is free.
//! let later = now.plus_millis(600_000);
//! bob.handle_input(Input::Tick(seat_state::LocalMillis(later.0)));
//! assert_eq!(bob.seat("B7").map(|s| s.state), Some(SeatState::Free));
//! assert!(matches!(server.decide_create(&bob_id, &mine(&["B7", "B8"]), later), Ok(Decision::Apply(_))));
//! # Ok(())
//! # }
//! ```

pub mod access;
pub mod clock;
pub mod countdown;
pub mod design;
pub mod drawing;
pub mod hold;
pub mod ids;
mod order;
pub mod parametric;
pub mod queue;
pub mod rejection;
pub mod request;
pub mod seat;
pub mod seating;
pub mod show;
pub mod strand;
pub mod sync;
pub mod time;
pub mod venue;
pub mod wire;

pub use access::Access;
pub use clock::{ClockOffset, ClockSample, ClockSync, SampleOutcome};
pub use countdown::{Countdown, CountdownView, Phase, SteadyCountdown};
pub use hold::{Hold, HoldStatus, HolderId, Quantity};
pub use ids::{AreaId, HoldId, InvalidId, PlaceId, SeatId, ShowId};
pub use queue::{Admission, OnSale, Queue, QueueEntry, QueueEvent};
pub use rejection::Rejection;
pub use request::{BestRequest, HoldRequest};
pub use seat::{SeatState, seat_state};
pub use seating::{Category, Channel, Point, RowPlace};
pub use show::{Area, HoldRules, InvalidShow, LatePolicy, Seat, Show};
pub use strand::{OrphanRule, Rows};
pub use sync::{SeatMapSync, SeatView};
pub use time::{LocalMillis, ServerMillis};
pub use venue::{Change, Decision, MAX_BLOCK_REASON, Retired, SeatScope, SeatStanding, ShowState};
