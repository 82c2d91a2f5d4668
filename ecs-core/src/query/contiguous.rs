//! Contiguous access: a dense query's matches one table at a time, each
//! term as a slice of its column, for loops the compiler can vectorise
//! (SIMD) or hand-written SIMD.
//!
//! ```text
//!  Query<(Entity, &Velocity, &mut Position)>::contiguous_iter_mut()
//!    table 3:  (&[Entity; n],  &[Velocity; n],  ContiguousMut<Position> of n)
//!    table 7:  (&[Entity; m],  &[Velocity; m],  ContiguousMut<Position> of m)
//! ```
//!
//! Only a query that walks tables (every term on table components, an
//! [`ArchetypeFilter`]) can be cut into slices: for any other,
//! `contiguous_iter` answers [`QueryNotDenseError`]. A
//! [`ContiguousMut`] marks the rows of its table changed the first time
//! it is written through (`DerefMut`, `IntoIterator`), once for the whole
//! slice, not once per row.

use std::{
    any::type_name,
    fmt,
    iter::FusedIterator,
    ops::{Deref, DerefMut, Range},
};

use super::{ArchetypeFilter, Has, QueryData, QueryFilter, QueryState};
use crate::{
    change_detection::{Ref, Tick},
    component::{Component, ComponentId},
    entity::Entity,
    storage::{Column, Table, TableId, Tables},
    world::UnsafeWorldCell,
};

/// Query data that can be fetched as slices of a whole table:
/// `Entity`, `&T`, `&mut T`, `Ref<T>`, `Has<T>`, `Option` and tuples of
/// these.
///
/// Bevy's `#[query_data(contiguous(..))]` derive option is not offered:
/// a derived struct iterates contiguously through a tuple of its fields'
/// types instead.
///
/// # Safety
/// `fetch_contiguous` must touch only what `update_component_access`
/// records, and for a table its query matches.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be iterated contiguously",
    label = "not contiguous query data",
    note = "contiguous query data is `Entity`, `&T`, `&mut T`, `Ref<T>`, `Has<T>`, `Option` or a tuple of these"
)]
pub unsafe trait ContiguousQueryData: QueryData {
    /// What one table yields: slices of its rows.
    type Contiguous<'w>;

    /// The slices of the rows `rows` of `table`.
    ///
    /// # Safety
    /// `state` was built for the world of `table`, which the query
    /// matches and walks by table (dense); `rows` lies within the table;
    /// the caller holds the query's access to those rows for `'w`, and no
    /// other item of these rows is alive.
    unsafe fn fetch_contiguous<'w>(
        state: &Self::State,
        table: &'w Table,
        rows: Range<usize>,
        last_run: Tick,
        this_run: Tick,
    ) -> Self::Contiguous<'w>;
}

/// The column of `T` in a table the query matches.
#[inline]
#[track_caller]
fn column_of<T: Component>(table: &Table, id: ComponentId) -> &Column {
    table.get_column(id).unwrap_or_else(|| {
        panic!(
            "contiguous access to `{}`: the table has no column for it",
            type_name::<T>()
        )
    })
}

/// The ticks of `cells` in `rows`, shared.
///
/// # Safety
/// `rows` lies within `cells`, and no one writes these ticks while the
/// slice lives.
unsafe fn ticks_in(cells: &[std::cell::UnsafeCell<Tick>], rows: Range<usize>) -> &[Tick] {
    debug_assert!(rows.end <= cells.len());
    // SAFETY: `UnsafeCell<Tick>` has `Tick`'s layout; `rows` is within
    // the slice and nobody writes the cells meanwhile (caller).
    unsafe { std::slice::from_raw_parts(cells.as_ptr().cast::<Tick>().add(rows.start), rows.len()) }
}

/// The values of `column` (of `T`) in `rows`.
///
/// # Safety
/// `rows` lies within the column, whose values are `T`s.
unsafe fn values_in<T>(column: &Column, rows: Range<usize>) -> *mut [T] {
    debug_assert!(rows.end <= column.len());
    // SAFETY: `rows` is within the column's values (caller).
    let start = unsafe { column.data_non_null().cast::<T>().as_ptr().add(rows.start) };
    std::ptr::slice_from_raw_parts_mut(start, rows.len())
}

