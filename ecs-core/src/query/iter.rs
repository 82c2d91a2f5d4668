//! [`QueryIter`]: the two iteration cursors over a [`QueryState`]'s
//! matches, and the per-batch loops of the parallel walk.
//!
//! One iterator type serves both cursors; which one runs is decided by the
//! constant `QueryState::<D, F>::IS_DENSE`, so each instantiation compiles
//! to one of them only:
//!
//! ```text
//!  dense       advance_storage: next non-empty matched table, set_table
//!              rows: table.entities()[0..len], table row = index
//!  archetype   advance_storage: next non-empty matched archetype, set_archetype
//!              rows: the table's entities when the archetype fills its
//!                    table (always so when it owns it), or the archetype's
//!                    own list of (entity, table row)
//! ```
//!
//! `next` steps one row at a time; `fold` (and so `for_each`) runs
//! `fold_current` over whole tables or archetypes. See the
//! [`query`](super) module docs for why the dense walk is correct.

use std::{iter::FusedIterator, marker::PhantomData};

use super::{QueryData, QueryFilter, QueryState, TableWalk, WorldQuery};
use crate::{
    archetype::{Archetype, ArchetypeEntity, ArchetypeId, Archetypes},
    change_detection::Tick,
    entity::Entity,
    storage::{Table, TableId, TableRow},
    world::UnsafeWorldCell,
};

/// The items of a query, walking the matched tables (dense queries) or
/// archetypes (queries touching a sparse-set component).
///
/// ```text
/// dense:     table 3 rows 0..n ─▶ table 7 rows 0..m ─▶ …   (column pointers
///                                                          set once per table)
/// archetype: archetype 4 entities (table row each) ─▶ archetype 9 …
///            (an archetype that fills its whole table walks the table rows)
/// ```
///
/// `fold` is overridden to run one tight loop per table or archetype, and
/// `for_each` (which the standard library builds on `fold`) inherits it.
/// `count` of a query whose filter is archetypal (no `Added`/`Changed`)
/// adds up lengths without visiting rows, and `size_hint` is then exact.
pub struct QueryIter<'w, 's, D: QueryData, F: QueryFilter> {
    /// The world and ticks the iterator was made with, kept for `sort`.
    pub(super) world: UnsafeWorldCell<'w>,
    pub(super) last_run: Tick,
    pub(super) this_run: Tick,
    /// The world's tables as a slice: held in registers through a loop,
    /// where `&Tables` would be reloaded after every write through an item.
    tables: &'w [Table],
    archetypes: &'w Archetypes,
    pub(super) state: &'s QueryState<D, F>,
    table_ids: std::slice::Iter<'s, TableId>,
    /// The column cache slots of the tables still in `table_ids`.
    table_columns: ColumnSlots<'s>,
    archetype_ids: std::slice::Iter<'s, ArchetypeId>,
    /// The current table's entities (dense walk, or an archetype that
    /// fills its table).
    pub(super) table_entities: &'w [Entity],
    /// The current archetype's entities (archetype walk).
    pub(super) archetype_entities: &'w [ArchetypeEntity],
    /// A dense query walking archetypes (a lens): the index of the next
    /// matched archetype to start, and the offset in the archetype before
    /// it of the next run of table rows (0: none left).
    lens_next: u32,
    lens_row: u32,
    /// Whether the current archetype is walked by table row.
    by_table_row: bool,
    /// Whether the iterator walks a sparse set (set up when made, see
    /// [`QueryIter::start_sparse_walk`]).
    pub(super) walks_set: bool,
    fetch: D::Fetch<'w>,
    filter: F::Fetch<'w>,
    current_len: usize,
    pub(super) current_row: usize,
}

/// A run of table rows from [`QueryIter::next_lens_run`]: the archetype
/// (and its table) to point the fetches at when the run starts a new one,
/// and the walk's cursor after it.
struct LensRun<'w> {
    archetype: Option<(&'w Archetype, &'w Table)>,
    next: u32,
    row: u32,
    start: usize,
    end: usize,
}

/// A cursor over a `QueryState`'s column cache: a pointer, not a slice,
/// so stepping to the next table's slots is one add (no length to keep).
#[derive(Clone, Copy)]
struct ColumnSlots<'s> {
    /// Points into (or one past the end of) the cache borrowed for `'s`.
    next: *const u32,
    marker: PhantomData<&'s [u32]>,
}

