//! Sets of entities: [`ContainsEntity`] (a value that names an entity),
//! [`EntityEquivalent`] (one whose equality is its entity's), and
//! [`EntitySet`] / [`EntitySetIterator`] (collections and iterators whose
//! entities are all distinct).
//!
//! Uniqueness is what lets a query hand out every item of a list mutably
//! at once ([`Query::iter_many_unique_mut`](crate::system::Query::iter_many_unique_mut)):
//!
//! ```text
//!  [e7, e2, e9]          EntitySet     -> items may all be alive together
//!  [e7, e2, e7]          not a set     -> QueryManyIter::fetch_next, one at a time
//! ```
//!
//! ```
//! use ecs::entity::{EntitySetIterator, UniqueEntityVec};
//! use ecs::prelude::*;
//! use std::collections::BTreeSet;
//!
//! let mut world = World::new();
//! let a = world.spawn_empty().id();
//! let b = world.spawn_empty().id();
//! let set = BTreeSet::from([b, a, b]);
//! let unique: UniqueEntityVec = set.into_iter().collect_set();
//! assert_eq!(unique.len(), 2);
//! ```

use std::{
    collections::{btree_map, btree_set, BTreeSet},
    fmt,
    hash::{BuildHasher, Hash},
    iter::{self, FusedIterator},
    option,
    rc::Rc,
    result,
    sync::Arc,
};

use super::{Entity, EntityHashSet};
use crate::world::{EntityMut, EntityRef, EntityWorldMut, FilteredEntityMut, FilteredEntityRef};

/// A value that names one entity: an [`Entity`], a reference to one, or
/// a handle such as [`EntityRef`].
pub trait ContainsEntity {
    /// The entity this value names.
    fn entity(&self) -> Entity;
}

/// A [`ContainsEntity`] whose equality (and `Ord`/`Hash`, if it has them)
/// is exactly that of its entity, so that distinct values name distinct
/// entities.
///
/// # Safety
/// Unique collections trust this to hand out one mutable item per
/// entity, so for every value of the type:
/// - `a == b` exactly when `a.entity() == b.entity()`, and `Ord` and
///   `Hash`, where implemented, agree with those of the entity;
/// - this holds through `Clone` (a clone names the same entity) and
///   through `Borrow`/`BorrowMut` to another type;
/// - `entity()` never changes for a value, interior mutability
///   included, and `entity()` and the comparisons are deterministic.
pub unsafe trait EntityEquivalent: ContainsEntity + Eq {}

impl ContainsEntity for Entity {
    #[inline]
    fn entity(&self) -> Entity {
        *self
    }
}

// SAFETY: an entity's equality is its own.
unsafe impl EntityEquivalent for Entity {}

macro_rules! forward_contains_entity {
    ($($ty:ty),*) => {$(
        impl<T: ContainsEntity + ?Sized> ContainsEntity for $ty {
            #[inline]
            fn entity(&self) -> Entity {
                (**self).entity()
            }
        }

        // SAFETY: the pointer compares, orders and hashes as its pointee.
        unsafe impl<T: EntityEquivalent + ?Sized> EntityEquivalent for $ty {}
    )*};
}

forward_contains_entity!(&T, &mut T, Box<T>, Rc<T>, Arc<T>);

macro_rules! entity_handle {
    ($($ty:ty),*) => {$(
        impl ContainsEntity for $ty {
            #[inline]
            fn entity(&self) -> Entity {
                self.id()
            }
        }
    )*};
}

entity_handle!(
    EntityRef<'_>,
    EntityMut<'_>,
    EntityWorldMut<'_>,
    FilteredEntityRef<'_, '_>,
    FilteredEntityMut<'_, '_>
);

