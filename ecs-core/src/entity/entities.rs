use std::{
    num::NonZeroU32,
    sync::atomic::{AtomicI64, Ordering},
};

use super::{Entity, EntityNotSpawnedError, EntityValidButNotSpawnedError, InvalidEntityError};
use crate::{
    archetype::{ArchetypeId, ArchetypeRow},
    change_detection::Tick,
    storage::{TableId, TableRow},
};

/// Where an entity's data lives: its archetype and row there, and its table
/// and row there.
// `repr(C)`: `Entities::set_run` writes the fields two at a time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(C)]
pub struct EntityLocation {
    /// The entity's archetype.
    pub archetype_id: ArchetypeId,
    /// The entity's row in its archetype: its row in the archetype's
    /// entity list, or, when the archetype owns its table
    /// ([`Archetype::owns_table`](crate::archetype::Archetype::owns_table)),
    /// its table row.
    pub archetype_row: ArchetypeRow,
    /// The table holding the entity's table components.
    pub table_id: TableId,
    /// The entity's row in that table.
    pub table_row: TableRow,
}

const _: () = {
    use std::mem::{offset_of, size_of};
    assert!(size_of::<EntityLocation>() == 16);
    assert!(offset_of!(EntityLocation, archetype_id) == 0);
    assert!(offset_of!(EntityLocation, archetype_row) == 4);
    assert!(offset_of!(EntityLocation, table_id) == 8);
    assert!(offset_of!(EntityLocation, table_row) == 12);
};

/// `first` then `second` as one 8-byte value laid out as the two in a row.
#[inline(always)]
fn u32_pair(first: u32, second: u32) -> u64 {
    let mut bytes = [0; 8];
    bytes[..4].copy_from_slice(&first.to_ne_bytes());
    bytes[4..].copy_from_slice(&second.to_ne_bytes());
    u64::from_ne_bytes(bytes)
}

impl EntityLocation {
    /// The location of an entity that is free or reserved but not flushed.
    pub(crate) const INVALID: EntityLocation = EntityLocation {
        archetype_id: ArchetypeId::INVALID,
        archetype_row: ArchetypeRow::INVALID,
        table_id: TableId::INVALID,
        table_row: TableRow::INVALID,
    };
}

/// The generation `versions` after `generation`, wrapping past
/// `u32::MAX` to 1 (a generation is never 0).
pub(crate) fn generation_after(generation: u32, versions: u32) -> NonZeroU32 {
    let zero_based = (u64::from(generation) - 1 + u64::from(versions)) % u64::from(u32::MAX);
    NonZeroU32::new(zero_based as u32 + 1).expect("at least 1")
}

#[derive(Debug, Clone, Copy)]
struct EntityMeta {
    generation: NonZeroU32,
    location: EntityLocation,
    /// The world's change tick when the entity at this index was spawned
    /// (meaningless while the index is free).
    spawned: Tick,
}

impl EntityMeta {
    const EMPTY: EntityMeta = EntityMeta {
        generation: NonZeroU32::MIN,
        location: EntityLocation::INVALID,
        spawned: Tick::new(0),
    };
}

/// The entity allocator: one [`EntityLocation`] per index, a free list of
/// despawned indices, and lock-free reservation through `&self`.
///
/// Reservation: `free_cursor` counts down through `pending` (the free
/// list); once it goes negative, each further reservation takes a brand-new
/// index past `meta.len()`. [`Entities::flush`] then gives every reserved
/// entity a real location. Allocation and freeing through `&mut self`
/// require a flushed allocator.
#[derive(Debug)]
pub struct Entities {
    meta: Vec<EntityMeta>,
    /// Freed indices. `pending[..free_cursor]` may still be reserved; the
    /// rest were reserved and await a flush.
    pending: Vec<u32>,
    free_cursor: AtomicI64,
    len: u32,
}

impl Default for Entities {
    fn default() -> Self {
        Self::new()
    }
}

impl Entities {
    /// An allocator with no entities.
    pub const fn new() -> Self {
        Entities {
            meta: Vec::new(),
            pending: Vec::new(),
            free_cursor: AtomicI64::new(0),
            len: 0,
        }
    }

