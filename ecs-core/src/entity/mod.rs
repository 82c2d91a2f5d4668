//! Entities: generational handles and their allocator.
//!
//! An [`Entity`] is an `index` into [`Entities`] plus a `generation` that is
//! bumped every time the index is freed, so a stale handle to a despawned
//! entity never reaches the data of the entity that reuses its index.
//!
//! ```text
//! Entities.meta: [ 0: gen 1 @ (arch 1, row 0) | 1: gen 2, free | 2: gen 1 @ (arch 3, row 5) ]
//! Entity 1v1 -> generation mismatch -> InvalidEntityError ("was despawned")
//! ```

pub(crate) mod clone_entities;
mod entities;
mod entity_set;
mod error;
pub mod hash_map;
pub mod hash_set;
mod map_entities;
#[cfg(feature = "serde")]
mod serde_impls;
pub mod unique_array;
pub mod unique_slice;
pub mod unique_vec;

pub use clone_entities::{
    clone_relationship_target, CloneByFilter, ComponentCloneCtx, EntityCloner, EntityClonerBuilder,
    EntityClonerFilter, FilterableId, FilterableIds, Marker, OptIn, OptOut, ScalarType,
    SourceComponent, VectorType,
};
pub use ecs_macros::MapEntities;
pub use entities::{Entities, EntityLocation, ReserveEntitiesIterator};
pub use entity_set::{
    ContainsEntity, EntityEquivalent, EntitySet, EntitySetIterator, FromEntitySetIterator,
    UniqueEntityIter,
};
pub use error::{EntityNotSpawnedError, EntityValidButNotSpawnedError, InvalidEntityError};
pub use hash_map::{EntityHash, EntityHashMap, EntityHasher};
pub use hash_set::EntityHashSet;
pub use map_entities::{EntityMapper, MapEntities, SceneEntityMapper};
pub use unique_array::{UniqueEntityArray, UniqueEntityEquivalentArray};
pub use unique_slice::{UniqueEntityEquivalentSlice, UniqueEntitySlice};
pub use unique_vec::{UniqueEntityEquivalentVec, UniqueEntityVec};

use std::{fmt, hash::Hash, num::NonZeroU32};

/// A lightweight handle to an entity: an index and a generation.
///
/// 8 bytes, and `Option<Entity>` is 8 bytes too (the generation is never 0).
#[derive(Clone, Copy)]
#[repr(C, align(8))]
pub struct Entity {
    // Field order matches the little-endian layout of `to_bits`, so the
    // comparisons below compile to one u64 compare.
    #[cfg(target_endian = "little")]
    index: u32,
    generation: NonZeroU32,
    #[cfg(target_endian = "big")]
    index: u32,
}

impl Entity {
    /// An entity that is never alive: a placeholder for "no entity yet".
    pub const PLACEHOLDER: Entity = Entity::from_raw_parts(u32::MAX, NonZeroU32::MAX);

    #[inline]
    pub(crate) const fn from_raw_parts(index: u32, generation: NonZeroU32) -> Entity {
        Entity { index, generation }
    }

    /// The entity with `index` in its first generation. Meant for tests and
    /// for storages that key by index; a live entity's handle comes from the
    /// world.
    #[inline]
    pub const fn from_raw(index: u32) -> Entity {
        Entity::from_raw_parts(index, NonZeroU32::MIN)
    }

    /// The entity with `index` in its first generation, like
    /// [`Entity::from_raw`], or `None` if `index` is `u32::MAX` (the index
    /// of [`Entity::PLACEHOLDER`]).
    #[inline]
    pub const fn from_raw_u32(index: u32) -> Option<Entity> {
        if index == u32::MAX {
            None
        } else {
            Some(Entity::from_raw(index))
        }
    }

    /// The index: the slot in [`Entities`], reused after despawn.
    #[inline]
    pub const fn index(self) -> u32 {
        self.index
    }

    /// The index as a `u32`, the same as [`Entity::index`] (which is a
    /// `u32` here, where bevy's is an `EntityIndex`).
    #[inline]
    pub const fn index_u32(self) -> u32 {
        self.index
    }

