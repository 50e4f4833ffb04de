//! Seathold's rules, as pure functions the browser and the server share.
//!
//! Nothing here reads a clock, touches the network or a database, or spawns
//! a task: every function that depends on time takes the server's `now` as
//! an argument. The browser uses these functions to predict what the server
//! will decide; the server uses the very same functions to decide.
//!
//! ```
//! use seat_state::{ClockOffset, ClockSample, LocalMillis, ServerMillis, SeatState, seat_state};
//!
//! // The browser sampled the server clock: sent at local 1_000, answer said
//! // 61_050, received at local 1_100. Its own clock is about a minute behind.
//! let offset = ClockOffset::from_sample(ClockSample {
//!     sent: LocalMillis(1_000),
//!     server: ServerMillis(61_050),
//!     received: LocalMillis(1_100),
//! });
//! let server_now = offset.server_now(LocalMillis(2_000));
//! assert_eq!(server_now, ServerMillis(62_000));
//!
//! // A seat whose hold ends at server 62_500 is still held...
//! assert_eq!(seat_state(false, Some(ServerMillis(62_500)), server_now), SeatState::Held);
//! // ...and free from its deadline on, with no message from the server.
//! assert_eq!(seat_state(false, Some(ServerMillis(62_500)), ServerMillis(62_500)), SeatState::Free);
//! ```

pub mod clock;
pub mod ids;
pub mod seat;
pub mod show;
pub mod time;
pub mod wire;

pub use clock::{ClockOffset, ClockSample};
pub use ids::{AreaId, HoldId, InvalidId, PlaceId, SeatId, ShowId};
pub use seat::{SeatState, seat_state};
pub use show::{Area, HoldRules, InvalidShow, LatePolicy, Seat, Show};
pub use time::{LocalMillis, ServerMillis};
