//! Query data: `&T`, `&mut T`, `Ref<T>`, `Option<D>`, `Entity`, `Has<T>`,
//! `AnyOf<(..)>` and tuples.

use std::{
    any::type_name, cell::UnsafeCell, marker::PhantomData, mem::MaybeUninit, ops::Range,
    ptr::NonNull,
};

use super::{FilteredAccess, QueryData, ReadOnlyQueryData, TableWalk, WorldQuery};
use crate::{
    archetype::Archetype,
    change_detection::{Mut, Ref, Tick, Ticks, TicksMut},
    component::{Component, ComponentId, Mutable, StorageType},
    entity::Entity,
    storage::{column_slot, ComponentSparseSet, SparsePointers, Table, TableRow, NO_COLUMN},
    utils::DebugCheckedUnwrap,
    world::{UnsafeWorldCell, World},
};

/// The column cache of a term that reads one component's column: one slot,
/// the column's position in the table (or `NO_COLUMN`).
macro_rules! one_column_slot {
    () => {
        const TABLE_COLUMNS: usize = 1;

        #[inline]
        fn table_columns(&id: &ComponentId, table: &Table, out: &mut Vec<u32>) {
            out.push(column_slot(table, id));
        }
    };
}
pub(crate) use one_column_slot;

/// `init_state` and `matches_component_set` of a term on component `T`
/// whose state is `T`'s id: it matches a component set where
/// `$matches(set has T)` holds, by default where the set has `T`.
macro_rules! component_id_state {
    () => {
        crate::query::fetch::component_id_state!(|has: bool| has);
    };
    ($matches:expr) => {
        fn init_state(world: &mut World) -> ComponentId {
            world.register_component::<T>()
        }

        fn get_state(components: &crate::component::Components) -> Option<ComponentId> {
            components.component_id::<T>()
        }

        fn matches_component_set(
            &id: &ComponentId,
            set_contains_id: &impl Fn(ComponentId) -> bool,
        ) -> bool {
            ($matches)(set_contains_id(id))
        }
    };
}
pub(crate) use component_id_state;

#[track_caller]
fn assert_no_write<T>(access: &FilteredAccess, id: ComponentId, term: &str) {
    assert!(
        !access.access().has_write(id),
        "query term `{term}` reads component `{}`, which another term of the same query writes: \
         use one `&mut {0}` term, or split the query",
        type_name::<T>()
    );
}

#[track_caller]
fn assert_no_read<T>(access: &FilteredAccess, id: ComponentId, term: &str) {
    assert!(
        !access.access().has_read(id),
        "query term `{term}` writes component `{}`, which another term of the same query also accesses: \
         use one `&mut {0}` term, or split the query",
        type_name::<T>()
    );
}

// ---- &T -------------------------------------------------------------------

/// The fetch of `&T`: a column pointer set per table, or the sparse set's
/// values and its sparse array.
pub struct ReadFetch<'w, T> {
    /// The values: a table's column, set per table (dangling until then),
    /// or the sparse set's dense values.
    column: NonNull<T>,
    /// A sparse-set component's sparse array (entity index -> row of
    /// `column`); null for a table component, or with no set yet.
    sparse_rows: *const u32,
    marker: PhantomData<&'w T>,
}

impl<T> Clone for ReadFetch<'_, T> {
    fn clone(&self) -> Self {
        ReadFetch {
            column: self.column,
            sparse_rows: self.sparse_rows,
            marker: PhantomData,
        }
    }
}

/// The arrays of `T`'s sparse set, for a fetch made while the world is
/// borrowed for the fetch's life (no set changes meanwhile): `None` for a
/// table component, or when no set exists yet (then no archetype has `T`).
#[inline]
fn sparse_pointers_of<T: Component>(
    world: UnsafeWorldCell<'_>,
    id: ComponentId,
) -> Option<SparsePointers> {
    match T::STORAGE_TYPE {
        StorageType::Table => None,
        // SAFETY: the fetch reads only `id`'s values, which its query's
        // access covers (callers are `init_fetch`, under that contract).
        StorageType::SparseSet => unsafe { world.storages() }
            .sparse_sets
            .get(id)
            .map(ComponentSparseSet::fetch_pointers),
    }
}

/// The row of `entity` in a sparse set, through the set's sparse array.
///
/// # Safety
/// `rows` is the sparse array of a set, taken while the set is borrowed for
/// as long as this is called, which holds a value for `entity`.
#[inline(always)]
unsafe fn sparse_row(rows: *const u32, entity: Entity) -> usize {
    debug_assert!(!rows.is_null());
    // SAFETY: an entity with a value has a sparse slot (caller).
    (unsafe { *rows.add(entity.index() as usize) }) as usize
}

/// The sparse-walk items of a term reading or writing component `T`
/// (`&T`, `Ref<T>`, `&mut T`), whose fetch has a `sparse_rows` field: a
/// sparse-set `T` offers its set, and can be walked by it or by another
/// set (looking its own row up by entity); a table `T` cannot.
macro_rules! sparse_walk_term {
    () => {
        #[inline]
        fn sparse_walk_candidate(&id: &ComponentId) -> Option<ComponentId> {
            matches!(T::STORAGE_TYPE, StorageType::SparseSet).then_some(id)
        }

        #[inline]
        fn can_sparse_walk(_: &ComponentId, _: ComponentId) -> bool {
            matches!(T::STORAGE_TYPE, StorageType::SparseSet)
        }

        #[inline]
        unsafe fn set_sparse_walk(
            fetch: &mut Self::Fetch<'_>,
            &id: &ComponentId,
            walked: ComponentId,
        ) {
            debug_assert!(
                !fetch.sparse_rows.is_null(),
                "a matched sparse-set term has its set"
            );
            if id == walked {
                fetch.sparse_rows = std::ptr::null();
            }
        }
    };
}

/// The row of a sparse-set fetch: `table_row` itself when iteration walks
/// this component's set (the sparse array is then null, see
/// [`WorldQuery::set_sparse_walk`]), else the entity's row by its sparse
/// array.
///
/// # Safety
/// As for [`sparse_row`] when `rows` is not null; otherwise `table_row` is
/// the entity's row in the set.
#[inline(always)]
unsafe fn sparse_row_or_walked(rows: *const u32, entity: Entity, table_row: TableRow) -> usize {
    if rows.is_null() {
        table_row.index()
    } else {
        // SAFETY: forwarded.
        unsafe { sparse_row(rows, entity) }
    }
}

