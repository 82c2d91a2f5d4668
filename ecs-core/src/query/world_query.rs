use crate::{
    archetype::Archetype,
    change_detection::Tick,
    component::{ComponentId, Components},
    entity::Entity,
    storage::{Table, TableRow},
    world::{UnsafeWorldCell, World},
};

use super::FilteredAccess;

// A table concept, re-exported where query terms (and the derive macros'
// users) have always found it.
pub use crate::storage::{column_slot, NO_COLUMN};

/// The column of `id` in `table`, at the position cached in `columns[0]`
/// (what [`WorldQuery::set_table_cached`] of a one-column term reads).
///
/// # Safety
/// `columns[0]` exists and is the slot [`column_slot`] gave for `id` in
/// `table`, and the table has a column for `id`.
#[inline(always)]
pub unsafe fn cached_column<'w>(
    table: &'w Table,
    id: ComponentId,
    columns: &[u32],
) -> &'w crate::storage::Column {
    debug_assert!(!columns.is_empty() && columns[0] != NO_COLUMN);
    // SAFETY: the slot exists and is the column's position (caller).
    let column = unsafe { table.column_at_unchecked(*columns.get_unchecked(0) as usize) };
    debug_assert_eq!(table.component_ids()[columns[0] as usize], id);
    column
}

/// The plumbing shared by query data and query filters: per-query state,
/// a fetch set once per table (dense) or per archetype, access
/// registration and archetype matching.
///
/// The life of a fetch:
///
/// ```text
/// init_state (once per QueryState)  -> State (component ids)
/// init_fetch (once per iteration)   -> Fetch (world pointers, ticks)
///   set_table / set_archetype        (once per matched table/archetype:
///                                     column pointers)
///     fetch / filter_fetch           (once per row)
/// ```
///
/// # Safety
/// - `update_component_access` must record every component the fetch reads
///   or writes, and `matches_component_set` must reject every archetype in
///   which the fetch could not do its reads and writes.
/// - The fetch reads and writes only the values of the entity it is given
///   (`fetch`, `filter_fetch`): a single entity's handle fetches query data
///   with access to that entity alone
///   ([`EntityRef::get_components`](crate::world::EntityRef::get_components)).
/// - `IS_DENSE` may be `true` only if the fetch works after `set_table`
///   alone (its components are all table components), and
///   `matches_component_set` must then depend only on table components.
/// - `table_columns` must push exactly `TABLE_COLUMNS` slots for any
///   table, and `set_table_cached` must read only those slots, as they
///   were pushed, and leave the fetch as `set_table` would. An impl that
///   keeps the three defaults meets this.
/// - `can_sparse_walk` may be true only if, after `set_sparse_walk`, the
///   fetch reads and writes each entity's own values when given the
///   entity's row in the walked set in place of a table row.
/// - `scope_table`, if overridden, must run `walk` exactly once, with a
///   fetch that reaches the same rows of the same columns as the one it
///   was given, and must not touch those rows itself otherwise. The
///   default meets this.
pub unsafe trait WorldQuery {
    /// What is held while iterating: column pointers and ticks.
    type Fetch<'w>: Clone;
    /// What is computed once per `QueryState`: component ids.
    type State: Send + Sync + Sized;
    /// Whether iteration can walk tables instead of archetypes (no
    /// sparse-set component involved). A constant, so the branch between
    /// the two walks disappears after inlining.
    const IS_DENSE: bool;

