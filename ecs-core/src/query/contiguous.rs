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
    alloc::Layout,
    any::type_name,
    cell::RefCell,
    fmt,
    iter::FusedIterator,
    marker::PhantomData,
    ops::{Deref, DerefMut, Range},
    ptr::NonNull,
};

use super::{Access, ArchetypeFilter, Has, QueryData, QueryFilter, QueryState};
use crate::{
    change_detection::{Mut, Ref, Tick},
    component::{Component, ComponentId, Mutable},
    entity::Entity,
    ptr::{Ptr, PtrMut},
    storage::{Column, Table, TableId, Tables},
    world::{FilteredEntityMut, FilteredEntityRef, UnsafeWorldCell},
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
unsafe impl<T: Component<Mutability = Mutable>> ContiguousQueryData for &mut T {
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

// SAFETY: fetches as `&mut T`, whose access `Mut<T>` records.
unsafe impl<T: Component<Mutability = Mutable>> ContiguousQueryData for Mut<'_, T> {
    type Contiguous<'w> = ContiguousMut<'w, T>;

    #[inline]
    unsafe fn fetch_contiguous<'w>(
        id: &ComponentId,
        table: &'w Table,
        rows: Range<usize>,
        last_run: Tick,
        this_run: Tick,
    ) -> ContiguousMut<'w, T> {
        // SAFETY: forwarded.
        unsafe {
            <&mut T as ContiguousQueryData>::fetch_contiguous(id, table, rows, last_run, this_run)
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

// SAFETY: reads only the columns the state's access lets it read, and
// only for a table the query matches.
unsafe impl ContiguousQueryData for FilteredEntityRef<'_, '_> {
    type Contiguous<'w> = FilteredContiguousRef<'w>;

    #[inline]
    unsafe fn fetch_contiguous<'w>(
        &access: &&'static Access,
        table: &'w Table,
        rows: Range<usize>,
        last_run: Tick,
        this_run: Tick,
    ) -> FilteredContiguousRef<'w> {
        FilteredContiguousRef {
            table,
            rows,
            access,
            last_run,
            this_run,
        }
    }
}

// SAFETY: reads and writes only the columns the state's access lets it,
// and only for a table the query matches; a column is handed out
// mutably once per table, and never beside a shared handle to it.
unsafe impl ContiguousQueryData for FilteredEntityMut<'_, '_> {
    type Contiguous<'w> = FilteredContiguousMut<'w>;

    #[inline]
    unsafe fn fetch_contiguous<'w>(
        &access: &&'static Access,
        table: &'w Table,
        rows: Range<usize>,
        last_run: Tick,
        this_run: Tick,
    ) -> FilteredContiguousMut<'w> {
        FilteredContiguousMut {
            view: FilteredContiguousRef {
                table,
                rows,
                access,
                last_run,
                this_run,
            },
            taken: RefCell::new(Vec::new()),
        }
    }
}

/// One table's rows of a [`FilteredEntityRef`] query (one built with
/// [`QueryBuilder`](super::QueryBuilder), say), with each component the
/// access lets it read reachable by id as one column: what
/// [`QueryState::contiguous_iter`] yields for it. A scripting layer walks
/// the rows of a table through pointers it resolves once per table.
///
/// ```
/// # use ecs::prelude::*;
/// # use ecs::world::FilteredEntityRef;
/// #[derive(Component)]
/// struct Health(u32);
///
/// let mut world = World::new();
/// world.spawn_batch((0..4).map(Health)).for_each(drop);
/// let health = world.register_component::<Health>();
/// let mut query = QueryBuilder::<FilteredEntityRef>::new(&mut world)
///     .ref_id(health)
///     .build();
/// let mut total = 0;
/// for table in query.contiguous_iter(&world).unwrap() {
///     let column = table.get_by_id(health).unwrap();
///     for row in 0..column.len() {
///         // SAFETY: `health` is `Health`'s id.
///         total += unsafe { column.get(row).unwrap().deref::<Health>() }.0;
///     }
/// }
/// assert_eq!(total, 6);
/// ```
pub struct FilteredContiguousRef<'w> {
    table: &'w Table,
    rows: Range<usize>,
    access: &'static Access,
    last_run: Tick,
    this_run: Tick,
}