// SAFETY: reads `T` only, recorded as a read of `T`; matches only
// archetypes containing `T`; dense exactly when `T` is a table component.
unsafe impl<T: Component> WorldQuery for &T {
    type Fetch<'w> = ReadFetch<'w, T>;
    type State = ComponentId;
    const IS_DENSE: bool = matches!(T::STORAGE_TYPE, StorageType::Table);

    #[inline]
    unsafe fn init_fetch<'w>(
        world: UnsafeWorldCell<'w>,
        &id: &ComponentId,
        _: Tick,
        _: Tick,
    ) -> ReadFetch<'w, T> {
        match sparse_pointers_of::<T>(world, id) {
            Some(set) => ReadFetch {
                column: set.data.cast::<T>(),
                sparse_rows: set.rows,
                marker: PhantomData,
            },
            None => ReadFetch {
                column: NonNull::dangling(),
                sparse_rows: std::ptr::null(),
                marker: PhantomData,
            },
        }
    }

    #[inline]
    unsafe fn set_archetype<'w>(
        fetch: &mut ReadFetch<'w, T>,
        id: &ComponentId,
        _: &'w Archetype,
        table: &'w Table,
    ) {
        if Self::IS_DENSE {
            // SAFETY: forwarded; a matched archetype's table has `T`.
            unsafe { Self::set_table(fetch, id, table) };
        }
    }

    #[inline]
    unsafe fn set_table<'w>(fetch: &mut ReadFetch<'w, T>, &id: &ComponentId, table: &'w Table) {
        // SAFETY: a matched table has a column for `T`.
        fetch.column = unsafe { table.get_column(id).debug_checked_unwrap() }
            .data_non_null()
            .cast::<T>();
    }

    one_column_slot!();

    #[inline(always)]
    unsafe fn set_table_cached<'w>(
        fetch: &mut ReadFetch<'w, T>,
        &id: &ComponentId,
        table: &'w Table,
        columns: &[u32],
    ) {
        debug_assert_eq!(table.component_ids()[columns[0] as usize], id);
        // SAFETY: the slot is the position of `T`'s column, which a matched
        // table has (caller); its data pointer is non-null.
        fetch.column = unsafe {
            let pointers = table.column_pointers_unchecked(*columns.get_unchecked(0) as usize);
            NonNull::new_unchecked(pointers.data.cast::<T>())
        };
    }

    sparse_walk_term!();

    fn update_component_access(&id: &ComponentId, access: &mut FilteredAccess) {
        assert_no_write::<T>(access, id, &format!("&{}", type_name::<T>()));
        access.add_read(id);
    }

    component_id_state!();
}

// SAFETY: reads only.
unsafe impl<T: Component> QueryData for &T {
    const IS_READ_ONLY: bool = true;
    type ReadOnly = Self;
    type Item<'w> = &'w T;

    #[inline(always)]
    unsafe fn fetch<'w>(
        fetch: &mut Self::Fetch<'w>,
        entity: Entity,
        table_row: TableRow,
    ) -> Self::Item<'w> {
        // SAFETY: the fetch points at the entity's table (dense) or the
        // component's sparse set, which holds a `T` for the entity at the
        // row its sparse array gives; shared access to it was checked.
        unsafe {
            let row = match T::STORAGE_TYPE {
                StorageType::Table => table_row.index(),
                StorageType::SparseSet => {
                    sparse_row_or_walked(fetch.sparse_rows, entity, table_row)
                }
            };
            fetch.column.add(row).as_ref()
        }
    }
}

// SAFETY: reads only.
unsafe impl<T: Component> ReadOnlyQueryData for &T {}

// ---- Ref<T> -----------------------------------------------------------------

/// The fetch of `Ref<T>` and `&mut T`: the column and its tick columns (a
/// table's, or the sparse set's dense ones with its sparse array), and the
/// ticks to compare against.
pub struct TickedFetch<'w, T> {
    /// The values: a table's column, set per table (dangling until then),
    /// or the sparse set's dense values.
    column: NonNull<T>,
    added: *const UnsafeCell<Tick>,
    changed: *const UnsafeCell<Tick>,
    /// A sparse-set component's sparse array (entity index -> row of the
    /// columns); null for a table component, or with no set yet.
    sparse_rows: *const u32,
    last_run: Tick,
    this_run: Tick,
    marker: PhantomData<&'w T>,
}

impl<T> Clone for TickedFetch<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for TickedFetch<'_, T> {}

impl<'w, T: Component> TickedFetch<'w, T> {
    #[inline]
    fn new(world: UnsafeWorldCell<'w>, id: ComponentId, last_run: Tick, this_run: Tick) -> Self {
        let set = sparse_pointers_of::<T>(world, id);
        TickedFetch {
            column: set.map_or(NonNull::dangling(), |set| set.data.cast::<T>()),
            added: set.map_or(std::ptr::null(), |set| set.added),
            changed: set.map_or(std::ptr::null(), |set| set.changed),
            sparse_rows: set.map_or(std::ptr::null(), |set| set.rows),
            last_run,
            this_run,
            marker: PhantomData,
        }
    }

    /// # Safety
    /// `table` has a column for `id`.
    #[inline]
    unsafe fn set_table(&mut self, id: ComponentId, table: &'w Table) {
        // SAFETY: guaranteed by the caller.
        self.set_column(unsafe { table.get_column(id).debug_checked_unwrap() });
    }

    #[inline(always)]
    fn set_column(&mut self, column: &'w crate::storage::Column) {
        self.column = column.data_non_null().cast::<T>();
        self.added = column.added_ticks().as_ptr();
        self.changed = column.changed_ticks().as_ptr();
    }

    /// # Safety
    /// The fetch points at the entity's table or the component's sparse
    /// set, which holds a `T` for the entity.
    #[inline(always)]
    unsafe fn get(
        &self,
        entity: Entity,
        table_row: TableRow,
    ) -> (*mut T, &'w UnsafeCell<Tick>, &'w UnsafeCell<Tick>) {
        // SAFETY: guaranteed by the caller (a sparse set's entity has the
        // row its sparse array gives); tick columns are as long as the
        // value column.
        unsafe {
            let row = match T::STORAGE_TYPE {
                StorageType::Table => table_row.index(),
                StorageType::SparseSet => sparse_row_or_walked(self.sparse_rows, entity, table_row),
            };
            (
                self.column.add(row).as_ptr(),
                &*self.added.add(row),
                &*self.changed.add(row),
            )
        }
    }
}

