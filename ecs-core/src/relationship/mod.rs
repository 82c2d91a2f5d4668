//! Relationships: components that link one entity to another, kept in step
//! with a component on the other end that lists every entity linking to it.
//!
//! ```text
//!  source entities                      target entity
//!  ┌──────────────────┐                 ┌──────────────────────────┐
//!  │ ChildOf(parent)  │──┐              │ Children([a, b])         │
//!  └──────────────────┘  ├──────────▶   │  (RelationshipTarget,    │
//!  ┌──────────────────┐  │              │   the list of sources)   │
//!  │ ChildOf(parent)  │──┘              └──────────────────────────┘
//!  │  (Relationship,  │
//!  │  source of truth)│
//!  └──────────────────┘
//! ```
//!
//! The [`Relationship`] component on the source is the source of truth;
//! its hooks keep the [`RelationshipTarget`] on the target in step,
//! whatever path changes it: insert, replace, remove, `take`, despawn,
//! commands. Derive both with `#[derive(Component)]` and the
//! `#[relationship(relationship_target = T)]` /
//! `#[relationship_target(relationship = R)]` attributes;
//! `#[relationship_target(relationship = R, linked_spawn)]` despawns the
//! sources with their target. [`hierarchy`](crate::hierarchy) is the
//! built-in one: `ChildOf` and `Children`.
//!
//! ```
//! use ecs::prelude::*;
//!
//! #[derive(Component)]
//! #[relationship(relationship_target = LikedBy)]
//! struct Likes(Entity);
//!
//! #[derive(Component)]
//! #[relationship_target(relationship = Likes)]
//! struct LikedBy(Vec<Entity>);
//!
//! let mut world = World::new();
//! let star = world.spawn_empty().id();
//! let fan = world.spawn(Likes(star)).id();
//! assert_eq!(&*world.get::<LikedBy>(star).unwrap().0, &[fan]);
//! world.entity_mut(fan).remove::<Likes>();
//! assert!(world.get::<LikedBy>(star).is_none());
//! ```
//!
//! As in bevy, a derived relationship is
//! [`Immutable`](crate::component::Immutable): it has no `get_mut`, so
//! its target changes only by inserting a new value (or
//! [`World::modify_component`](crate::world::World::modify_component)),
//! whose hooks keep both ends linked. A target's list is mutable, but
//! changes only through the relationship's hooks.

mod related_methods;
mod relationship_query;
mod source_collection;

pub use related_methods::{RelatedSpawner, RelatedSpawnerCommands};
pub use relationship_query::{AncestorIter, DescendantDepthFirstIter, DescendantIter};
pub use source_collection::{OrderedRelationshipSourceCollection, RelationshipSourceCollection};

use std::any::{type_name, TypeId};

use crate::{
    component::{Component, Mutable},
    entity::Entity,
    lifecycle::HookContext,
    utils::DropPanics,
    world::{DeferredWorld, World},
};

/// A component on a source entity that points at one target entity; the
/// target's [`RelationshipTarget`] lists every source pointing at it.
///
/// Derive it with `#[derive(Component)]` and
/// `#[relationship(relationship_target = T)]` on a struct whose only field
/// is the [`Entity`] (or whose entity field is marked `#[relationship]`;
/// the other fields must be [`Default`]). Add `allow_self_referential` to
/// let an entity point at itself.
///
/// The hooks [`Relationship::on_insert`] and [`Relationship::on_discard`]
/// keep the target's list in step. A relationship to the entity itself
/// (unless allowed) or to an entity that does not exist is refused as
/// bevy does: a warning naming the entity and the component is logged and
/// the component is removed again. A relationship that would close a
/// cycle (`A -> B -> A`, unless self-reference is allowed) is refused the
/// same way, naming the entities on the cycle, where bevy accepts it:
/// every traversal up such a chain (`iter_ancestors`, `root_ancestor`,
/// propagation) would never end.
pub trait Relationship: Component + Sized {
    /// The component on the target that lists the sources.
    type RelationshipTarget: RelationshipTarget<Relationship = Self>;

    /// Whether an entity may point at itself. Traversals
    /// (`iter_ancestors`, `root_ancestor`) loop forever on such an entity.
    const ALLOW_SELF_REFERENTIAL: bool = false;

    /// The target entity.
    fn get(&self) -> Entity;

    /// A relationship to `entity` (other fields take their default).
    fn from(entity: Entity) -> Self;

    /// Points the relationship at `entity` without running the hooks, so
    /// the target's list is not updated: the caller keeps both ends in
    /// step.
    fn set_risky(&mut self, entity: Entity);