    /// Builds the fetch for one iteration.
    ///
    /// # Safety
    /// `state` was built by [`WorldQuery::init_state`] for this world, and
    /// the caller has the access that `update_component_access` records.
    unsafe fn init_fetch<'w>(
        world: UnsafeWorldCell<'w>,
        state: &Self::State,
        last_run: Tick,
        this_run: Tick,
    ) -> Self::Fetch<'w>;

    /// Points the fetch at an archetype (and its table).
    ///
    /// # Safety
    /// `archetype` matches this query and `table` is its table, both from
    /// the world the fetch was built for.
    unsafe fn set_archetype<'w>(
        fetch: &mut Self::Fetch<'w>,
        state: &Self::State,
        archetype: &'w Archetype,
        table: &'w Table,
    );

    /// Points the fetch at a table (dense iteration).
    ///
    /// # Safety
    /// `table` is a table whose archetypes match this query, from the world
    /// the fetch was built for; `IS_DENSE` holds.
    unsafe fn set_table<'w>(fetch: &mut Self::Fetch<'w>, state: &Self::State, table: &'w Table);

    /// How many slots of the per-table column cache this query uses.
    ///
    /// A `QueryState` of a dense query fills the slots once per matched
    /// table, with [`WorldQuery::table_columns`]. Iteration then hands them
    /// to [`WorldQuery::set_table_cached`], which reaches each column by
    /// its position ([`Table::column_at_unchecked`]) instead of looking the
    /// component up in the table, a chain of dependent loads per table.
    /// The default, 0, suits queries that read no column, and any impl
    /// that keeps the default `set_table_cached` (which looks its columns
    /// up with `set_table`).
    const TABLE_COLUMNS: usize = 0;

    /// Pushes exactly [`WorldQuery::TABLE_COLUMNS`] slots for `table` onto
    /// `out`: the positions ([`Table::column_index`]) of the columns this
    /// query reads, [`NO_COLUMN`] for one the table lacks, or whatever
    /// else `set_table_cached` wants to know about the table (such as
    /// whether an optional term matches it).
    #[inline]
    fn table_columns(state: &Self::State, table: &Table, out: &mut Vec<u32>) {
        let _ = (state, table, out);
    }

    /// [`WorldQuery::set_table`], given the slots `table_columns` pushed for
    /// `table`. The default ignores them and calls `set_table`.
    ///
    /// # Safety
    /// As for [`WorldQuery::set_table`], and `columns` starts with the
    /// [`WorldQuery::TABLE_COLUMNS`] slots that
    /// [`WorldQuery::table_columns`] pushed for `table` with this `state`.
    #[inline(always)]
    unsafe fn set_table_cached<'w>(
        fetch: &mut Self::Fetch<'w>,
        state: &Self::State,
        table: &'w Table,
        columns: &[u32],
    ) {
        let _ = columns;
        // SAFETY: forwarded.
        unsafe { Self::set_table(fetch, state, table) }
    }

    /// Runs `walk` over `rows` of the table the fetch points at, with the
    /// fetch handed over by value.
    ///
    /// A fetch that writes table columns (`&mut T`) overrides this to
    /// re-point its pointers through `&mut` slices of exactly those rows,
    /// passed as arguments of a function that LLVM inlines: the arguments'
    /// `noalias` then tells the optimiser that the columns the walk
    /// writes overlap nothing else it touches, so it may merge the
    /// change-tick stores of neighbouring rows and vectorise the user's
    /// loop body (see `docs/PERFORMANCE.md`, "Why each hot path is fast"). Tuples
    /// scope their elements one inside the other. The default runs
    /// `walk` on the fetch as it is, which is always correct.
    ///
    /// # Safety
    /// The fetch was set to a table (`set_table`, `set_table_cached`, or
    /// `set_archetype` on an archetype walked by table rows) holding at
    /// least `rows.end` rows; until this returns, `walk` touches this
    /// query's columns only at `rows` and only through the fetch it is
    /// given, and nothing else touches the values and ticks this query
    /// writes at those rows (items already yielded for other rows may
    /// live on). Other memory the walk touches (the other terms of a
    /// tuple, which the access check of `update_component_access` keeps
    /// off the columns this term writes) is not this term's concern.
    #[doc(hidden)]
    #[inline(always)]
    unsafe fn scope_table<'w, K: TableWalk<'w, Self>>(
        fetch: Self::Fetch<'w>,
        rows: std::ops::Range<usize>,
        walk: K,
    ) -> K::Output {
        let _ = rows;
        // SAFETY: forwarded.
        unsafe { walk.walk(fetch) }
    }

    /// A sparse-set component the query requires, whose set iteration may
    /// walk instead of the matched archetypes (see
    /// [`WorldQuery::can_sparse_walk`]). The default, `None`, never offers
    /// one.
    #[inline]
    fn sparse_walk_candidate(state: &Self::State) -> Option<ComponentId> {
        let _ = state;
        None
    }

    /// Whether this term can be fetched row by row of the sparse set of
    /// `walked` (its dense arrays, in order), given each entity and its row
    /// in that set in place of a table row: every term that reads storage
    /// reads `walked` itself or looks its own value up by entity, and a
    /// filter passes every row of a matched archetype. Iteration walks the
    /// set only when every archetype with `walked` is matched, so the
    /// set's entities are exactly the query's. The default, false, keeps
    /// the archetype walk.
    #[inline]
    fn can_sparse_walk(state: &Self::State, walked: ComponentId) -> bool {
        let _ = (state, walked);
        false
    }

    /// Points the fetch at the rows of `walked`'s sparse set: from now on
    /// the table row it is given is the entity's row in that set. The
    /// default does nothing, which suits a term that reads no storage by
    /// table row.
    ///
    /// # Safety
    /// `can_sparse_walk(state, walked)` holds; the fetch was built by
    /// `init_fetch` for a world whose sparse set of `walked` exists; every
    /// row it is given from now on is the row in that set of the entity
    /// given with it.
    #[inline]
    unsafe fn set_sparse_walk(
        fetch: &mut Self::Fetch<'_>,
        state: &Self::State,
        walked: ComponentId,
    ) {
        let _ = (fetch, state, walked);
    }

    /// Records the components read and written, and the archetypes the
    /// query is restricted to.
    ///
    /// # Panics
    /// If the terms conflict with what `access` already holds (`(&mut A,
    /// &A)`), naming the component.
    fn update_component_access(state: &Self::State, access: &mut FilteredAccess);

    /// Builds the state, registering the components involved.
    fn init_state(world: &mut World) -> Self::State;

    /// Builds the state from the components already registered, without
    /// `&mut World` (what query lenses and sorts use): `None` if a
    /// component involved is not registered yet.
    ///
    /// The default answers `None`, which makes a lens to this query panic
    /// asking for the components to be registered: an impl that can look
    /// its components up should override it.
    fn get_state(components: &Components) -> Option<Self::State> {
        let _ = components;
        None
    }

    /// Whether an archetype with the components for which `set_contains_id`
    /// is true matches.
    fn matches_component_set(
        state: &Self::State,
        set_contains_id: &impl Fn(ComponentId) -> bool,
    ) -> bool;
}

