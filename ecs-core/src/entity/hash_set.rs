//! [`EntityHashSet`]: a hash set of [`Entity`], with the cheap
//! [`EntityHash`] hasher.
//!
//! ```
//! use ecs::entity::EntityHashSet;
//! use ecs::prelude::*;
//!
//! let mut world = World::new();
//! let a = world.spawn_empty().id();
//! let mut seen = EntityHashSet::new();
//! assert!(seen.insert(a));
//! assert!(!seen.insert(a));
//! assert!(seen.contains(&a));
//! ```

use std::{
    fmt,
    ops::{Deref, DerefMut},
};

use hashbrown::hash_set::{self, HashSet};

use super::{Entity, EntityHash, UniqueEntityIter};

/// A [`HashSet`] of [`Entity`] with the [`EntityHash`] hasher; it derefs
/// to the hashbrown set, so every set method is there.
///
/// Bevy's is an alias of `EntityEquivalentHashSet<Entity>`; this one holds
/// `Entity` alone, the one key type programs use.
#[derive(Clone, PartialEq, Eq)]
pub struct EntityHashSet(HashSet<Entity, EntityHash>);

impl EntityHashSet {
    /// An empty set.
    #[inline]
    pub const fn new() -> Self {
        EntityHashSet(HashSet::with_hasher(EntityHash))
    }

    /// An empty set with room for `n` entities.
    #[inline]
    pub fn with_capacity(n: usize) -> Self {
        EntityHashSet(HashSet::with_capacity_and_hasher(n, EntityHash))
    }

    /// The entities, in no particular order, as an
    /// [`EntitySetIterator`](super::EntitySetIterator) (so a query can
    /// take them as a set).
    #[inline]
    pub fn iter(&self) -> UniqueEntityIter<hash_set::Iter<'_, Entity>> {
        // SAFETY: a set's entities are distinct.
        unsafe { UniqueEntityIter::from_iterator_unchecked(self.0.iter()) }
    }

    /// The hashbrown set inside.
    #[inline]
    pub fn into_inner(self) -> HashSet<Entity, EntityHash> {
        self.0
    }
}

impl Default for EntityHashSet {
    #[inline]
    fn default() -> Self {
        EntityHashSet::new()
    }
}

impl fmt::Debug for EntityHashSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl Deref for EntityHashSet {
    type Target = HashSet<Entity, EntityHash>;

    #[inline]
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl DerefMut for EntityHashSet {
    #[inline]
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.0
    }
}

impl From<HashSet<Entity, EntityHash>> for EntityHashSet {
    #[inline]
    fn from(set: HashSet<Entity, EntityHash>) -> Self {
        EntityHashSet(set)
    }
}

impl<const N: usize> From<[Entity; N]> for EntityHashSet {
    fn from(entities: [Entity; N]) -> Self {
        entities.into_iter().collect()
    }
}

impl FromIterator<Entity> for EntityHashSet {
    fn from_iter<I: IntoIterator<Item = Entity>>(iter: I) -> Self {
        EntityHashSet(HashSet::from_iter(iter))
    }
}

impl Extend<Entity> for EntityHashSet {
    fn extend<I: IntoIterator<Item = Entity>>(&mut self, iter: I) {
        self.0.extend(iter);
    }
}

impl<'a> Extend<&'a Entity> for EntityHashSet {
    fn extend<I: IntoIterator<Item = &'a Entity>>(&mut self, iter: I) {
        self.0.extend(iter);
    }
}

impl<'a> IntoIterator for &'a EntityHashSet {
    type Item = &'a Entity;
    type IntoIter = UniqueEntityIter<hash_set::Iter<'a, Entity>>;

    #[inline]
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl IntoIterator for EntityHashSet {
    type Item = Entity;
    type IntoIter = UniqueEntityIter<hash_set::IntoIter<Entity>>;

    #[inline]
    fn into_iter(self) -> Self::IntoIter {
        // SAFETY: a set's entities are distinct.
        unsafe { UniqueEntityIter::from_iterator_unchecked(self.0.into_iter()) }
    }
}