/// Handles compare, order and hash by their entity, so they can be kept in
/// sets and be [`EntityEquivalent`].
macro_rules! entity_handle_eq {
    ($($ty:ty),*) => {$(
        impl PartialEq for $ty {
            #[inline]
            fn eq(&self, other: &Self) -> bool {
                self.id() == other.id()
            }
        }

        impl Eq for $ty {}

        impl PartialOrd for $ty {
            #[inline]
            fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
                Some(self.cmp(other))
            }
        }

        impl Ord for $ty {
            #[inline]
            fn cmp(&self, other: &Self) -> std::cmp::Ordering {
                self.id().cmp(&other.id())
            }
        }

        impl Hash for $ty {
            #[inline]
            fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
                self.id().hash(state);
            }
        }

        // SAFETY: equality, order and hash are the entity's (above).
        unsafe impl EntityEquivalent for $ty {}
    )*};
}

entity_handle_eq!(
    EntityRef<'_>,
    EntityMut<'_>,
    FilteredEntityRef<'_, '_>,
    FilteredEntityMut<'_, '_>
);

/// A collection whose iterator yields each entity at most once: what
/// [`Query::iter_many_unique`](crate::system::Query::iter_many_unique)
/// takes. Implemented for every `IntoIterator` whose iterator is an
/// [`EntitySetIterator`] (`&EntityHashSet`, `BTreeSet<Entity>`,
/// [`UniqueEntityVec`](super::UniqueEntityVec), ...).
pub trait EntitySet: IntoIterator<IntoIter: EntitySetIterator> {}

impl<T: IntoIterator<IntoIter: EntitySetIterator>> EntitySet for T {}

/// An iterator that never yields two items naming the same entity.
///
/// # Safety
/// No two items `a`, `b` of one iteration have `a.entity() == b.entity()`.
pub unsafe trait EntitySetIterator: Iterator<Item: EntityEquivalent> {
    /// Collects into a collection that keeps the uniqueness (like
    /// [`Iterator::collect`], without checking for duplicates).
    #[inline]
    fn collect_set<B: FromEntitySetIterator<Self::Item>>(self) -> B
    where
        Self: Sized,
    {
        B::from_entity_set_iter(self)
    }
}

/// A collection that can be built from an [`EntitySet`] without checking
/// for duplicates.
pub trait FromEntitySetIterator<A: EntityEquivalent>: FromIterator<A> {
    /// The collection of the items of `set_iter`.
    fn from_entity_set_iter<T: EntitySet<Item = A>>(set_iter: T) -> Self;
}

impl<T: EntityEquivalent + Hash, S: BuildHasher + Default> FromEntitySetIterator<T>
    for std::collections::HashSet<T, S>
{
    fn from_entity_set_iter<I: EntitySet<Item = T>>(set_iter: I) -> Self {
        set_iter.into_iter().collect()
    }
}

impl<T: EntityEquivalent + Hash, S: BuildHasher + Default> FromEntitySetIterator<T>
    for hashbrown::HashSet<T, S>
{
    fn from_entity_set_iter<I: EntitySet<Item = T>>(set_iter: I) -> Self {
        let iter = set_iter.into_iter();
        let mut set =
            hashbrown::HashSet::with_capacity_and_hasher(iter.size_hint().0, S::default());
        for item in iter {
            // SAFETY: the items are distinct (`EntitySet`), and equal
            // values name equal entities (`EntityEquivalent`).
            unsafe { set.insert_unique_unchecked(item) };
        }
        set
    }
}

impl FromEntitySetIterator<Entity> for EntityHashSet {
    fn from_entity_set_iter<I: EntitySet<Item = Entity>>(set_iter: I) -> Self {
        EntityHashSet::from(hashbrown::HashSet::from_entity_set_iter(set_iter))
    }
}

impl<T: EntityEquivalent + Ord> FromEntitySetIterator<T> for BTreeSet<T> {
    fn from_entity_set_iter<I: EntitySet<Item = T>>(set_iter: I) -> Self {
        set_iter.into_iter().collect()
    }
}

// The standard collections and adapters below yield each key or item of a
// set at most once; the adapters only drop or reorder items of an
// `EntitySetIterator`.