/// Types that can be fetched by a query: the `D` of `Query<D, F>`.
///
/// # Safety
/// `IS_READ_ONLY` must be true only if the fetch writes nothing, and
/// `ReadOnly` must access a subset of what `Self` accesses. `ReadOnly`
/// shares `Self`'s state, and must share its walk and column cache too:
/// the same [`WorldQuery::IS_DENSE`] and [`WorldQuery::TABLE_COLUMNS`],
/// and `table_columns` pushing the same slots.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not query data",
    label = "not query data",
    note = "query data is `&T`, `&mut T` or `Ref<T>` for a component `T`, `Entity`, `Option<D>`, `Has<T>`, `AnyOf<(..)>`, a tuple of query data, or a struct deriving `QueryData`; filters such as `With<T>` go in the second parameter of a query"
)]
pub unsafe trait QueryData: WorldQuery {
    /// Whether the data only reads.
    const IS_READ_ONLY: bool;
    /// The read-only twin (`&T` for `&mut T`), used by `iter(&World)`.
    type ReadOnly: ReadOnlyQueryData<State = Self::State>;
    /// What one entity yields.
    type Item<'w>;

    /// Hands data whose access is decided at run time
    /// ([`FilteredEntityRef`](crate::world::FilteredEntityRef),
    /// [`FilteredEntityMut`](crate::world::FilteredEntityMut)) the access
    /// of the [`QueryBuilder`](super::QueryBuilder) it is built with:
    /// `available_access`, recording what it takes in `access`. The
    /// default takes nothing.
    fn provide_extra_access(
        state: &mut Self::State,
        access: &mut super::Access,
        available_access: &super::Access,
    ) {
        let _ = (state, access, available_access);
    }

    /// Fetches the item of one row.
    ///
    /// # Safety
    /// The fetch was pointed at the table or archetype holding `entity` at
    /// `table_row`, and no other live item aliases a value this one writes.
    unsafe fn fetch<'w>(
        fetch: &mut Self::Fetch<'w>,
        entity: Entity,
        table_row: TableRow,
    ) -> Self::Item<'w>;
}

/// A walk over some rows of one table, run by
/// [`WorldQuery::scope_table`] with the fetch it should use.
#[doc(hidden)]
pub trait TableWalk<'w, Q: WorldQuery + ?Sized> {
    /// What the walk returns.
    type Output;

    /// Walks the rows with `fetch`.
    ///
    /// # Safety
    /// `fetch` points at the table the walk was built for, as
    /// [`WorldQuery::scope_table`] requires.
    unsafe fn walk(self, fetch: Q::Fetch<'w>) -> Self::Output;
}

/// The walk that `#[derive(QueryData)]` hands the tuple of its field types
/// in [`WorldQuery::scope_table`]: it rebuilds the struct's fetch from the
/// tuple's scoped fetch, then runs the struct's walk.
#[doc(hidden)]
pub struct ScopeFields<Q: ?Sized, K, F> {
    walk: K,
    rebuild: F,
    marker: std::marker::PhantomData<fn(&Q)>,
}

