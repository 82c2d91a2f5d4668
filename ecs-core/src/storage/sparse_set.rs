//! Sparse sets: [`SparseArray`] (a `Vec<Option<V>>` indexed by a dense
//! key), [`SparseSet`] (a packed `Vec` of values found through a sparse
//! array), and [`ComponentSparseSet`], the storage of one sparse-set
//! component: a packed [`Column`] of values with the entity owning each,
//! found by entity index and checked by generation.
//!
//! ```text
//!  sparse[entity.index()] ──▶ dense row ──▶ entities[row] == entity ? column[row] : miss
//! ```

use std::marker::PhantomData;

use super::{Column, FillValues};
use crate::{
    change_detection::{ComponentTicks, Tick},
    component::{ComponentId, ComponentInfo},
    entity::Entity,
    utils::DropPanics,
};

/// A type usable as the index of a [`SparseArray`] or [`SparseSet`]: a dense
/// small integer. An impl must give a value the same index for as long as
/// it is stored; one that does not gets wrong answers, never undefined
/// behaviour.
pub trait SparseSetIndex: Clone + PartialEq + Eq {
    /// The index as a `usize`.
    fn sparse_set_index(&self) -> usize;
    /// The value with this index.
    fn get_sparse_set_index(value: usize) -> Self;
}

impl SparseSetIndex for usize {
    #[inline]
    fn sparse_set_index(&self) -> usize {
        *self
    }
    #[inline]
    fn get_sparse_set_index(value: usize) -> Self {
        value
    }
}

impl SparseSetIndex for u32 {
    #[inline]
    fn sparse_set_index(&self) -> usize {
        *self as usize
    }
    #[inline]
    fn get_sparse_set_index(value: usize) -> Self {
        value as u32
    }
}

/// A `Vec<Option<V>>` indexed by a dense key: lookup without hashing.
#[derive(Debug, Clone)]
pub struct SparseArray<I, V> {
    values: Vec<Option<V>>,
    marker: PhantomData<I>,
}

impl<I, V> Default for SparseArray<I, V> {
    fn default() -> Self {
        SparseArray {
            values: Vec::new(),
            marker: PhantomData,
        }
    }
}

impl<I: SparseSetIndex, V> SparseArray<I, V> {
    /// The value at `index`.
    #[inline]
    pub fn get(&self, index: I) -> Option<&V> {
        self.values
            .get(index.sparse_set_index())
            .and_then(Option::as_ref)
    }

    /// The value at `index`, mutably.
    #[inline]
    pub fn get_mut(&mut self, index: I) -> Option<&mut V> {
        self.values
            .get_mut(index.sparse_set_index())
            .and_then(Option::as_mut)
    }

    /// Whether `index` has a value.
    #[inline]
    pub fn contains(&self, index: I) -> bool {
        self.get(index).is_some()
    }

    /// Sets the value at `index`.
    #[inline]
    pub fn insert(&mut self, index: I, value: V) {
        let i = index.sparse_set_index();
        if i >= self.values.len() {
            self.values.resize_with(i + 1, || None);
        }
        self.values[i] = Some(value);
    }

    /// Takes the value at `index`.
    #[inline]
    pub fn remove(&mut self, index: I) -> Option<V> {
        self.values
            .get_mut(index.sparse_set_index())
            .and_then(Option::take)
    }

    /// Removes every value.
    pub fn clear(&mut self) {
        self.values.clear();
    }

    /// Every present (key, value) pair, in key order.
    pub fn iter(&self) -> impl Iterator<Item = (I, &V)> {
        self.values
            .iter()
            .enumerate()
            .filter_map(|(i, v)| v.as_ref().map(|v| (I::get_sparse_set_index(i), v)))
    }
}

/// A dense `Vec` of values with a [`SparseArray`] from key to position:
/// iteration over a packed array, lookup without hashing.
#[derive(Debug)]
pub struct SparseSet<I, V> {
    dense: Vec<V>,
    indices: Vec<I>,
    sparse: SparseArray<I, u32>,
}

impl<I, V> Default for SparseSet<I, V> {
    fn default() -> Self {
        SparseSet {
            dense: Vec::new(),
            indices: Vec::new(),
            sparse: SparseArray::default(),
        }
    }
}

impl<I: SparseSetIndex, V> SparseSet<I, V> {
    /// An empty set with room for `capacity` values.
    pub fn with_capacity(capacity: usize) -> Self {
        SparseSet {
            dense: Vec::with_capacity(capacity),
            indices: Vec::with_capacity(capacity),
            sparse: SparseArray::default(),
        }
    }

