//! Remapping the entity ids held inside components.
//!
//! When an entity is cloned (or a group of entities copied into another
//! world), components that point at other entities must point at the
//! copies. An [`EntityMapper`] says which entity replaces which; a
//! [`MapEntities`] value rewrites every id it holds through one.
//!
//! ```text
//! source:  parent 1v1 ──Children──▶ [2v1]     2v1: ChildOf(1v1)
//! mapper:  1v1 → 7v1, 2v1 → 8v1
//! clone:   parent 7v1 ──Children──▶ [8v1]     8v1: ChildOf(7v1)
//! ```
//!
//! `#[derive(Component)]` implements [`Component::map_entities`] from the
//! fields marked `#[entities]`.
//!
//! [`Component::map_entities`]: crate::component::Component::map_entities

use std::{
    collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque},
    hash::{BuildHasher, Hash},
    panic::{catch_unwind, resume_unwind, AssertUnwindSafe},
};

use super::{entities::generation_after, Entity, EntityHashMap, EntityHashSet};
use crate::world::World;

/// A value holding entity ids that can rewrite them through an
/// [`EntityMapper`].
///
/// ```
/// use ecs::prelude::*;
/// use ecs::entity::{EntityHashMap, MapEntities};
///
/// struct Targets(Vec<Entity>);
///
/// impl MapEntities for Targets {
///     fn map_entities<E: EntityMapper>(&mut self, mapper: &mut E) {
///         self.0.map_entities(mapper);
///     }
/// }
///
/// let (a, b) = (Entity::from_raw(1), Entity::from_raw(2));
/// let mut map = EntityHashMap::default();
/// map.insert(a, b);
/// let mut targets = Targets(vec![a]);
/// targets.map_entities(&mut map);
/// assert_eq!(targets.0, [b]);
/// ```
pub trait MapEntities {
    /// Replaces every entity id in `self` with `entity_mapper`'s mapping of
    /// it.
    fn map_entities<E: EntityMapper>(&mut self, entity_mapper: &mut E);
}

impl MapEntities for Entity {
    #[inline]
    fn map_entities<E: EntityMapper>(&mut self, entity_mapper: &mut E) {
        *self = entity_mapper.get_mapped(*self);
    }
}

impl MapEntities for () {
    #[inline]
    fn map_entities<E: EntityMapper>(&mut self, _entity_mapper: &mut E) {}
}

impl<T: MapEntities> MapEntities for Option<T> {
    #[inline]
    fn map_entities<E: EntityMapper>(&mut self, entity_mapper: &mut E) {
        if let Some(value) = self {
            value.map_entities(entity_mapper);
        }
    }
}

impl<T: MapEntities, const N: usize> MapEntities for [T; N] {
    fn map_entities<E: EntityMapper>(&mut self, entity_mapper: &mut E) {
        self.iter_mut().for_each(|v| v.map_entities(entity_mapper));
    }
}

impl<T: MapEntities> MapEntities for Vec<T> {
    fn map_entities<E: EntityMapper>(&mut self, entity_mapper: &mut E) {
        self.iter_mut().for_each(|v| v.map_entities(entity_mapper));
    }
}

impl<T: MapEntities> MapEntities for VecDeque<T> {
    fn map_entities<E: EntityMapper>(&mut self, entity_mapper: &mut E) {
        self.iter_mut().for_each(|v| v.map_entities(entity_mapper));
    }
}

impl<T: MapEntities> MapEntities for Box<T> {
    fn map_entities<E: EntityMapper>(&mut self, entity_mapper: &mut E) {
        (**self).map_entities(entity_mapper);
    }
}

/// Rebuilds a keyed collection, since a mapped key may hash or sort
/// differently.
fn remap_all<T: MapEntities, E: EntityMapper>(
    values: impl IntoIterator<Item = T>,
    entity_mapper: &mut E,
) -> std::vec::IntoIter<T> {
    let mapped: Vec<T> = values
        .into_iter()
        .map(|mut value| {
            value.map_entities(entity_mapper);
            value
        })
        .collect();
    mapped.into_iter()
}

impl<T: MapEntities + Eq + Hash, S: BuildHasher + Default> MapEntities for HashSet<T, S> {
    fn map_entities<E: EntityMapper>(&mut self, entity_mapper: &mut E) {
        *self = remap_all(self.drain(), entity_mapper).collect();
    }
}