impl<'w> FilteredContiguousRef<'w> {
    /// The number of rows.
    #[inline]
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether there is no row.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The entities, by row.
    #[inline]
    pub fn entities(&self) -> &'w [Entity] {
        &self.table.entities()[self.rows.clone()]
    }

    /// The column of the component `id`, if the access lets the query
    /// read it and the table has it (a sparse-set component has no
    /// column: read it through the query's items).
    #[inline]
    pub fn get_by_id(&self, id: ComponentId) -> Option<ContiguousPtr<'w>> {
        if !self.access.has_read(id) {
            return None;
        }
        let column = self.table.get_column(id)?;
        // SAFETY: the rows lie within the table's column, which the
        // query may read for `'w`; nothing writes it meanwhile (a read
        // access, or a write one whose handle is not out: see
        // `FilteredContiguousMut`).
        Some(unsafe { ContiguousPtr::new(column, self.rows.clone(), self.last_run, self.this_run) })
    }
}

impl fmt::Debug for FilteredContiguousRef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FilteredContiguousRef")
            .field("rows", &self.rows)
            .finish_non_exhaustive()
    }
}

/// One table's rows of a [`FilteredEntityMut`] query, with each
/// component the access lets it read or write reachable by id as one
/// column: what [`QueryState::contiguous_iter_mut`] yields for it.
///
/// Columns are handed out through `&self`, so several live at once: a
/// column the query writes comes out once per table, mutably
/// ([`FilteredContiguousMut::get_mut_by_id`]) or shared
/// ([`FilteredContiguousMut::get_by_id`]), not both; a column it only
/// reads comes out shared as often as asked.
///
/// ```
/// # use ecs::prelude::*;
/// # use ecs::world::FilteredEntityMut;
/// #[derive(Component)]
/// struct Speed(f32);
/// #[derive(Component)]
/// struct Distance(f32);
///
/// let mut world = World::new();
/// world.spawn_batch((0..4).map(|i| (Speed(i as f32), Distance(0.0)))).for_each(drop);
/// let speed = world.register_component::<Speed>();
/// let distance = world.register_component::<Distance>();
/// let mut query = QueryBuilder::<FilteredEntityMut>::new(&mut world)
///     .ref_id(speed)
///     .mut_id(distance)
///     .build();
/// for table in query.contiguous_iter_mut(&mut world).unwrap() {
///     let speeds = table.get_by_id(speed).unwrap();
///     let mut distances = table.get_mut_by_id(distance).unwrap();
///     assert!(table.get_mut_by_id(distance).is_none(), "once per table");
///     for row in 0..table.len() {
///         // SAFETY: the ids are `Speed`'s and `Distance`'s.
///         unsafe {
///             let s = speeds.get(row).unwrap().deref::<Speed>().0;
///             distances.get_mut(row).unwrap().deref_mut::<Distance>().0 += s;
///         }
///     }
/// }
/// let total: f32 = world.query::<&Distance>().iter(&world).map(|d| d.0).sum();
/// assert_eq!(total, 6.0);
/// ```
pub struct FilteredContiguousMut<'w> {
    view: FilteredContiguousRef<'w>,
    /// The written components handed out so far, and whether mutably.
    taken: RefCell<Vec<(ComponentId, bool)>>,
}

impl<'w> FilteredContiguousMut<'w> {
    /// The number of rows.
    #[inline]
    pub fn len(&self) -> usize {
        self.view.len()
    }

