//! Spawning, linking and unlinking related entities, on
//! [`EntityWorldMut`] and [`EntityCommands`].

use std::{collections::VecDeque, marker::PhantomData};

use super::{
    OrderedRelationshipSourceCollection, Relationship, RelationshipSourceCollection,
    RelationshipTarget,
};
use crate::{
    bundle::Bundle,
    entity::{Entity, EntityHashSet},
    hierarchy::Children,
    system::{Commands, EntityCommands},
    utils::DropPanics,
    world::{EntityWorldMut, World},
};

/// Points `source`'s `R` at `target`, keeping the other fields of an `R`
/// it already has. Moving an entity from one target to another takes the
/// old value out and inserts it back (observers see `Remove` and `Add`).
fn relate<R: Relationship>(world: &mut World, source: Entity, target: Entity) {
    let Ok(source_mut) = world.get_entity_mut(source) else {
        log::warn!(
            "cannot relate entity {source:?} to {target:?} with {}: it does not exist",
            std::any::type_name::<R>()
        );
        return;
    };
    // Already related (to `target` too), it is related again all the same:
    // it moves to the end of the target's list, as a fresh insert would put
    // it. A relationship with fields besides its target keeps them: the
    // value is re-pointed in place, between the `on_discard` and
    // `on_insert` a replacement runs, so a panicking hook or observer
    // cannot lose it.
    if source_mut.contains::<R>() && std::mem::size_of::<R>() > std::mem::size_of::<Entity>() {
        let _ = world.modify_component(source, |value: &mut R| value.set_risky(target));
    } else {
        world.entity_mut(source).insert(R::from(target));
    }
}

/// Gives `target` an empty list if it has none, so that the hooks of the
/// relationships about to be inserted add to it at once, in order, even
/// inside a command (where the commands they queue wait).
fn ensure_list<R: Relationship>(world: &mut World, target: Entity, capacity: usize) {
    let mut target_mut = world.entity_mut(target);
    if !target_mut.contains::<R::RelationshipTarget>() {
        target_mut.insert(R::RelationshipTarget::with_capacity(capacity));
    }
}

/// Removes `target`'s list if nothing was added to it.
fn drop_empty_list<R: Relationship>(world: &mut World, target: Entity) {
    if let Ok(mut target_mut) = world.get_entity_mut(target) {
        if target_mut
            .get::<R::RelationshipTarget>()
            .is_some_and(RelationshipTarget::is_empty)
        {
            target_mut.remove::<R::RelationshipTarget>();
        }
    }
}