impl<K, V, S> MapEntities for HashMap<K, V, S>
where
    K: MapEntities + Eq + Hash,
    V: MapEntities,
    S: BuildHasher + Default,
{
    fn map_entities<E: EntityMapper>(&mut self, entity_mapper: &mut E) {
        *self = remap_all(self.drain().map(Pair), entity_mapper)
            .map(|Pair(pair)| pair)
            .collect();
    }
}

impl<T: MapEntities + Ord> MapEntities for BTreeSet<T> {
    fn map_entities<E: EntityMapper>(&mut self, entity_mapper: &mut E) {
        *self = remap_all(std::mem::take(self), entity_mapper).collect();
    }
}

impl<K: MapEntities + Ord, V: MapEntities> MapEntities for BTreeMap<K, V> {
    fn map_entities<E: EntityMapper>(&mut self, entity_mapper: &mut E) {
        *self = remap_all(std::mem::take(self).into_iter().map(Pair), entity_mapper)
            .map(|Pair(pair)| pair)
            .collect();
    }
}

impl MapEntities for EntityHashSet {
    fn map_entities<E: EntityMapper>(&mut self, entity_mapper: &mut E) {
        *self = remap_all(self.drain(), entity_mapper).collect();
    }
}

impl<V: MapEntities> MapEntities for EntityHashMap<V> {
    fn map_entities<E: EntityMapper>(&mut self, entity_mapper: &mut E) {
        *self = remap_all(self.drain().map(Pair), entity_mapper)
            .map(|Pair(pair)| pair)
            .collect();
    }
}

/// A key and its value, mapped together.
struct Pair<K, V>((K, V));

impl<K: MapEntities, V: MapEntities> MapEntities for Pair<K, V> {
    fn map_entities<E: EntityMapper>(&mut self, entity_mapper: &mut E) {
        self.0 .0.map_entities(entity_mapper);
        self.0 .1.map_entities(entity_mapper);
    }
}

/// Says which entity replaces which: used by [`MapEntities`] and by the
/// [`EntityCloner`](super::EntityCloner) to point cloned components at the
/// clones of the entities they pointed at.
///
/// ```
/// use ecs::prelude::*;
/// use ecs::entity::EntityHashMap;
///
/// let (a, b, c) = (Entity::from_raw(1), Entity::from_raw(2), Entity::from_raw(3));
/// let mut map = EntityHashMap::<Entity>::default();
/// map.set_mapped(a, b);
/// assert_eq!(map.get_mapped(a), b);
/// // An entity the mapper does not know maps to itself.
/// assert_eq!(map.get_mapped(c), c);
/// ```
pub trait EntityMapper {
    /// The entity `source` maps to.
    fn get_mapped(&mut self, source: Entity) -> Entity;

    /// Makes `source` map to `target`.
    fn set_mapped(&mut self, source: Entity, target: Entity);
}

/// The identity mapping: every entity maps to itself.
impl EntityMapper for () {
    #[inline]
    fn get_mapped(&mut self, source: Entity) -> Entity {
        source
    }

    #[inline]
    fn set_mapped(&mut self, _source: Entity, _target: Entity) {}
}

/// Maps the first entity to the second, every other entity to itself.
impl EntityMapper for (Entity, Entity) {
    #[inline]
    fn get_mapped(&mut self, source: Entity) -> Entity {
        if source == self.0 {
            self.1
        } else {
            source
        }
    }

    #[inline]
    fn set_mapped(&mut self, _source: Entity, _target: Entity) {}
}

impl EntityMapper for &mut dyn EntityMapper {
    #[inline]
    fn get_mapped(&mut self, source: Entity) -> Entity {
        (**self).get_mapped(source)
    }

    #[inline]
    fn set_mapped(&mut self, source: Entity, target: Entity) {
        (**self).set_mapped(source, target);
    }
}

/// Entities in the map map to their value; the others to themselves.
impl EntityMapper for EntityHashMap<Entity> {
    #[inline]
    fn get_mapped(&mut self, source: Entity) -> Entity {
        self.get(&source).copied().unwrap_or(source)
    }

    #[inline]
    fn set_mapped(&mut self, source: Entity, target: Entity) {
        self.insert(source, target);
    }
}