    /// Inserts or replaces the value of `index`.
    pub fn insert(&mut self, index: I, value: V) {
        if let Some(&dense) = self.sparse.get(index.clone()) {
            self.dense[dense as usize] = value;
        } else {
            self.sparse.insert(index.clone(), self.dense.len() as u32);
            self.indices.push(index);
            self.dense.push(value);
        }
    }

    /// The value of `index`, inserted by `f` if absent.
    pub fn get_or_insert_with(&mut self, index: I, f: impl FnOnce() -> V) -> &mut V {
        let dense = match self.sparse.get(index.clone()) {
            Some(&dense) => dense as usize,
            None => {
                let dense = self.dense.len();
                self.sparse.insert(index.clone(), dense as u32);
                self.indices.push(index);
                self.dense.push(f());
                dense
            }
        };
        &mut self.dense[dense]
    }

    /// The value of `index`.
    #[inline]
    pub fn get(&self, index: I) -> Option<&V> {
        let dense = *self.sparse.get(index)?;
        // Checked: a safe `SparseSetIndex` impl may be inconsistent.
        self.dense.get(dense as usize)
    }

    /// The value of `index`, mutably.
    #[inline]
    pub fn get_mut(&mut self, index: I) -> Option<&mut V> {
        let dense = *self.sparse.get(index)?;
        // Checked: a safe `SparseSetIndex` impl may be inconsistent.
        self.dense.get_mut(dense as usize)
    }

    /// Whether `index` has a value.
    #[inline]
    pub fn contains(&self, index: I) -> bool {
        self.sparse.contains(index)
    }

    /// The position of `index`'s value in [`SparseSet::values`].
    #[inline]
    pub fn dense_index(&self, index: I) -> Option<usize> {
        self.sparse.get(index).map(|&dense| dense as usize)
    }

    /// Removes the value of `index`, moving the last value into its place.
    pub fn remove(&mut self, index: I) -> Option<V> {
        let dense = self.sparse.remove(index)? as usize;
        let is_last = dense == self.dense.len() - 1;
        let value = self.dense.swap_remove(dense);
        self.indices.swap_remove(dense);
        if !is_last {
            let moved = self.indices[dense].clone();
            self.sparse.insert(moved, dense as u32);
        }
        Some(value)
    }

    /// The number of values.
    #[inline]
    pub fn len(&self) -> usize {
        self.dense.len()
    }

    /// Whether the set is empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.dense.is_empty()
    }

    /// The keys, in dense order.
    #[inline]
    pub fn indices(&self) -> &[I] {
        &self.indices
    }

    /// The values, in dense order.
    #[inline]
    pub fn values(&self) -> &[V] {
        &self.dense
    }

    /// The values, mutably, in dense order.
    #[inline]
    pub fn values_mut(&mut self) -> &mut [V] {
        &mut self.dense
    }

    /// Key-value pairs in dense order.
    pub fn iter(&self) -> impl Iterator<Item = (&I, &V)> {
        self.indices.iter().zip(self.dense.iter())
    }

    /// Key-value pairs in dense order, values mutably.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (&I, &mut V)> {
        self.indices.iter().zip(self.dense.iter_mut())
    }
}

const NO_ROW: u32 = u32::MAX;

/// A [`ComponentSparseSet`]'s arrays (see
/// [`ComponentSparseSet::fetch_pointers`]). They stay valid while the set
/// is borrowed and not changed.
#[derive(Clone, Copy)]
pub(crate) struct SparsePointers {
    /// The sparse array: entity index -> dense row.
    pub(crate) rows: *const u32,
    /// The dense values.
    pub(crate) data: std::ptr::NonNull<u8>,
    /// The dense values' added ticks.
    pub(crate) added: *const std::cell::UnsafeCell<Tick>,
    /// The dense values' changed ticks.
    pub(crate) changed: *const std::cell::UnsafeCell<Tick>,
}

/// The storage of one sparse-set component: a dense column of values, the
/// entity owning each value, and a sparse array from entity index to dense
/// row.
///
/// Invariant: `entities.len() == dense.len()`, and for every dense row `r`,
/// `sparse[entities[r].index()] == r`.
#[derive(Debug)]
pub struct ComponentSparseSet {
    dense: Column,
    entities: Vec<Entity>,
    sparse: Vec<u32>,
}

impl ComponentSparseSet {
    pub(crate) fn new(info: &ComponentInfo, capacity: usize) -> Self {
        ComponentSparseSet {
            dense: Column::new(info, capacity),
            entities: Vec::with_capacity(capacity),
            sparse: Vec::new(),
        }
    }

