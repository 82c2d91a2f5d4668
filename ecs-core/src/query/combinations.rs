//! [`QueryCombinationIter`]: every set of `K` distinct matching entities,
//! each once, in iteration order.
//!
//! `K` cursors walk the query's matches; cursor `i` always stands past
//! cursor `i - 1`, so a combination never repeats an entity:
//!
//! ```text
//!  matches        a  b  c  d          K = 2
//!  combinations   [a,b] [a,c] [a,d] [b,c] [b,d] [c,d]
//!  step           advance the last cursor that can still move; each later
//!                 cursor restarts just past the one before it
//! ```
//!
//! The cursors walk matches by matched table for a dense query and by
//! archetype otherwise, so `iter_combinations::<1>` yields what `iter`
//! yields; in the same order too, unless `iter` walks a sparse set (see
//! the cursors of [`QueryIter`](super::QueryIter) in the `query` module).

use std::iter::FusedIterator;

use super::{QueryData, QueryFilter, QueryState, ReadOnlyQueryData};
use crate::{
    archetype::{Archetype, ArchetypeEntity, ArchetypeId, Archetypes},
    change_detection::Tick,
    entity::Entity,
    storage::{Table, TableId, TableRow, Tables},
    world::UnsafeWorldCell,
};

/// The rows of the archetype a cursor is in.
#[derive(Clone, Copy)]
enum Rows<'w> {
    /// The archetype holds every row of its table: walk the table.
    Table(&'w [Entity]),
    /// The archetype shares its table: walk its own list.
    List(&'w [ArchetypeEntity]),
}

impl Rows<'_> {
    fn len(self) -> usize {
        match self {
            Rows::Table(rows) => rows.len(),
            Rows::List(rows) => rows.len(),
        }
    }

    fn get(self, row: usize) -> (Entity, TableRow) {
        match self {
            Rows::Table(rows) => (rows[row], TableRow::new(row)),
            Rows::List(rows) => (rows[row].id(), rows[row].table_row()),
        }
    }
}

/// The storage a cursor walks: a matched table (dense queries) or a
/// matched archetype and its table.
#[derive(Clone, Copy)]
enum Storage<'w> {
    Table(&'w Table),
    Archetype(&'w Archetype, &'w Table),
}

/// One position in the walk over a query's matches, in the order of
/// [`QueryIter`](super::QueryIter): matched tables for a dense query,
/// matched archetypes otherwise. The filter fetch points at the current
/// storage.
struct Cursor<'w, 's, F: QueryFilter> {
    table_ids: std::slice::Iter<'s, TableId>,
    archetype_ids: std::slice::Iter<'s, ArchetypeId>,
    current: Option<Storage<'w>>,
    rows: Rows<'w>,
    /// The next row to look at; the cursor's item is at `row - 1`.
    row: usize,
    filter: F::Fetch<'w>,
}

impl<F: QueryFilter> Clone for Cursor<'_, '_, F> {
    fn clone(&self) -> Self {
        Cursor {
            table_ids: self.table_ids.clone(),
            archetype_ids: self.archetype_ids.clone(),
            current: self.current,
            rows: self.rows,
            row: self.row,
            filter: self.filter.clone(),
        }
    }
}

impl<'w, 's, F: QueryFilter> Cursor<'w, 's, F> {
    /// A cursor before the first match of `state` (`at_start`) or past
    /// its last.
    fn new<D: QueryData>(
        state: &'s QueryState<D, F>,
        at_start: bool,
        filter: F::Fetch<'w>,
    ) -> Self {
        // Only the list of the walk in use is kept; the other stays empty.
        let (tables, archetypes): (&'s [TableId], &'s [ArchetypeId]) = match at_start {
            false => (&[], &[]),
            true if state.walks_tables() => (&state.matched_table_ids, &[]),
            true => (&[], &state.matched_archetype_ids),
        };
        Cursor {
            table_ids: tables.iter(),
            archetype_ids: archetypes.iter(),
            current: None,
            rows: Rows::List(&[]),
            row: 0,
            filter,
        }
    }

