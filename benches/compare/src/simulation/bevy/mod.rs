//! The `simulation` example ported to bevy_ecs: the example's files with
//! bevy's `use` lines (`super::` for their siblings, which sit here rather
//! than at the crate root) and the places marked `Porting:`. `species.rs`
//! has no ECS in it and is shared as it is.

pub mod components;
pub mod grid;
pub mod meadow;
pub mod resources;
pub mod rng;
pub mod systems;