    /// The number of values.
    #[inline]
    pub fn len(&self) -> usize {
        self.entities.len()
    }

    /// Whether there are no values.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.entities.is_empty()
    }

    /// The entities that have a value, in dense order.
    #[inline]
    pub fn entities(&self) -> &[Entity] {
        &self.entities
    }

    /// The dense column of values.
    #[inline]
    pub fn column(&self) -> &Column {
        &self.dense
    }

    /// The number of entities the dense entity list has room for.
    #[inline]
    pub(crate) fn entity_capacity(&self) -> usize {
        self.entities.capacity()
    }

    /// The length and capacity of the sparse array (entity index -> dense
    /// row), which reaches the highest entity index ever stored.
    #[inline]
    pub(crate) fn sparse_len_and_capacity(&self) -> (usize, usize) {
        (self.sparse.len(), self.sparse.capacity())
    }

    #[inline]
    fn dense_row(&self, entity: Entity) -> Option<usize> {
        let row = *self.sparse.get(entity.index() as usize)?;
        // The generation check makes a stale handle (whose index was
        // reused) miss instead of reaching the new entity's value.
        if row == NO_ROW || self.entities[row as usize] != entity {
            return None;
        }
        Some(row as usize)
    }

    /// Whether `entity` has a value here.
    #[inline]
    pub fn contains(&self, entity: Entity) -> bool {
        self.dense_row(entity).is_some()
    }

    /// A pointer to the value of `entity`.
    #[inline]
    pub fn get(&self, entity: Entity) -> Option<*mut u8> {
        let row = self.dense_row(entity)?;
        // SAFETY: rows in `sparse` are below the column's length.
        Some(unsafe { self.dense.get_data_unchecked(row) })
    }

    /// A pointer to the value of `entity` and its tick cells.
    #[inline]
    pub fn get_with_tick_cells(
        &self,
        entity: Entity,
    ) -> Option<(
        *mut u8,
        &std::cell::UnsafeCell<Tick>,
        &std::cell::UnsafeCell<Tick>,
    )> {
        let row = self.dense_row(entity)?;
        // SAFETY: rows in `sparse` are below the column's length.
        unsafe {
            let (added, changed) = self.dense.get_tick_cells_unchecked(row);
            Some((self.dense.get_data_unchecked(row), added, changed))
        }
    }

    /// The ticks of `entity`'s value.
    #[inline]
    pub fn get_ticks(&self, entity: Entity) -> Option<ComponentTicks> {
        self.dense.get_ticks(self.dense_row(entity)?)
    }

    /// The dense row of an entity known to have a value here: one load,
    /// with none of [`Self::dense_row`]'s bounds and generation checks,
    /// which a query fetch has already settled through the archetype.
    ///
    /// # Safety
    /// `entity` is alive and has a value in this set.
    #[inline(always)]
    unsafe fn dense_row_unchecked(&self, entity: Entity) -> usize {
        debug_assert_eq!(
            self.dense_row(entity),
            Some(self.sparse[entity.index() as usize] as usize)
        );
        // SAFETY: an entity with a value has a sparse slot (caller).
        (unsafe { *self.sparse.get_unchecked(entity.index() as usize) }) as usize
    }

    /// The set's arrays as raw pointers, for a query fetch that holds
    /// them while the set is borrowed: a value is then two loads away
    /// (entity index -> dense row -> value), and writes through items never
    /// make the walk reload the set.
    #[inline]
    pub(crate) fn fetch_pointers(&self) -> SparsePointers {
        SparsePointers {
            rows: self.sparse.as_ptr(),
            data: self.dense.data_non_null(),
            added: self.dense.added_ticks().as_ptr(),
            changed: self.dense.changed_ticks().as_ptr(),
        }
    }

    /// The ticks of `entity`'s value, without checks.
    ///
    /// # Safety
    /// `entity` is alive and has a value in this set, and no write to its
    /// ticks happens meanwhile.
    #[inline(always)]
    pub(crate) unsafe fn get_ticks_unchecked(&self, entity: Entity) -> ComponentTicks {
        // SAFETY: forwarded.
        unsafe {
            self.dense
                .get_ticks_unchecked(self.dense_row_unchecked(entity))
        }
    }

    /// Inserts the value of an entity that has none here yet, with a typed
    /// write.
    ///
    /// # Safety
    /// `T` is this set's component type, and `entity` has no value here.
    #[inline]
    pub(crate) unsafe fn insert_new_typed<T>(&mut self, entity: Entity, value: T, tick: Tick) {
        debug_assert!(self.dense_row(entity).is_none());
        self.link_new(entity);
        // SAFETY: forwarded.
        unsafe { self.dense.push_typed(value, ComponentTicks::new(tick)) };
    }

    /// Points `entity`'s sparse slot at the dense row about to be pushed.
    #[inline]
    fn link_new(&mut self, entity: Entity) {
        let index = entity.index() as usize;
        if index >= self.sparse.len() {
            self.sparse.resize(index + 1, NO_ROW);
        }
        self.sparse[index] = self.entities.len() as u32;
        self.entities.push(entity);
    }

    /// Inserts the value of `entity`, or replaces it (marking it changed).
    ///
    /// # Safety
    /// `value` points to an owned, valid value of this set's component; the
    /// caller gives up ownership.
    pub(crate) unsafe fn insert(
        &mut self,
        entity: Entity,
        value: *mut u8,
        tick: Tick,
        panics: &mut DropPanics,
    ) {
        if let Some(row) = self.dense_row(entity) {
            // SAFETY: `row < len`; `value` forwarded.
            unsafe { self.dense.replace(row, value, tick, panics) };
        } else {
            self.link_new(entity);
            // SAFETY: forwarded.
            unsafe { self.dense.push(value, ComponentTicks::new(tick)) };
        }
    }

    /// Removes `entity`'s value and returns a pointer to it (valid until the
    /// next insert) and its ticks. The caller owns the value.
    #[must_use = "the removed value must be moved out or dropped"]
    pub(crate) fn remove_and_forget(
        &mut self,
        entity: Entity,
    ) -> Option<(*mut u8, ComponentTicks)> {
        let row = self.dense_row(entity)?;
        self.unlink(entity, row);
        // SAFETY: `row < len`.
        Some(unsafe { self.dense.swap_remove_and_forget(row) })
    }

    /// Removes and drops `entity`'s value. Returns whether it had one.
    pub(crate) fn remove_and_drop(&mut self, entity: Entity, panics: &mut DropPanics) -> bool {
        let Some(row) = self.dense_row(entity) else {
            return false;
        };
        self.unlink(entity, row);
        // SAFETY: `row < len`.
        unsafe { self.dense.swap_remove_and_drop(row, panics) };
        true
    }

    fn unlink(&mut self, entity: Entity, row: usize) {
        self.sparse[entity.index() as usize] = NO_ROW;
        self.entities.swap_remove(row);
        if let Some(&moved) = self.entities.get(row) {
            self.sparse[moved.index() as usize] = row as u32;
        }
    }

    pub(crate) fn clear(&mut self, panics: &mut DropPanics) {
        self.entities.clear();
        self.sparse.clear();
        self.dense.clear(panics);
    }

    pub(crate) fn check_change_ticks(&mut self, change_tick: Tick) {
        self.dense.check_change_ticks(change_tick);
    }
}