// SAFETY: yields the table's entity list only.
unsafe impl ContiguousQueryData for Entity {
    type Contiguous<'w> = &'w [Entity];

    #[inline]
    unsafe fn fetch_contiguous<'w>(
        _: &(),
        table: &'w Table,
        rows: Range<usize>,
        _: Tick,
        _: Tick,
    ) -> &'w [Entity] {
        &table.entities()[rows]
    }
}

// SAFETY: reads `T`'s column, which `&T` records as read.
unsafe impl<T: Component> ContiguousQueryData for &T {
    type Contiguous<'w> = &'w [T];

    #[inline]
    unsafe fn fetch_contiguous<'w>(
        &id: &ComponentId,
        table: &'w Table,
        rows: Range<usize>,
        _: Tick,
        _: Tick,
    ) -> &'w [T] {
        let column = column_of::<T>(table, id);
        // SAFETY: the column holds `T`s, `rows` lies within it, and the
        // caller may read them for `'w`.
        unsafe { &*values_in::<T>(column, rows) }
    }
}

// SAFETY: reads `T`'s column and ticks, which `Ref<T>` records as read.
unsafe impl<T: Component> ContiguousQueryData for Ref<'_, T> {
    type Contiguous<'w> = ContiguousRef<'w, T>;

    #[inline]
    unsafe fn fetch_contiguous<'w>(
        &id: &ComponentId,
        table: &'w Table,
        rows: Range<usize>,
        last_run: Tick,
        this_run: Tick,
    ) -> ContiguousRef<'w, T> {
        let column = column_of::<T>(table, id);
        // SAFETY: `rows` lies within the column; the caller may read the
        // values and ticks for `'w`; no one writes them meanwhile (a read
        // access).
        unsafe {
            ContiguousRef {
                value: &*values_in::<T>(column, rows.clone()),
                added: ticks_in(column.added_ticks(), rows.clone()),
                changed: ticks_in(column.changed_ticks(), rows),
                last_run,
                this_run,
            }
        }
    }
}

// SAFETY: writes `T`'s column and changed ticks, which `&mut T` records
// as written.
unsafe impl<T: Component> ContiguousQueryData for &mut T {
    type Contiguous<'w> = ContiguousMut<'w, T>;

    #[inline]
    unsafe fn fetch_contiguous<'w>(
        &id: &ComponentId,
        table: &'w Table,
        rows: Range<usize>,
        last_run: Tick,
        this_run: Tick,
    ) -> ContiguousMut<'w, T> {
        let column = column_of::<T>(table, id);
        let changed = column.changed_ticks();
        debug_assert!(rows.end <= changed.len());
        // SAFETY: `rows` lies within the column; the caller holds write
        // access to those rows' values and ticks for `'w`, and no other
        // item of these rows is alive, so they may be borrowed
        // exclusively; the ticks are `UnsafeCell`s, which permits writing
        // through a shared column.
        unsafe {
            ContiguousMut {
                value: &mut *values_in::<T>(column, rows.clone()),
                added: ticks_in(column.added_ticks(), rows.clone()),
                changed: std::slice::from_raw_parts_mut(
                    tick_cells_mut_ptr(changed).add(rows.start),
                    rows.len(),
                ),
                last_run,
                this_run,
                marked: false,
            }
        }
    }
}

/// A pointer to the ticks behind a slice of cells, through which they
/// may be written (`UnsafeCell<Tick>` has `Tick`'s layout).
fn tick_cells_mut_ptr(cells: &[std::cell::UnsafeCell<Tick>]) -> *mut Tick {
    cells.as_ptr().cast_mut().cast::<Tick>()
}

// SAFETY: reads nothing but the table's layout.
unsafe impl<T: Component> ContiguousQueryData for Has<T> {
    type Contiguous<'w> = bool;