/// `&mut T`'s [`WorldQuery::scope_table`]: hands `walk` a fetch whose value
/// and changed-tick pointers are derived from `&mut` slices of `rows`,
/// arguments of [`written_rows_scope`].
///
/// # Safety
/// As for [`WorldQuery::scope_table`]: `fetch` points at a table column
/// (and its ticks) of at least `rows.end` rows, and nothing but `walk`
/// touches those rows' values and ticks until this returns.
#[inline(always)]
unsafe fn scope_written_rows<'w, Q, T, K>(
    fetch: TickedFetch<'w, T>,
    rows: Range<usize>,
    walk: K,
) -> K::Output
where
    Q: WorldQuery<Fetch<'w> = TickedFetch<'w, T>> + ?Sized,
    T: Component,
    K: TableWalk<'w, Q>,
{
    // Called through a `fn` pointer on purpose: rustc's MIR inliner
    // inlines a direct call before LLVM sees it, and the slices'
    // `noalias` is lost with the call; LLVM resolves the pointer, inlines
    // the call itself, and keeps what the arguments promised as alias
    // metadata, which a direct call would not keep.
    let scope: WrittenRowsScope<'w, T, K, K::Output> = written_rows_scope::<Q, T, K>;
    let n = rows.len();
    // SAFETY: the table has `rows` (caller), so the bytes of those rows of
    // the value column and of its changed ticks are in bounds and
    // initialised or padding (`MaybeUninit`); nothing else touches them
    // until the walk is over (caller), so they may be borrowed
    // exclusively. The changed ticks are `UnsafeCell`s behind a shared
    // column reference, which permits the write access a `&mut` asserts.
    unsafe {
        let values = std::slice::from_raw_parts_mut(
            fetch
                .column
                .as_ptr()
                .add(rows.start)
                .cast::<MaybeUninit<u8>>(),
            n * size_of::<T>(),
        );
        let changed = std::slice::from_raw_parts_mut(
            fetch
                .changed
                .add(rows.start)
                .cast_mut()
                .cast::<MaybeUninit<u8>>(),
            n * size_of::<Tick>(),
        );
        scope(values, changed, rows.start, fetch, walk)
    }
}

/// The type of [`written_rows_scope`] as a `fn` pointer.
type WrittenRowsScope<'w, T, K, Output> = unsafe fn(
    &mut [MaybeUninit<u8>],
    &mut [MaybeUninit<u8>],
    usize,
    TickedFetch<'w, T>,
    K,
) -> Output;

/// The scope of [`scope_written_rows`]: `values` and `changed` are rows
/// `start..` of the fetch's value column and changed ticks, and the walk
/// reaches them only through pointers derived from these arguments.
///
/// # Safety
/// `values` and `changed` are the bytes of the walk's rows of `fetch`'s
/// value column and changed-tick column, starting at row `start`, and
/// `walk` reaches only those rows (`WorldQuery::scope_table`'s contract).
#[inline]
unsafe fn written_rows_scope<'w, Q, T, K>(
    values: &mut [MaybeUninit<u8>],
    changed: &mut [MaybeUninit<u8>],
    start: usize,
    mut fetch: TickedFetch<'w, T>,
    walk: K,
) -> K::Output
where
    Q: WorldQuery<Fetch<'w> = TickedFetch<'w, T>> + ?Sized,
    T: Component,
    K: TableWalk<'w, Q>,
{
    // SAFETY: `values` starts at row `start` of the column (caller), so
    // moving back `start` rows lands on the column's first row, inside the
    // same allocation; the walk only reads and writes rows from `start`
    // on, inside the slices. Likewise for the ticks.
    unsafe {
        fetch.column = NonNull::new_unchecked(values.as_mut_ptr().cast::<T>().sub(start));
        fetch.changed = changed
            .as_mut_ptr()
            .cast::<UnsafeCell<Tick>>()
            .sub(start)
            .cast_const();
        walk.walk(fetch)
    }
}

/// The `WorldQuery` of `Ref<T>`, `&mut T` and `Mut<T>`: the same fetch
/// (value and tick columns), differing only in the access they record and
/// in whether they hand out change ticks (`$reads_ticks`: then `T` must
/// keep them).
macro_rules! ticked_world_query {
    ($ty:ty, $term:literal, $check:ident, $record:ident, $writes:literal, $reads_ticks:literal) => {
        // SAFETY: touches `T` and its ticks only, recorded by `$record`
        // (a read for `Ref`, a write for `&mut`); matches only archetypes
        // with `T`; dense exactly when `T` is a table component.
        unsafe impl<T: Component> WorldQuery for $ty {
            type Fetch<'w> = TickedFetch<'w, T>;
            type State = ComponentId;
            const IS_DENSE: bool = matches!(T::STORAGE_TYPE, StorageType::Table);

            #[inline]
            unsafe fn init_fetch<'w>(
                world: UnsafeWorldCell<'w>,
                &id: &ComponentId,
                last_run: Tick,
                this_run: Tick,
            ) -> TickedFetch<'w, T> {
                TickedFetch::new(world, id, last_run, this_run)
            }

            #[inline]
            unsafe fn set_archetype<'w>(
                fetch: &mut TickedFetch<'w, T>,
                &id: &ComponentId,
                _: &'w Archetype,
                table: &'w Table,
            ) {
                if Self::IS_DENSE {
                    // SAFETY: a matched archetype's table has `T`.
                    unsafe { fetch.set_table(id, table) };
                }
            }

            #[inline]
            unsafe fn set_table<'w>(
                fetch: &mut TickedFetch<'w, T>,
                &id: &ComponentId,
                table: &'w Table,
            ) {
                // SAFETY: a matched table has `T`.
                unsafe { fetch.set_table(id, table) };
            }

            one_column_slot!();

            #[inline(always)]
            unsafe fn set_table_cached<'w>(
                fetch: &mut TickedFetch<'w, T>,
                &id: &ComponentId,
                table: &'w Table,
                columns: &[u32],
            ) {
                debug_assert_eq!(table.component_ids()[columns[0] as usize], id);
                // SAFETY: the slot is the position of `T`'s column, which a
                // matched table has (caller); its data pointer is non-null.
                // Each pointer is read on its own (volatile): read as one
                // vector, the per-row loop extracts the tick pointer anew on
                // every row.
                unsafe {
                    let pointers =
                        table.column_pointers_unchecked(*columns.get_unchecked(0) as usize);
                    let data = std::ptr::read_volatile(&pointers.data);
                    fetch.column = NonNull::new_unchecked(data.cast::<T>());
                    fetch.added = std::ptr::read_volatile(&pointers.added).cast_const();
                    fetch.changed = std::ptr::read_volatile(&pointers.changed).cast_const();
                }
            }

            #[inline(always)]
            unsafe fn scope_table<'w, K: TableWalk<'w, Self>>(
                fetch: TickedFetch<'w, T>,
                rows: Range<usize>,
                walk: K,
            ) -> K::Output {
                // A walk of this component's sparse set (null sparse
                // array) has its rows in the set's dense arrays.
                let by_row = Self::IS_DENSE || fetch.sparse_rows.is_null();
                if !($writes && by_row) || rows.is_empty() {
                    // SAFETY: forwarded.
                    return unsafe { walk.walk(fetch) };
                }
                // SAFETY: forwarded (the fetch points at a table with
                // `rows`, which nothing else touches meanwhile).
                unsafe { scope_written_rows::<Self, T, K>(fetch, rows, walk) }
            }

            sparse_walk_term!();

            fn update_component_access(&id: &ComponentId, access: &mut FilteredAccess) {
                let term = format!($term, type_name::<T>());
                if $reads_ticks && !T::CHANGE_TICKS {
                    crate::component::assert_change_ticks::<T>(&format!("`{term}`"));
                }
                $check::<T>(access, id, &term);
                access.$record(id);
            }

            component_id_state!();
        }
    };
}