// SAFETY: see above.
unsafe impl<K: EntityEquivalent, V> EntitySetIterator for btree_map::Keys<'_, K, V> {}

// SAFETY: see above.
unsafe impl<K: EntityEquivalent, V> EntitySetIterator for btree_map::IntoKeys<K, V> {}

// SAFETY: see above.
unsafe impl<T: EntityEquivalent> EntitySetIterator for btree_set::Iter<'_, T> {}

// SAFETY: see above.
unsafe impl<T: EntityEquivalent> EntitySetIterator for btree_set::IntoIter<T> {}

// SAFETY: see above.
unsafe impl<T: EntityEquivalent> EntitySetIterator for btree_set::Range<'_, T> {}

// SAFETY: see above.
unsafe impl<T: EntityEquivalent + Ord> EntitySetIterator for btree_set::Intersection<'_, T> {}

// SAFETY: see above.
unsafe impl<T: EntityEquivalent + Ord> EntitySetIterator for btree_set::Union<'_, T> {}

// SAFETY: see above.
unsafe impl<T: EntityEquivalent + Ord> EntitySetIterator for btree_set::Difference<'_, T> {}

// SAFETY: see above.
unsafe impl<T: EntityEquivalent + Ord> EntitySetIterator for btree_set::SymmetricDifference<'_, T> {}

// SAFETY: see above.
unsafe impl<T: EntityEquivalent> EntitySetIterator for option::Iter<'_, T> {}

// SAFETY: see above.
unsafe impl<T: EntityEquivalent> EntitySetIterator for option::IntoIter<T> {}

// SAFETY: see above.
unsafe impl<T: EntityEquivalent> EntitySetIterator for result::Iter<'_, T> {}

// SAFETY: see above.
unsafe impl<T: EntityEquivalent> EntitySetIterator for result::IntoIter<T> {}

// SAFETY: see above.
unsafe impl<T: EntityEquivalent> EntitySetIterator for std::array::IntoIter<T, 0> {}

// SAFETY: see above.
unsafe impl<T: EntityEquivalent> EntitySetIterator for std::array::IntoIter<T, 1> {}

// SAFETY: see above.
unsafe impl<T: EntityEquivalent> EntitySetIterator for iter::Once<T> {}

// SAFETY: see above.
unsafe impl<T: EntityEquivalent, F: FnOnce() -> T> EntitySetIterator for iter::OnceWith<F> {}

// SAFETY: see above.
unsafe impl<T: EntityEquivalent> EntitySetIterator for iter::Empty<T> {}

// SAFETY: see above.
unsafe impl<I: EntitySetIterator + ?Sized> EntitySetIterator for &mut I {}

// SAFETY: see above.
unsafe impl<I: EntitySetIterator + ?Sized> EntitySetIterator for Box<I> {}

// SAFETY: see above.
unsafe impl<I: EntitySetIterator> EntitySetIterator for iter::Fuse<I> {}

// SAFETY: see above.
unsafe impl<I: EntitySetIterator + DoubleEndedIterator> EntitySetIterator for iter::Rev<I> {}

// SAFETY: see above.
unsafe impl<I: EntitySetIterator> EntitySetIterator for iter::Skip<I> {}

// SAFETY: see above.
unsafe impl<I: EntitySetIterator> EntitySetIterator for iter::Take<I> {}

// SAFETY: see above.
unsafe impl<I: EntitySetIterator> EntitySetIterator for iter::StepBy<I> {}

// SAFETY: see above.
unsafe impl<I: EntitySetIterator, P: FnMut(&I::Item) -> bool> EntitySetIterator
    for iter::Filter<I, P>
{
}

// SAFETY: see above.
unsafe impl<I: EntitySetIterator, P: FnMut(&I::Item) -> bool> EntitySetIterator
    for iter::SkipWhile<I, P>
{
}

// SAFETY: see above.
unsafe impl<I: EntitySetIterator, P: FnMut(&I::Item) -> bool> EntitySetIterator
    for iter::TakeWhile<I, P>
{
}

