//! Queries: typed views over every entity with a given set of components.
//!
//! A query is `QueryState<D, F>`: `D` is the data fetched per entity
//! ([`QueryData`]: `&T`, `&mut T`, `Ref<T>`, `Option<D>`, `Entity`,
//! `Has<T>`, `AnyOf<(..)>`, tuples, `#[derive(QueryData)]` structs), `F`
//! selects entities ([`QueryFilter`]: `With<T>`, `Without<T>`,
//! `Or<(..)>`, `Added<T>`, `Changed<T>`, tuples, `#[derive(QueryFilter)]`).
//! In a system the same pair is the parameter
//! [`Query<D, F>`](crate::system::Query); outside one, build a
//! [`QueryState`] with [`World::query`](crate::world::World::query) or
//! [`World::query_filtered`](crate::world::World::query_filtered) and keep
//! it: building one checks every archetype of the world, reusing one checks
//! only the archetypes created since its last use.
//!
//! ```
//! use ecs::prelude::*;
//!
//! #[derive(Component)]
//! struct Position(f32);
//! #[derive(Component)]
//! struct Velocity(f32);
//! #[derive(Component)]
//! #[component(storage = "SparseSet")]
//! struct Frozen;
//!
//! let mut world = World::new();
//! world.spawn((Position(0.0), Velocity(1.0)));
//! world.spawn((Position(0.0), Velocity(1.0), Frozen));
//! world.spawn(Position(7.0));
//!
//! let mut movers = world.query_filtered::<(&mut Position, &Velocity), Without<Frozen>>();
//! for (mut p, v) in movers.iter_mut(&mut world) {
//!     p.0 += v.0;
//! }
//! let mut positions = world.query::<&Position>();
//! let mut xs: Vec<f32> = positions.iter(&world).map(|p| p.0).collect();
//! xs.sort_by(f32::total_cmp);
//! assert_eq!(xs, [0.0, 1.0, 7.0]);
//! ```
//!
//! # What a `QueryState` caches
//!
//! Building a state registers the components involved and records their
//! ids and the query's access (what it reads and writes, and under which
//! `With`/`Without` conditions: [`FilteredAccess`]). It then caches the
//! archetypes the query matches and the tables of those archetypes, each
//! twice: a `Vec` of ids to iterate and a bitset to test membership
//! ([`QueryState::matched_archetypes`], [`QueryState::matched_tables`]).
//!
//! The cache is brought up to date at every use (`iter`, `get`, each run of
//! a system's `Query`; not [`QueryState::iter_manual`], which takes
//! `&self`). Archetypes are only ever added, so the state keeps
//! the [`ArchetypeGeneration`](crate::archetype::ArchetypeGeneration) it
//! has seen up to: when the world has no new archetype, updating costs one
//! comparison. Otherwise the state looks at the new archetypes only, and
//! only at those the component index lists for the query's rarest required
//! component (a component every match must have: the data terms `&T`,
//! `&mut T`, `Ref<T>`, and `With<T>`, `Added<T>`, `Changed<T>`):
//!
//! ```text
//!  query: (&Position, &Velocity), last updated at generation 6
//!
//!  archetype ids         0  1  2  3  4  5  6  7  8
//!                        └──── seen ────┘  └─new─┘
//!  index of Velocity     [1, 3, 5, 8]              (its rarest required component)
//!                                  └─ from the first id >= 6: only 8 is checked
//!  matched archetypes    [1, 3]  ->  [1, 3, 8]     if 8 has Position too
//!  matched tables        [1, 2]  ->  [1, 2, 4]     8's table, unless already there
//! ```
//!
//! A query that requires no component (`Query<Entity>`,
//! `Query<Option<&T>>`) checks each new archetype instead. Either way, no
//! archetype is checked twice.
//!
//! # The two iteration cursors
//!
//! A [`QueryIter`] walks the cache with one of two cursors, chosen by a
//! constant, [`QueryState::IS_DENSE`] (`D::IS_DENSE && F::IS_DENSE`), so
//! the branch between them disappears after inlining.
//!
//! ```text
//!  dense: every term is on table components
//!    for table in matched tables:              (empty ones skipped)
//!        set_table_cached: one column pointer per term, once per table,
//!                          from the column positions cached for it
//!        for row in 0..table.len():            a plain slice loop
//!            filter, then fetch column[row]
//!
//!  archetype: some term names a sparse-set component
//!    for archetype in matched archetypes:      (empty ones skipped)
//!        set_archetype: column pointers of its table, once per archetype
//!        rows = the table's rows in order       if it holds every row of its table
//!                                               (always so when it owns the table),
//!               or its own entity list          its (entity, table row) pairs
//!        for (entity, table row) in rows:
//!            filter, then fetch: table terms read column[table row],
//!            sparse-set terms look the entity up in their set
//!
//!  sparse set: an archetype query whose required sparse-set component S
//!  has every archetype with S matched, and whose terms all read S or look
//!  their own value up by entity (`WorldQuery::can_sparse_walk`)
//!    for (entity, row) in S's set, in its order:
//!        filter, then fetch: S's terms read its column[row],
//!            other sparse-set terms look the entity up in their set
//! ```
//!
//! Walking tables is right for a dense query because its terms depend only
//! on table components: all the archetypes that share a table have the same
//! table components, so either all of them match or none does, and every
//! row of a matched table is a match, visited once. A term is dense when
//! the component it names is a table component (`&T`, `&mut T`, `Ref<T>`,
//! `Has<T>`, `With<T>`, `Without<T>`, `Added<T>`, `Changed<T>`); `Entity`
//! always is; `Option`, `AnyOf`, `Or` and tuples are when all their parts
//! are. Even `With<S>` or `Without<S>` of a sparse-set `S` makes a query
//! walk archetypes, since they tell apart archetypes that share a table.
//!
//! ```
//! use ecs::prelude::*;
//!
//! #[derive(Component)]
//! struct Position(f32);
//! #[derive(Component)]
//! #[component(storage = "SparseSet")]
//! struct Frozen;
//!
//! assert!(QueryState::<(Entity, &mut Position)>::IS_DENSE);
//! assert!(!QueryState::<&Position, Without<Frozen>>::IS_DENSE);
//! assert!(!QueryState::<(&Position, Option<&Frozen>)>::IS_DENSE);
//! ```
//!
//! `Iterator::fold` is overridden, and `for_each` (which the standard
//! library implements with `fold`) goes through it: each table is one
//! tight loop, with no end-of-table test per item, which LLVM can
//! vectorise when the body allows. Prefer `for_each` on hot paths; `next()` works the same but
//! checks for the end of the current table at every step. `count()` on a
//! query without `Added`/`Changed` adds up table or archetype lengths
//! without visiting a row.
//!
//! [`QueryState::par_iter`] and [`QueryState::par_iter_mut`] walk the same
//! cache on rayon: each matched table (dense) or archetype is cut into
//! batches of rows, sized from the number of rows and threads unless
//! [`QueryParIter::batching`] sets it.
//!
//! # The column cache of a dense query
//!
//! Finding a term's column in a table by component id is a chain of
//! dependent loads (the table, its sparse array of column positions, the
//! column). With many small tables that chain, not the rows, is what a
//! walk pays. So when a `QueryState` of a dense query matches a table, it
//! also records where each term's column sits in it
//! ([`WorldQuery::table_columns`]). A table's columns never change after
//! it is built, so the positions stay right for the table's life.
//!
//! ```text
//!  Query<(&Position, Option<&mut Health>), With<Player>>
//!                      slots per table: 1 (Position) + 1 (Health matches?) + 1 (Health)
//!  matched tables          [ 3,       7,       9      ]
//!  matched table columns   [ 0,1,1,   2,0,-,   1,1,0  ]   (- : NO_COLUMN)
//! ```
//!
//! `Option`, `AnyOf` and `Or` cache whether each part matches the table,
//! then the part's own slots; `With`, `Without` and `Entity` need none.
//! Derived queries cache their fields' slots in field order. The
//! archetype walk and `get` of one entity still look columns up by id.
//!
//! # Written columns are scoped in the dense walk
//!
//! In `fold`/`for_each` and the parallel batches, a table's rows are
//! walked inside `WorldQuery::scope_table` (hidden): each `&mut T` term borrows
//! the walked rows of its value column and changed ticks as `&mut` slices,
//! arguments of a function the compiler inlines, and the fetch reaches
//! them through pointers derived from those slices. The slices' `noalias`
//! tells the optimiser that what the loop writes overlaps nothing else it
//! reads, so it may merge the change-tick stores of neighbouring rows and
//! vectorise the body. Tuples and derived structs scope each term in
//! turn; a query whose filter reads columns (`Added`, `Changed`) walks
//! unscoped, since its filter may read the ticks the data writes.
//!
//! # Filters
//!
//! `With<T>`, `Without<T>`, and `Or`s and tuples of them are *archetypal*:
//! they are decided once per archetype when the cache is updated, and cost
//! (next to) nothing per row. [`QueryFilter::IS_ARCHETYPAL`] is then true and the
//! iterator's `size_hint` is exact. `Added<T>` and `Changed<T>` look at each
//! row's ticks, so a query with one of them visits every row of its
//! matched archetypes and keeps those that pass. Filters record what they
//! read separately from the data terms, so `(&mut T, Changed<T>)` is no
//! conflict; `With<T>` reads nothing and can sit beside any term.
//!
//! # Change detection ticks
//!
//! The world keeps a change tick, a wrapping `u32` clock. Every component
//! value stores the tick it was added at and the tick it last changed at
//! (in its table column or sparse set, beside the value): spawning or
//! inserting a new value sets both, replacing a value by insert sets the
//! changed tick, and so does writing through a [`Mut`](crate::change_detection::Mut)
//! (any mutable dereference, whether or not the value differs; use
//! `set_if_neq` to write only real changes).
//!
//! A query reads ticks relative to two ticks of its own: `last_run` and
//! `this_run`. `Added<T>` passes when the value's added tick is newer than
//! `last_run`, `Changed<T>` when its changed tick is (so a new value counts
//! as changed too); `Ref<T>` and `Mut<T>` answer `is_added()` and
//! `is_changed()` the same way.
//!
//! ```text
//!  world tick      ..  10   11   12   13   14  ..
//!  system S runs       ▲                   ▲
//!                      run 1               run 2: last_run 10, this_run 14
//!  another system                ▲
//!  writes a value                changed tick 12: newer than 10, so
//!                                S's Changed<T> passes it in run 2
//! ```
//!
//! - In a system, `this_run` is a fresh tick taken as the system starts and
//!   `last_run` is the `this_run` of its previous run: a system sees what
//!   changed since it last ran, including changes by systems that ran after
//!   it last time, but not its own writes through `Mut`. On its first run
//!   every value counts as added and changed.
//! - A standalone [`QueryState`] (`iter`, `iter_mut`, `get`) uses the
//!   world's current tick as `this_run` and, as `last_run`, the tick of the
//!   last [`World::clear_trackers`](crate::world::World::clear_trackers):
//!   call it once per frame to start a new frame of changes.
//!
//! ```
//! use ecs::prelude::*;
//!
//! #[derive(Component)]
//! struct Health(u32);
//!
//! let mut world = World::new();
//! world.spawn(Health(10));
//! let b = world.spawn(Health(10)).id();
//! world.clear_trackers(); // the spawns are now old news
//!
//! world.get_mut::<Health>(b).unwrap().0 -= 3;
//! let mut hurt = world.query_filtered::<Entity, Changed<Health>>();
//! assert_eq!(hurt.iter(&world).collect::<Vec<_>>(), [b]);
//!
//! world.clear_trackers();
//! assert_eq!(hurt.iter(&world).count(), 0);
//! ```
//!
//! Ticks are compared relative to `this_run`, so they stay right across the
//! `u32` wrap as long as no stored tick gets too old; the world clamps old
//! ticks regularly ([`World::check_change_ticks`](crate::world::World::check_change_ticks),
//! which schedules call), and systems clamp their own last run (see the
//! [`change_detection`](crate::change_detection) module docs).