// SAFETY: it only reads a `&'s [u32]`, which may be sent and shared.
unsafe impl Send for ColumnSlots<'_> {}
// SAFETY: as for `Send`.
unsafe impl Sync for ColumnSlots<'_> {}

impl<'s> ColumnSlots<'s> {
    fn new(cache: &'s [u32]) -> Self {
        ColumnSlots {
            next: cache.as_ptr(),
            marker: PhantomData,
        }
    }

    /// The next `k` slots, stepping past them.
    ///
    /// # Safety
    /// At least `k` slots of the cache remain.
    #[inline(always)]
    unsafe fn take(&mut self, k: usize) -> &'s [u32] {
        // SAFETY: `k` slots remain (caller), in the cache borrowed for
        // `'s`; the stepped pointer stays within or one past its end.
        unsafe {
            let slots = std::slice::from_raw_parts(self.next, k);
            self.next = self.next.add(k);
            slots
        }
    }
}

impl<'w, 's, D: QueryData, F: QueryFilter> QueryIter<'w, 's, D, F> {
    /// # Safety
    /// `world` is the world `state` was built for (with its archetypes
    /// up to date), and the caller has the access `state` records for as
    /// long as the iterator and its items live.
    pub(crate) unsafe fn new(
        world: UnsafeWorldCell<'w>,
        state: &'s QueryState<D, F>,
        last_run: Tick,
        this_run: Tick,
    ) -> Self {
        // SAFETY: forwarded.
        let (fetch, filter) = unsafe { state.init_fetches(world, last_run, this_run) };
        // A lens walking archetypes ignores its table list (see
        // `QueryState::walks_tables`).
        let table_ids: &'s [TableId] = if state.archetype_walk {
            &[]
        } else {
            &state.matched_table_ids
        };
        let mut iter = QueryIter {
            world,
            last_run,
            this_run,
            // SAFETY: the iterator reads only what the caller's access
            // covers (caller).
            tables: unsafe { world.storages() }.tables.iter().as_slice(),
            archetypes: world.archetypes(),
            state,
            table_ids: table_ids.iter(),
            table_columns: ColumnSlots::new(&state.matched_table_columns),
            archetype_ids: state.matched_archetype_ids.iter(),
            table_entities: &[],
            archetype_entities: &[],
            lens_next: 0,
            lens_row: 0,
            by_table_row: false,
            walks_set: false,
            fetch,
            filter,
            current_len: 0,
            current_row: 0,
        };
        if !QueryState::<D, F>::IS_DENSE {
            iter.start_sparse_walk();
        }
        iter
    }

    /// A second iterator over the items this one has not yielded yet,
    /// leaving this one where it is (read-only items only, which may be
    /// held twice).
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Component)]
    /// struct Value(u32);
    ///
    /// let mut world = World::new();
    /// world.spawn_batch((0..4).map(Value));
    /// let mut state = world.query::<&Value>();
    /// let mut iter = state.iter(&world);
    /// let first = iter.next().unwrap().0;
    /// let rest: Vec<u32> = iter.remaining().map(|v| v.0).collect();
    /// assert_eq!(rest.len(), 3);
    /// assert_eq!(iter.map(|v| v.0).collect::<Vec<_>>(), rest);
    /// assert!(!rest.contains(&first));
    /// ```
    pub fn remaining(&self) -> QueryIter<'w, 's, D, F>
    where
        D: super::ReadOnlyQueryData,
    {
        QueryIter {
            world: self.world,
            last_run: self.last_run,
            this_run: self.this_run,
            tables: self.tables,
            archetypes: self.archetypes,
            state: self.state,
            table_ids: self.table_ids.clone(),
            table_columns: self.table_columns,
            archetype_ids: self.archetype_ids.clone(),
            table_entities: self.table_entities,
            archetype_entities: self.archetype_entities,
            lens_next: self.lens_next,
            lens_row: self.lens_row,
            by_table_row: self.by_table_row,
            walks_set: self.walks_set,
            fetch: self.fetch.clone(),
            filter: self.filter.clone(),
            current_len: self.current_len,
            current_row: self.current_row,
        }
    }

    /// Walks the dense arrays of a sparse set the query requires instead
    /// of the matched archetypes, when every archetype with that component
    /// is matched (the set's entities are then the query's) and every term
    /// can be fetched by the set's rows ([`WorldQuery::can_sparse_walk`]):
    /// one run over contiguous values, no sparse lookup per row.
    #[inline]
    fn start_sparse_walk(&mut self) {
        let state = self.state;
        let Some(walked) = D::sparse_walk_candidate(&state.fetch_state) else {
            return;
        };
        if !(D::can_sparse_walk(&state.fetch_state, walked)
            && F::can_sparse_walk(&state.filter_state, walked)
            && self.archetypes.containing(walked).len() == state.matched_archetype_ids.len())
        {
            return;
        }
        // SAFETY: only the set's entity list is read, which the query may
        // read (it reads `walked`).
        let Some(set) = (unsafe { self.world.storages() }).sparse_sets.get(walked) else {
            return;
        };
        // SAFETY: the terms can be walked by `walked`'s set, which exists;
        // the walk below gives each fetch the entities of the set with
        // their rows there.
        unsafe {
            D::set_sparse_walk(&mut self.fetch, &state.fetch_state, walked);
            F::set_sparse_walk(&mut self.filter, &state.filter_state, walked);
        }
        self.table_entities = set.entities();
        self.current_row = 0;
        self.current_len = set.entities().len();
        self.by_table_row = true;
        self.walks_set = true;
        self.archetype_ids = [].iter();
    }

    /// Points the fetches at the next non-empty matched table or archetype.
    /// Returns false when there is none.
    #[inline(always)]
    fn advance_storage(&mut self) -> bool {
        if QueryState::<D, F>::IS_DENSE {
            let k = QueryState::<D, F>::TABLE_COLUMNS;
            for &table_id in self.table_ids.by_ref() {
                // SAFETY: the cache holds `k` slots per matched table, in
                // the order of `table_ids`, and `table_id` was one of them.
                let columns = unsafe { self.table_columns.take(k) };
                debug_assert!(table_id.index() < self.tables.len());
                // SAFETY: a matched table id is one of this world's tables,
                // and tables are never removed.
                let table = unsafe { self.tables.get_unchecked(table_id.index()) };
                if table.is_empty() {
                    continue;
                }
                // SAFETY: the table is matched by the state (all of its
                // archetypes match a dense query) and from its world;
                // `columns` starts with its slots, `D`'s then `F`'s.
                unsafe {
                    D::set_table_cached(&mut self.fetch, &self.state.fetch_state, table, columns);
                    F::set_table_cached(
                        &mut self.filter,
                        &self.state.filter_state,
                        table,
                        columns.get_unchecked(D::TABLE_COLUMNS..),
                    );
                }
                self.table_entities = table.entities();
                self.current_len = table.entity_count();
                self.current_row = 0;
                return true;
            }
            if !self.state.archetype_walk {
                return false;
            }
            let run = Self::next_lens_run(
                self.state,
                self.archetypes,
                self.tables,
                self.lens_next,
                self.lens_row,
            );
            let Some(run) = run else {
                return false;
            };
            if let Some((archetype, table)) = run.archetype {
                // SAFETY: the state matches `archetype` (from its matched
                // list) and `table` is its table.
                unsafe {
                    D::set_archetype(&mut self.fetch, &self.state.fetch_state, archetype, table);
                    F::set_archetype(&mut self.filter, &self.state.filter_state, archetype, table);
                }
                self.table_entities = table.entities();
            }
            self.lens_next = run.next;
            self.lens_row = run.row;
            self.current_row = run.start;
            self.current_len = run.end;
            return true;
        }
        for &archetype_id in self.archetype_ids.by_ref() {
            let archetype = &self.archetypes[archetype_id];
            if archetype.is_empty() {
                continue;
            }
            let table = &self.tables[archetype.table_id().index()];
            // SAFETY: the archetype is matched by the state, and `table`
            // is its table.
            unsafe {
                D::set_archetype(&mut self.fetch, &self.state.fetch_state, archetype, table);
                F::set_archetype(&mut self.filter, &self.state.filter_state, archetype, table);
            }
            // An archetype holding every row of its table is walked by
            // table row: same entities, sequential column access.
            self.by_table_row = archetype.len() == table.entity_count();
            self.current_len = archetype.len();
            self.current_row = 0;
            if self.by_table_row {
                self.table_entities = table.entities();
            } else {
                self.archetype_entities = archetype.shared_entities();
            }
            return true;
        }
        false
    }

    /// The next run of consecutive table rows of a dense query walking
    /// archetypes (a lens): the rest of the archetype before `next` from
    /// its row `row` when `row` is not 0, else the first row of the next
    /// non-empty archetype from `next` on, which the caller points the
    /// fetches at.
    ///
    /// Out of line, taking and returning plain values: a call given the
    /// address of the iterator, or its fetches, would hold every field of
    /// them live across every dense loop, and keep the loop's cursor and
    /// column pointers out of registers.
    ///
    /// `state` is up to date with the archetypes of `archetypes`, whose
    /// tables are `tables`; `next` and `row` come from an earlier run of
    /// this walk (or are both 0).
    #[cold]
    #[inline(never)]
    fn next_lens_run(
        state: &'s QueryState<D, F>,
        archetypes: &'w Archetypes,
        tables: &'w [Table],
        mut next: u32,
        row: u32,
    ) -> Option<LensRun<'w>> {
        let mut started = None;
        let (entities, offset) = if row != 0 {
            let archetype = &archetypes[state.matched_archetype_ids[next as usize - 1]];
            (archetype.shared_entities(), row as usize)
        } else {
            let (archetype, table) = loop {
                let &id = state.matched_archetype_ids.get(next as usize)?;
                next += 1;
                let archetype = &archetypes[id];
                if !archetype.is_empty() {
                    break (archetype, &tables[archetype.table_id().index()]);
                }
            };
            started = Some((archetype, table));
            if archetype.len() == table.entity_count() {
                // The archetype fills its table: one run of every row.
                return Some(LensRun {
                    archetype: started,
                    next,
                    row: 0,
                    start: 0,
                    end: table.entity_count(),
                });
            }
            (archetype.shared_entities(), 0)
        };
        let rest = &entities[offset..];
        let start = rest[0].table_row().index();
        let run = 1 + rest[1..]
            .iter()
            .zip(start + 1..)
            .take_while(|(e, row)| e.table_row().index() == *row)
            .count();
        let after = offset + run;
        Some(LensRun {
            archetype: started,
            next,
            // Archetype rows fit in `u32` (see `fold_current`).
            row: if after == entities.len() {
                0
            } else {
                after as u32
            },
            start,
            end: start + run,
        })
    }

    #[inline(always)]
    fn current_entity(&self, row: usize) -> (Entity, TableRow) {
        // SAFETY: table and archetype rows are `u32`s (see `fold_current`).
        unsafe { std::hint::assert_unchecked(row <= u32::MAX as usize) };
        // SAFETY: `row < current_len`, the length of the slice in use.
        unsafe {
            if QueryState::<D, F>::IS_DENSE || self.by_table_row {
                (*self.table_entities.get_unchecked(row), TableRow::new(row))
            } else {
                let e = self.archetype_entities.get_unchecked(row);
                (e.id(), e.table_row())
            }
        }
    }

    /// Runs `func` over the rest of the current table or archetype.
    #[inline(always)]
    fn fold_current<B>(&mut self, mut acc: B, func: &mut impl FnMut(B, D::Item<'w>) -> B) -> B {
        if QueryState::<D, F>::IS_DENSE || self.by_table_row {
            // SAFETY: the fetches point at this table, which has the rows
            // `current_row..current_len`; the rows before were yielded by
            // `next` and are not walked again; nothing else touches the
            // rows while the walk runs (the iterator holds the query's
            // access).
            acc = unsafe {
                walk_table_rows::<D, F, B>(
                    self.fetch.clone(),
                    &mut self.filter,
                    self.table_entities,
                    self.current_row..self.current_len,
                    acc,
                    func,
                )
            };
        } else {
            let entities = self.archetype_entities;
            for e in &entities[self.current_row..self.current_len] {
                let (entity, table_row) = (e.id(), e.table_row());
                // SAFETY: the fetches point at this archetype; each row is
                // yielded once.
                unsafe {
                    if F::filter_fetch(&mut self.filter, entity, table_row) {
                        acc = func(acc, D::fetch(&mut self.fetch, entity, table_row));
                    }
                }
            }
        }
        self.current_row = self.current_len;
        acc
    }

    fn remaining_max(&self) -> usize {
        let current = self.current_len - self.current_row;
        let mut rest = 0;
        if QueryState::<D, F>::IS_DENSE {
            rest += self
                .table_ids
                .as_slice()
                .iter()
                .map(|&id| self.tables[id.index()].entity_count())
                .sum::<usize>();
            if self.state.archetype_walk {
                let ids = &self.state.matched_archetype_ids;
                let next = self.lens_next as usize;
                if self.lens_row != 0 {
                    // The runs still to come of the current archetype.
                    rest += self.archetypes[ids[next - 1]].len() - self.lens_row as usize;
                }
                rest += ids[next..]
                    .iter()
                    .map(|&id| self.archetypes[id].len())
                    .sum::<usize>();
            }
        } else {
            rest += self
                .archetype_ids
                .as_slice()
                .iter()
                .map(|&id| self.archetypes[id].len())
                .sum::<usize>();
        }
        current + rest
    }
}