// SAFETY: see above.
unsafe impl<I: EntitySetIterator, F: FnMut(&I::Item)> EntitySetIterator for iter::Inspect<I, F> {}

// SAFETY: copying or cloning an item keeps its entity, and `T` is
// `EntityEquivalent`, so copies of distinct items stay distinct.
unsafe impl<'a, T: 'a + EntityEquivalent + Copy, I: EntitySetIterator<Item = &'a T>>
    EntitySetIterator for iter::Copied<I>
{
}

// SAFETY: as for `Copied`.
unsafe impl<'a, T: 'a + EntityEquivalent + Clone, I: EntitySetIterator<Item = &'a T>>
    EntitySetIterator for iter::Cloned<I>
{
}

/// An iterator known to yield distinct entities, wrapping one that the
/// type system does not know to (a hash set's, a unique vector's).
#[derive(Clone, Default)]
pub struct UniqueEntityIter<I: Iterator<Item: EntityEquivalent>> {
    iter: I,
}

impl<I: EntitySetIterator> UniqueEntityIter<I> {
    /// Wraps an iterator already known to be an [`EntitySetIterator`].
    #[inline]
    pub const fn from_entity_set_iter(iter: I) -> Self {
        UniqueEntityIter { iter }
    }
}

impl<I: Iterator<Item: EntityEquivalent>> UniqueEntityIter<I> {
    /// Wraps `iter` as an [`EntitySetIterator`].
    ///
    /// # Safety
    /// `iter` never yields two items naming the same entity.
    #[inline]
    pub const unsafe fn from_iterator_unchecked(iter: I) -> Self {
        UniqueEntityIter { iter }
    }

    /// The wrapped iterator.
    #[inline]
    pub fn into_inner(self) -> I {
        self.iter
    }

    /// The wrapped iterator, borrowed.
    #[inline]
    pub const fn as_inner(&self) -> &I {
        &self.iter
    }
}

impl<I: Iterator<Item: EntityEquivalent>> Iterator for UniqueEntityIter<I> {
    type Item = I::Item;

    #[inline]
    fn next(&mut self) -> Option<I::Item> {
        self.iter.next()
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.iter.size_hint()
    }
}

impl<I: DoubleEndedIterator<Item: EntityEquivalent>> DoubleEndedIterator for UniqueEntityIter<I> {
    #[inline]
    fn next_back(&mut self) -> Option<I::Item> {
        self.iter.next_back()
    }
}

impl<I: ExactSizeIterator<Item: EntityEquivalent>> ExactSizeIterator for UniqueEntityIter<I> {}

impl<I: FusedIterator<Item: EntityEquivalent>> FusedIterator for UniqueEntityIter<I> {}

// SAFETY: every constructor requires or checks uniqueness.
unsafe impl<I: Iterator<Item: EntityEquivalent>> EntitySetIterator for UniqueEntityIter<I> {}

impl<I: Iterator<Item: EntityEquivalent> + fmt::Debug> fmt::Debug for UniqueEntityIter<I> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("UniqueEntityIter").field(&self.iter).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collect_set_keeps_a_btree_sets_order() {
        let (a, b, c) = (
            Entity::from_raw(1),
            Entity::from_raw(2),
            Entity::from_raw(3),
        );
        let set = BTreeSet::from([c, a, b]);
        let hashed: EntityHashSet = set.iter().copied().collect_set();
        assert_eq!(hashed.len(), 3);
        let evens: BTreeSet<Entity> = set.into_iter().filter(|e| e.index() % 2 == 1).collect_set();
        assert_eq!(evens.into_iter().collect::<Vec<_>>(), [a, c]);
    }

    #[test]
    fn references_and_boxes_name_their_entity() {
        let e = Entity::from_raw(4);
        assert_eq!(ContainsEntity::entity(&&e), e);
        assert_eq!(Box::new(&e).entity(), e);
        assert_eq!(Arc::new(e).entity(), e);
    }
}