    /// Points the cursor at the next matched storage; false at the end.
    ///
    /// # Safety
    /// As for [`Cursor::advance`].
    unsafe fn next_storage<D: QueryData>(
        &mut self,
        state: &QueryState<D, F>,
        archetypes: &'w Archetypes,
        tables: &'w Tables,
    ) -> bool {
        if state.walks_tables() {
            let Some(&id) = self.table_ids.next() else {
                return false;
            };
            let table = &tables[id];
            // SAFETY: the state matches the table, and its query is dense
            // (caller).
            unsafe { F::set_table(&mut self.filter, &state.filter_state, table) };
            self.rows = Rows::Table(table.entities());
            self.current = Some(Storage::Table(table));
        } else {
            let Some(&id) = self.archetype_ids.next() else {
                return false;
            };
            let archetype = &archetypes[id];
            let table = &tables[archetype.table_id()];
            // SAFETY: the state matches the archetype, `table` is its
            // table (caller).
            unsafe { F::set_archetype(&mut self.filter, &state.filter_state, archetype, table) };
            // As in `QueryIter`: an archetype holding every row of its
            // table walks the table's rows.
            self.rows = if archetype.len() == table.entity_count() {
                Rows::Table(table.entities())
            } else {
                Rows::List(archetype.shared_entities())
            };
            self.current = Some(Storage::Archetype(archetype, table));
        }
        self.row = 0;
        true
    }

    /// Moves to the next row that passes the filter; false at the end.
    ///
    /// # Safety
    /// The cursor was made from `state`, which built the filter fetch for
    /// the world `archetypes` and `tables` belong to.
    unsafe fn advance<D: QueryData>(
        &mut self,
        state: &QueryState<D, F>,
        archetypes: &'w Archetypes,
        tables: &'w Tables,
    ) -> bool {
        loop {
            if self.row == self.rows.len() {
                // SAFETY: forwarded.
                if !unsafe { self.next_storage(state, archetypes, tables) } {
                    return false;
                }
                continue;
            }
            let (entity, table_row) = self.rows.get(self.row);
            self.row += 1;
            // SAFETY: the filter points at the storage holding the row.
            if unsafe { F::filter_fetch(&mut self.filter, entity, table_row) } {
                return true;
            }
        }
    }

    /// The item at the cursor's row, built with a fresh fetch so the
    /// caller picks its lifetime.
    ///
    /// # Safety
    /// The cursor stands on a row (`advance` returned true); `world` is
    /// the world of `state`, with its access held; no other live item
    /// aliases what this one writes.
    unsafe fn item<'a, D: QueryData>(
        &self,
        world: UnsafeWorldCell<'a>,
        state: &QueryState<D, F>,
        last_run: Tick,
        this_run: Tick,
    ) -> D::Item<'a>
    where
        'w: 'a,
    {
        let (entity, table_row) = self.rows.get(self.row - 1);
        // SAFETY: the state matches the storage (a table only for a dense
        // query); the access is held; aliasing is the caller's concern.
        unsafe {
            match self.current.expect("the cursor stands on a row") {
                Storage::Table(table) => {
                    let (mut fetch, _) = state.init_fetches(world, last_run, this_run);
                    D::set_table(&mut fetch, &state.fetch_state, table);
                    D::fetch(&mut fetch, entity, table_row)
                }
                Storage::Archetype(archetype, table) => {
                    let (mut fetch, _) =
                        state.archetype_fetches(world, archetype, table, last_run, this_run);
                    D::fetch(&mut fetch, entity, table_row)
                }
            }
        }
    }

    /// How many rows the cursor may still visit (before filtering).
    fn max_remaining(&self, archetypes: &Archetypes, tables: &Tables) -> usize {
        let tables: usize = self
            .table_ids
            .as_slice()
            .iter()
            .map(|&id| tables[id].entity_count())
            .sum();
        let archetypes: usize = self
            .archetype_ids
            .as_slice()
            .iter()
            .map(|&id| archetypes[id].len())
            .sum();
        // One of the two lists is empty (see `new`).
        self.rows.len() - self.row + tables + archetypes
    }
}