    /// The `on_insert` hook: adds the entity to its target's list (or
    /// refuses a relationship to itself or to a missing entity).
    fn on_insert(mut world: DeferredWorld, HookContext { entity, .. }: HookContext) {
        let Some(target) = world.get::<Self>(entity).map(Self::get) else {
            return;
        };
        if target == entity && !Self::ALLOW_SELF_REFERENTIAL {
            log::warn!(
                "the {}({target:?}) relationship on entity {entity:?} points to itself; it has \
                 been removed (allow it with #[relationship(allow_self_referential)])",
                type_name::<Self>()
            );
            refuse::<Self>(&mut world, entity, target);
            return;
        }
        if !Self::ALLOW_SELF_REFERENTIAL && world.get::<Self::RelationshipTarget>(entity).is_some()
        {
            // Only an entity that others point at can close a cycle, so a
            // leaf (the common case) pays one lookup and no walk.
            if let Some(path) = cycle_through::<Self>(world.world(), entity, target) {
                warn_cycle::<Self>(entity, target, &path);
                refuse::<Self>(&mut world, entity, target);
                return;
            }
        }
        if world.get_entity(target).is_err() {
            log::warn!(
                "the {}({target:?}) relationship on entity {entity:?} relates to an entity that \
                 does not exist; it has been removed",
                type_name::<Self>()
            );
            refuse::<Self>(&mut world, entity, target);
            return;
        }
        accept::<Self>(&mut world, entity);
        // Added here when the list exists, so the link holds even if a
        // later hook or observer of this operation panics.
        if let Some(mut list) = world.get_mut::<Self::RelationshipTarget>(target) {
            let collection = list.collection_mut_risky();
            let displaced = collection.source_to_remove_before_add();
            collection.add(entity);
            if let Some(old) = displaced.filter(|&old| old != entity) {
                world
                    .commands()
                    .queue(move |world: &mut World| unlink_displaced::<Self>(world, old, target));
            }
        } else {
            world
                .commands()
                .queue(move |world: &mut World| link_new_target::<Self>(world, entity, target));
        }
    }

    /// The `on_discard` hook: takes the entity out of its target's list,
    /// and removes the list once it is empty.
    fn on_discard(mut world: DeferredWorld, HookContext { entity, .. }: HookContext) {
        let Some(target) = world.get::<Self>(entity).map(Self::get) else {
            return;
        };
        let Some(mut list) = world.get_mut::<Self::RelationshipTarget>(target) else {
            return;
        };
        list.collection_mut_risky().remove(entity);
        if list.is_empty() {
            world
                .commands()
                .queue(move |world: &mut World| remove_if_empty::<Self>(world, target));
        }
    }
}

/// The iterator over the sources of a [`RelationshipTarget`].
pub type SourceIter<'w, R> =
    <<R as RelationshipTarget>::Collection as RelationshipSourceCollection>::SourceIter<'w>;

/// The component on a target entity listing every source entity whose
/// [`Relationship`] points at it.
///
/// Derive it with `#[derive(Component)]` and
/// `#[relationship_target(relationship = R)]` (add `linked_spawn` to
/// despawn the sources with the target) on a struct whose only field (or
/// whose field marked `#[relationship]`) is the collection: `Vec<Entity>`
/// for one-to-many, `Entity` for one-to-one.
///
/// It is maintained by the hooks of `R`: insert `R` on the sources rather
/// than writing this list. Removing it (or despawning the target) removes
/// `R` from every source.
pub trait RelationshipTarget: Component<Mutability = Mutable> + Sized {
    /// Whether despawning the target despawns its sources too (and theirs,
    /// recursively).
    const LINKED_SPAWN: bool;

    /// The relationship whose sources this lists.
    type Relationship: Relationship<RelationshipTarget = Self>;

    /// The collection the sources are kept in.
    type Collection: RelationshipSourceCollection;

    /// The sources.
    fn collection(&self) -> &Self::Collection;

    /// The sources, mutably: changing them without changing the sources'
    /// relationships breaks the link, so only the hooks and the
    /// relationship methods call this.
    fn collection_mut_risky(&mut self) -> &mut Self::Collection;

    /// The component holding `collection` (which must not hold
    /// duplicates), other fields taking their default.
    fn from_collection_risky(collection: Self::Collection) -> Self;

    /// The `on_discard` hook: every source still pointing here loses its
    /// relationship.
    fn on_discard(mut world: DeferredWorld, HookContext { entity, .. }: HookContext) {
        let Some(list) = world.get::<Self>(entity) else {
            return;
        };
        let sources: Vec<Entity> = list.iter().collect();
        if sources.is_empty() {
            return;
        }
        world.commands().queue(move |world: &mut World| {
            // A panicking hook or observer of one source stops none of the
            // others.
            let mut panics = DropPanics::default();
            for source in sources {
                panics.catch(|| unlink_source::<Self::Relationship>(world, source, entity));
            }
            panics.finish();
        });
    }