    #[inline]
    unsafe fn fetch_contiguous(
        &id: &ComponentId,
        table: &Table,
        _: Range<usize>,
        _: Tick,
        _: Tick,
    ) -> bool {
        table.has_column(id)
    }
}

// SAFETY: forwards to `Q` only for a table `Q` matches.
unsafe impl<Q: ContiguousQueryData> ContiguousQueryData for Option<Q> {
    type Contiguous<'w> = Option<Q::Contiguous<'w>>;

    #[inline]
    unsafe fn fetch_contiguous<'w>(
        state: &Q::State,
        table: &'w Table,
        rows: Range<usize>,
        last_run: Tick,
        this_run: Tick,
    ) -> Option<Q::Contiguous<'w>> {
        // A dense term matches a table by its table components alone.
        Q::matches_component_set(state, &|id| table.has_column(id))
            // SAFETY: forwarded; `Q` matches the table.
            .then(|| unsafe { Q::fetch_contiguous(state, table, rows, last_run, this_run) })
    }
}

macro_rules! tuple_contiguous {
    ($(($name:ident, $s:ident)),*) => {
        // SAFETY: each element touches what it records.
        #[allow(non_snake_case, unused_variables, clippy::unused_unit)]
        unsafe impl<$($name: ContiguousQueryData),*> ContiguousQueryData for ($($name,)*) {
            type Contiguous<'w> = ($($name::Contiguous<'w>,)*);

            #[inline]
            unsafe fn fetch_contiguous<'w>(
                state: &Self::State,
                table: &'w Table,
                rows: Range<usize>,
                last_run: Tick,
                this_run: Tick,
            ) -> Self::Contiguous<'w> {
                let ($($s,)*) = state;
                // SAFETY: forwarded; the elements' accesses do not conflict
                // (checked when the query was built).
                ($(unsafe { $name::fetch_contiguous($s, table, rows.clone(), last_run, this_run) },)*)
            }
        }
    };
}

crate::utils::all_tuples!(tuple_contiguous; (F0, s0), (F1, s1), (F2, s2), (F3, s3), (F4, s4), (F5, s5), (F6, s6), (F7, s7), (F8, s8), (F9, s9), (F10, s10), (F11, s11), (F12, s12), (F13, s13), (F14, s14), (F15, s15));

/// The values of `T` in one table, read-only, with their change ticks.
pub struct ContiguousRef<'w, T> {
    value: &'w [T],
    added: &'w [Tick],
    changed: &'w [Tick],
    last_run: Tick,
    this_run: Tick,
}

impl<'w, T> ContiguousRef<'w, T> {
    /// The values, for as long as the world borrow.
    #[inline]
    pub fn into_inner(self) -> &'w [T] {
        self.value
    }

    /// The tick each value was added at.
    #[inline]
    pub fn added_ticks_slice(&self) -> &'w [Tick] {
        self.added
    }

    /// The tick each value last changed at.
    #[inline]
    pub fn changed_ticks_slice(&self) -> &'w [Tick] {
        self.changed
    }

    /// The `last_run` tick the query compares against.
    #[inline]
    pub fn last_run_tick(&self) -> Tick {
        self.last_run
    }

    /// The `this_run` tick of the query.
    #[inline]
    pub fn this_run_tick(&self) -> Tick {
        self.this_run
    }

    /// Whether each value was added since the query's last run.
    pub fn is_added_iter(&self) -> impl Iterator<Item = bool> + '_ {
        self.added
            .iter()
            .map(|tick| tick.is_newer_than(self.last_run, self.this_run))
    }

    /// Whether each value changed since the query's last run.
    pub fn is_changed_iter(&self) -> impl Iterator<Item = bool> + '_ {
        self.changed
            .iter()
            .map(|tick| tick.is_newer_than(self.last_run, self.this_run))
    }
}

impl<T> Deref for ContiguousRef<'_, T> {
    type Target = [T];

    #[inline]
    fn deref(&self) -> &[T] {
        self.value
    }
}

