//! Helpers shared by integration tests.

pub mod fault_plan;
