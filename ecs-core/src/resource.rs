//! The [`Resource`] trait: world-global singletons.

pub use ecs_macros::Resource;

use crate::component::SnapshotBehavior;

/// A unique, world-global value (time, settings, an asset server…).
///
/// Derive it with `#[derive(Resource)]` and store it with
/// [`World::insert_resource`](crate::world::World::insert_resource).
pub trait Resource: Send + Sync + 'static {
    /// Whether every world copies this resource in its snapshots
    /// (`#[resource(snapshot)]`, or `#[resource(snapshot = hash)]` to hash
    /// it into [`World::checksum`](crate::world::World::checksum) as well).
    /// The default leaves it to each world's
    /// [`World::register_resource_snapshot`](crate::world::World::register_resource_snapshot).
    /// A behavior built for another type makes registering this one panic.
    #[inline]
    fn snapshot_behavior() -> SnapshotBehavior {
        SnapshotBehavior::IGNORE
    }
}