impl<'w, D: QueryData, F: QueryFilter> Iterator for QueryIter<'w, '_, D, F> {
    type Item = D::Item<'w>;

    #[inline(always)]
    fn next(&mut self) -> Option<D::Item<'w>> {
        loop {
            if self.current_row == self.current_len {
                if !self.advance_storage() {
                    return None;
                }
                continue;
            }
            let (entity, table_row) = self.current_entity(self.current_row);
            self.current_row += 1;
            // SAFETY: the fetches point at the current table or archetype,
            // which holds `entity` at `table_row`; each row is yielded once.
            unsafe {
                if F::filter_fetch(&mut self.filter, entity, table_row) {
                    return Some(D::fetch(&mut self.fetch, entity, table_row));
                }
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let max = self.remaining_max();
        if F::IS_ARCHETYPAL {
            (max, Some(max))
        } else {
            (0, Some(max))
        }
    }

    #[inline]
    fn fold<B, Func>(mut self, init: B, mut func: Func) -> B
    where
        Func: FnMut(B, Self::Item) -> B,
    {
        let mut acc = self.fold_current(init, &mut func);
        while self.advance_storage() {
            acc = self.fold_current(acc, &mut func);
        }
        acc
    }

    #[inline]
    fn count(self) -> usize {
        if F::IS_ARCHETYPAL {
            self.remaining_max()
        } else {
            self.fold(0, |n, _| n + 1)
        }
    }
}