impl EntityWorldMut<'_> {
    /// Spawns an entity with `bundle` related to this one by `R`.
    pub fn with_related<R: Relationship>(&mut self, bundle: impl Bundle) -> &mut Self {
        let target = self.id();
        self.world_scope(|world| {
            world.spawn((bundle, R::from(target)));
        });
        self
    }

    /// Spawns entities related to this one by `R` through a
    /// [`RelatedSpawner`].
    pub fn with_related_entities<R: Relationship>(
        &mut self,
        func: impl FnOnce(&mut RelatedSpawner<'_, R>),
    ) -> &mut Self {
        let target = self.id();
        self.world_scope(|world| func(&mut RelatedSpawner::new(world, target)));
        self
    }

    /// Relates each of `related` to this entity by `R`, appending those not
    /// related yet to the list.
    pub fn add_related<R: Relationship>(&mut self, related: &[Entity]) -> &mut Self {
        let target = self.id();
        self.world_scope(|world| {
            ensure_list::<R>(world, target, related.len());
            // A hook's or observer's panic stops no other entity.
            let mut panics = DropPanics::default();
            for &source in related {
                panics.catch(|| relate::<R>(world, source, target));
            }
            drop_empty_list::<R>(world, target);
            panics.finish();
        });
        self
    }

    /// Relates `entity` to this entity by `R`.
    pub fn add_one_related<R: Relationship>(&mut self, entity: Entity) -> &mut Self {
        self.add_related::<R>(&[entity])
    }

    /// Relates each of `related` to this entity by `R`, placing them in the
    /// list from `index` on (clamped); one listed twice takes the place of
    /// its last occurrence.
    pub fn insert_related<R: Relationship>(&mut self, index: usize, related: &[Entity]) -> &mut Self
    where
        <R::RelationshipTarget as RelationshipTarget>::Collection:
            OrderedRelationshipSourceCollection,
    {
        let target = self.id();
        self.world_scope(|world| {
            ensure_list::<R>(world, target, related.len());
            let mut panics = DropPanics::default();
            for (offset, &source) in related.iter().enumerate() {
                panics.catch(|| relate::<R>(world, source, target));
                if let Some(mut list) = world.get_mut::<R::RelationshipTarget>(target) {
                    list.collection_mut_risky()
                        .place(source, index.saturating_add(offset));
                }
            }
            drop_empty_list::<R>(world, target);
            panics.finish();
        });
        self
    }

    /// Removes the `R` of each of `related` that points at this entity.
    pub fn remove_related<R: Relationship>(&mut self, related: &[Entity]) -> &mut Self {
        let target = self.id();
        self.world_scope(|world| {
            let mut panics = DropPanics::default();
            for &source in related {
                if world.get::<R>(source).map(R::get) == Some(target) {
                    panics.catch(|| {
                        world.entity_mut(source).remove::<R>();
                    });
                }
            }
            panics.finish();
        });
        self
    }

    /// Removes the `R` of every entity related to this one (by removing
    /// the list).
    pub fn detach_all_related<R: Relationship>(&mut self) -> &mut Self {
        self.remove::<R::RelationshipTarget>()
    }

    /// Makes `related` (without duplicates, first occurrence kept) exactly
    /// the entities related to this one by `R`, in that order.
    pub fn replace_related<R: Relationship>(&mut self, related: &[Entity]) -> &mut Self {
        if related.is_empty() {
            return self.detach_all_related::<R>();
        }
        let mut wanted: Vec<Entity> = Vec::with_capacity(related.len());
        for &entity in related {
            if !wanted.contains(&entity) {
                wanted.push(entity);
            }
        }
        let target = self.id();
        let current: Vec<Entity> = self
            .get::<R::RelationshipTarget>()
            .map(|list| list.iter().collect())
            .unwrap_or_default();
        self.world_scope(|world| {
            let mut panics = DropPanics::default();
            // The new sources first: the list never empties on the way, so
            // it is never removed, and keeps its other fields.
            ensure_list::<R>(world, target, wanted.len());
            for &source in wanted.as_slice() {
                panics.catch(|| relate::<R>(world, source, target));
            }
            for &source in current.as_slice().iter().filter(|e| !wanted.contains(e)) {
                if world.get::<R>(source).map(R::get) == Some(target) {
                    panics.catch(|| {
                        world.entity_mut(source).remove::<R>();
                    });
                }
            }
            // Only the entities that now point here, in the order asked for.
            let linked: Vec<Entity> = wanted
                .as_slice()
                .iter()
                .copied()
                .filter(|&e| world.get::<R>(e).map(R::get) == Some(target))
                .collect();
            if let Some(mut list) = world.get_mut::<R::RelationshipTarget>(target) {
                let collection = list.collection_mut_risky();
                collection.clear();
                collection.extend_from_iter(linked);
            }
            drop_empty_list::<R>(world, target);
            panics.finish();
        });
        self
    }

    /// [`EntityWorldMut::replace_related`] given as a difference from the
    /// related entities now, in bevy's form: `entities_to_relate` is the
    /// new list, `entities_to_unrelate` the entities leaving it (they need
    /// not be related now), `newly_related_entities` the ones joining it.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// let mut world = World::new();
    /// let [a, b, c] = [(); 3].map(|_| world.spawn_empty().id());
    /// let mut parent = world.spawn_empty();
    /// parent.add_children(&[a, b]);
    /// parent.replace_children_with_difference(&[a], &[b, c], &[c]);
    /// assert_eq!(parent.get::<Children>().unwrap().to_vec(), [b, c]);
    /// ```
    ///
    /// # Panics
    /// If a slice repeats an entity, or the three slices do not describe
    /// that difference (checked in every build; bevy checks in debug
    /// builds only), naming the slices; nothing changes then.
    #[track_caller]
    pub fn replace_related_with_difference<R: Relationship>(
        &mut self,
        entities_to_unrelate: &[Entity],
        entities_to_relate: &[Entity],
        newly_related_entities: &[Entity],
    ) -> &mut Self {
        let current: EntityHashSet = self
            .get::<R::RelationshipTarget>()
            .map(|list| list.iter().collect())
            .unwrap_or_default();
        check_difference(
            &current,
            entities_to_unrelate,
            entities_to_relate,
            newly_related_entities,
        );
        self.replace_related::<R>(entities_to_relate)
    }

    /// Despawns every entity related to this one by `S::Relationship`
    /// (with their own linked entities); this entity stays.
    pub fn despawn_related<S: RelationshipTarget>(&mut self) -> &mut Self {
        let Some(sources) = self.get::<S>().map(|list| list.iter().collect::<Vec<_>>()) else {
            return self;
        };
        self.world_scope(|world| {
            let mut panics = DropPanics::default();
            for source in sources {
                if world.contains_entity(source) {
                    panics.catch(|| {
                        world.despawn(source);
                    });
                }
            }
            panics.finish();
        });
        self
    }

    /// Despawns the children of this entity; this entity stays.
    pub fn despawn_children(&mut self) -> &mut Self {
        self.despawn_related::<Children>()
    }

    /// Inserts `bundle` on this entity and on every entity below it
    /// through `S`, breadth-first.
    ///
    /// Bevy's recurses and never ends on a cycle; this one walks with a
    /// queue and visits each entity once, so deep trees and cycles (of
    /// kinds that allow them) end.
    pub fn insert_recursive<S: RelationshipTarget>(
        &mut self,
        bundle: impl Bundle + Clone,
    ) -> &mut Self {
        self.insert(bundle.clone());
        self.walk_related::<S>(|mut entity| {
            entity.insert(bundle.clone());
        })
    }

    /// Removes `B` from this entity and from every entity below it through
    /// `S`, breadth-first (each entity once; see
    /// [`EntityWorldMut::insert_recursive`]).
    pub fn remove_recursive<S: RelationshipTarget, B: Bundle>(&mut self) -> &mut Self {
        self.remove::<B>();
        self.walk_related::<S>(|mut entity| {
            entity.remove::<B>();
        })
    }

    /// Calls `visit` with every entity below this one through `S`,
    /// breadth-first, each once, reading an entity's sources after the
    /// visit (which may have changed them).
    fn walk_related<S: RelationshipTarget>(
        &mut self,
        mut visit: impl FnMut(EntityWorldMut<'_>),
    ) -> &mut Self {
        let root = self.id();
        let Some(first) = self.get::<S>().map(|list| list.iter().collect::<Vec<_>>()) else {
            return self;
        };
        self.world_scope(|world| {
            let mut visited = EntityHashSet::default();
            visited.insert(root);
            let mut queue: VecDeque<Entity> = first.into();
            while let Some(entity) = queue.pop_front() {
                if !visited.insert(entity) {
                    continue;
                }
                let Ok(entity_mut) = world.get_entity_mut(entity) else {
                    continue;
                };
                visit(entity_mut);
                if let Some(list) = world.get::<S>(entity) {
                    queue.extend(list.iter());
                }
            }
        });
        self
    }
}

impl EntityCommands<'_> {
    /// Queues spawning an entity with `bundle` related to this one by `R`.
    pub fn with_related<R: Relationship>(&mut self, bundle: impl Bundle) -> &mut Self {
        let target = self.id();
        self.commands().spawn((bundle, R::from(target)));
        self
    }

    /// Queues spawning entities related to this one by `R` through a
    /// [`RelatedSpawnerCommands`].
    pub fn with_related_entities<R: Relationship>(
        &mut self,
        func: impl FnOnce(&mut RelatedSpawnerCommands<'_, R>),
    ) -> &mut Self {
        let target = self.id();
        func(&mut RelatedSpawnerCommands::new(self.commands(), target));
        self
    }

    /// Queues [`EntityWorldMut::add_related`].
    pub fn add_related<R: Relationship>(&mut self, related: &[Entity]) -> &mut Self {
        let related: Box<[Entity]> = related.into();
        self.queue(move |mut entity: EntityWorldMut| {
            entity.add_related::<R>(&related);
        })
    }

    /// Queues [`EntityWorldMut::add_one_related`].
    pub fn add_one_related<R: Relationship>(&mut self, entity: Entity) -> &mut Self {
        self.add_related::<R>(&[entity])
    }

    /// Queues [`EntityWorldMut::insert_related`].
    pub fn insert_related<R: Relationship>(&mut self, index: usize, related: &[Entity]) -> &mut Self
    where
        <R::RelationshipTarget as RelationshipTarget>::Collection:
            OrderedRelationshipSourceCollection,
    {
        let related: Box<[Entity]> = related.into();
        self.queue(move |mut entity: EntityWorldMut| {
            entity.insert_related::<R>(index, &related);
        })
    }

    /// Queues [`EntityWorldMut::remove_related`].
    pub fn remove_related<R: Relationship>(&mut self, related: &[Entity]) -> &mut Self {
        let related: Box<[Entity]> = related.into();
        self.queue(move |mut entity: EntityWorldMut| {
            entity.remove_related::<R>(&related);
        })
    }

    /// Queues [`EntityWorldMut::detach_all_related`].
    pub fn detach_all_related<R: Relationship>(&mut self) -> &mut Self {
        self.queue(|mut entity: EntityWorldMut| {
            entity.detach_all_related::<R>();
        })
    }

    /// Queues [`EntityWorldMut::replace_related`].
    pub fn replace_related<R: Relationship>(&mut self, related: &[Entity]) -> &mut Self {
        let related: Box<[Entity]> = related.into();
        self.queue(move |mut entity: EntityWorldMut| {
            entity.replace_related::<R>(&related);
        })
    }

    /// Queues [`EntityWorldMut::replace_related_with_difference`].
    pub fn replace_related_with_difference<R: Relationship>(
        &mut self,
        entities_to_unrelate: &[Entity],
        entities_to_relate: &[Entity],
        newly_related_entities: &[Entity],
    ) -> &mut Self {
        let slices: [Box<[Entity]>; 3] = [
            entities_to_unrelate.into(),
            entities_to_relate.into(),
            newly_related_entities.into(),
        ];
        self.queue(move |mut entity: EntityWorldMut| {
            entity.replace_related_with_difference::<R>(&slices[0], &slices[1], &slices[2]);
        })
    }

    /// Queues [`EntityWorldMut::despawn_related`].
    pub fn despawn_related<S: RelationshipTarget>(&mut self) -> &mut Self {
        self.queue(|mut entity: EntityWorldMut| {
            entity.despawn_related::<S>();
        })
    }

    /// Queues [`EntityWorldMut::despawn_children`].
    pub fn despawn_children(&mut self) -> &mut Self {
        self.despawn_related::<Children>()
    }

    /// Queues [`EntityWorldMut::insert_recursive`].
    pub fn insert_recursive<S: RelationshipTarget>(
        &mut self,
        bundle: impl Bundle + Clone,
    ) -> &mut Self {
        self.queue(move |mut entity: EntityWorldMut| {
            entity.insert_recursive::<S>(bundle);
        })
    }

    /// Queues [`EntityWorldMut::remove_recursive`].
    pub fn remove_recursive<S: RelationshipTarget, B: Bundle>(&mut self) -> &mut Self {
        self.queue(|mut entity: EntityWorldMut| {
            entity.remove_recursive::<S, B>();
        })
    }
}

/// Spawns entities related by `R` to one target, in a world.
pub struct RelatedSpawner<'w, R: Relationship> {
    target: Entity,
    world: &'w mut World,
    _marker: PhantomData<fn() -> R>,
}