    /// Reserves an entity through `&self`. It becomes live at the next
    /// [`Entities::flush`].
    pub fn reserve_entity(&self) -> Entity {
        let n = self.free_cursor.fetch_sub(1, Ordering::Relaxed);
        if n > 0 {
            let index = self.pending[(n - 1) as usize];
            Entity::from_raw_parts(index, self.meta[index as usize].generation)
        } else {
            let index = self.meta.len() as i64 - n;
            Entity::from_raw(u32::try_from(index).expect("too many entities"))
        }
    }

    /// Reserves `count` entities through `&self`.
    pub fn reserve_entities(&self, count: u32) -> ReserveEntitiesIterator<'_> {
        let count = i64::from(count);
        let range_end = self.free_cursor.fetch_sub(count, Ordering::Relaxed);
        let range_start = range_end - count;
        let freelist = &self.pending[range_start.max(0) as usize..range_end.max(0) as usize];
        let (new_start, new_end) = if range_start >= 0 {
            (0, 0)
        } else {
            let base = self.meta.len() as i64;
            let end = u32::try_from(base - range_start).expect("too many entities");
            let start = (base - range_end.min(0)) as u32;
            (start, end)
        };
        ReserveEntitiesIterator {
            meta: &self.meta,
            freelist: freelist.iter(),
            new: new_start..new_end,
        }
    }

    /// Whether reserved entities await a flush.
    #[inline]
    pub fn needs_flush(&mut self) -> bool {
        *self.free_cursor.get_mut() != self.pending.len() as i64
    }

    #[inline]
    #[track_caller]
    fn verify_flushed(&mut self) {
        debug_assert!(
            !self.needs_flush(),
            "reserved entities must be flushed before allocating or freeing"
        );
    }

    /// Allocates an entity spawned at the world tick `spawn_tick`. Its
    /// location is invalid until the caller sets it.
    #[inline]
    pub fn alloc(&mut self, spawn_tick: Tick) -> Entity {
        self.verify_flushed();
        self.len += 1;
        if let Some(index) = self.pending.pop() {
            *self.free_cursor.get_mut() = self.pending.len() as i64;
            let meta = &mut self.meta[index as usize];
            meta.spawned = spawn_tick;
            Entity::from_raw_parts(index, meta.generation)
        } else {
            let index = u32::try_from(self.meta.len()).expect("too many entities");
            self.meta.push(EntityMeta {
                spawned: spawn_tick,
                ..EntityMeta::EMPTY
            });
            Entity::from_raw(index)
        }
    }

    /// Takes an index out of use without making an entity live there: its
    /// handles name no entity until [`Entities::free_dead`] returns it.
    pub(crate) fn alloc_dead(&mut self) -> Entity {
        self.verify_flushed();
        if let Some(index) = self.pending.pop() {
            *self.free_cursor.get_mut() = self.pending.len() as i64;
            Entity::from_raw_parts(index, self.meta[index as usize].generation)
        } else {
            let index = u32::try_from(self.meta.len()).expect("too many entities");
            self.meta.push(EntityMeta::EMPTY);
            Entity::from_raw(index)
        }
    }

    /// Returns an index taken by [`Entities::alloc_dead`] to the free list,
    /// its generation moved past the `generations` handed out from it.
    pub(crate) fn free_dead(&mut self, entity: Entity, generations: u32) {
        self.verify_flushed();
        let meta = &mut self.meta[entity.index() as usize];
        debug_assert!(meta.location.archetype_id == ArchetypeId::INVALID);
        meta.generation = generation_after(entity.generation(), generations.max(1));
        self.pending.push(entity.index());
        *self.free_cursor.get_mut() = self.pending.len() as i64;
    }

    /// Frees a live entity, bumping its index's generation, and returns the
    /// location it had. `None` if the handle is stale.
    ///
    /// After 2^32 - 1 reuses of one index the generation wraps to 1; a
    /// handle kept across that many despawns of the same index could alias.
    pub fn free(&mut self, entity: Entity) -> Option<EntityLocation> {
        self.verify_flushed();
        self.get(entity)?;
        // SAFETY: `get` found the entity live.
        Some(unsafe { self.free_live(entity.index()) })
    }

    /// Frees the live entity at `index` (its handle already checked, as
    /// [`Entities::free`] does), bumping the generation, and returns the
    /// location it had.
    ///
    /// # Safety
    /// `index` must be the index of a live entity.
    #[inline]
    pub(crate) unsafe fn free_live(&mut self, index: u32) -> EntityLocation {
        self.verify_flushed();
        debug_assert!((index as usize) < self.meta.len());
        // SAFETY: the caller guarantees `index` is a live entity's index,
        // and live indices are within `meta`.
        let meta = unsafe { self.meta.get_unchecked_mut(index as usize) };
        debug_assert!(meta.location.archetype_id != ArchetypeId::INVALID);
        meta.generation =
            NonZeroU32::new(meta.generation.get().wrapping_add(1)).unwrap_or(NonZeroU32::MIN);
        let location = std::mem::replace(&mut meta.location, EntityLocation::INVALID);
        self.pending.push(index);
        *self.free_cursor.get_mut() = self.pending.len() as i64;
        self.len -= 1;
        location
    }

    /// Makes every reserved entity live, spawned at the world tick
    /// `spawn_tick`, calling `init` to set each one's location.
    pub fn flush(&mut self, spawn_tick: Tick, mut init: impl FnMut(Entity, &mut EntityLocation)) {
        let free_cursor = self.free_cursor.get_mut();
        let current_free_cursor = if *free_cursor < 0 {
            let old_len = self.meta.len();
            let new_len = old_len + (-*free_cursor) as usize;
            self.meta.resize(new_len, EntityMeta::EMPTY);
            self.len += (-*free_cursor) as u32;
            for (index, meta) in self.meta.iter_mut().enumerate().skip(old_len) {
                meta.spawned = spawn_tick;
                init(
                    Entity::from_raw_parts(index as u32, meta.generation),
                    &mut meta.location,
                );
            }
            *free_cursor = 0;
            0
        } else {
            *free_cursor as usize
        };
        self.len += (self.pending.len() - current_free_cursor) as u32;
        for index in self.pending.drain(current_free_cursor..) {
            let meta = &mut self.meta[index as usize];
            meta.spawned = spawn_tick;
            init(
                Entity::from_raw_parts(index, meta.generation),
                &mut meta.location,
            );
        }
    }

    /// The world tick a live entity was spawned at; `None` for a stale,
    /// free or unflushed handle.
    #[inline]
    pub fn entity_get_spawn_tick(&self, entity: Entity) -> Option<Tick> {
        self.get(entity)?;
        Some(self.meta[entity.index() as usize].spawned)
    }

    /// The spawn tick of the entity at `index`, for fetches that hold a
    /// live entity.
    ///
    /// # Safety
    /// `index` is the index of a live entity.
    #[inline(always)]
    pub(crate) unsafe fn spawn_tick_unchecked(&self, index: u32) -> Tick {
        debug_assert!((index as usize) < self.meta.len());
        // SAFETY: live indices are within `meta` (caller).
        unsafe { self.meta.get_unchecked(index as usize) }.spawned
    }

    /// Clamps every spawn tick against `now`, as the world's other ticks
    /// are (see [`Tick::check_tick`]).
    pub(crate) fn check_change_ticks(&mut self, now: Tick) {
        for meta in &mut self.meta {
            meta.spawned.check_tick(now);
        }
    }

    /// The location of a live entity, `None` for a stale, free or
    /// unflushed one.
    #[inline]
    pub fn get(&self, entity: Entity) -> Option<EntityLocation> {
        let meta = self.meta.get(entity.index() as usize)?;
        if meta.generation != entity.generation
            || meta.location.archetype_id == ArchetypeId::INVALID
        {
            return None;
        }
        Some(meta.location)
    }

    /// The location of a live entity, or why the handle reaches none: its
    /// generation is not current (despawned, or never spawned), or it is
    /// current but the entity has no location (never spawned, or reserved
    /// and not flushed yet).
    #[inline]
    pub fn get_spawned(&self, entity: Entity) -> Result<EntityLocation, EntityNotSpawnedError> {
        match self.get(entity) {
            Some(location) => Ok(location),
            None => Err(self.not_spawned_error(entity)),
        }
    }

    /// Why `entity`, which [`Entities::get`] refused, is not spawned.
    #[cold]
    #[inline(never)]
    pub(crate) fn not_spawned_error(&self, entity: Entity) -> EntityNotSpawnedError {
        // An index never handed out is at its first generation.
        let current_generation = self
            .meta
            .get(entity.index() as usize)
            .map_or(NonZeroU32::MIN, |meta| meta.generation);
        if current_generation != entity.generation {
            InvalidEntityError {
                entity,
                current_generation: current_generation.get(),
            }
            .into()
        } else {
            EntityValidButNotSpawnedError { entity }.into()
        }
    }

    /// Whether the entity is live (flushed).
    #[inline]
    pub fn contains(&self, entity: Entity) -> bool {
        self.get(entity).is_some()
    }

    /// Whether the entity is spawned: the same as [`Entities::contains`]
    /// (bevy's `contains` also counts handles that could still be
    /// spawned, which this allocator does not track apart).
    #[inline]
    pub fn contains_spawned(&self, entity: Entity) -> bool {
        self.contains(entity)
    }

    /// The number of live entities: [`Entities::len`], by bevy's name.
    #[inline]
    pub fn count_spawned(&self) -> u32 {
        self.len
    }

    /// Whether any entity is live.
    #[inline]
    pub fn any_spawned(&self) -> bool {
        self.len != 0
    }

    /// Whether a live entity holds `index`.
    #[inline]
    pub fn is_index_spawned(&self, index: u32) -> bool {
        self.resolve_index(index).is_some()
    }

    /// The handle `index` has now: with the generation of the entity
    /// living there, or the generation its next entity will get (for an
    /// index never handed out, the first one).
    pub fn resolve_from_index(&self, index: u32) -> Entity {
        self.meta.get(index as usize).map_or_else(
            || Entity::from_raw(index),
            |meta| Entity::from_raw_parts(index, meta.generation),
        )
    }

    /// The live entity currently holding `index`, if any: its handle with
    /// the current generation.
    pub fn resolve_index(&self, index: u32) -> Option<Entity> {
        let meta = self.meta.get(index as usize)?;
        (meta.location.archetype_id != ArchetypeId::INVALID)
            .then(|| Entity::from_raw_parts(index, meta.generation))
    }

    /// Updates the location of a live entity.
    ///
    /// # Safety
    /// `index` must be the index of a live entity and `location` must be
    /// where its data now is.
    #[inline]
    pub(crate) unsafe fn set(&mut self, index: u32, location: EntityLocation) {
        debug_assert!((index as usize) < self.meta.len());
        // SAFETY: the caller guarantees `index` is a live entity's index,
        // and live indices are within `meta`.
        let slot = unsafe { self.location_mut(index) };
        // Field by field: callers build `location` from values in
        // registers, and a whole-struct copy would go through the stack,
        // where the 16-byte load of four fresh 4-byte stores stalls on
        // store forwarding.
        slot.archetype_id = location.archetype_id;
        slot.archetype_row = location.archetype_row;
        slot.table_id = location.table_id;
        slot.table_row = location.table_row;
    }

    /// The location of a live entity by index, to update in place (one
    /// field at a time: cheaper than reading, changing and writing back a
    /// whole location).
    ///
    /// # Safety
    /// `index` must be the index of a live entity, and whatever the caller
    /// writes must be where its data is by the time the world is next read.
    #[inline]
    pub(crate) unsafe fn location_mut(&mut self, index: u32) -> &mut EntityLocation {
        debug_assert!((index as usize) < self.meta.len());
        // SAFETY: the caller guarantees `index` is a live entity's index,
        // and live indices are within `meta`.
        &mut unsafe { self.meta.get_unchecked_mut(index as usize) }.location
    }

    /// Sets the locations of `moved`, live entities now at consecutive rows
    /// of one archetype and table: the `i`-th at archetype row
    /// `first_archetype_row + i` and table row `first_table_row + i`.
    ///
    /// # Safety
    /// Every entity of `moved` is live, and its data is where its new
    /// location says by the time the world is next read.
    pub(crate) unsafe fn set_run(
        &mut self,
        moved: &[Entity],
        archetype_id: ArchetypeId,
        first_archetype_row: usize,
        table_id: TableId,
        first_table_row: usize,
    ) {
        // One slice for the whole run: the loop then keeps its base in a
        // register instead of reloading it after every store.
        let meta = self.meta.as_mut_slice();
        for (i, entity) in moved.iter().enumerate() {
            debug_assert!((entity.index() as usize) < meta.len());
            // SAFETY: `entity` is live (caller), and live indices are
            // within `meta`.
            let entry = unsafe { meta.get_unchecked_mut(entity.index() as usize) };
            let slot: *mut EntityLocation = &mut entry.location;
            // Two 8-byte stores instead of four 4-byte ones: a run of moves
            // is bound by its stores.
            let archetype_half = u32_pair(
                archetype_id.index() as u32,
                (first_archetype_row + i) as u32,
            );
            let table_half = u32_pair(table_id.index() as u32, (first_table_row + i) as u32);
            debug_assert!(first_archetype_row + i <= u32::MAX as usize);
            debug_assert!(first_table_row + i <= u32::MAX as usize);
            // SAFETY: `EntityLocation` is `repr(C)` with four 4-byte fields
            // (checked at the type), archetype id and row first, table id
            // and row next, so each pair is written over its two fields,
            // within the location; rows fit in `u32` (table and archetype
            // rows are `u32`s).
            unsafe {
                slot.cast::<u64>().write_unaligned(archetype_half);
                slot.cast::<u8>()
                    .add(8)
                    .cast::<u64>()
                    .write_unaligned(table_half);
            }
        }
    }

    /// Reserves room for `additional` brand-new entities.
    pub fn reserve(&mut self, additional: u32) {
        self.verify_flushed();
        let freelist = *self.free_cursor.get_mut();
        let shortfall = i64::from(additional) - freelist;
        if shortfall > 0 {
            self.meta.reserve(shortfall as usize);
        }
    }

    /// The number of live entities.
    #[inline]
    pub fn len(&self) -> u32 {
        self.len
    }

    /// Whether no entity is live.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The number of indices ever handed out (live, free or reserved and
    /// flushed).
    #[inline]
    pub fn total_count(&self) -> usize {
        self.meta.len()
    }
}

