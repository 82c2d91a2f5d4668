//! The [`Resource`] trait: world-global singletons.

pub use ecs_macros::Resource;

/// A unique, world-global value (time, settings, an asset server…).
///
/// Derive it with `#[derive(Resource)]` and store it with
/// [`World::insert_resource`](crate::world::World::insert_resource).
pub trait Resource: Send + Sync + 'static {}