impl<D: QueryData, F: QueryFilter> FusedIterator for QueryIter<'_, '_, D, F> {}

/// Iterates the rows `rows` of one table (dense) for the parallel walk:
/// the `match_index`-th table `state` matches.
///
/// # Safety
/// As for [`QueryIter::new`]; `match_index` is below the number of matched
/// tables; `rows.end` is at most the table's row count; no other
/// iteration touches these rows at the same time.
pub(crate) unsafe fn for_each_table_rows<'w, D: QueryData, F: QueryFilter>(
    world: UnsafeWorldCell<'w>,
    state: &QueryState<D, F>,
    match_index: usize,
    rows: std::ops::Range<usize>,
    last_run: Tick,
    this_run: Tick,
    func: &mut impl FnMut(D::Item<'w>),
) {
    // SAFETY: the rows are read with the caller's access (caller).
    let table = &unsafe { world.storages() }.tables[state.matched_table_ids[match_index]];
    // SAFETY: forwarded; the indexing above checked that `match_index` is
    // below the number of matched tables, and `table` is the one there.
    unsafe {
        let (fetch, mut filter) =
            state.table_fetches(world, table, match_index, last_run, this_run);
        walk_table_rows::<D, F, ()>(
            fetch,
            &mut filter,
            table.entities(),
            rows,
            (),
            &mut |(), item| func(item),
        );
    }
}