    /// Whether there is no row.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.view.is_empty()
    }

    /// The entities, by row.
    #[inline]
    pub fn entities(&self) -> &'w [Entity] {
        self.view.entities()
    }

    /// The column of the component `id`, shared, if the access lets the
    /// query read it, the table has it, and (for a component the query
    /// writes) it was not handed out mutably from this table.
    pub fn get_by_id(&self, id: ComponentId) -> Option<ContiguousPtr<'_>> {
        if self.view.access.has_write(id) && !self.take(id, false) {
            return None;
        }
        self.view.get_by_id(id)
    }

    /// The column of the component `id`, mutably, if the access lets the
    /// query write it, the table has it, it is not
    /// [`Immutable`](crate::component::Immutable), and it was not handed
    /// out from this table before.
    pub fn get_mut_by_id(&self, id: ComponentId) -> Option<ContiguousMutUntyped<'_>> {
        if !self.view.access.has_write(id) {
            return None;
        }
        let column = self.view.table.get_column(id)?;
        if !column.is_mutable() {
            return None;
        }
        if !self.take(id, true) {
            return None;
        }
        let rows = self.view.rows.clone();
        // SAFETY: the rows lie within the column, which the query may
        // write for `'w` (its access); this is the only handle to it out
        // of this table (`take`), and no other table's handle reaches
        // these rows.
        Some(unsafe {
            ContiguousMutUntyped::new(column, rows, self.view.last_run, self.view.this_run)
        })
    }

    /// Records a handle to the written component `id`; `false` if one
    /// may not be given: any after a mutable one, a mutable one after any.
    fn take(&self, id: ComponentId, mutably: bool) -> bool {
        let mut taken = self.taken.borrow_mut();
        match taken.iter().find(|(taken_id, _)| *taken_id == id) {
            Some(&(_, was_mutable)) => !mutably && !was_mutable,
            None => {
                taken.push((id, mutably));
                true
            }
        }
    }
}

impl fmt::Debug for FilteredContiguousMut<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FilteredContiguousMut")
            .field("rows", &self.view.rows)
            .finish_non_exhaustive()
    }
}

/// What the shared and the mutable untyped handles have in common: one
/// component's values in one table's rows, and their added ticks.
#[derive(Clone, Copy)]
struct ColumnRows<'a> {
    data: NonNull<u8>,
    len: usize,
    layout: Layout,
    added: &'a [Tick],
    last_run: Tick,
    this_run: Tick,
}

impl<'a> ColumnRows<'a> {
    /// # Safety
    /// `rows` lies within `column`, whose added ticks nothing writes for
    /// `'a`.
    #[inline]
    unsafe fn new(column: &'a Column, rows: Range<usize>, last_run: Tick, this_run: Tick) -> Self {
        let layout = column.item_layout();
        debug_assert!(rows.end <= column.len());
        ColumnRows {
            // SAFETY: `rows.start` is within the column's values (caller).
            data: unsafe {
                column
                    .data_non_null()
                    .add(rows.start * layout.pad_to_align().size())
            },
            len: rows.len(),
            layout,
            // SAFETY: the rows lie within the ticks, which nothing writes
            // meanwhile (caller).
            added: unsafe { ticks_in(column.added_ticks(), rows) },
            last_run,
            this_run,
        }
    }

    /// The value at `row`, `None` past the end.
    #[inline]
    fn at(&self, row: usize) -> Option<NonNull<u8>> {
        // SAFETY: `row` is one of the rows, within the column's values.
        (row < self.len).then(|| unsafe { self.data.add(row * self.layout.pad_to_align().size()) })
    }

    #[inline]
    fn is_added(&self, row: usize) -> bool {
        self.added[row].is_newer_than(self.last_run, self.this_run)
    }
}

/// One component's values in one table's rows, read-only and untyped,
/// with their change ticks.
pub struct ContiguousPtr<'a> {
    rows: ColumnRows<'a>,
    changed: &'a [Tick],
}

impl<'a> ContiguousPtr<'a> {
    /// # Safety
    /// `rows` lies within `column`, which may be read for `'a`, and
    /// nothing writes those rows meanwhile.
    #[inline]
    unsafe fn new(column: &'a Column, rows: Range<usize>, last_run: Tick, this_run: Tick) -> Self {
        ContiguousPtr {
            // SAFETY: the rows lie within the ticks, which nothing writes
            // meanwhile (caller).
            changed: unsafe { ticks_in(column.changed_ticks(), rows.clone()) },
            // SAFETY: forwarded.
            rows: unsafe { ColumnRows::new(column, rows, last_run, this_run) },
        }
    }