mod access;
mod allow;
mod archetype_filter;
mod builder;
mod combinations;
mod contiguous;
mod entity_components;
mod entity_fetch;
mod error;
mod fetch;
mod filter;
mod iter;
mod iter_many;
mod lens;
mod par_iter;
mod sort;
mod sort_many;
mod spawn_details;
mod state;
mod world_query;

pub use access::{Access, AccessFilters, FilteredAccess, FilteredAccessSet};
pub use allow::Allow;
pub use archetype_filter::ArchetypeFilter;
pub use builder::QueryBuilder;
pub use combinations::QueryCombinationIter;
pub use contiguous::{
    ContiguousMut, ContiguousMutUntyped, ContiguousPtr, ContiguousQueryData, ContiguousRef,
    FilteredContiguousMut, FilteredContiguousRef, QueryContiguousIter, QueryNotDenseError,
};
pub use ecs_macros::{QueryData, QueryFilter};
pub use error::{QueryAccessError, QueryEntityError, QuerySingleError};
pub use fetch::{AnyOf, Has, OptionFetch, ReadFetch, TickedFetch};
pub use filter::{Added, Changed, Or, TickFilterFetch, With, Without};
pub use iter::QueryIter;
pub use iter_many::{
    QueryManyIter, QueryManyMatchedIter, QueryManyUniqueIter, QueryManyUnwrappedIter,
};
pub use par_iter::{
    QueryContiguousParIter, QueryParIter, QueryParManyIter, QueryParManyUniqueIter,
};
pub use sort::QuerySortedIter;
pub use sort_many::QuerySortedManyIter;
pub use spawn_details::{SpawnDetails, SpawnTickFetch, Spawned};
pub(crate) use state::single_of;
pub use state::QueryState;
#[doc(hidden)]
pub use world_query::ItemWithState;
pub use world_query::{
    cached_column, column_slot, QueryData, QueryFilter, QueryItem, ROQueryItem, ReadOnlyQueryData,
    ScopeFields, TableWalk, WorldQuery, NO_COLUMN,
};

#[cfg(test)]
mod tests;
