//! The parent/child hierarchy: [`ChildOf`] on a child names its parent,
//! [`Children`] on the parent lists its children in insertion order.
//!
//! Both are kept in step by the [`Relationship`](crate::relationship::Relationship)
//! hooks, whatever path changes them; despawning a parent despawns its
//! children, recursively (by the command loop, so any depth is fine).
//!
//! ```
//! use ecs::prelude::*;
//!
//! let mut world = World::new();
//! let parent = world.spawn_empty().with_children(|p| {
//!     p.spawn_empty();
//!     p.spawn_empty();
//! }).id();
//! let kids: Vec<Entity> = world.get::<Children>(parent).unwrap().to_vec();
//! assert_eq!(world.get::<ChildOf>(kids[0]).unwrap().parent(), parent);
//! world.despawn(parent);
//! assert!(world.get_entity(kids[1]).is_err());
//! ```

use std::ops::Deref;

use crate::{
    bundle::Bundle,
    component::Component,
    entity::Entity,
    relationship::{RelatedSpawner, RelatedSpawnerCommands},
    system::EntityCommands,
    world::EntityWorldMut,
};

/// The parent of this entity: its [`Children`] list holds this entity.
///
/// Insert it to (re)parent an entity; remove it to detach the entity.
/// A `ChildOf` naming the entity itself or an entity that does not exist
/// is removed again with a logged warning, as in bevy.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[relationship(relationship_target = Children)]
pub struct ChildOf(pub Entity);

impl ChildOf {
    /// The parent.
    #[inline]
    pub fn parent(&self) -> Entity {
        self.0
    }
}

/// The children of this entity, in the order they were added: it derefs
/// to a slice.
///
/// Maintained by the hooks of [`ChildOf`]; despawning the entity despawns
/// its children.
#[derive(Component, Default, Clone, Debug, PartialEq, Eq, Hash)]
#[relationship_target(relationship = ChildOf, linked_spawn)]
pub struct Children(Vec<Entity>);

impl Children {
    /// Swaps the children at `a` and `b`.
    ///
    /// # Panics
    /// If either index is out of bounds.
    #[inline]
    pub fn swap(&mut self, a: usize, b: usize) {
        self.0.swap(a, b);
    }

    /// Sorts the children with `compare`, keeping equal ones in order.
    pub fn sort_by(&mut self, compare: impl FnMut(&Entity, &Entity) -> std::cmp::Ordering) {
        self.0.sort_by(compare);
    }

    /// Sorts the children by `key`, keeping equal ones in order.
    pub fn sort_by_key<K: Ord>(&mut self, key: impl FnMut(&Entity) -> K) {
        self.0.sort_by_key(key);
    }

    /// Sorts the children by `key`, computing it once per child, keeping
    /// equal ones in order.
    pub fn sort_by_cached_key<K: Ord>(&mut self, key: impl FnMut(&Entity) -> K) {
        self.0.sort_by_cached_key(key);
    }

    /// Sorts the children with `compare`; equal ones may change order.
    pub fn sort_unstable_by(
        &mut self,
        compare: impl FnMut(&Entity, &Entity) -> std::cmp::Ordering,
    ) {
        self.0.sort_unstable_by(compare);
    }

    /// Sorts the children by `key`; equal ones may change order.
    pub fn sort_unstable_by_key<K: Ord>(&mut self, key: impl FnMut(&Entity) -> K) {
        self.0.sort_unstable_by_key(key);
    }
}

impl Deref for Children {
    type Target = [Entity];

    #[inline]
    fn deref(&self) -> &[Entity] {
        &self.0
    }
}

impl<'a> IntoIterator for &'a Children {
    type Item = &'a Entity;
    type IntoIter = std::slice::Iter<'a, Entity>;