/// The sparse sets of every sparse-set component.
#[derive(Debug, Default)]
pub struct SparseSets {
    sets: SparseSet<ComponentId, ComponentSparseSet>,
}

impl SparseSets {
    /// The set of a component, if created.
    #[inline]
    pub fn get(&self, id: ComponentId) -> Option<&ComponentSparseSet> {
        self.sets.get(id)
    }

    #[inline]
    pub(crate) fn get_mut(&mut self, id: ComponentId) -> Option<&mut ComponentSparseSet> {
        self.sets.get_mut(id)
    }

    pub(crate) fn get_or_insert(&mut self, info: &ComponentInfo) -> &mut ComponentSparseSet {
        self.sets
            .get_or_insert_with(info.id(), || ComponentSparseSet::new(info, 0))
    }

    /// Every set with its component id.
    pub fn iter(&self) -> impl Iterator<Item = (ComponentId, &ComponentSparseSet)> {
        self.sets.iter().map(|(&id, set)| (id, set))
    }

    pub(crate) fn clear_all(&mut self, panics: &mut DropPanics) {
        for set in self.sets.values_mut() {
            set.clear(panics);
        }
    }

    pub(crate) fn check_change_ticks(&mut self, change_tick: Tick) {
        for set in self.sets.values_mut() {
            set.check_change_ticks(change_tick);
        }
    }
}

