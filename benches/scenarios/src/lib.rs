//! The ecs_bench_suite scenarios on `ecs` and on hand-written `Vec` loops
//! (the floor), with their sizes and the [`Case`] type they are built on.
//!
//! Two benches run this code: the criterion bench of the root package
//! (`benches/core.rs`, `ecs` alone) and `benches/compare` (`ecs` against
//! bevy_ecs and hecs, whose scenarios it writes itself on the same sizes
//! and shared work). A scenario measured by one is exactly the one
//! measured by the other. `nested_sets` is written once, as a macro
//! ([`nested_sets_scenario!`]) that both `ours` and the comparison's bevy
//! module expand: its 50 systems are too many to keep alike by hand.
//! `messages` is written the same way ([`messages_scenario!`]).
//! `relations` keeps its cases in its own module, the one-to-many one as
//! a macro ([`relations_one_to_many!`]) for the same reason.
//! [`patterns`] holds the scenarios shaped as users write their code
//! (wide queries, many archetypes, random access, sparse sets, `Commands`,
//! `Changed`), with their own sizes. [`snapshot`] times a world snapshot
//! and its restore against copying the same bytes by hand.

pub mod bulk;
pub mod case;
pub mod dynamic;
pub mod floor;
pub mod messages;
pub mod nested_sets;
pub mod ours;
mod params;
pub mod patterns;
pub mod relations;
pub mod snapshot;

pub use case::{case, fresh_world_case, Case};
pub use params::*;