ticked_world_query!(
    Ref<'_, T>,
    "Ref<{}>",
    assert_no_write,
    add_read,
    false,
    true
);
// SAFETY: reads only.
unsafe impl<'a, T: Component> QueryData for Ref<'a, T> {
    const IS_READ_ONLY: bool = true;
    type ReadOnly = Self;
    type Item<'w> = Ref<'w, T>;

    #[inline(always)]
    unsafe fn fetch<'w>(
        fetch: &mut Self::Fetch<'w>,
        entity: Entity,
        table_row: TableRow,
    ) -> Self::Item<'w> {
        // SAFETY: forwarded; shared access to the value and ticks was
        // checked.
        unsafe {
            let (value, added, changed) = fetch.get(entity, table_row);
            Ref {
                value: &*value,
                ticks: Ticks {
                    added: &*added.get(),
                    changed: &*changed.get(),
                    last_run: fetch.last_run,
                    this_run: fetch.this_run,
                },
            }
        }
    }
}

// SAFETY: reads only.
unsafe impl<T: Component> ReadOnlyQueryData for Ref<'_, T> {}

// ---- &mut T -------------------------------------------------------------------

ticked_world_query!(&mut T, "&mut {}", assert_no_read, add_write, true, false);
// SAFETY: writes; its read-only twin `&T` reads the same component.
unsafe impl<'a, T: Component<Mutability = Mutable>> QueryData for &'a mut T {
    const IS_READ_ONLY: bool = false;
    type ReadOnly = &'a T;
    type Item<'w> = Mut<'w, T>;

    #[inline(always)]
    unsafe fn fetch<'w>(
        fetch: &mut Self::Fetch<'w>,
        entity: Entity,
        table_row: TableRow,
    ) -> Self::Item<'w> {
        // SAFETY: forwarded; exclusive access to this row's value and ticks
        // was checked (the row is yielded once per iteration).
        unsafe {
            let (value, added, changed) = fetch.get(entity, table_row);
            Mut {
                value: &mut *value,
                ticks: TicksMut {
                    added: &mut *added.get(),
                    changed: &mut *changed.get(),
                    last_run: fetch.last_run,
                    this_run: fetch.this_run,
                },
            }
        }
    }
}

// ---- Mut<T> -------------------------------------------------------------------

// Its read-only twin `Ref<T>` hands out change ticks, so it needs them.
ticked_world_query!(Mut<'_, T>, "Mut<{}>", assert_no_read, add_write, true, true);
// SAFETY: fetches as `&mut T` (the same fetch and recorded write); its
// read-only twin `Ref<T>` reads the same component and ticks.
unsafe impl<'a, T: Component<Mutability = Mutable>> QueryData for Mut<'a, T> {
    const IS_READ_ONLY: bool = false;
    type ReadOnly = Ref<'a, T>;
    type Item<'w> = Mut<'w, T>;

    #[inline(always)]
    unsafe fn fetch<'w>(
        fetch: &mut Self::Fetch<'w>,
        entity: Entity,
        table_row: TableRow,
    ) -> Self::Item<'w> {
        // SAFETY: forwarded; `&mut T` has this fetch and records the same
        // access.
        unsafe { <&'a mut T as QueryData>::fetch(fetch, entity, table_row) }
    }
}

// ---- PhantomData<T> -------------------------------------------------------------

/// The `WorldQuery` of data that reads no storage and matches every
/// entity (`Entity`, `PhantomData<T>`): no fetch, no state, no access.
macro_rules! storage_free_world_query {
    ([$($generics:tt)*] $ty:ty) => {
        // SAFETY: accesses no component data; matches everything.
        unsafe impl<$($generics)*> WorldQuery for $ty {
            type Fetch<'w> = ();
            type State = ();
            const IS_DENSE: bool = true;

            #[inline]
            unsafe fn init_fetch<'w>(_: UnsafeWorldCell<'w>, _: &(), _: Tick, _: Tick) {}
            #[inline]
            unsafe fn set_archetype<'w>(
                _: &mut Self::Fetch<'w>,
                _: &(),
                _: &'w Archetype,
                _: &'w Table,
            ) {
            }
            #[inline]
            unsafe fn set_table<'w>(_: &mut Self::Fetch<'w>, _: &(), _: &'w Table) {}
            fn update_component_access(_: &(), _: &mut FilteredAccess) {}
            fn init_state(_: &mut World) {}

            #[inline]
            fn can_sparse_walk(_: &(), _: ComponentId) -> bool {
                true
            }

            fn get_state(_: &crate::component::Components) -> Option<()> {
                Some(())
            }
            fn matches_component_set(_: &(), _: &impl Fn(ComponentId) -> bool) -> bool {
                true
            }
        }
    };
}

