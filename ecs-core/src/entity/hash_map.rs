//! [`EntityHashMap`]: a hash map keyed by [`Entity`], with the cheap
//! [`EntityHash`] hasher.
//!
//! ```
//! use ecs::entity::EntityHashMap;
//! use ecs::prelude::*;
//!
//! let mut world = World::new();
//! let (a, b) = (world.spawn_empty().id(), world.spawn_empty().id());
//! let mut scores = EntityHashMap::default();
//! scores.insert(a, 3);
//! *scores.entry(b).or_insert(0) += 5;
//! assert_eq!((scores[&a], scores[&b]), (3, 5));
//! ```

use std::{
    fmt,
    hash::{BuildHasher, Hasher},
    ops::{Deref, DerefMut, Index},
};

use hashbrown::hash_map::{self, HashMap};

use super::Entity;

/// Builds [`EntityHasher`]s: the hasher of [`EntityHashMap`] and
/// [`EntityHashSet`](super::EntityHashSet).
#[derive(Debug, Default, Clone, Copy)]
pub struct EntityHash;

impl BuildHasher for EntityHash {
    type Hasher = EntityHasher;

    #[inline]
    fn build_hasher(&self) -> EntityHasher {
        EntityHasher::default()
    }
}

/// A hasher for [`Entity`] keys only: one multiplication of the entity's
/// bits. Hashing anything but one `u64` panics.
///
/// The index stays in the low bits (entities spawned together land near
/// each other in the table) and the multiplication spreads it into the
/// high bits, which hashbrown's probe tags read.
#[derive(Debug, Default, Clone, Copy)]
pub struct EntityHasher {
    hash: u64,
}

impl Hasher for EntityHasher {
    #[inline]
    fn finish(&self) -> u64 {
        self.hash
    }

    #[track_caller]
    fn write(&mut self, _bytes: &[u8]) {
        panic!("`EntityHasher` hashes `Entity` keys (one `u64`) only");
    }

    #[inline]
    fn write_u64(&mut self, bits: u64) {
        // High half: the golden-ratio multiplier (Fibonacci hashing, which
        // has an inverse, so no information is lost); low half: 1, so the
        // index passes through to the low bits unchanged.
        const UPPER_PHI: u64 = 0x9e37_79b9_0000_0001;
        self.hash = bits.wrapping_mul(UPPER_PHI);
    }
}

/// A [`HashMap`] keyed by [`Entity`] with the [`EntityHash`] hasher; it
/// derefs to the hashbrown map, so every map method is there.
///
/// Bevy's is an alias of `EntityEquivalentHashMap<Entity, V>`; this one is
/// keyed by `Entity` alone, the one key type programs use.
#[derive(Clone, PartialEq, Eq)]
pub struct EntityHashMap<V>(HashMap<Entity, V, EntityHash>);

impl<V> EntityHashMap<V> {
    /// An empty map.
    #[inline]
    pub const fn new() -> Self {
        EntityHashMap(HashMap::with_hasher(EntityHash))
    }

    /// An empty map with room for `n` entries.
    #[inline]
    pub fn with_capacity(n: usize) -> Self {
        EntityHashMap(HashMap::with_capacity_and_hasher(n, EntityHash))
    }

    /// The hashbrown map inside.
    #[inline]
    pub fn into_inner(self) -> HashMap<Entity, V, EntityHash> {
        self.0
    }
}

impl<V> Default for EntityHashMap<V> {
    #[inline]
    fn default() -> Self {
        EntityHashMap::new()
    }
}

impl<V: fmt::Debug> fmt::Debug for EntityHashMap<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl<V> Deref for EntityHashMap<V> {
    type Target = HashMap<Entity, V, EntityHash>;

    #[inline]
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl<V> DerefMut for EntityHashMap<V> {
    #[inline]
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.0
    }
}

impl<V> From<HashMap<Entity, V, EntityHash>> for EntityHashMap<V> {
    #[inline]
    fn from(map: HashMap<Entity, V, EntityHash>) -> Self {
        EntityHashMap(map)
    }
}

impl<V, const N: usize> From<[(Entity, V); N]> for EntityHashMap<V> {
    fn from(entries: [(Entity, V); N]) -> Self {
        entries.into_iter().collect()
    }
}

impl<V> FromIterator<(Entity, V)> for EntityHashMap<V> {
    fn from_iter<I: IntoIterator<Item = (Entity, V)>>(iter: I) -> Self {
        EntityHashMap(HashMap::from_iter(iter))
    }
}

impl<V> Extend<(Entity, V)> for EntityHashMap<V> {
    fn extend<I: IntoIterator<Item = (Entity, V)>>(&mut self, iter: I) {
        self.0.extend(iter);
    }
}

impl<'a, V: Copy> Extend<(&'a Entity, &'a V)> for EntityHashMap<V> {
    fn extend<I: IntoIterator<Item = (&'a Entity, &'a V)>>(&mut self, iter: I) {
        self.0.extend(iter);
    }
}

impl<V> Index<&Entity> for EntityHashMap<V> {
    type Output = V;

    /// The value of `key`.
    ///
    /// # Panics
    /// If the map has no entry for `key`, naming it.
    #[track_caller]
    fn index(&self, key: &Entity) -> &V {
        match self.0.get(key) {
            Some(value) => value,
            None => panic!("no entry for entity {key} in the `EntityHashMap`"),
        }
    }
}

impl<'a, V> IntoIterator for &'a EntityHashMap<V> {
    type Item = (&'a Entity, &'a V);
    type IntoIter = hash_map::Iter<'a, Entity, V>;

    #[inline]
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl<'a, V> IntoIterator for &'a mut EntityHashMap<V> {
    type Item = (&'a Entity, &'a mut V);
    type IntoIter = hash_map::IterMut<'a, Entity, V>;

    #[inline]
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter_mut()
    }
}

impl<V> IntoIterator for EntityHashMap<V> {
    type Item = (Entity, V);
    type IntoIter = hash_map::IntoIter<Entity, V>;

    #[inline]
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_keeps_nearby_indices_apart_only_in_the_low_bits() {
        let hash = |index| EntityHash.hash_one(Entity::from_raw(index));
        let first = hash(100);
        for i in 1..32u32 {
            // Consecutive indices land in consecutive low bits.
            assert_eq!(hash(100 + i).wrapping_sub(first) as u32, i);
        }
        // A change of index reaches the high 7 bits (the probe tag).
        assert_ne!(hash(100) >> 57, hash(101) >> 57);
    }

    #[test]
    #[should_panic(expected = "`EntityHasher` hashes `Entity` keys")]
    fn hashing_other_keys_panics() {
        EntityHash.hash_one("not an entity");
    }

    #[test]
    fn index_of_a_missing_key_names_it() {
        let map: EntityHashMap<u8> = EntityHashMap::new();
        let payload = std::panic::catch_unwind(|| map[&Entity::from_raw(7)]).unwrap_err();
        let message = payload.downcast_ref::<String>().unwrap();
        assert!(message.contains("7v1"), "{message}");
    }
}