    /// The number of values.
    #[inline]
    pub fn len(&self) -> usize {
        self.rows.len
    }

    /// Whether there is no value.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.rows.len == 0
    }

    /// The layout of one value.
    #[inline]
    pub fn item_layout(&self) -> Layout {
        self.rows.layout
    }

    /// The value at `row` (counted from the first row of the table's
    /// slice), `None` past the end.
    #[inline]
    pub fn get(&self, row: usize) -> Option<Ptr<'a>> {
        // SAFETY: one of the rows, readable for `'a` (`new`).
        self.rows.at(row).map(|ptr| unsafe { Ptr::new(ptr) })
    }

    /// The values as a slice of `T`.
    ///
    /// # Safety
    /// `T` is the component's type.
    #[inline]
    pub unsafe fn as_slice<T>(&self) -> &'a [T] {
        debug_assert_eq!(Layout::new::<T>(), self.rows.layout);
        // SAFETY: `len` values of `T` (caller) from `data`, readable for
        // `'a` (`new`).
        unsafe { std::slice::from_raw_parts(self.rows.data.cast::<T>().as_ptr(), self.rows.len) }
    }

    /// When each value was added.
    #[inline]
    pub fn added_ticks_slice(&self) -> &'a [Tick] {
        self.rows.added
    }

    /// When each value last changed.
    #[inline]
    pub fn changed_ticks_slice(&self) -> &'a [Tick] {
        self.changed
    }

    /// Whether the value at `row` changed since the query's last run.
    #[inline]
    pub fn is_changed(&self, row: usize) -> bool {
        self.changed[row].is_newer_than(self.rows.last_run, self.rows.this_run)
    }

    /// Whether the value at `row` was added since the query's last run.
    #[inline]
    pub fn is_added(&self, row: usize) -> bool {
        self.rows.is_added(row)
    }
}

impl fmt::Debug for ContiguousPtr<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ContiguousPtr")
            .field("len", &self.rows.len)
            .field("layout", &self.rows.layout)
            .finish_non_exhaustive()
    }
}

/// One component's values in one table's rows, mutable and untyped.
/// Writing a value through [`ContiguousMutUntyped::get_mut`] marks that
/// row changed; [`ContiguousMutUntyped::as_slice_mut`] marks every row,
/// once.
pub struct ContiguousMutUntyped<'a> {
    rows: ColumnRows<'a>,
    changed: *mut Tick,
    marked: bool,
    marker: PhantomData<&'a mut [u8]>,
}

impl<'a> ContiguousMutUntyped<'a> {
    /// # Safety
    /// `rows` lies within `column`, which may be written for `'a` through
    /// this handle alone.
    #[inline]
    unsafe fn new(column: &'a Column, rows: Range<usize>, last_run: Tick, this_run: Tick) -> Self {
        debug_assert!(rows.end <= column.changed_ticks().len());
        ContiguousMutUntyped {
            // SAFETY: the rows lie within the changed ticks (caller).
            changed: unsafe { tick_cells_mut_ptr(column.changed_ticks()).add(rows.start) },
            // SAFETY: the rows lie within the column (caller); the added
            // ticks are only read here.
            rows: unsafe { ColumnRows::new(column, rows, last_run, this_run) },
            marked: false,
            marker: PhantomData,
        }
    }

    /// The number of values.
    #[inline]
    pub fn len(&self) -> usize {
        self.rows.len
    }