storage_free_world_query!([T: ?Sized] PhantomData<T>);

// SAFETY: reads nothing.
unsafe impl<T: ?Sized> QueryData for PhantomData<T> {
    const IS_READ_ONLY: bool = true;
    type ReadOnly = Self;
    type Item<'w> = PhantomData<T>;

    #[inline(always)]
    unsafe fn fetch<'w>(_: &mut Self::Fetch<'w>, _: Entity, _: TableRow) -> Self::Item<'w> {
        PhantomData
    }
}

// SAFETY: reads nothing.
unsafe impl<T: ?Sized> ReadOnlyQueryData for PhantomData<T> {}

// ---- Entity -------------------------------------------------------------------

storage_free_world_query!([] Entity);

// SAFETY: reads nothing from storage.
unsafe impl QueryData for Entity {
    const IS_READ_ONLY: bool = true;
    type ReadOnly = Self;
    type Item<'w> = Entity;

    #[inline(always)]
    unsafe fn fetch<'w>(_: &mut Self::Fetch<'w>, entity: Entity, _: TableRow) -> Self::Item<'w> {
        entity
    }
}

// SAFETY: reads nothing.
unsafe impl ReadOnlyQueryData for Entity {}

// ---- Has<T> ---------------------------------------------------------------------

/// Query data that yields whether the entity has component `T`, without
/// reading it or filtering on it.
pub struct Has<T>(PhantomData<T>);

// SAFETY: reads no component data (only archetype membership); matches
// everything; dense when `T` is a table component, because then
// membership is decided by the table.
unsafe impl<T: Component> WorldQuery for Has<T> {
    type Fetch<'w> = bool;
    type State = ComponentId;
    const IS_DENSE: bool = matches!(T::STORAGE_TYPE, StorageType::Table);

    #[inline]
    unsafe fn init_fetch<'w>(_: UnsafeWorldCell<'w>, _: &ComponentId, _: Tick, _: Tick) -> bool {
        false
    }

    #[inline]
    unsafe fn set_archetype<'w>(
        fetch: &mut bool,
        &id: &ComponentId,
        archetype: &'w Archetype,
        _: &'w Table,
    ) {
        *fetch = archetype.contains(id);
    }

    #[inline]
    unsafe fn set_table<'w>(fetch: &mut Self::Fetch<'w>, &id: &ComponentId, table: &'w Table) {
        *fetch = table.has_column(id);
    }

    one_column_slot!();

    #[inline(always)]
    unsafe fn set_table_cached(fetch: &mut bool, _: &ComponentId, _: &Table, columns: &[u32]) {
        // SAFETY: the slot exists (caller).
        *fetch = unsafe { *columns.get_unchecked(0) } != NO_COLUMN;
    }

    fn update_component_access(&id: &ComponentId, access: &mut FilteredAccess) {
        access.access_mut().add_archetypal(id);
    }

    fn init_state(world: &mut World) -> ComponentId {
        world.register_component::<T>()
    }

    fn get_state(components: &crate::component::Components) -> Option<ComponentId> {
        components.component_id::<T>()
    }

    fn matches_component_set(_: &ComponentId, _: &impl Fn(ComponentId) -> bool) -> bool {
        true
    }
}

// SAFETY: reads nothing.
unsafe impl<T: Component> QueryData for Has<T> {
    const IS_READ_ONLY: bool = true;
    type ReadOnly = Self;
    type Item<'w> = bool;

    #[inline(always)]
    unsafe fn fetch<'w>(fetch: &mut Self::Fetch<'w>, _: Entity, _: TableRow) -> Self::Item<'w> {
        *fetch
    }
}

// SAFETY: reads nothing.
unsafe impl<T: Component> ReadOnlyQueryData for Has<T> {}

// ---- Option<D> ----------------------------------------------------------------

/// The fetch of `Option<D>`: `D`'s fetch and whether the current table or
/// archetype matches `D`.
pub struct OptionFetch<'w, D: WorldQuery> {
    fetch: D::Fetch<'w>,
    matches: bool,
}

impl<D: WorldQuery> Clone for OptionFetch<'_, D> {
    fn clone(&self) -> Self {
        OptionFetch {
            fetch: self.fetch.clone(),
            matches: self.matches,
        }
    }
}

// SAFETY: `D`'s access is recorded without its filter; `D` is only set up
// and fetched where it matches.
unsafe impl<D: WorldQuery> WorldQuery for Option<D> {
    type Fetch<'w> = OptionFetch<'w, D>;
    type State = D::State;
    const IS_DENSE: bool = D::IS_DENSE;