impl<'w, R: Relationship> RelatedSpawner<'w, R> {
    /// A spawner relating what it spawns to `target`.
    pub fn new(world: &'w mut World, target: Entity) -> Self {
        RelatedSpawner {
            target,
            world,
            _marker: PhantomData,
        }
    }

    /// Spawns an entity with `bundle`, related to the target.
    pub fn spawn(&mut self, bundle: impl Bundle) -> EntityWorldMut<'_> {
        self.world.spawn((R::from(self.target), bundle))
    }

    /// Spawns an entity with only the relationship to the target.
    pub fn spawn_empty(&mut self) -> EntityWorldMut<'_> {
        self.world.spawn(R::from(self.target))
    }

    /// The target.
    pub fn target_entity(&self) -> Entity {
        self.target
    }

    /// The world.
    pub fn world(&self) -> &World {
        self.world
    }

    /// The world, mutably.
    pub fn world_mut(&mut self) -> &mut World {
        self.world
    }
}

/// Queues spawning entities related by `R` to one target.
pub struct RelatedSpawnerCommands<'w, R: Relationship> {
    target: Entity,
    commands: Commands<'w, 'w>,
    _marker: PhantomData<fn() -> R>,
}

impl<'w, R: Relationship> RelatedSpawnerCommands<'w, R> {
    /// A spawner relating what it spawns to `target`.
    pub fn new(commands: Commands<'w, 'w>, target: Entity) -> Self {
        RelatedSpawnerCommands {
            target,
            commands,
            _marker: PhantomData,
        }
    }

