//! Seathold's core: one writer per show deciding with `seat-state`, the
//! stores that make its decisions durable, the clock, the sweep that expires
//! holds and the operator's views. `services::Core` is what an edge asks of
//! it by name, besides each show's writer (`engine`). It knows no HTTP: `seathold-server` is
//! the edge that speaks it (a tidy test checks the crate graph).

pub mod clock;
pub mod engine;
pub mod metrics;
pub mod operator;
pub mod randomness;
pub mod services;
pub mod store;
pub mod sweep;
pub mod webhooks;