    #[inline]
    unsafe fn init_fetch<'w>(
        world: UnsafeWorldCell<'w>,
        state: &D::State,
        last_run: Tick,
        this_run: Tick,
    ) -> OptionFetch<'w, D> {
        OptionFetch {
            // SAFETY: forwarded.
            fetch: unsafe { D::init_fetch(world, state, last_run, this_run) },
            matches: false,
        }
    }

    #[inline]
    unsafe fn set_archetype<'w>(
        fetch: &mut OptionFetch<'w, D>,
        state: &D::State,
        archetype: &'w Archetype,
        table: &'w Table,
    ) {
        fetch.matches = D::matches_component_set(state, &|id| archetype.contains(id));
        if fetch.matches {
            // SAFETY: `D` matches this archetype.
            unsafe { D::set_archetype(&mut fetch.fetch, state, archetype, table) };
        }
    }

    #[inline]
    unsafe fn set_table<'w>(fetch: &mut OptionFetch<'w, D>, state: &D::State, table: &'w Table) {
        fetch.matches = D::matches_component_set(state, &|id| table.has_column(id));
        if fetch.matches {
            // SAFETY: `D` matches this table.
            unsafe { D::set_table(&mut fetch.fetch, state, table) };
        }
    }

    /// Whether `D` matches the table, then `D`'s slots.
    const TABLE_COLUMNS: usize = 1 + D::TABLE_COLUMNS;

    #[inline]
    fn table_columns(state: &D::State, table: &Table, out: &mut Vec<u32>) {
        out.push(u32::from(D::matches_component_set(state, &|id| {
            table.has_column(id)
        })));
        D::table_columns(state, table, out);
    }

    #[inline(always)]
    unsafe fn set_table_cached<'w>(
        fetch: &mut OptionFetch<'w, D>,
        state: &D::State,
        table: &'w Table,
        columns: &[u32],
    ) {
        // SAFETY: `1 + D::TABLE_COLUMNS` slots (caller).
        let (matches, columns) = unsafe { columns.split_first().debug_checked_unwrap() };
        fetch.matches = *matches != 0;
        if fetch.matches {
            // SAFETY: `D` matches this table, and its slots follow.
            unsafe { D::set_table_cached(&mut fetch.fetch, state, table, columns) };
        }
    }

    fn update_component_access(state: &D::State, access: &mut FilteredAccess) {
        let mut intermediate = access.clone();
        D::update_component_access(state, &mut intermediate);
        access.extend_access(&intermediate);
    }

    fn init_state(world: &mut World) -> D::State {
        D::init_state(world)
    }

    fn get_state(components: &crate::component::Components) -> Option<D::State> {
        D::get_state(components)
    }

    fn matches_component_set(_: &D::State, _: &impl Fn(ComponentId) -> bool) -> bool {
        true
    }
}

// SAFETY: as `D`.
unsafe impl<D: QueryData> QueryData for Option<D> {
    const IS_READ_ONLY: bool = D::IS_READ_ONLY;
    type ReadOnly = Option<D::ReadOnly>;
    type Item<'w> = Option<D::Item<'w>>;

    #[inline(always)]
    unsafe fn fetch<'w>(
        fetch: &mut Self::Fetch<'w>,
        entity: Entity,
        table_row: TableRow,
    ) -> Self::Item<'w> {
        if fetch.matches {
            // SAFETY: forwarded, only where `D` matches.
            Some(unsafe { D::fetch(&mut fetch.fetch, entity, table_row) })
        } else {
            None
        }
    }
}

// SAFETY: as `D`.
unsafe impl<D: ReadOnlyQueryData> ReadOnlyQueryData for Option<D> {}

// ---- tuples ---------------------------------------------------------------------

/// A non-empty tuple of query terms as its first term and the tuple of the
/// others, so that a tuple can scope its terms one inside the other.
pub(crate) trait SplitTuple: WorldQuery {
    type First: WorldQuery;
    type Rest: WorldQuery;

    #[allow(clippy::type_complexity)]
    fn split(
        fetch: Self::Fetch<'_>,
    ) -> (
        <Self::First as WorldQuery>::Fetch<'_>,
        <Self::Rest as WorldQuery>::Fetch<'_>,
    );

    fn join<'w>(
        first: <Self::First as WorldQuery>::Fetch<'w>,
        rest: <Self::Rest as WorldQuery>::Fetch<'w>,
    ) -> Self::Fetch<'w>;
}