/// Folds `func` over the items of `rows` of the table that `fetch` and
/// `filter` point at: the dense walk of `fold` and of the parallel batches.
///
/// With an archetypal filter (decided per table, so `filter_fetch` is not
/// called), the walk runs inside [`WorldQuery::scope_table`], which lets
/// the optimiser see that the columns the query writes alias nothing else
/// (see its docs); a filter that reads columns (`Added`, `Changed`) may
/// read what the data writes, so such queries walk unscoped.
///
/// # Safety
/// `fetch` and `filter` point at the table whose entities are `entities`,
/// which has the rows `rows`; no other walk or live item touches those
/// rows' values and ticks meanwhile, and each row is yielded once.
#[inline(always)]
unsafe fn walk_table_rows<'w, D: QueryData, F: QueryFilter, B>(
    fetch: D::Fetch<'w>,
    filter: &mut F::Fetch<'w>,
    entities: &'w [Entity],
    rows: std::ops::Range<usize>,
    acc: B,
    func: &mut impl FnMut(B, D::Item<'w>) -> B,
) -> B {
    let walk = TableRows::<'_, 'w, F, B, _> {
        filter,
        entities,
        rows: rows.clone(),
        acc,
        func,
    };
    // SAFETY: forwarded; with an archetypal filter nothing but the walk's
    // fetch touches the rows.
    unsafe {
        if F::IS_ARCHETYPAL {
            D::scope_table(fetch, rows, walk)
        } else {
            <TableRows<'_, 'w, F, B, _> as TableWalk<'w, D>>::walk(walk, fetch)
        }
    }
}

