//! Paths through the world: which entity an event moves on to.
//!
//! A [`Traversal`] reads an entity (it is query data, such as `&Parent`)
//! and names the next entity of a path, or none where the path ends.
//! [`PropagateEntityTrigger`](crate::event::PropagateEntityTrigger) follows
//! one to carry a propagating [`EntityEvent`](crate::event::EntityEvent)
//! from its target onwards:
//!
//! ```text
//!   button ──Parent──▶ panel ──Parent──▶ window ──(none)──▶ stop
//! ```
//!
//! ```
//! use ecs::prelude::*;
//! use ecs::traversal::Traversal;
//!
//! #[derive(Component)]
//! struct Parent(Entity);
//!
//! impl<D> Traversal<D> for &Parent {
//!     fn traverse(parent: &Parent, _event: &D) -> Option<Entity> {
//!         Some(parent.0)
//!     }
//! }
//!
//! #[derive(EntityEvent)]
//! #[entity_event(propagate = &'static Parent, auto_propagate)]
//! struct Click {
//!     entity: Entity,
//! }
//!
//! #[derive(Resource, Default)]
//! struct Seen(Vec<Entity>);
//!
//! let mut world = World::new();
//! world.init_resource::<Seen>();
//! let window = world.spawn_empty().id();
//! let button = world.spawn(Parent(window)).id();
//! world.add_observer(|click: On<Click>, mut seen: ResMut<Seen>| seen.0.push(click.entity));
//! world.trigger(Click { entity: button });
//! assert_eq!(world.resource::<Seen>().0, [button, window]);
//! ```

use crate::{entity::Entity, query::ReadOnlyQueryData};

/// Query data naming the next entity of a path: [`traverse`](Traversal::traverse)
/// reads the current entity's item and returns where to go, or `None` to
/// stop. `D` is data the choice may depend on (for event propagation, the
/// event).
///
/// Cycles are not detected: a traversal that loops, followed for as long
/// as it names an entity, never ends. Implementations say whether they can
/// loop.
pub trait Traversal<D: ?Sized>: ReadOnlyQueryData {
    /// The entity after the one whose item is `item`.
    fn traverse(item: Self::Item<'_>, data: &D) -> Option<Entity>;
}

/// No path: an event propagating along `()` stops at its first target.
impl<D: ?Sized> Traversal<D> for () {
    fn traverse(_: Self::Item<'_>, _: &D) -> Option<Entity> {
        None
    }
}

/// Along a relationship, from the source to its target: `&ChildOf` walks
/// from a child to its parent, which is how `#[entity_event(propagate)]`
/// bubbles up a hierarchy. A relationship is free of cycles unless its
/// derive allows `allow_self_referential`, which lets an entity name
/// itself (and loop).
impl<R: crate::relationship::Relationship, D: ?Sized> Traversal<D> for &R {
    fn traverse(item: Self::Item<'_>, _: &D) -> Option<Entity> {
        Some(item.get())
    }
}