macro_rules! split_tuple {
    ($first:ident $(, $rest:ident)*) => {
        #[allow(non_snake_case, clippy::unused_unit)]
        impl<$first: WorldQuery $(, $rest: WorldQuery)*> SplitTuple for ($first, $($rest,)*) {
            type First = $first;
            type Rest = ($($rest,)*);

            #[inline(always)]
            fn split(fetch: Self::Fetch<'_>) -> ($first::Fetch<'_>, ($($rest::Fetch<'_>,)*)) {
                let ($first, $($rest,)*) = fetch;
                ($first, ($($rest,)*))
            }

            #[inline(always)]
            fn join<'w>(first: $first::Fetch<'w>, rest: ($($rest::Fetch<'w>,)*)) -> Self::Fetch<'w> {
                let ($($rest,)*) = rest;
                (first, $($rest,)*)
            }
        }
    };
}

crate::utils::all_tuples_nonempty!(split_tuple; F0, F1, F2, F3, F4, F5, F6, F7, F8, F9, F10, F11, F12, F13, F14, F15);

/// The walk a tuple hands its first term: it scopes the other terms with
/// the first's fetch in hand, then walks with the joined fetch.
struct ScopeRest<'w, Q: SplitTuple, K> {
    rest: <Q::Rest as WorldQuery>::Fetch<'w>,
    rows: Range<usize>,
    walk: K,
}

impl<'w, Q: SplitTuple, K: TableWalk<'w, Q>> TableWalk<'w, Q::First> for ScopeRest<'w, Q, K> {
    type Output = K::Output;

    #[inline(always)]
    unsafe fn walk(self, first: <Q::First as WorldQuery>::Fetch<'w>) -> K::Output {
        // SAFETY: the other terms' fetch points at the same table as the
        // first's (the tuple's was set as a whole), and the walk is the
        // tuple's, which keeps to `rows`. The walk also reaches the
        // first term's columns through `first`, which the access check
        // (`update_component_access`: no term reads or writes what
        // another writes) keeps apart from anything the others write.
        unsafe {
            Q::Rest::scope_table(
                self.rest,
                self.rows,
                JoinFirst::<'w, Q, K> {
                    first,
                    walk: self.walk,
                },
            )
        }
    }
}

/// The last step of [`ScopeRest`]: puts the tuple's fetch back together.
struct JoinFirst<'w, Q: SplitTuple, K> {
    first: <Q::First as WorldQuery>::Fetch<'w>,
    walk: K,
}

impl<'w, Q: SplitTuple, K: TableWalk<'w, Q>> TableWalk<'w, Q::Rest> for JoinFirst<'w, Q, K> {
    type Output = K::Output;

    #[inline(always)]
    unsafe fn walk(self, rest: <Q::Rest as WorldQuery>::Fetch<'w>) -> K::Output {
        // SAFETY: forwarded; the joined fetch points at the same table.
        unsafe { self.walk.walk(Q::join(self.first, rest)) }
    }
}

/// A tuple's `scope_table`: nothing for `()`, the first term's scope around
/// the others' for the rest.
macro_rules! tuple_scope_table {
    () => {};
    ($first:ident $(, $rest:ident)*) => {
        #[inline(always)]
        unsafe fn scope_table<'w, K: TableWalk<'w, Self>>(
            fetch: Self::Fetch<'w>,
            rows: Range<usize>,
            walk: K,
        ) -> K::Output {
            let (first, rest) = <Self as SplitTuple>::split(fetch);
            // SAFETY: forwarded; every term's fetch points at the table.
            unsafe {
                $first::scope_table(
                    first,
                    rows.clone(),
                    ScopeRest::<'w, Self, K> { rest, rows, walk },
                )
            }
        }
    };
}

macro_rules! tuple_world_query {
    ($(($name:ident, $s:ident)),*) => {
        // SAFETY: each element's access is recorded and each element is
        // set up and fetched exactly as its own impl requires.
        #[allow(non_snake_case, unused_variables, clippy::unused_unit)]
        unsafe impl<$($name: WorldQuery),*> WorldQuery for ($($name,)*) {
            type Fetch<'w> = ($($name::Fetch<'w>,)*);
            type State = ($($name::State,)*);
            const IS_DENSE: bool = true $(&& $name::IS_DENSE)*;

            #[inline]
            unsafe fn init_fetch<'w>(world: UnsafeWorldCell<'w>, state: &Self::State, last_run: Tick, this_run: Tick) -> Self::Fetch<'w> {
                let ($($name,)*) = state;
                // SAFETY: forwarded.
                ($(unsafe { $name::init_fetch(world, $name, last_run, this_run) },)*)
            }

            #[inline]
            unsafe fn set_archetype<'w>(fetch: &mut Self::Fetch<'w>, state: &Self::State, archetype: &'w Archetype, table: &'w Table) {
                let ($($name,)*) = fetch;
                let ($($s,)*) = state;
                // SAFETY: forwarded.
                $(unsafe { $name::set_archetype($name, $s, archetype, table) };)*
            }

            #[inline]
            unsafe fn set_table<'w>(fetch: &mut Self::Fetch<'w>, state: &Self::State, table: &'w Table) {
                let ($($name,)*) = fetch;
                let ($($s,)*) = state;
                // SAFETY: forwarded.
                $(unsafe { $name::set_table($name, $s, table) };)*
            }

            const TABLE_COLUMNS: usize = 0 $(+ $name::TABLE_COLUMNS)*;

            #[inline]
            fn table_columns(state: &Self::State, table: &Table, out: &mut Vec<u32>) {
                let ($($name,)*) = state;
                $($name::table_columns($name, table, out);)*
            }

            #[inline(always)]
            #[allow(unused_assignments, unused_mut)]
            unsafe fn set_table_cached<'w>(fetch: &mut Self::Fetch<'w>, state: &Self::State, table: &'w Table, columns: &[u32]) {
                let ($($name,)*) = fetch;
                let ($($s,)*) = state;
                let mut at = 0;
                $(
                    // SAFETY: forwarded; each element's slots follow the
                    // previous element's, within the tuple's.
                    unsafe { $name::set_table_cached($name, $s, table, columns.get_unchecked(at..)) };
                    at += $name::TABLE_COLUMNS;
                )*
            }

            tuple_scope_table!($($name),*);

            #[inline]
            fn sparse_walk_candidate(state: &Self::State) -> Option<ComponentId> {
                let ($($name,)*) = state;
                None $(.or_else(|| $name::sparse_walk_candidate($name)))*
            }

            #[inline]
            fn can_sparse_walk(state: &Self::State, walked: ComponentId) -> bool {
                let ($($name,)*) = state;
                true $(&& $name::can_sparse_walk($name, walked))*
            }

            #[inline]
            unsafe fn set_sparse_walk(fetch: &mut Self::Fetch<'_>, state: &Self::State, walked: ComponentId) {
                let ($($name,)*) = fetch;
                let ($($s,)*) = state;
                // SAFETY: forwarded (the tuple can be walked when every
                // element can).
                $(unsafe { $name::set_sparse_walk($name, $s, walked) };)*
            }

            fn update_component_access(state: &Self::State, access: &mut FilteredAccess) {
                let ($($name,)*) = state;
                $($name::update_component_access($name, access);)*
            }

            fn init_state(world: &mut World) -> Self::State {
                ($($name::init_state(world),)*)
            }

            fn get_state(components: &crate::component::Components) -> Option<Self::State> {
                Some(($($name::get_state(components)?,)*))
            }

            fn matches_component_set(state: &Self::State, set_contains_id: &impl Fn(ComponentId) -> bool) -> bool {
                let ($($name,)*) = state;
                true $(&& $name::matches_component_set($name, set_contains_id))*
            }
        }

        // SAFETY: read-only exactly when every element is.
        #[allow(non_snake_case, unused_variables, clippy::unused_unit)]
        unsafe impl<$($name: QueryData),*> QueryData for ($($name,)*) {
            const IS_READ_ONLY: bool = true $(&& $name::IS_READ_ONLY)*;
            type ReadOnly = ($($name::ReadOnly,)*);
            type Item<'w> = ($($name::Item<'w>,)*);

            #[inline(always)]
            unsafe fn fetch<'w>(fetch: &mut Self::Fetch<'w>, entity: Entity, table_row: TableRow) -> Self::Item<'w> {
                let ($($name,)*) = fetch;
                // SAFETY: forwarded.
                ($(unsafe { $name::fetch($name, entity, table_row) },)*)
            }

            fn provide_extra_access(
                state: &mut Self::State,
                access: &mut super::Access,
                available_access: &super::Access,
            ) {
                let ($($name,)*) = state;
                $($name::provide_extra_access($name, access, available_access);)*
            }
        }

        // SAFETY: every element is read-only.
        unsafe impl<$($name: ReadOnlyQueryData),*> ReadOnlyQueryData for ($($name,)*) {}
    };
}

crate::utils::all_tuples!(tuple_world_query; (F0, s0), (F1, s1), (F2, s2), (F3, s3), (F4, s4), (F5, s5), (F6, s6), (F7, s7), (F8, s8), (F9, s9), (F10, s10), (F11, s11), (F12, s12), (F13, s13), (F14, s14), (F15, s15));

// ---- AnyOf ------------------------------------------------------------------------