/// The row loop of [`walk_table_rows`], handed the fetch to use.
struct TableRows<'a, 'w, F: WorldQuery, B, Func> {
    filter: &'a mut F::Fetch<'w>,
    entities: &'w [Entity],
    rows: std::ops::Range<usize>,
    acc: B,
    func: &'a mut Func,
}

impl<'w, D, F, B, Func> TableWalk<'w, D> for TableRows<'_, 'w, F, B, Func>
where
    D: QueryData,
    F: QueryFilter,
    Func: FnMut(B, D::Item<'w>) -> B,
{
    type Output = B;

    #[inline(always)]
    unsafe fn walk(self, mut fetch: D::Fetch<'w>) -> B {
        let TableRows {
            filter,
            entities,
            rows,
            acc,
            func,
        } = self;
        fold_rows(rows, F::IS_ARCHETYPAL, acc, |acc, row| {
            // SAFETY: table rows are `u32`s (`TableRow`), so every row
            // index fits; telling the optimiser lets it keep one induction
            // variable instead of re-widening the row.
            unsafe { std::hint::assert_unchecked(row <= u32::MAX as usize) };
            // SAFETY: `row < len(entities)` (`fold_rows` yields the range's
            // rows, which the table has).
            let entity = unsafe { *entities.get_unchecked(row) };
            let table_row = TableRow::new(row);
            // SAFETY: the fetches point at this table; each row is yielded
            // once; an archetypal filter passes every row of a matched
            // table (`QueryFilter`'s contract).
            unsafe {
                if F::IS_ARCHETYPAL || F::filter_fetch(filter, entity, table_row) {
                    func(acc, D::fetch(&mut fetch, entity, table_row))
                } else {
                    acc
                }
            }
        })
    }
}

/// Folds `step` over every row of `rows`, in order.
///
/// A long run of rows that every row passes (`dense`) is a plain loop,
/// which the loop vectoriser can widen however many columns the step
/// touches. Short runs, and runs a per-row filter may skip, go two rows
/// per turn: that halves the loop overhead of many small tables, and lets
/// adjacent rows' loads and stores merge.
#[inline(always)]
fn fold_rows<B>(
    rows: std::ops::Range<usize>,
    dense: bool,
    mut acc: B,
    mut step: impl FnMut(B, usize) -> B,
) -> B {
    if dense && rows.len() >= VECTOR_RUN {
        for row in rows {
            acc = step(acc, row);
        }
        return acc;
    }
    let (mut row, end) = (rows.start, rows.end);
    // `row + 1` cannot overflow: `row <= end`, and rows fit in `u32`.
    while row + 1 < end {
        acc = step(acc, row);
        acc = step(acc, row + 1);
        row += 2;
    }
    if row < end {
        acc = step(acc, row);
    }
    acc
}

/// The shortest run of rows [`fold_rows`] hands to the loop vectoriser.
const VECTOR_RUN: usize = 16;

/// Iterates the rows `rows` of one archetype for the parallel walk.
///
/// # Safety
/// As for [`for_each_table_rows`], with an archetype.
pub(crate) unsafe fn for_each_archetype_rows<'w, D: QueryData, F: QueryFilter>(
    world: UnsafeWorldCell<'w>,
    state: &QueryState<D, F>,
    archetype_id: ArchetypeId,
    rows: std::ops::Range<usize>,
    last_run: Tick,
    this_run: Tick,
    func: &mut impl FnMut(D::Item<'w>),
) {
    let archetype = &world.archetypes()[archetype_id];
    // SAFETY: the rows are read with the caller's access (caller).
    let table = &unsafe { world.storages() }.tables[archetype.table_id()];
    // SAFETY: forwarded.
    unsafe {
        let (mut fetch, mut filter) =
            state.archetype_fetches(world, archetype, table, last_run, this_run);
        // As in the serial walk, an archetype holding every row of its
        // table (always so when it owns the table) is walked by table
        // row: the batches of rows still cover each entity once.
        if archetype.len() == table.entity_count() {
            for (row, &entity) in table.entities()[rows.clone()].iter().enumerate() {
                let table_row = TableRow::new(rows.start + row);
                if F::filter_fetch(&mut filter, entity, table_row) {
                    func(D::fetch(&mut fetch, entity, table_row));
                }
            }
        } else {
            for e in &archetype.shared_entities()[rows] {
                let (entity, table_row) = (e.id(), e.table_row());
                if F::filter_fetch(&mut filter, entity, table_row) {
                    func(D::fetch(&mut fetch, entity, table_row));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::prelude::*;

    #[derive(Component, Debug, Clone, Copy, PartialEq)]
    struct A(u32);
    #[derive(Component, Debug, Clone, Copy, PartialEq)]
    struct B(u32);
    #[derive(Component, Debug, Clone, Copy, PartialEq)]
    struct C(u32);

    /// Tables in the order (A), (A,B), (A,C), (A,B,C), the second and the
    /// last emptied again; A(i) on entity i, B and C hold `100 + i`.
    fn tables_with_gaps() -> (World, Vec<Entity>) {
        let mut world = World::new();
        let mut kept = Vec::new();
        for i in 0..12u32 {
            let mut e = world.spawn(A(i));
            match i % 4 {
                1 => {
                    e.insert(B(100 + i));
                }
                2 => {
                    e.insert(C(100 + i));
                }
                3 => {
                    e.insert((B(100 + i), C(100 + i)));
                }
                _ => {}
            }
            let id = e.id();
            if i % 4 == 1 || i % 4 == 3 {
                world.despawn(id);
            } else {
                kept.push(id);
            }
        }
        (world, kept)
    }

    #[test]
    fn next_skips_empty_tables_and_keeps_each_tables_columns() {
        let (mut world, kept) = tables_with_gaps();
        let mut query = world.query::<(Entity, &A, Option<&B>, Option<&C>, Has<C>)>();
        let mut seen = Vec::new();
        let mut iter = query.iter(&world);
        for (e, a, b, c, has_c) in iter.by_ref() {
            assert_eq!(b, None, "{e}: every entity with B was despawned");
            assert_eq!(c.map(|c| c.0), (a.0 % 4 == 2).then_some(100 + a.0), "{e}");
            assert_eq!(has_c, c.is_some(), "{e}");
            seen.push(e);
        }
        assert_eq!(iter.next(), None);
        seen.sort();
        let mut expected = kept.clone();
        expected.sort();
        assert_eq!(seen, expected);
    }

    #[test]
    fn next_and_fold_yield_the_same_items_from_any_point() {
        let (mut world, _) = tables_with_gaps();
        let mut query = world.query::<(Entity, &A, Option<&C>)>();
        let all: Vec<_> = query
            .iter(&world)
            .map(|(e, a, c)| (e, *a, c.copied()))
            .collect();
        for stepped in 0..=all.len() {
            let mut iter = query.iter(&world);
            let mut items: Vec<_> = iter
                .by_ref()
                .take(stepped)
                .map(|(e, a, c)| (e, *a, c.copied()))
                .collect();
            iter.for_each(|(e, a, c)| items.push((e, *a, c.copied())));
            assert_eq!(items, all, "after {stepped} steps of next");
        }
    }

    #[test]
    fn for_loop_marks_changed_only_the_rows_it_writes() {
        let (mut world, _) = tables_with_gaps();
        world.clear_trackers();
        let mut query = world.query::<&mut A>();
        for mut a in query.iter_mut(&mut world) {
            if a.0 % 4 == 2 {
                a.0 += 1000;
            }
        }
        let mut changed = world.query_filtered::<&A, Changed<A>>();
        let mut values: Vec<u32> = changed.iter(&world).map(|a| a.0).collect();
        values.sort();
        assert_eq!(values, [1002, 1006, 1010]);
    }
}
