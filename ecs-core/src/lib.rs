//! The runtime of the `ecs` entity-component-system.
//!
//! Most users depend on the facade crate `ecs`, which re-exports this crate
//! and the derive macros. What this crate pursues, in order:
//!
//! 1. **Soundness**: every value lives in exactly one place and is dropped
//!    exactly once; the test suite runs under Miri.
//! 2. **Fast traversal and structural change**: struct-of-arrays tables,
//!    per-component sparse sets, and cached archetype edges so that insert
//!    and remove allocate and hash nothing after warm-up.
//! 3. **A bevy-shaped interface**: a bevy_ecs user ports code by changing
//!    the `use` line.
//!
//! ```
//! use ecs::prelude::*;
//!
//! #[derive(Component, Debug, PartialEq)]
//! struct Position { x: f32, y: f32 }
//! #[derive(Component)]
//! struct Velocity { x: f32, y: f32 }
//!
//! let mut world = World::new();
//! let e = world.spawn((Position { x: 0.0, y: 0.0 }, Velocity { x: 1.0, y: 2.0 })).id();
//! world.entity_mut(e).remove::<Velocity>();
//! assert_eq!(world.get::<Position>(e), Some(&Position { x: 0.0, y: 0.0 }));
//! assert!(world.get::<Velocity>(e).is_none());
//! ```
//!
//! Layers, lowest first: [`entity`], [`component`], [`storage`],
//! [`archetype`], [`bundle`], [`change_detection`], [`query`], [`world`].
#![warn(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]

extern crate self as ecs;

pub mod archetype;
pub mod bundle;
pub mod change_detection;
pub mod component;
pub mod entity;
pub mod observer;
pub mod query;
pub mod resource;
pub mod schedule;
pub mod storage;
pub mod system;
mod utils;
pub mod world;

/// The types most programs need: `use ecs::prelude::*;`.
pub mod prelude {
    pub use crate::bundle::Bundle;
    pub use crate::change_detection::{DetectChanges, DetectChangesMut, Mut, Ref};
    pub use crate::component::{Component, ComponentId, StorageType};
    pub use crate::entity::Entity;
    pub use crate::observer::{Add, Despawn, Event, Insert, On, Remove, Replace};
    pub use crate::query::{
        Added, AnyOf, Changed, Has, Or, QueryData, QueryFilter, QueryState, With, Without,
    };
    pub use crate::resource::Resource;
    pub use crate::schedule::{IntoSystemConfigs, Schedule};
    pub use crate::system::{
        Commands, EntityCommands, IntoSystem, Local, Query, Res, ResMut, System, SystemParam,
    };
    pub use crate::world::{EntityRef, EntityWorldMut, World};
}