/// Query data that matches entities with at least one of the tuple's terms,
/// yielding an `Option` for each.
///
/// `Query<AnyOf<(&A, &mut B)>>` yields `(Option<&A>, Option<Mut<B>>)` for
/// every entity with an `A`, a `B`, or both.
pub struct AnyOf<T>(PhantomData<T>);

/// The `WorldQuery` items `AnyOf` and `Or` share, all but
/// `update_component_access`: their fetch holds `(fetch, matches)` for each
/// alternative, and an alternative is set up and read only where it
/// matches. The column cache holds, per alternative, whether it matches the
/// table, then its own slots.
macro_rules! alternatives_world_query {
    ($(($name:ident, $s:ident)),*) => {
        type Fetch<'w> = ($(($name::Fetch<'w>, bool),)*);
        type State = ($($name::State,)*);
        const IS_DENSE: bool = true $(&& $name::IS_DENSE)*;

        #[inline]
        unsafe fn init_fetch<'w>(world: UnsafeWorldCell<'w>, state: &Self::State, last_run: Tick, this_run: Tick) -> Self::Fetch<'w> {
            let ($($name,)*) = state;
            // SAFETY: forwarded.
            ($((unsafe { $name::init_fetch(world, $name, last_run, this_run) }, false),)*)
        }

        #[inline]
        unsafe fn set_archetype<'w>(fetch: &mut Self::Fetch<'w>, state: &Self::State, archetype: &'w Archetype, table: &'w Table) {
            let ($($name,)*) = fetch;
            let ($($s,)*) = state;
            $(
                $name.1 = $name::matches_component_set($s, &|id| archetype.contains(id));
                if $name.1 {
                    // SAFETY: the alternative matches this archetype.
                    unsafe { $name::set_archetype(&mut $name.0, $s, archetype, table) };
                }
            )*
        }

        #[inline]
        unsafe fn set_table<'w>(fetch: &mut Self::Fetch<'w>, state: &Self::State, table: &'w Table) {
            let ($($name,)*) = fetch;
            let ($($s,)*) = state;
            $(
                $name.1 = $name::matches_component_set($s, &|id| table.has_column(id));
                if $name.1 {
                    // SAFETY: the alternative matches this table.
                    unsafe { $name::set_table(&mut $name.0, $s, table) };
                }
            )*
        }

        const TABLE_COLUMNS: usize = 0 $(+ 1 + $name::TABLE_COLUMNS)*;

        #[inline]
        fn table_columns(state: &Self::State, table: &Table, out: &mut Vec<u32>) {
            let ($($name,)*) = state;
            $(
                out.push(u32::from($name::matches_component_set($name, &|id| table.has_column(id))));
                $name::table_columns($name, table, out);
            )*
        }

        #[inline(always)]
        #[allow(unused_assignments, unused_mut)]
        unsafe fn set_table_cached<'w>(fetch: &mut Self::Fetch<'w>, state: &Self::State, table: &'w Table, columns: &[u32]) {
            let ($($name,)*) = fetch;
            let ($($s,)*) = state;
            let mut at = 0;
            $(
                // SAFETY: each alternative's match slot and its own slots
                // follow the previous alternative's, within the caller's.
                unsafe {
                    $name.1 = *columns.get_unchecked(at) != 0;
                    if $name.1 {
                        // The alternative matches this table.
                        $name::set_table_cached(&mut $name.0, $s, table, columns.get_unchecked(at + 1..));
                    }
                }
                at += 1 + $name::TABLE_COLUMNS;
            )*
        }

        fn init_state(world: &mut World) -> Self::State {
            ($($name::init_state(world),)*)
        }

        fn get_state(components: &crate::component::Components) -> Option<Self::State> {
            Some(($($name::get_state(components)?,)*))
        }

        fn matches_component_set(state: &Self::State, set_contains_id: &impl Fn(ComponentId) -> bool) -> bool {
            let ($($name,)*) = state;
            false $(|| $name::matches_component_set($name, set_contains_id))*
        }
    };
}
pub(crate) use alternatives_world_query;

macro_rules! anyof_world_query {
    ($(($name:ident, $s:ident)),*) => {
        // SAFETY: each element's access is recorded (as alternatives of the
        // filter); elements are set up and fetched only where they match.
        #[allow(non_snake_case, unused_variables)]
        unsafe impl<$($name: WorldQuery),*> WorldQuery for AnyOf<($($name,)*)> {
            crate::query::fetch::alternatives_world_query!($(($name, $s)),*);

            fn update_component_access(state: &Self::State, access: &mut FilteredAccess) {
                let ($($name,)*) = state;
                // Elements must not conflict with each other either.
                let mut together = access.clone();
                $($name::update_component_access($name, &mut together);)*
                let mut branches: Option<FilteredAccess> = None;
                $(
                    let mut branch = access.clone();
                    $name::update_component_access($name, &mut branch);
                    match &mut branches {
                        None => branches = Some(branch),
                        Some(all) => all.append_or(&branch),
                    }
                )*
                if let Some(all) = branches {
                    *access = all;
                }
            }
        }

        // SAFETY: read-only exactly when every element is.
        #[allow(non_snake_case, unused_variables)]
        unsafe impl<$($name: QueryData),*> QueryData for AnyOf<($($name,)*)> {
            const IS_READ_ONLY: bool = true $(&& $name::IS_READ_ONLY)*;
            type ReadOnly = AnyOf<($($name::ReadOnly,)*)>;
            type Item<'w> = ($(Option<$name::Item<'w>>,)*);

            #[inline(always)]
            unsafe fn fetch<'w>(fetch: &mut Self::Fetch<'w>, entity: Entity, table_row: TableRow) -> Self::Item<'w> {
                let ($($name,)*) = fetch;
                // SAFETY: forwarded, only where the element matches.
                ($($name.1.then(|| unsafe { $name::fetch(&mut $name.0, entity, table_row) }),)*)
            }
        }

        // SAFETY: every element is read-only.
        unsafe impl<$($name: ReadOnlyQueryData),*> ReadOnlyQueryData for AnyOf<($($name,)*)> {}
    };
}

crate::utils::all_tuples_nonempty!(anyof_world_query; (F0, s0), (F1, s1), (F2, s2), (F3, s3), (F4, s4), (F5, s5), (F6, s6), (F7, s7), (F8, s8), (F9, s9), (F10, s10), (F11, s11), (F12, s12), (F13, s13), (F14, s14), (F15, s15));