/// Every combination of `K` distinct entities the query matches, each
/// once, as `[item; K]` in iteration order.
///
/// Made by [`Query::iter_combinations`](crate::system::Query::iter_combinations),
/// [`Query::iter_combinations_mut`](crate::system::Query::iter_combinations_mut)
/// and their [`QueryState`] twins. The read-only form is an [`Iterator`];
/// the mutable one hands out one array at a time through
/// [`QueryCombinationIter::fetch_next`], so two arrays, which share
/// entities, are never alive together.
///
/// ```
/// use ecs::prelude::*;
///
/// #[derive(Component)]
/// struct Mass(f32);
///
/// let mut world = World::new();
/// for m in [1.0, 2.0, 3.0] {
///     world.spawn(Mass(m));
/// }
/// let mut query = world.query::<&mut Mass>();
/// let mut pairs = query.iter_combinations_mut::<2>(&mut world);
/// while let Some([mut a, b]) = pairs.fetch_next() {
///     a.0 += b.0;
/// }
/// let mut masses: Vec<f32> = query.iter(&world).map(|m| m.0).collect();
/// masses.sort_by(f32::total_cmp);
/// // `a` gains `b` in each pair, in order: (1, 2), then (3, 3), then (2, 3).
/// assert_eq!(masses, [3.0, 5.0, 6.0]);
/// assert_eq!(query.iter_combinations::<2>(&world).count(), 3);
/// ```
pub struct QueryCombinationIter<'w, 's, D: QueryData, F: QueryFilter, const K: usize> {
    world: UnsafeWorldCell<'w>,
    state: &'s QueryState<D, F>,
    archetypes: &'w Archetypes,
    tables: &'w Tables,
    cursors: [Cursor<'w, 's, F>; K],
    last_run: Tick,
    this_run: Tick,
}

impl<'w, 's, D: QueryData, F: QueryFilter, const K: usize> QueryCombinationIter<'w, 's, D, F, K> {
    /// # Safety
    /// `world` is the world `state` was built for (with its archetypes up
    /// to date), and the caller has the access `state` records for `'w`.
    ///
    /// # Panics
    /// If `K` is 0.
    #[track_caller]
    pub(crate) unsafe fn new(
        world: UnsafeWorldCell<'w>,
        state: &'s QueryState<D, F>,
        last_run: Tick,
        this_run: Tick,
    ) -> Self {
        assert!(
            K != 0,
            "iter_combinations::<0> of query `{}`: K must be at least 1",
            std::any::type_name::<(D, F)>()
        );
        let cursors = std::array::from_fn(|i| {
            // SAFETY: the state was built for `world`, the access is held
            // (caller); the filter fetch reads only what the state records.
            let (_, filter) = unsafe { state.init_fetches(world, last_run, this_run) };
            // Only the first cursor starts at the beginning; the others are
            // placed after it on the first step.
            Cursor::new(state, i == 0, filter)
        });
        QueryCombinationIter {
            world,
            state,
            archetypes: world.archetypes(),
            // SAFETY: only table layout and entity lists are read here;
            // component data is read with the access held (caller).
            tables: &unsafe { world.storages() }.tables,
            cursors,
            last_run,
            this_run,
        }
    }