    /// A shorter-lived spawner for the same target.
    pub fn reborrow(&mut self) -> RelatedSpawnerCommands<'_, R> {
        RelatedSpawnerCommands {
            target: self.target,
            commands: self.commands.reborrow(),
            _marker: PhantomData,
        }
    }

    /// Queues spawning an entity with `bundle`, related to the target.
    pub fn spawn(&mut self, bundle: impl Bundle) -> EntityCommands<'_> {
        self.commands.spawn((R::from(self.target), bundle))
    }

    /// Queues spawning an entity with only the relationship to the target.
    pub fn spawn_empty(&mut self) -> EntityCommands<'_> {
        self.commands.spawn(R::from(self.target))
    }

    /// The target.
    pub fn target_entity(&self) -> Entity {
        self.target
    }

    /// The commands.
    pub fn commands(&mut self) -> Commands<'_, '_> {
        self.commands.reborrow()
    }

    /// The commands, mutably.
    pub fn commands_mut(&mut self) -> &mut Commands<'w, 'w> {
        &mut self.commands
    }
}

/// Checks the invariants of `replace_related_with_difference` against the
/// entities related now.
#[track_caller]
fn check_difference(
    current: &EntityHashSet,
    unrelate: &[Entity],
    relate: &[Entity],
    newly: &[Entity],
) {
    let set = |name: &str, slice: &[Entity]| -> EntityHashSet {
        let set: EntityHashSet = slice.iter().copied().collect();
        assert!(
            set.len() == slice.len(),
            "`{name}` ({slice:?}) repeats an entity"
        );
        set
    };
    let (unrelate, relate, newly) = (
        set("entities_to_unrelate", unrelate),
        set("entities_to_relate", relate),
        set("newly_related_entities", newly),
    );
    assert!(
        relate.is_disjoint(&unrelate),
        "`entities_to_relate` ({relate:?}) shares entities with `entities_to_unrelate` ({unrelate:?})"
    );
    assert!(
        newly.is_subset(&relate),
        "`newly_related_entities` ({newly:?}) is not a subset of `entities_to_relate` ({relate:?})"
    );
    assert!(
        newly.is_disjoint(current),
        "`newly_related_entities` ({newly:?}) holds entities already related ({current:?})"
    );
    let after: EntityHashSet = current
        .iter()
        .copied()
        .filter(|e| !unrelate.contains(e))
        .chain(newly.iter().copied())
        .collect();
    assert!(
        after == relate,
        "`entities_to_relate` ({relate:?}) is not the related entities ({current:?}) without `entities_to_unrelate` ({unrelate:?}) and with `newly_related_entities` ({newly:?})"
    );
}
