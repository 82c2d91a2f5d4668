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
};

use super::{Entity, EntityHashMap, EntityHashSet};

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