    /// Moves the cursors to the next combination; false when there is none.
    fn advance(&mut self) -> bool {
        // Find the last cursor `i` that can move and still leave room for
        // `K - 1 - i` distinct rows after it; restart the later ones just
        // past it.
        'outer: for i in (0..K).rev() {
            // SAFETY: the cursors walk the state's matched archetypes in
            // its world.
            if !unsafe { self.cursors[i].advance(self.state, self.archetypes, self.tables) } {
                if i == 0 {
                    return false;
                }
                continue;
            }
            for j in i + 1..K {
                self.cursors[j] = self.cursors[j - 1].clone();
                // SAFETY: as above.
                if !unsafe { self.cursors[j].advance(self.state, self.archetypes, self.tables) } {
                    if i == 0 {
                        return false;
                    }
                    continue 'outer;
                }
            }
            return true;
        }
        false
    }

    /// The items at the cursors.
    ///
    /// # Safety
    /// `advance` returned true; no other live item aliases what these
    /// write.
    unsafe fn items<'a>(&self) -> [D::Item<'a>; K]
    where
        'w: 'a,
    {
        let world: UnsafeWorldCell<'a> = self.world;
        std::array::from_fn(|i| {
            // SAFETY: each cursor stands on a distinct row (each stands
            // past the one before), so the items do not alias one another;
            // the rest is the caller's.
            unsafe { self.cursors[i].item(world, self.state, self.last_run, self.this_run) }
        })
    }

    /// The next combination, borrowing the iterator: the mutable form's
    /// way to walk, since successive combinations share entities.
    #[inline]
    pub fn fetch_next(&mut self) -> Option<[D::Item<'_>; K]> {
        if !self.advance() {
            return None;
        }
        // SAFETY: the items borrow `self` mutably, so no earlier array of
        // this iterator is alive.
        Some(unsafe { self.items() })
    }
}

impl<'w, D: ReadOnlyQueryData, F: QueryFilter, const K: usize> Iterator
    for QueryCombinationIter<'w, '_, D, F, K>
{
    type Item = [D::Item<'w>; K];

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if !self.advance() {
            return None;
        }
        // SAFETY: read-only items may alias.
        Some(unsafe { self.items() })
    }

    /// Exact when the filter is archetypal; the upper bound is `None` when
    /// the count overflows `usize`.
    fn size_hint(&self) -> (usize, Option<usize>) {
        // The combinations left: for each cursor `i`, those that keep
        // cursors `0..i` and move `i` on, `choose(rows after i, K - i)`.
        let max = self
            .cursors
            .iter()
            .enumerate()
            .try_fold(0usize, |acc, (i, cursor)| {
                acc.checked_add(choose(
                    cursor.max_remaining(self.archetypes, self.tables),
                    K - i,
                )?)
            });
        let min = if F::IS_ARCHETYPAL {
            max.unwrap_or(usize::MAX)
        } else {
            0
        };
        (min, max)
    }
}

impl<D: ReadOnlyQueryData, F: QueryFilter, const K: usize> FusedIterator
    for QueryCombinationIter<'_, '_, D, F, K>
{
}

impl<D: QueryData, F: QueryFilter, const K: usize> std::fmt::Debug
    for QueryCombinationIter<'_, '_, D, F, K>
{
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QueryCombinationIter")
            .field("query", &std::any::type_name::<(D, F)>())
            .field("k", &K)
            .finish_non_exhaustive()
    }
}

/// `n` choose `k`, or `None` on overflow.
fn choose(n: usize, k: usize) -> Option<usize> {
    if k > n {
        return Some(0);
    }
    let k = k.min(n - k);
    // Multiplying and dividing in turn keeps every partial result a
    // binomial coefficient, so it divides exactly and overflows late.
    (1..=k).try_fold(1usize, |acc, i| Some(acc.checked_mul(n - k + i)? / i))
}

#[cfg(test)]
mod tests {
    use super::choose;

    #[test]
    fn choose_matches_pascal() {
        assert_eq!(choose(0, 0), Some(1));
        assert_eq!(choose(5, 0), Some(1));
        assert_eq!(choose(5, 2), Some(10));
        assert_eq!(choose(5, 5), Some(1));
        assert_eq!(choose(2, 3), Some(0));
        assert_eq!(choose(52, 5), Some(2_598_960));
        assert_eq!(choose(usize::MAX, 2), None);
    }
}