    /// Whether there is no value.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.rows.len == 0
    }

    /// The layout of one value.
    #[inline]
    pub fn item_layout(&self) -> Layout {
        self.rows.layout
    }

    /// The value at `row`, `None` past the end.
    #[inline]
    pub fn get(&self, row: usize) -> Option<Ptr<'_>> {
        // SAFETY: one of the rows, which this handle may read.
        self.rows.at(row).map(|ptr| unsafe { Ptr::new(ptr) })
    }

    /// The value at `row`, to write, marking it changed; `None` past the
    /// end.
    #[inline]
    pub fn get_mut(&mut self, row: usize) -> Option<PtrMut<'_>> {
        let ptr = self.rows.at(row)?;
        // SAFETY: `row` is one of the rows, which this handle alone may
        // write (`new`), its changed tick with it.
        unsafe {
            *self.changed.add(row) = self.rows.this_run;
            Some(PtrMut::new(ptr))
        }
    }

    /// The value at `row`, to write, without marking it changed.
    #[inline]
    pub fn bypass_change_detection(&mut self, row: usize) -> Option<PtrMut<'_>> {
        // SAFETY: as in `get_mut`.
        self.rows.at(row).map(|ptr| unsafe { PtrMut::new(ptr) })
    }

    /// The values as a slice of `T`, marking every row changed (once per
    /// handle).
    ///
    /// # Safety
    /// `T` is the component's type.
    #[inline]
    pub unsafe fn as_slice_mut<T>(&mut self) -> &mut [T] {
        debug_assert_eq!(Layout::new::<T>(), self.rows.layout);
        self.mark_all_as_changed();
        // SAFETY: `len` values of `T` (caller) from `data`, which this
        // handle alone may write (`new`).
        unsafe {
            std::slice::from_raw_parts_mut(self.rows.data.cast::<T>().as_ptr(), self.rows.len)
        }
    }

    /// Marks every row changed (at most once per handle).
    #[inline]
    pub fn mark_all_as_changed(&mut self) {
        if !self.marked {
            // SAFETY: the `len` changed ticks of the rows, which this
            // handle alone may write (`new`).
            unsafe { std::slice::from_raw_parts_mut(self.changed, self.rows.len) }
                .fill(self.rows.this_run);
            self.marked = true;
        }
    }

    /// When each value was added.
    #[inline]
    pub fn added_ticks_slice(&self) -> &[Tick] {
        self.rows.added
    }

    /// When each value last changed.
    #[inline]
    pub fn changed_ticks_slice(&self) -> &[Tick] {
        // SAFETY: the `len` changed ticks of the rows, written only
        // through `&mut self`.
        unsafe { std::slice::from_raw_parts(self.changed, self.rows.len) }
    }

    /// Whether the value at `row` changed since the query's last run.
    #[inline]
    pub fn is_changed(&self, row: usize) -> bool {
        self.changed_ticks_slice()[row].is_newer_than(self.rows.last_run, self.rows.this_run)
    }

    /// Whether the value at `row` was added since the query's last run.
    #[inline]
    pub fn is_added(&self, row: usize) -> bool {
        self.rows.is_added(row)
    }
}

impl fmt::Debug for ContiguousMutUntyped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ContiguousMutUntyped")
            .field("len", &self.rows.len)
            .field("layout", &self.rows.layout)
            .finish_non_exhaustive()
    }
}

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

    /// The matches as read-only slices, batches of rows on rayon's pool;
    /// see [`Query::contiguous_par_iter`](crate::system::Query::contiguous_par_iter).
    ///
    /// # Errors
    /// [`QueryNotDenseError`] if the query walks archetypes.
    #[track_caller]
    pub fn contiguous_par_iter<'w, 's>(
        &'s mut self,
        world: &'w crate::world::World,
    ) -> Result<super::QueryContiguousParIter<'w, 's, D::ReadOnly, F>, QueryNotDenseError>
    where
        D::ReadOnly: ContiguousQueryData,
        F: ArchetypeFilter,
    {
        self.query(world).contiguous_par_iter_inner()
    }

    /// The matches as slices, batches of rows on rayon's pool, mutably.
    ///
    /// # Errors
    /// [`QueryNotDenseError`] if the query walks archetypes.
    #[track_caller]
    pub fn contiguous_par_iter_mut<'w, 's>(
        &'s mut self,
        world: &'w mut crate::world::World,
    ) -> Result<super::QueryContiguousParIter<'w, 's, D, F>, QueryNotDenseError>
    where
        D: ContiguousQueryData,
        F: ArchetypeFilter,
    {
        self.query_mut(world).contiguous_par_iter_inner()
    }
}