impl<Q: ?Sized, K, F> ScopeFields<Q, K, F> {
    /// A walk running `walk` on `rebuild` of the fields' fetch.
    ///
    /// # Safety
    /// `rebuild` must return the struct's fetch made of exactly the field
    /// fetches it is given, each in its own field, so that the rebuilt
    /// fetch reaches what the scoped field fetches reach.
    #[inline(always)]
    pub unsafe fn new(walk: K, rebuild: F) -> Self {
        ScopeFields {
            walk,
            rebuild,
            marker: std::marker::PhantomData,
        }
    }
}

impl<'w, Q, Fields, K, F> TableWalk<'w, Fields> for ScopeFields<Q, K, F>
where
    Q: WorldQuery + ?Sized,
    Fields: WorldQuery,
    K: TableWalk<'w, Q>,
    F: FnOnce(Fields::Fetch<'w>) -> Q::Fetch<'w>,
{
    type Output = K::Output;

    #[inline(always)]
    unsafe fn walk(self, fetch: Fields::Fetch<'w>) -> K::Output {
        // SAFETY: forwarded; the rebuilt fetch points where the fields'
        // fetches point (`new`'s contract).
        unsafe { self.walk.walk((self.rebuild)(fetch)) }
    }
}

/// Query data that only reads, so it may be fetched through `&World` and
/// held by several items at once.
///
/// # Safety
/// The data must not write anything.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not read-only query data",
    label = "not read-only query data",
    note = "`&mut T` writes: a struct deriving `QueryData` may have fields that write only if it is marked `#[query_data(mutable)]`"
)]
pub unsafe trait ReadOnlyQueryData: QueryData<ReadOnly = Self> {}

/// Types that select which entities a query yields: the `F` of
/// `Query<D, F>`.
///
/// # Safety
/// `IS_ARCHETYPAL` may be true only if `filter_fetch` returns true for
/// every row of a matched archetype (dense walks then skip it).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a query filter",
    label = "not a query filter",
    note = "filters are `With<T>`, `Without<T>`, `Or<(..)>`, `Added<T>`, `Changed<T>`, tuples of filters, or a struct deriving `QueryFilter`; query data such as `&T` goes in the first parameter of a query"
)]
pub unsafe trait QueryFilter: WorldQuery {
    /// Whether the filter is decided by archetype alone (no `Added` or
    /// `Changed`), which makes `size_hint` exact.
    const IS_ARCHETYPAL: bool;

    /// Whether the row passes.
    ///
    /// # Safety
    /// As for [`QueryData::fetch`].
    unsafe fn filter_fetch(
        fetch: &mut Self::Fetch<'_>,
        entity: Entity,
        table_row: TableRow,
    ) -> bool;
}

/// What a query of `Q` yields for one entity: `Q::Item<'w>`. The `'s`
/// parameter is the query state's borrow in bevy's item type; an item
/// here borrows only the world, so it goes unused.
///
/// ```
/// use ecs::prelude::*;
/// use ecs::query::QueryItem;
///
/// #[derive(Component)]
/// struct Health(u32);
///
/// fn heal(item: QueryItem<'_, '_, &mut Health>) {
///     let mut health = item;
///     health.0 += 1;
/// }
///
/// let mut world = World::new();
/// let e = world.spawn(Health(1)).id();
/// heal(world.query::<&mut Health>().get_mut(&mut world, e).unwrap());
/// assert_eq!(world.get::<Health>(e).unwrap().0, 2);
/// ```
#[allow(type_alias_bounds)]
pub type QueryItem<'w, 's, Q: QueryData> = <Q as QueryData>::Item<'w>;

/// The read-only item of a query of `D`: [`QueryItem`] of `D::ReadOnly`.
#[allow(type_alias_bounds)]
pub type ROQueryItem<'w, 's, D: QueryData> = QueryItem<'w, 's, <D as QueryData>::ReadOnly>;

/// `Self::Item<'w>` named with a state lifetime `'s` as well: the field
/// type of a derived item struct, which has bevy's two lifetimes
/// (`NameItem<'w, 's>`) though an item borrows only from the world.
#[doc(hidden)]
pub trait ItemWithState<'w, 's> {
    /// `<Self as QueryData>::Item<'w>`.
    type Item;
}

impl<'w, 's, D: QueryData> ItemWithState<'w, 's> for D {
    type Item = D::Item<'w>;
}