    /// The `on_despawn` hook of a `linked_spawn` target: despawns every
    /// source still pointing here. Each despawn is a queued command, so a
    /// deep chain is despawned by the command loop, not by recursion.
    fn on_despawn(mut world: DeferredWorld, HookContext { entity, .. }: HookContext) {
        let Some(list) = world.get::<Self>(entity) else {
            return;
        };
        let sources: Vec<Entity> = list.iter().collect();
        if sources.is_empty() {
            return;
        }
        world.commands().queue(move |world: &mut World| {
            // A panicking hook or observer of one source stops none of the
            // others: each is despawned, then the first panic goes on.
            let mut panics = DropPanics::default();
            for source in sources {
                if points_at::<Self::Relationship>(world, source, entity) {
                    panics.catch(|| {
                        world.despawn(source);
                    });
                }
            }
            panics.finish();
        });
    }

    /// An empty list with room for `capacity` sources.
    fn with_capacity(capacity: usize) -> Self {
        Self::from_collection_risky(Self::Collection::with_capacity(capacity))
    }

    /// The sources, in the collection's order.
    #[inline]
    fn iter(&self) -> SourceIter<'_, Self> {
        self.collection().iter()
    }

    /// How many sources there are.
    #[inline]
    fn len(&self) -> usize {
        self.collection().len()
    }

    /// Whether there is no source.
    #[inline]
    fn is_empty(&self) -> bool {
        self.collection().is_empty()
    }
}

/// Whether `source`'s `R` points at `target`.
fn points_at<R: Relationship>(world: &World, source: Entity, target: Entity) -> bool {
    world.get::<R>(source).map(R::get) == Some(target)
}

/// Removes `R` from `source` if it still points at `target`.
fn unlink_source<R: Relationship>(world: &mut World, source: Entity, target: Entity) {
    if points_at::<R>(world, source, target) {
        world.entity_mut(source).remove::<R>();
    }
}

/// Relationships refused by their `on_insert` hook and not yet removed by
/// the command it queued: (relationship type, source) to target. Boxed
/// and absent while empty, which it is outside that window, so the world
/// carries one pointer for it.
#[derive(Default)]
pub(crate) struct RefusedLinks(Option<Box<hashbrown::HashMap<(TypeId, Entity), Entity>>>);

impl RefusedLinks {
    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_none()
    }

    pub(crate) fn get(&self, key: &(TypeId, Entity)) -> Option<&Entity> {
        self.0.as_ref()?.get(key)
    }

    pub(crate) fn insert(&mut self, key: (TypeId, Entity), target: Entity) {
        self.0
            .get_or_insert_with(Default::default)
            .insert(key, target);
    }

    pub(crate) fn remove(&mut self, key: &(TypeId, Entity)) {
        if let Some(map) = &mut self.0 {
            map.remove(key);
            if map.is_empty() {
                self.0 = None;
            }
        }
    }

    pub(crate) fn clear(&mut self) {
        self.0 = None;
    }
}

/// Marks `R(target)` on `source` refused, so no cycle check walks past
/// it, and queues its removal.
fn refuse<R: Relationship>(world: &mut DeferredWorld, source: Entity, target: Entity) {
    world
        .world_mut_internal()
        .refused_links
        .insert((TypeId::of::<R>(), source), target);
    world
        .commands()
        .queue(move |world: &mut World| unlink_invalid::<R>(world, source, target));
}

/// Clears a refusal of `source`'s `R` that a new value, accepted, replaced.
fn accept<R: Relationship>(world: &mut DeferredWorld, source: Entity) {
    world
        .world_mut_internal()
        .refused_links
        .remove(&(TypeId::of::<R>(), source));
}

/// The integrity check of the relationship `R` (named by its derive):
/// every `R` is listed exactly once by its live target, and every listed
/// source points back.
#[doc(hidden)]
pub fn relationship_integrity<R: Relationship>(world: &World) -> Result<(), String> {
    world.check_relationship::<R>()
}

/// Removes a refused relationship, unless an accepted value replaced it
/// meanwhile (which cleared the refusal).
fn unlink_invalid<R: Relationship>(world: &mut World, source: Entity, target: Entity) {
    let key = (TypeId::of::<R>(), source);
    if world.refused_links.get(&key) == Some(&target) {
        world.refused_links.remove(&key);
        unlink_source::<R>(world, source, target);
    }
}