    #[inline]
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

/// Spawns children of one entity, in a world.
pub type ChildSpawner<'w> = RelatedSpawner<'w, ChildOf>;

/// Queues spawning children of one entity.
pub type ChildSpawnerCommands<'w> = RelatedSpawnerCommands<'w, ChildOf>;

impl EntityWorldMut<'_> {
    /// Spawns children of this entity through a [`ChildSpawner`].
    pub fn with_children(&mut self, func: impl FnOnce(&mut ChildSpawner<'_>)) -> &mut Self {
        self.with_related_entities(func)
    }

    /// Spawns one child of this entity with `bundle`.
    pub fn with_child(&mut self, bundle: impl Bundle) -> &mut Self {
        self.with_related::<ChildOf>(bundle)
    }

    /// Makes `children` children of this entity (moving them from their
    /// parent), appended in order.
    pub fn add_children(&mut self, children: &[Entity]) -> &mut Self {
        self.add_related::<ChildOf>(children)
    }

    /// Makes `child` a child of this entity.
    pub fn add_child(&mut self, child: Entity) -> &mut Self {
        self.add_related::<ChildOf>(&[child])
    }

    /// Makes `children` children of this entity, placed from `index` on.
    pub fn insert_children(&mut self, index: usize, children: &[Entity]) -> &mut Self {
        self.insert_related::<ChildOf>(index, children)
    }

    /// Makes `child` a child of this entity, placed at `index`.
    pub fn insert_child(&mut self, index: usize, child: Entity) -> &mut Self {
        self.insert_related::<ChildOf>(index, &[child])
    }

    /// Detaches each of `children` that is a child of this entity.
    pub fn detach_children(&mut self, children: &[Entity]) -> &mut Self {
        self.remove_related::<ChildOf>(children)
    }

    /// Detaches `child` if it is a child of this entity.
    pub fn detach_child(&mut self, child: Entity) -> &mut Self {
        self.remove_related::<ChildOf>(&[child])
    }

    /// Detaches every child of this entity.
    pub fn detach_all_children(&mut self) -> &mut Self {
        self.detach_all_related::<ChildOf>()
    }

    /// Detaches each of `children` that is a child of this entity.
    #[deprecated(note = "use detach_children, as in bevy 0.20")]
    pub fn remove_children(&mut self, children: &[Entity]) -> &mut Self {
        self.detach_children(children)
    }

    /// Makes `children` exactly this entity's children, in that order.
    pub fn replace_children(&mut self, children: &[Entity]) -> &mut Self {
        self.replace_related::<ChildOf>(children)
    }

    /// [`EntityWorldMut::replace_related_with_difference`] for
    /// [`ChildOf`].
    ///
    /// # Panics
    /// As [`EntityWorldMut::replace_related_with_difference`].
    #[track_caller]
    pub fn replace_children_with_difference(
        &mut self,
        entities_to_unrelate: &[Entity],
        entities_to_relate: &[Entity],
        newly_related_entities: &[Entity],
    ) -> &mut Self {
        self.replace_related_with_difference::<ChildOf>(
            entities_to_unrelate,
            entities_to_relate,
            newly_related_entities,
        )
    }
}

impl EntityCommands<'_> {
    /// Queues spawning children of this entity through a
    /// [`ChildSpawnerCommands`].
    pub fn with_children(&mut self, func: impl FnOnce(&mut ChildSpawnerCommands<'_>)) -> &mut Self {
        self.with_related_entities(func)
    }

    /// Queues spawning one child of this entity with `bundle`.
    pub fn with_child(&mut self, bundle: impl Bundle) -> &mut Self {
        self.with_related::<ChildOf>(bundle)
    }

    /// Queues [`EntityWorldMut::add_children`].
    pub fn add_children(&mut self, children: &[Entity]) -> &mut Self {
        self.add_related::<ChildOf>(children)
    }

    /// Queues [`EntityWorldMut::add_child`].
    pub fn add_child(&mut self, child: Entity) -> &mut Self {
        self.add_related::<ChildOf>(&[child])
    }

    /// Queues [`EntityWorldMut::insert_children`].
    pub fn insert_children(&mut self, index: usize, children: &[Entity]) -> &mut Self {
        self.insert_related::<ChildOf>(index, children)
    }

    /// Queues [`EntityWorldMut::insert_child`].
    pub fn insert_child(&mut self, index: usize, child: Entity) -> &mut Self {
        self.insert_related::<ChildOf>(index, &[child])
    }

    /// Queues [`EntityWorldMut::detach_children`].
    pub fn detach_children(&mut self, children: &[Entity]) -> &mut Self {
        self.remove_related::<ChildOf>(children)
    }

    /// Queues [`EntityWorldMut::detach_child`].
    pub fn detach_child(&mut self, child: Entity) -> &mut Self {
        self.remove_related::<ChildOf>(&[child])
    }

    /// Queues [`EntityWorldMut::detach_all_children`].
    pub fn detach_all_children(&mut self) -> &mut Self {
        self.detach_all_related::<ChildOf>()
    }

    /// Queues [`EntityWorldMut::detach_children`].
    #[deprecated(note = "use detach_children, as in bevy 0.20")]
    pub fn remove_children(&mut self, children: &[Entity]) -> &mut Self {
        self.detach_children(children)
    }

    /// Queues [`EntityWorldMut::replace_children`].
    pub fn replace_children(&mut self, children: &[Entity]) -> &mut Self {
        self.replace_related::<ChildOf>(children)
    }

    /// Queues [`EntityWorldMut::replace_children_with_difference`].
    pub fn replace_children_with_difference(
        &mut self,
        entities_to_unrelate: &[Entity],
        entities_to_relate: &[Entity],
        newly_related_entities: &[Entity],
    ) -> &mut Self {
        self.replace_related_with_difference::<ChildOf>(
            entities_to_unrelate,
            entities_to_relate,
            newly_related_entities,
        )
    }
}

/// A bundle spawning each expression (a bundle) as a child of the entity
/// it is inserted into: `children![A, (B, C)]`.
///
/// ```
/// use ecs::prelude::*;
///
/// #[derive(Component)]
/// struct Name(&'static str);
///
/// let mut world = World::new();
/// let parent = world.spawn(children![Name("a"), Name("b")]).id();
/// assert_eq!(world.get::<Children>(parent).unwrap().len(), 2);
/// ```
#[macro_export]
macro_rules! children {
    [$($child:expr),* $(,)?] => {
        $crate::related!($crate::hierarchy::Children [$($child),*])
    };
}