/// An [`EntityHashMap<Entity>`] that maps entities it does not know to
/// fresh dead entities of a destination world: handles guaranteed never to
/// name a living entity there, now or later. Used to load entities (a
/// scene, a network snapshot) whose components point at entities outside
/// the loaded set.
///
/// Every dead handle shares one index the mapper takes out of use, at
/// increasing generations; [`SceneEntityMapper::finish`] returns the index
/// with its generation moved past all of them.
///
/// ```
/// use ecs::prelude::*;
/// use ecs::entity::{EntityHashMap, SceneEntityMapper};
///
/// let mut world = World::new();
/// let mut map = EntityHashMap::default();
/// let outside = Entity::from_raw(40);
/// let dead = SceneEntityMapper::world_scope(&mut map, &mut world, |_world, mapper| {
///     mapper.get_mapped(outside)
/// });
/// assert_eq!(map[&outside], dead);
/// assert!(!world.entities().contains(dead));
/// // The index comes back to the world, at a later generation.
/// let reused = world.spawn_empty().id();
/// assert_ne!(reused, dead);
/// ```
pub struct SceneEntityMapper<'m> {
    map: &'m mut EntityHashMap<Entity>,
    /// The index taken out of use, at the first generation handed out.
    dead_start: Entity,
    /// How many dead handles were handed out.
    generations: u32,
}

impl<'m> SceneEntityMapper<'m> {
    /// The map of every entity mapped so far.
    pub fn get_map(&self) -> &EntityHashMap<Entity> {
        self.map
    }

    /// The map of every entity mapped so far, mutably.
    pub fn get_map_mut(&mut self) -> &mut EntityHashMap<Entity> {
        self.map
    }

    /// A mapper over `map` that hands out dead entities of `world`. Pair
    /// it with [`SceneEntityMapper::finish`], or use
    /// [`SceneEntityMapper::world_scope`], which does both.
    ///
    /// Takes `&mut World`, where bevy's takes `&World`, because this
    /// crate's allocator takes an index out of use only through `&mut`.
    pub fn new(map: &'m mut EntityHashMap<Entity>, world: &mut World) -> Self {
        world.flush_entities();
        Self {
            map,
            dead_start: world.entities.alloc_dead(),
            generations: 0,
        }
    }

    /// Returns the mapper's index to `world`, at a generation past every
    /// dead entity handed out, so none of them ever names a living entity.
    /// `world` must be the world given to [`SceneEntityMapper::new`].
    pub fn finish(self, world: &mut World) {
        world.flush_entities();
        world.entities.free_dead(self.dead_start, self.generations);
    }

    /// Makes a mapper over `entity_map` for `world`, calls `f` with both,
    /// and finishes the mapper, even if `f` panics.
    pub fn world_scope<R>(
        entity_map: &'m mut EntityHashMap<Entity>,
        world: &mut World,
        f: impl FnOnce(&mut World, &mut Self) -> R,
    ) -> R {
        let mut mapper = Self::new(entity_map, world);
        let result = catch_unwind(AssertUnwindSafe(|| f(world, &mut mapper)));
        mapper.finish(world);
        result.unwrap_or_else(|payload| resume_unwind(payload))
    }
}

impl EntityMapper for SceneEntityMapper<'_> {
    /// The entity `source` was mapped to, or a fresh dead entity of the
    /// destination world (remembered for later calls).
    fn get_mapped(&mut self, source: Entity) -> Entity {
        if let Some(&mapped) = self.map.get(&source) {
            return mapped;
        }
        let dead = Entity::from_raw_parts(
            self.dead_start.index(),
            generation_after(self.dead_start.generation(), self.generations),
        );
        self.generations = self.generations.wrapping_add(1);
        self.map.insert(source, dead);
        dead
    }

    fn set_mapped(&mut self, source: Entity, target: Entity) {
        self.map.insert(source, target);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collections_map_every_id() {
        let (a, b, c) = (
            Entity::from_raw(1),
            Entity::from_raw(2),
            Entity::from_raw(3),
        );
        let mut map = EntityHashMap::<Entity>::default();
        map.set_mapped(a, c);
        let mut list = vec![a, b];
        list.map_entities(&mut map);
        assert_eq!(list, [c, b]);
        let mut set: EntityHashSet = [a, b].into_iter().collect();
        set.map_entities(&mut map);
        assert!(set.contains(&c) && set.contains(&b) && !set.contains(&a));
        let mut keyed: BTreeMap<Entity, Option<Entity>> = [(a, Some(a)), (b, None)].into();
        keyed.map_entities(&mut map);
        assert_eq!(keyed, BTreeMap::from([(c, Some(c)), (b, None)]));
        let mut pair = (a, b);
        assert_eq!(pair.get_mapped(a), b);
        assert_eq!(pair.get_mapped(c), c);
        let mut unit = ();
        assert_eq!(unit.get_mapped(a), a);
    }
}