/// Snapshot support: empty a set keeping moved-out values, and fill an
/// empty set.
impl ComponentSparseSet {
    /// Empties the set, dropping each value whose `keep` flag (by dense
    /// row) is unset; `None` drops every value.
    pub(crate) fn clear_keeping(&mut self, keep: Option<&[bool]>, panics: &mut DropPanics) {
        for entity in self.entities.drain(..) {
            self.sparse[entity.index() as usize] = NO_ROW;
        }
        self.dense.clear_keeping(keep, panics);
    }

    /// The dense row of `entity`'s value, if it has one.
    pub(crate) fn dense_row_of(&self, entity: Entity) -> Option<usize> {
        self.dense_row(entity)
    }

    /// Fills the empty set with one value per entity, moved in from
    /// `values` (row `i` belongs to `entities[i]`).
    ///
    /// # Safety
    /// The set is empty; `values` holds values of this set's component (of
    /// a `Copy` type if copied), exactly `entities.len()` of them; the
    /// entities are distinct.
    pub(crate) unsafe fn fill(&mut self, entities: &[Entity], values: FillValues<'_>) {
        debug_assert!(self.entities.is_empty() && self.dense.is_empty());
        assert_eq!(values.len(), entities.len(), "one value per entity");
        self.entities.reserve(entities.len());
        for &entity in entities {
            self.link_new(entity);
        }
        self.dense.reserve_standalone(entities.len());
        // SAFETY: same component (caller); room reserved above.
        unsafe { values.append_into(&mut self.dense) };
    }
}

impl SparseSets {
    /// Every set with its component id, mutably.
    pub(crate) fn iter_mut(
        &mut self,
    ) -> impl Iterator<Item = (ComponentId, &mut ComponentSparseSet)> {
        self.sets.iter_mut().map(|(&id, set)| (id, set))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::component::{Component, Components, StorageType};

    #[test]
    fn sparse_set_keeps_keys_and_values_paired() {
        let mut set = SparseSet::<usize, &str>::default();
        set.insert(5, "five");
        set.insert(1, "one");
        set.insert(9, "nine");
        assert_eq!(set.remove(5), Some("five"));
        assert_eq!(set.get(9), Some(&"nine"));
        assert_eq!(set.get(1), Some(&"one"));
        assert_eq!(set.get(5), None);
        assert_eq!(set.len(), 2);
        for (k, v) in set.iter() {
            assert_eq!(set.get(*k), Some(v));
        }
    }

    #[test]
    fn component_sparse_set_invariant_holds_through_removes() {
        struct S(u64);
        impl Component for S {
            const STORAGE_TYPE: StorageType = StorageType::SparseSet;
            type Mutability = crate::component::Mutable;
        }
        let mut components = Components::default();
        let id = components.register_component::<S>();
        let mut set = ComponentSparseSet::new(components.get_info(id).unwrap(), 0);
        let mut panics = DropPanics::default();
        let n = if cfg!(miri) { 20 } else { 200 };
        for i in 0..n {
            let mut v = std::mem::ManuallyDrop::new(S(i as u64 * 10));
            // SAFETY: an owned `S` moves in.
            unsafe {
                set.insert(
                    Entity::from_raw(i),
                    (&mut *v as *mut S).cast(),
                    Tick::new(1),
                    &mut panics,
                )
            };
        }
        for i in (0..n).step_by(3) {
            assert!(set.remove_and_drop(Entity::from_raw(i), &mut panics));
        }
        assert!(!set.remove_and_drop(Entity::from_raw(0), &mut panics));
        for (row, e) in set.entities().iter().enumerate() {
            assert_eq!(set.sparse[e.index() as usize] as usize, row);
            // SAFETY: the set holds `S` values.
            let value = unsafe { &*set.get(*e).unwrap().cast::<S>() };
            assert_eq!(value.0, e.index() as u64 * 10);
            // SAFETY: `e` has a value here, so its sparse slot and dense
            // row are in bounds; the set is unchanged since the pointers
            // were taken; nothing writes its ticks.
            unsafe {
                let pointers = set.fetch_pointers();
                let row = *pointers.rows.add(e.index() as usize) as usize;
                assert_eq!(row, set.sparse[e.index() as usize] as usize);
                let stride = std::mem::size_of::<S>();
                assert_eq!(
                    pointers.data.as_ptr().add(row * stride),
                    set.get(*e).unwrap()
                );
                assert_eq!(*(*pointers.added.add(row)).get(), Tick::new(1));
                assert_eq!(*(*pointers.changed.add(row)).get(), Tick::new(1));
                assert_eq!(set.get_ticks_unchecked(*e).changed, Tick::new(1));
            }
        }
        assert_eq!(set.len(), n as usize - (0..n).step_by(3).count());
        panics.finish();
    }
}
