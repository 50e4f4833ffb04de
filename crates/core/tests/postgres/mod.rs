//! A fresh database on the throwaway PostgreSQL that `cargo xtask test`
//! starts, one per test (the core's `testkit` makes it).

pub use seathold_core::store::fresh_test_database as fresh_database;