/// The entities handed out by [`Entities::reserve_entities`].
#[derive(Debug)]
pub struct ReserveEntitiesIterator<'a> {
    meta: &'a [EntityMeta],
    freelist: std::slice::Iter<'a, u32>,
    new: std::ops::Range<u32>,
}

impl Iterator for ReserveEntitiesIterator<'_> {
    type Item = Entity;

    fn next(&mut self) -> Option<Entity> {
        self.freelist
            .next()
            .map(|&index| Entity::from_raw_parts(index, self.meta[index as usize].generation))
            .or_else(|| self.new.next().map(Entity::from_raw))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let len = self.freelist.len() + self.new.len();
        (len, Some(len))
    }
}

impl ExactSizeIterator for ReserveEntitiesIterator<'_> {}

/// Snapshot support: the allocator copied whole, and put back.
impl Entities {
    /// Makes this allocator a copy of `saved`, reusing its buffers, with
    /// every spawn tick moved on by `delta` (the time since `saved` was
    /// taken, as a restore moves every tick it puts back).
    pub(crate) fn restore_from(&mut self, saved: &Entities, delta: u32) {
        self.meta.clone_from(&saved.meta);
        if delta != 0 {
            for meta in &mut self.meta {
                meta.spawned = Tick::new(meta.spawned.get().wrapping_add(delta));
            }
        }
        self.pending.clone_from(&saved.pending);
        *self.free_cursor.get_mut() = saved.free_cursor.load(Ordering::Relaxed);
        self.len = saved.len;
    }
}