    /// The generation: how many times the index had been freed before this
    /// entity got it, plus one.
    #[inline]
    pub const fn generation(self) -> u32 {
        self.generation.get()
    }

    /// The handle as one `u64`: generation in the high half, index in the
    /// low half.
    #[inline]
    pub const fn to_bits(self) -> u64 {
        (self.generation.get() as u64) << 32 | self.index as u64
    }

    /// The inverse of [`Entity::to_bits`].
    ///
    /// # Panics
    /// If the generation half is zero (no entity has that form).
    #[inline]
    #[track_caller]
    pub const fn from_bits(bits: u64) -> Entity {
        match Entity::try_from_bits(bits) {
            Some(entity) => entity,
            None => panic!("invalid entity bits: the generation (high 32 bits) must not be zero"),
        }
    }

    /// The inverse of [`Entity::to_bits`], `None` if the generation half is
    /// zero.
    #[inline]
    pub const fn try_from_bits(bits: u64) -> Option<Entity> {
        match NonZeroU32::new((bits >> 32) as u32) {
            Some(generation) => Some(Entity::from_raw_parts(bits as u32, generation)),
            None => None,
        }
    }
}

impl PartialEq for Entity {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        self.to_bits() == other.to_bits()
    }
}

impl Eq for Entity {}

impl PartialOrd for Entity {
    #[inline]
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Entity {
    #[inline]
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.to_bits().cmp(&other.to_bits())
    }
}

impl Hash for Entity {
    #[inline]
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.to_bits().hash(state);
    }
}

/// `{index}v{generation}` (`PLACEHOLDER` for [`Entity::PLACEHOLDER`]),
/// padded to the formatter's width.
impl fmt::Debug for Entity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// `{index}v{generation}` (`PLACEHOLDER` for [`Entity::PLACEHOLDER`]),
/// padded to the formatter's width.
impl fmt::Display for Entity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if *self == Entity::PLACEHOLDER {
            f.pad("PLACEHOLDER")
        } else if f.width().is_none() {
            write!(f, "{}v{}", self.index, self.generation)
        } else {
            f.pad(&format!("{}v{}", self.index, self.generation))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(std::mem::size_of::<Entity>(), 8);
        assert_eq!(std::mem::size_of::<Option<Entity>>(), 8);
    }

    #[test]
    fn bits_round_trip() {
        let e = Entity::from_raw_parts(12, NonZeroU32::new(3).unwrap());
        assert_eq!(e.to_bits(), (3u64 << 32) | 12);
        assert_eq!(Entity::from_bits(e.to_bits()), e);
        assert_eq!(Entity::try_from_bits(12), None);
        assert_eq!(format!("{e:?}"), "12v3");
        assert_eq!(format!("[{e:>6}]"), "[  12v3]");
        assert_eq!(format!("{:<12}|", Entity::PLACEHOLDER), "PLACEHOLDER |");
        assert_eq!(e.index(), 12);
        assert_eq!(e.index_u32(), 12);
        assert_eq!(e.generation(), 3);
    }

    #[test]
    #[should_panic(expected = "generation")]
    fn from_bits_rejects_zero_generation() {
        Entity::from_bits(7);
    }

    #[test]
    fn from_raw_u32_refuses_only_the_placeholder_index() {
        assert_eq!(Entity::from_raw_u32(0), Some(Entity::from_raw(0)));
        let last = Entity::from_raw_u32(u32::MAX - 1).unwrap();
        assert_eq!((last.index(), last.generation()), (u32::MAX - 1, 1));
        assert_eq!(Entity::from_raw_u32(u32::MAX), None);
        const E: Option<Entity> = Entity::from_raw_u32(9);
        assert_eq!(E.map(Entity::index), Some(9));
    }

    #[test]
    fn ordering_follows_bits() {
        let a = Entity::from_raw_parts(5, NonZeroU32::new(1).unwrap());
        let b = Entity::from_raw_parts(1, NonZeroU32::new(2).unwrap());
        assert!(a < b);
        assert!(Entity::from_raw(1) < Entity::from_raw(2));
    }
}
