//! Helpers shared by integration tests.
//!
//! Every test crate compiles this module on its own and uses a part of it,
//! hence the `dead_code` allowances.

#[allow(dead_code)]
pub mod components;
#[allow(dead_code)]
pub mod drop_log;
#[allow(dead_code)]
pub mod fault_plan;
#[allow(dead_code)]
pub mod integrity;
#[allow(dead_code)]
pub mod panics;