/// Loading support: entities made live at the ids a save recorded.
#[cfg(feature = "serde")]
impl Entities {
    /// What a save records of the allocator: the number of index slots,
    /// and the free indices, each with the generation its next entity
    /// gets, in the order allocations take them from the end (a live
    /// entity's generation is in its id). Indices reserved but not yet
    /// spawned count as free, taken last.
    pub(crate) fn saved_allocator(&self) -> (u32, Vec<(u32, u32)>) {
        let cursor = self.free_cursor.load(Ordering::Relaxed).max(0) as usize;
        let free = self.pending[cursor..]
            .iter()
            .chain(&self.pending[..cursor])
            .map(|&index| (index, self.meta[index as usize].generation.get()))
            .collect();
        (self.meta.len() as u32, free)
    }

    /// Whether no entity was ever allocated (or reserved) here.
    pub(crate) fn is_fresh(&self) -> bool {
        self.meta.is_empty()
            && self.pending.is_empty()
            && self.free_cursor.load(Ordering::Relaxed) == 0
    }

    /// Sets a fresh allocator (one that never had an entity) to the state a
    /// save recorded (`slots` index slots, and the free indices with their
    /// generations, as [`Entities::saved_allocator`] gives them), with the
    /// saved entities `live` live, spawned at `spawn_tick` and not yet
    /// anywhere (their locations invalid): later allocations then hand out
    /// the ids they would have in the saved world.
    ///
    /// Checks everything first: every index below `slots` is either free
    /// (once, with a non-zero generation) or the index of one live entity.
    /// On an error, which says what does not fit, nothing changes.
    pub(crate) fn restore_saved_allocator(
        &mut self,
        slots: u32,
        free: &[(u32, u32)],
        live: &[Entity],
        spawn_tick: Tick,
    ) -> Result<(), String> {
        self.verify_flushed();
        assert!(self.meta.is_empty(), "a fresh allocator");
        let n = slots as usize;
        let named = free.len() + live.len();
        if named < n {
            // Some index is named by no entry: found without an array of
            // `n` (a corrupt count could ask for any size).
            let mut indices: Vec<u32> = free
                .iter()
                .map(|&(index, _)| index)
                .chain(live.iter().map(|e| e.index()))
                .collect();
            indices.sort_unstable();
            indices.dedup();
            let index = (0u32..)
                .zip(&indices)
                .find(|&(expected, &index)| expected != index)
                .map_or(indices.len() as u32, |(expected, _)| expected);
            return Err(format!(
                "index {index} is neither free nor a saved entity's"
            ));
        }
        // Each index's generation, zero while no entry names it: small
        // enough to scatter into in cache, then read in order once to build
        // `meta`.
        let mut generations = vec![0u32; n];
        let mut pending = Vec::with_capacity(free.len());
        for &(index, generation) in free {
            let Some(slot) = generations.get_mut(index as usize) else {
                return Err(format!("free index {index} is past the {n} saved slots"));
            };
            if *slot != 0 {
                return Err(format!("index {index} is free twice"));
            }
            if generation == 0 {
                return Err(format!("free index {index} has generation 0"));
            }
            *slot = generation;
            pending.push(index);
        }
        for &entity in live {
            let index = entity.index() as usize;
            let Some(slot) = generations.get_mut(index) else {
                return Err(format!("entity {entity:?} is past the {n} saved slots"));
            };
            if *slot != 0 {
                return Err(format!("entity {entity:?}'s index is free or saved twice"));
            }
            *slot = entity.generation.get();
        }
        // Each index below `n` was named at most once above, and at least
        // `n` were named, so every one of them was.
        debug_assert!(!generations.contains(&0));
        // A free index's spawn tick means nothing, so every index gets the
        // live entities' one.
        let meta = generations
            .iter()
            .map(|&generation| EntityMeta {
                generation: NonZeroU32::new(generation).unwrap_or(NonZeroU32::MIN),
                location: EntityLocation::INVALID,
                spawned: spawn_tick,
            })
            .collect();
        self.meta = meta;
        *self.free_cursor.get_mut() = pending.len() as i64;
        self.pending = pending;
        self.len = live.len() as u32;
        Ok(())
    }

