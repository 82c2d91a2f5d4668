//! The collections a [`RelationshipTarget`](super::RelationshipTarget)
//! keeps its source entities in.

use crate::entity::Entity;

/// A collection of the source entities of a relationship, kept on the
/// target entity: `Vec<Entity>` for one-to-many, `Entity` for one-to-one.
pub trait RelationshipSourceCollection {
    /// The iterator over the entities in the collection.
    type SourceIter<'a>: Iterator<Item = Entity>
    where
        Self: 'a;

    /// An empty collection.
    fn new() -> Self;

    /// An empty collection with room for `capacity` entities.
    fn with_capacity(capacity: usize) -> Self;

    /// Makes room for `additional` more entities.
    fn reserve(&mut self, additional: usize);

    /// Adds `entity`; returns whether it was added.
    fn add(&mut self, entity: Entity) -> bool;

    /// Removes `entity`; returns whether it was there.
    fn remove(&mut self, entity: Entity) -> bool;

    /// The entities, in the collection's order.
    fn iter(&self) -> Self::SourceIter<'_>;

    /// How many entities there are.
    fn len(&self) -> usize;

    /// Removes every entity.
    fn clear(&mut self);

    /// Releases unused capacity.
    fn shrink_to_fit(&mut self);

    /// Whether there is no entity.
    #[inline]
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The source that must lose its relationship before another is added:
    /// the current one of a one-to-one collection, `None` otherwise.
    fn source_to_remove_before_add(&self) -> Option<Entity> {
        None
    }

    /// Adds every entity of `entities`, in order.
    fn extend_from_iter(&mut self, entities: impl IntoIterator<Item = Entity>);
}

/// A [`RelationshipSourceCollection`] whose order means something and can
/// be changed.
pub trait OrderedRelationshipSourceCollection: RelationshipSourceCollection {
    /// Inserts `entity` at `index` (clamped to the length), keeping the
    /// order of the others.
    fn insert_stable(&mut self, index: usize, entity: Entity);

    /// Removes the entity at `index`, keeping the order of the others.
    fn remove_at_stable(&mut self, index: usize) -> Option<Entity>;

    /// Moves the most recently added entity to `index` (clamped).
    fn place_most_recent(&mut self, index: usize);

    /// Moves `entity`, if present, to `index` (clamped).
    fn place(&mut self, entity: Entity, index: usize);
}

impl RelationshipSourceCollection for Vec<Entity> {
    type SourceIter<'a> = std::iter::Copied<std::slice::Iter<'a, Entity>>;

    fn new() -> Self {
        Vec::new()
    }

    fn with_capacity(capacity: usize) -> Self {
        Vec::with_capacity(capacity)
    }

    fn reserve(&mut self, additional: usize) {
        Vec::reserve(self, additional);
    }

    fn add(&mut self, entity: Entity) -> bool {
        self.push(entity);
        true
    }

    fn remove(&mut self, entity: Entity) -> bool {
        // Recently added sources sit at the tail and are the likeliest to go.
        match <[Entity]>::iter(self).rposition(|&e| e == entity) {
            Some(index) => {
                Vec::remove(self, index);
                true
            }
            None => false,
        }
    }

    fn iter(&self) -> Self::SourceIter<'_> {
        <[Entity]>::iter(self).copied()
    }

    fn len(&self) -> usize {
        Vec::len(self)
    }

    fn clear(&mut self) {
        Vec::clear(self);
    }

    fn shrink_to_fit(&mut self) {
        Vec::shrink_to_fit(self);
    }

    fn extend_from_iter(&mut self, entities: impl IntoIterator<Item = Entity>) {
        self.extend(entities);
    }
}

impl OrderedRelationshipSourceCollection for Vec<Entity> {
    fn insert_stable(&mut self, index: usize, entity: Entity) {
        let index = index.min(self.len());
        Vec::insert(self, index, entity);
    }

    fn remove_at_stable(&mut self, index: usize) -> Option<Entity> {
        (index < self.len()).then(|| Vec::remove(self, index))
    }

    fn place_most_recent(&mut self, index: usize) {
        if let Some(entity) = self.pop() {
            self.insert_stable(index, entity);
        }
    }

    fn place(&mut self, entity: Entity, index: usize) {
        if let Some(at) = <[Entity]>::iter(self).position(|&e| e == entity) {
            Vec::remove(self, at);
            self.insert_stable(index, entity);
        }
    }
}

/// One source at most: [`Entity::PLACEHOLDER`] stands for none.
impl RelationshipSourceCollection for Entity {
    type SourceIter<'a> = std::option::IntoIter<Entity>;

    fn new() -> Self {
        Entity::PLACEHOLDER
    }

    fn with_capacity(_capacity: usize) -> Self {
        Entity::PLACEHOLDER
    }

    fn reserve(&mut self, _additional: usize) {}

    fn add(&mut self, entity: Entity) -> bool {
        *self = entity;
        true
    }

    fn remove(&mut self, entity: Entity) -> bool {
        if *self == entity {
            *self = Entity::PLACEHOLDER;
            true
        } else {
            false
        }
    }

    fn iter(&self) -> Self::SourceIter<'_> {
        (*self != Entity::PLACEHOLDER).then_some(*self).into_iter()
    }

    fn len(&self) -> usize {
        usize::from(*self != Entity::PLACEHOLDER)
    }

    fn clear(&mut self) {
        *self = Entity::PLACEHOLDER;
    }

    fn shrink_to_fit(&mut self) {}

    fn source_to_remove_before_add(&self) -> Option<Entity> {
        (*self != Entity::PLACEHOLDER).then_some(*self)
    }

    fn extend_from_iter(&mut self, entities: impl IntoIterator<Item = Entity>) {
        if let Some(last) = entities.into_iter().last() {
            *self = last;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(index: u32) -> Entity {
        Entity::from_raw_parts(index, std::num::NonZeroU32::MIN)
    }

    #[test]
    fn vec_keeps_insertion_order_and_removes_from_the_middle() {
        let mut v = <Vec<Entity> as RelationshipSourceCollection>::new();
        for i in 0..4 {
            v.add(e(i));
        }
        assert!(RelationshipSourceCollection::remove(&mut v, e(1)));
        assert!(!RelationshipSourceCollection::remove(&mut v, e(1)));
        assert_eq!(v, [e(0), e(2), e(3)]);
        v.place(e(3), 0);
        v.add(e(9));
        v.place_most_recent(1);
        assert_eq!(v, [e(3), e(9), e(0), e(2)]);
    }

    #[test]
    fn entity_holds_one_source() {
        let mut one = <Entity as RelationshipSourceCollection>::new();
        assert!(one.is_empty());
        one.add(e(1));
        assert_eq!(one.source_to_remove_before_add(), Some(e(1)));
        assert!(!RelationshipSourceCollection::remove(&mut one, e(2)));
        assert_eq!(
            RelationshipSourceCollection::iter(&one).collect::<Vec<_>>(),
            [e(1)]
        );
        assert!(RelationshipSourceCollection::remove(&mut one, e(1)));
        assert_eq!(RelationshipSourceCollection::len(&one), 0);
    }
}