impl<T> AsRef<[T]> for ContiguousRef<'_, T> {
    fn as_ref(&self) -> &[T] {
        self.value
    }
}

impl<'w, T> IntoIterator for ContiguousRef<'w, T> {
    type Item = &'w T;
    type IntoIter = std::slice::Iter<'w, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.value.iter()
    }
}

impl<T: fmt::Debug> fmt::Debug for ContiguousRef<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("ContiguousRef").field(&self.value).finish()
    }
}

/// The values of `T` in one table, mutably, with their change ticks.
///
/// Writing through it (`DerefMut`, `AsMut`, `IntoIterator`) marks every
/// value of the slice changed, once; use
/// [`ContiguousMut::bypass_change_detection`] to write without marking.
pub struct ContiguousMut<'w, T> {
    value: &'w mut [T],
    added: &'w [Tick],
    changed: &'w mut [Tick],
    last_run: Tick,
    this_run: Tick,
    /// Whether the changed ticks were already set to `this_run`.
    marked: bool,
}

impl<'w, T> ContiguousMut<'w, T> {
    /// The values, mutably, without marking them changed.
    #[inline]
    pub fn bypass_change_detection(&mut self) -> &mut [T] {
        self.value
    }

    /// The tick each value was added at.
    #[inline]
    pub fn added_ticks_slice(&self) -> &[Tick] {
        self.added
    }

    /// The tick each value last changed at.
    #[inline]
    pub fn changed_ticks_slice(&self) -> &[Tick] {
        self.changed
    }

    /// The changed ticks, mutably (to mark some values changed only).
    #[inline]
    pub fn changed_ticks_slice_mut(&mut self) -> &mut [Tick] {
        self.changed
    }

    /// The `last_run` tick the query compares against.
    #[inline]
    pub fn last_run_tick(&self) -> Tick {
        self.last_run
    }

    /// The `this_run` tick of the query.
    #[inline]
    pub fn this_run_tick(&self) -> Tick {
        self.this_run
    }

    /// Whether each value changed since the query's last run.
    pub fn is_changed_iter(&self) -> impl Iterator<Item = bool> + '_ {
        self.changed
            .iter()
            .map(|tick| tick.is_newer_than(self.last_run, self.this_run))
    }

    /// Marks every value of the slice changed (at most once per
    /// `ContiguousMut`).
    #[inline]
    pub fn mark_all_as_changed(&mut self) {
        if !self.marked {
            self.changed.fill(self.this_run);
            self.marked = true;
        }
    }

    /// A `ContiguousMut` borrowing this one.
    pub fn reborrow(&mut self) -> ContiguousMut<'_, T> {
        ContiguousMut {
            value: self.value,
            added: self.added,
            changed: self.changed,
            last_run: self.last_run,
            this_run: self.this_run,
            marked: self.marked,
        }
    }
}

impl<T> Deref for ContiguousMut<'_, T> {
    type Target = [T];

    #[inline]
    fn deref(&self) -> &[T] {
        self.value
    }
}

impl<T> DerefMut for ContiguousMut<'_, T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut [T] {
        self.mark_all_as_changed();
        self.value
    }
}

impl<T> AsRef<[T]> for ContiguousMut<'_, T> {
    fn as_ref(&self) -> &[T] {
        self.value
    }
}

impl<T> AsMut<[T]> for ContiguousMut<'_, T> {
    fn as_mut(&mut self) -> &mut [T] {
        self.deref_mut()
    }
}

impl<'w, T> IntoIterator for ContiguousMut<'w, T> {
    type Item = &'w mut T;
    type IntoIter = std::slice::IterMut<'w, T>;

    fn into_iter(mut self) -> Self::IntoIter {
        self.mark_all_as_changed();
        self.value.iter_mut()
    }
}

impl<T: fmt::Debug> fmt::Debug for ContiguousMut<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("ContiguousMut").field(&self.value).finish()
    }
}

impl<'w, T> From<ContiguousMut<'w, T>> for ContiguousRef<'w, T> {
    fn from(value: ContiguousMut<'w, T>) -> Self {
        ContiguousRef {
            value: value.value,
            added: value.added,
            changed: value.changed,
            last_run: value.last_run,
            this_run: value.this_run,
        }
    }
}