    /// Whether each of `ids` is at or past its index's generation: no
    /// handle of an entity despawned here can then name one of them.
    pub(crate) fn generations_allow(&self, ids: &[Entity]) -> bool {
        ids.iter().all(|id| {
            self.meta
                .get(id.index() as usize)
                .is_none_or(|meta| meta.generation <= id.generation)
        })
    }

    /// Reserves exactly the entities `ids` (index and generation), which
    /// become live at the next [`Entities::flush`]. Indices past the end are
    /// added, and those of them not in `ids` join the free list, so later
    /// allocations never hand out a live id.
    ///
    /// Returns the first id whose index is in use (live, reserved or taken
    /// out of use) or named twice; then nothing changes.
    pub(crate) fn reserve_at(&mut self, ids: &[Entity]) -> Result<(), Entity> {
        self.verify_flushed();
        let end = ids
            .iter()
            .map(|e| e.index() as usize + 1)
            .max()
            .unwrap_or(0)
            .max(self.meta.len());
        // Free: in the free list, or past the end of `meta`.
        let mut free = vec![false; end];
        for &index in &self.pending {
            free[index as usize] = true;
        }
        free[self.meta.len()..].fill(true);
        for &id in ids {
            let slot = &mut free[id.index() as usize];
            if !*slot {
                return Err(id);
            }
            *slot = false;
        }
        let old_len = self.meta.len();
        self.meta.resize(end, EntityMeta::EMPTY);
        for &id in ids {
            self.meta[id.index() as usize].generation = id.generation;
        }
        let mut pending: Vec<u32> = self
            .pending
            .iter()
            .copied()
            .filter(|&index| free[index as usize])
            .collect();
        // Reversed, so that the lowest new free index is allocated first.
        pending.extend(
            (old_len as u32..end as u32)
                .rev()
                .filter(|&i| free[i as usize]),
        );
        let kept = pending.len();
        pending.extend(ids.iter().map(|e| e.index()));
        self.pending = pending;
        *self.free_cursor.get_mut() = kept as i64;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place(entities: &mut Entities, e: Entity) {
        // SAFETY: `e` was just allocated; the location is a dummy that no
        // storage reads in these tests.
        unsafe {
            entities.set(
                e.index(),
                EntityLocation {
                    archetype_id: ArchetypeId::EMPTY,
                    archetype_row: ArchetypeRow::new(0),
                    table_id: TableId::EMPTY,
                    table_row: TableRow::new(0),
                },
            )
        };
    }

    #[test]
    fn reuse_bumps_generation_and_refuses_stale_handles() {
        let mut entities = Entities::new();
        let a = entities.alloc(Tick::new(1));
        place(&mut entities, a);
        assert!(entities.contains(a));
        assert!(entities.free(a).is_some());
        assert!(!entities.contains(a));
        assert!(entities.free(a).is_none(), "double free refused");
        let b = entities.alloc(Tick::new(1));
        place(&mut entities, b);
        assert_eq!(b.index(), a.index());
        assert_eq!(b.generation(), a.generation() + 1);
        assert!(entities.get(a).is_none());
        assert!(entities.get(b).is_some());
        assert_eq!(entities.len(), 1);
    }

    #[cfg(feature = "serde")]
    #[test]
    fn reserve_at_makes_exact_ids_live_and_keeps_the_rest_free() {
        let mut entities = Entities::new();
        let a = entities.alloc(Tick::new(1));
        place(&mut entities, a);
        let wanted = [
            Entity::from_raw_parts(3, NonZeroU32::new(7).unwrap()),
            Entity::from_raw_parts(1, NonZeroU32::new(2).unwrap()),
        ];
        assert_eq!(entities.reserve_at(&[a]), Err(a), "a live id is refused");
        let twice = [wanted[0], wanted[0]];
        assert_eq!(entities.reserve_at(&twice), Err(wanted[0]));
        entities.reserve_at(&wanted).unwrap();
        entities.flush(Tick::new(1), |_, loc| loc.archetype_id = ArchetypeId::EMPTY);
        assert!(wanted.iter().all(|&e| entities.contains(e)));
        assert_eq!(entities.len(), 3);
        let next: Vec<_> = (0..2)
            .map(|_| {
                let e = entities.alloc(Tick::new(1));
                place(&mut entities, e);
                e.index()
            })
            .collect();
        assert_eq!(next, [2, 4], "free index 2 first, then past the end");
    }

    #[test]
    fn reservation_uses_free_list_then_new_indices() {
        let mut entities = Entities::new();
        let live: Vec<_> = (0..4)
            .map(|_| {
                let e = entities.alloc(Tick::new(1));
                place(&mut entities, e);
                e
            })
            .collect();
        entities.free(live[1]);
        entities.free(live[3]);
        let one = entities.reserve_entity();
        let many: Vec<_> = entities.reserve_entities(3).collect();
        let mut reserved = vec![one];
        reserved.extend(many);
        let mut indices: Vec<_> = reserved.iter().map(|e| e.index()).collect();
        indices.sort_unstable();
        assert_eq!(indices, vec![1, 3, 4, 5]);
        for e in &reserved {
            assert!(!entities.contains(*e), "reserved is not live before flush");
        }
        assert!(entities.needs_flush());
        let mut flushed = Vec::new();
        entities.flush(Tick::new(1), |e, loc| {
            flushed.push(e);
            loc.archetype_id = ArchetypeId::EMPTY;
        });
        flushed.sort();
        reserved.sort();
        assert_eq!(flushed, reserved);
        assert!(!entities.needs_flush());
        assert_eq!(entities.len(), 6);
        for e in &reserved {
            assert!(entities.contains(*e));
        }
        // Reused indices carry the bumped generation.
        assert!(reserved
            .iter()
            .any(|e| e.index() == 1 && e.generation() == 2));
    }
}