/// The path `entity -> target -> ... -> entity` when following `R` up
/// from `target` comes back to `entity`, else `None`. A refused
/// relationship, still there until its removal runs, ends the walk. The
/// walk stops after as many steps as there are entities, so a cycle made
/// with [`Relationship::set_risky`] elsewhere cannot hang it.
fn cycle_through<R: Relationship>(
    world: &World,
    entity: Entity,
    target: Entity,
) -> Option<Vec<Entity>> {
    let mut path = vec![entity];
    let mut current = target;
    let limit = world.entities().len() as usize + 1;
    while path.len() <= limit {
        path.push(current);
        if current == entity {
            return Some(path);
        }
        let next = world.get::<R>(current)?.get();
        if world.refused_links.get(&(TypeId::of::<R>(), current)) == Some(&next)
            && !lists::<R>(world, next, current)
        {
            // Refused, and not linked since.
            return None;
        }
        current = next;
    }
    None
}

/// Whether `target`'s list holds `source`.
fn lists<R: Relationship>(world: &World, target: Entity, source: Entity) -> bool {
    world
        .get::<R::RelationshipTarget>(target)
        .is_some_and(|list| list.iter().any(|e| e == source))
}

/// Removes the relationship of the source a one-to-one target replaced.
fn unlink_displaced<R: Relationship>(world: &mut World, old: Entity, target: Entity) {
    unlink_source::<R>(world, old, target);
}

/// Warns that the relationship `R(target)` on `entity` would close the
/// cycle `path` and has been removed.
fn warn_cycle<R: Relationship>(entity: Entity, target: Entity, path: &[Entity]) {
    log::warn!(
        "the {}({target:?}) relationship on entity {entity:?} would close a cycle ({}); it \
         has been removed",
        type_name::<R>(),
        path.iter()
            .map(|e| format!("{e:?}"))
            .collect::<Vec<_>>()
            .join(" -> ")
    );
}

/// Adds `source` to `target`'s list, inserting the list if the target has
/// none; a source that no longer points at `target` is left alone, and one
/// whose target died meanwhile loses its relationship, as does one that
/// would close a cycle.
fn link_new_target<R: Relationship>(world: &mut World, source: Entity, target: Entity) {
    if !points_at::<R>(world, source, target) {
        return;
    }
    if world.get_entity(target).is_err() {
        log::warn!(
            "entity {target:?}, the target of the {} relationship on entity {source:?}, was \
             despawned before the relationship was linked; it has been removed",
            type_name::<R>()
        );
        world.entity_mut(source).remove::<R>();
        return;
    }
    // `on_insert` checked for a cycle only if the source had sources of its
    // own then; within a command they may have been linked since (the last
    // queued link of a cycle always finds its source's list).
    if !R::ALLOW_SELF_REFERENTIAL && world.get::<R::RelationshipTarget>(source).is_some() {
        if let Some(path) = cycle_through::<R>(world, source, target) {
            warn_cycle::<R>(source, target, &path);
            unlink_source::<R>(world, source, target);
            return;
        }
    }
    let mut target_mut = world.entity_mut(target);
    if let Some(mut list) = target_mut.get_mut::<R::RelationshipTarget>() {
        if list.iter().any(|e| e == source) {
            return;
        }
        let collection = list.collection_mut_risky();
        let displaced = collection.source_to_remove_before_add();
        collection.add(source);
        if let Some(old) = displaced {
            unlink_source::<R>(world, old, target);
        }
    } else {
        let mut list = R::RelationshipTarget::with_capacity(1);
        list.collection_mut_risky().add(source);
        target_mut.insert(list);
    }
}

/// Removes `target`'s list if it is (still) empty: an identical
/// relationship inserted meanwhile refilled it.
fn remove_if_empty<R: Relationship>(world: &mut World, target: Entity) {
    let empty = world
        .get::<R::RelationshipTarget>(target)
        .is_some_and(RelationshipTarget::is_empty);
    if empty {
        world.entity_mut(target).remove::<R::RelationshipTarget>();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hierarchy::ChildOf;

    /// A refusal whose removal never ran, left over once the link it named
    /// was accepted and listed, does not hide a cycle through that link,
    /// and a snapshot restore forgets it.
    #[test]
    fn a_stale_refusal_of_a_listed_link_hides_no_cycle() {
        let mut world = World::new();
        let a = world.spawn_empty().id();
        let b = world.spawn(ChildOf(a)).id();
        world.spawn(ChildOf(b));
        // As if `b -> a` had been refused once and its removal lost.
        world.refused_links.insert((TypeId::of::<ChildOf>(), b), a);
        // `a -> b` closes a -> b -> a: the walk goes through the listed
        // `b -> a` and refuses it.
        world.entity_mut(a).insert(ChildOf(b));
        world.flush();
        assert!(world.get::<ChildOf>(a).is_none(), "a under its own child");
        world.check_integrity().unwrap();

        world.register_snapshot::<ChildOf>();
        world.register_snapshot::<crate::hierarchy::Children>();
        let snapshot = world.snapshot();
        world.refused_links.insert((TypeId::of::<ChildOf>(), b), a);
        world.restore(&snapshot).unwrap();
        assert!(world.refused_links.is_empty());
    }
}