/// The query asked for contiguous access walks archetypes, not tables
/// (a term or filter names a sparse-set component, or it is a lens of
/// such a query), so its matches are not whole tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueryNotDenseError(pub &'static str);

impl fmt::Display for QueryNotDenseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "query `{}` is not dense (it walks archetypes, not tables), so it cannot be \
             iterated contiguously",
            self.0
        )
    }
}

impl std::error::Error for QueryNotDenseError {}

/// The matches of a dense query, one table at a time, as slices: what
/// `contiguous_iter` and `contiguous_iter_mut` return.
pub struct QueryContiguousIter<'w, 's, D: ContiguousQueryData, F: ArchetypeFilter> {
    tables: &'w Tables,
    table_ids: std::slice::Iter<'s, TableId>,
    state: &'s QueryState<D, F>,
    last_run: Tick,
    this_run: Tick,
}

impl<'w, 's, D: ContiguousQueryData, F: ArchetypeFilter> QueryContiguousIter<'w, 's, D, F> {
    /// # Safety
    /// As for [`QueryState::iter_unchecked_manual`].
    pub(crate) unsafe fn new(
        world: UnsafeWorldCell<'w>,
        state: &'s QueryState<D, F>,
        last_run: Tick,
        this_run: Tick,
    ) -> Result<Self, QueryNotDenseError> {
        if !state.walks_tables() {
            return Err(QueryNotDenseError(type_name::<QueryState<D, F>>()));
        }
        Ok(QueryContiguousIter {
            // SAFETY: the tables are read with the caller's access.
            tables: &unsafe { world.storages() }.tables,
            table_ids: state.matched_tables().iter(),
            state,
            last_run,
            this_run,
        })
    }
}

impl<'w, D: ContiguousQueryData, F: ArchetypeFilter> Iterator
    for QueryContiguousIter<'w, '_, D, F>
{
    type Item = D::Contiguous<'w>;

    fn next(&mut self) -> Option<D::Contiguous<'w>> {
        for &table_id in self.table_ids.by_ref() {
            let table = &self.tables[table_id];
            if table.is_empty() {
                continue;
            }
            // SAFETY: the query walks tables and matches this one (all of
            // its rows, the filter being archetypal); the caller's access
            // covers it; each table is yielded once.
            return Some(unsafe {
                D::fetch_contiguous(
                    &self.state.fetch_state,
                    table,
                    0..table.entity_count(),
                    self.last_run,
                    self.this_run,
                )
            });
        }
        None
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, Some(self.table_ids.len()))
    }
}

impl<D: ContiguousQueryData, F: ArchetypeFilter> FusedIterator
    for QueryContiguousIter<'_, '_, D, F>
{
}

impl<D: QueryData, F: QueryFilter> QueryState<D, F> {
    /// The matches as read-only slices, one table at a time.
    ///
    /// # Errors
    /// [`QueryNotDenseError`] if the query walks archetypes.
    #[track_caller]
    pub fn contiguous_iter<'w, 's>(
        &'s mut self,
        world: &'w crate::world::World,
    ) -> Result<QueryContiguousIter<'w, 's, D::ReadOnly, F>, QueryNotDenseError>
    where
        D::ReadOnly: ContiguousQueryData,
        F: ArchetypeFilter,
    {
        self.query(world).contiguous_iter_inner()
    }

    /// The matches as slices, one table at a time, mutably.
    ///
    /// # Errors
    /// [`QueryNotDenseError`] if the query walks archetypes.
    #[track_caller]
    pub fn contiguous_iter_mut<'w, 's>(
        &'s mut self,
        world: &'w mut crate::world::World,
    ) -> Result<QueryContiguousIter<'w, 's, D, F>, QueryNotDenseError>
    where
        D: ContiguousQueryData,
        F: ArchetypeFilter,
    {
        self.query_mut(world).contiguous_iter_inner()
    }
}
