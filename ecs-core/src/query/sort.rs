//! Sorting a query's items: [`QueryIter::sort`] and its siblings, and the
//! iterator they return, [`QuerySortedIter`].
//!
//! A sort reads a key for every match through a lens (`L`, read-only,
//! with the query's own filter), sorts the `(key, entity)` pairs, drops
//! the keys, then fetches the query's items entity by entity in the
//! sorted order:
//!
//! ```text
//!  query.iter_mut().sort::<&Rank>()
//!    lens (&Rank, Entity) over the query's matches -> [(3, e1), (1, e7), (2, e4)]
//!    sort by key                                   -> [e7, e4, e1]
//!    fetch the query's own items                   -> item(e7), item(e4), item(e1)
//! ```
//!
//! The keys are gone before the first item is fetched, so a sort may read
//! a component the items then write.

use std::{cmp::Ordering, iter::FusedIterator};

use super::{QueryData, QueryFilter, QueryIter, QueryState, ReadOnlyQueryData};
use crate::{
    change_detection::Tick,
    entity::{Entity, EntityHashMap},
    world::UnsafeWorldCell,
};

/// The items of a query in an order given by a list of its matches: what
/// [`QueryIter::sort`] and its siblings return.
pub struct QuerySortedIter<'w, 's, D: QueryData, F: QueryFilter, I>
where
    I: Iterator<Item = Entity>,
{
    entity_iter: I,
    world: UnsafeWorldCell<'w>,
    state: &'s QueryState<D, F>,
    fetch: D::Fetch<'w>,
}

impl<'w, 's, D: QueryData, F: QueryFilter, I: Iterator<Item = Entity>>
    QuerySortedIter<'w, 's, D, F, I>
{
    /// # Safety
    /// As for [`QueryIter::new`]; every entity of `entities` is a match of
    /// `state` that exists as long as the iterator lives, and none is
    /// listed twice.
    unsafe fn new(
        world: UnsafeWorldCell<'w>,
        state: &'s QueryState<D, F>,
        entities: I,
        last_run: Tick,
        this_run: Tick,
    ) -> Self {
        // SAFETY: the state was built for `world`, whose access the caller
        // holds.
        let fetch = unsafe { D::init_fetch(world, &state.fetch_state, last_run, this_run) };
        QuerySortedIter {
            entity_iter: entities,
            world,
            state,
            fetch,
        }
    }

    /// The item of `entity`, one of the listed matches.
    fn fetch_entity(&mut self, entity: Entity) -> D::Item<'w> {
        let location = self
            .world
            .entities()
            .get(entity)
            .expect("a sorted query's entity exists while the iterator lives");
        let archetype = &self.world.archetypes()[location.archetype_id];
        // SAFETY: the fetch below reads only what the iterator's access
        // covers.
        let table = &unsafe { self.world.storages() }.tables[location.table_id];
        // SAFETY: the entity is a match of the state (`new`'s contract), so
        // its archetype is matched and `table` is its table; each entity is
        // listed once, so no two items alias.
        unsafe {
            D::set_archetype(&mut self.fetch, &self.state.fetch_state, archetype, table);
            D::fetch(&mut self.fetch, entity, location.table_row)
        }
    }
}

impl<'w, D: QueryData, F: QueryFilter, I: Iterator<Item = Entity>> Iterator
    for QuerySortedIter<'w, '_, D, F, I>
{
    type Item = D::Item<'w>;

    #[inline]
    fn next(&mut self) -> Option<D::Item<'w>> {
        let entity = self.entity_iter.next()?;
        Some(self.fetch_entity(entity))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.entity_iter.size_hint()
    }
}

impl<D: QueryData, F: QueryFilter, I> DoubleEndedIterator for QuerySortedIter<'_, '_, D, F, I>
where
    I: DoubleEndedIterator<Item = Entity>,
{
    #[inline]
    fn next_back(&mut self) -> Option<Self::Item> {
        let entity = self.entity_iter.next_back()?;
        Some(self.fetch_entity(entity))
    }
}

impl<D: QueryData, F: QueryFilter, I> ExactSizeIterator for QuerySortedIter<'_, '_, D, F, I> where
    I: ExactSizeIterator<Item = Entity>
{
}

impl<D: QueryData, F: QueryFilter, I> FusedIterator for QuerySortedIter<'_, '_, D, F, I> where
    I: FusedIterator<Item = Entity>
{
}

impl<'w, 's, D: QueryData, F: QueryFilter> QueryIter<'w, 's, D, F> {
    /// The items in the order of their `L` keys (a stable sort).
    ///
    /// `L` is read-only query data the query's access covers (as for
    /// [`Query::transmute_lens`](crate::system::Query::transmute_lens)),
    /// fetched with the query's filter.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Component, PartialEq, Eq, PartialOrd, Ord)]
    /// struct Rank(u32);
    /// #[derive(Component)]
    /// struct Name(&'static str);
    ///
    /// let mut world = World::new();
    /// world.spawn((Rank(2), Name("b")));
    /// world.spawn((Rank(1), Name("a")));
    /// world.spawn((Rank(3), Name("c")));
    /// let mut query = world.query::<(&Name, &Rank)>();
    /// let names: Vec<_> = query.iter(&world).sort::<&Rank>().map(|(n, _)| n.0).collect();
    /// assert_eq!(names, ["a", "b", "c"]);
    /// ```
    ///
    /// # Panics
    /// If `next` was called on this iterator before and returned an item,
    /// or if `L` asks for access the query does not have.
    #[track_caller]
    pub fn sort<L: ReadOnlyQueryData + 'w>(
        self,
    ) -> QuerySortedIter<
        'w,
        's,
        D,
        F,
        impl ExactSizeIterator<Item = Entity> + DoubleEndedIterator + FusedIterator + 'w,
    >
    where
        for<'lw> L::Item<'lw>: Ord,
    {
        self.sort_impl::<L>(|keys| keys.sort_by(|(a, _), (b, _)| a.cmp(b)))
    }

    /// [`QueryIter::sort`], unstable (equal keys may come in any order).
    ///
    /// # Panics
    /// As for [`QueryIter::sort`].
    #[track_caller]
    pub fn sort_unstable<L: ReadOnlyQueryData + 'w>(
        self,
    ) -> QuerySortedIter<
        'w,
        's,
        D,
        F,
        impl ExactSizeIterator<Item = Entity> + DoubleEndedIterator + FusedIterator + 'w,
    >
    where
        for<'lw> L::Item<'lw>: Ord,
    {
        self.sort_impl::<L>(|keys| keys.sort_unstable_by(|(a, _), (b, _)| a.cmp(b)))
    }

    /// The items in the order `compare` gives their `L` keys (stable).
    ///
    /// # Panics
    /// As for [`QueryIter::sort`].
    #[track_caller]
    pub fn sort_by<L: ReadOnlyQueryData + 'w>(
        self,
        mut compare: impl FnMut(&L::Item<'_>, &L::Item<'_>) -> Ordering,
    ) -> QuerySortedIter<
        'w,
        's,
        D,
        F,
        impl ExactSizeIterator<Item = Entity> + DoubleEndedIterator + FusedIterator + 'w,
    > {
        self.sort_impl::<L>(move |keys| keys.sort_by(|(a, _), (b, _)| compare(a, b)))
    }

    /// [`QueryIter::sort_by`], unstable.
    ///
    /// # Panics
    /// As for [`QueryIter::sort`].
    #[track_caller]
    pub fn sort_unstable_by<L: ReadOnlyQueryData + 'w>(
        self,
        mut compare: impl FnMut(&L::Item<'_>, &L::Item<'_>) -> Ordering,
    ) -> QuerySortedIter<
        'w,
        's,
        D,
        F,
        impl ExactSizeIterator<Item = Entity> + DoubleEndedIterator + FusedIterator + 'w,
    > {
        self.sort_impl::<L>(move |keys| keys.sort_unstable_by(|(a, _), (b, _)| compare(a, b)))
    }

    /// The items in the order of `f` of their `L` keys (stable).
    ///
    /// # Panics
    /// As for [`QueryIter::sort`].
    #[track_caller]
    pub fn sort_by_key<L: ReadOnlyQueryData + 'w, K: Ord>(
        self,
        mut f: impl FnMut(&L::Item<'_>) -> K,
    ) -> QuerySortedIter<
        'w,
        's,
        D,
        F,
        impl ExactSizeIterator<Item = Entity> + DoubleEndedIterator + FusedIterator + 'w,
    > {
        self.sort_impl::<L>(move |keys| keys.sort_by_key(|(key, _)| f(key)))
    }

    /// [`QueryIter::sort_by_key`], unstable.
    ///
    /// # Panics
    /// As for [`QueryIter::sort`].
    #[track_caller]
    pub fn sort_unstable_by_key<L: ReadOnlyQueryData + 'w, K: Ord>(
        self,
        mut f: impl FnMut(&L::Item<'_>) -> K,
    ) -> QuerySortedIter<
        'w,
        's,
        D,
        F,
        impl ExactSizeIterator<Item = Entity> + DoubleEndedIterator + FusedIterator + 'w,
    > {
        self.sort_impl::<L>(move |keys| keys.sort_unstable_by_key(|(key, _)| f(key)))
    }

    /// [`QueryIter::sort_by_key`], calling `f` once per item (for costly
    /// keys).
    ///
    /// # Panics
    /// As for [`QueryIter::sort`].
    #[track_caller]
    pub fn sort_by_cached_key<L: ReadOnlyQueryData + 'w, K: Ord>(
        self,
        mut f: impl FnMut(&L::Item<'_>) -> K,
    ) -> QuerySortedIter<
        'w,
        's,
        D,
        F,
        impl ExactSizeIterator<Item = Entity> + DoubleEndedIterator + FusedIterator + 'w,
    > {
        self.sort_impl::<L>(move |keys| keys.sort_by_cached_key(|(key, _)| f(key)))
    }

    #[track_caller]
    fn sort_impl<L: ReadOnlyQueryData + 'w>(
        self,
        sort: impl FnOnce(&mut Vec<(L::Item<'w>, Entity)>),
    ) -> QuerySortedIter<'w, 's, D, F, std::vec::IntoIter<Entity>> {
        // The first `next` that finds a row sets one of these (a walk of a
        // sparse set has its rows from the start, and moves past row 0),
        // and only an untouched iterator still holds every match.
        assert!(
            (self.table_entities.is_empty() && self.archetype_entities.is_empty())
                || (self.walks_set && self.current_row == 0),
            "cannot sort the items of `{}` after `next` returned one of them: sort the \
             iterator before taking items from it",
            std::any::type_name::<QueryState<D, F>>()
        );
        let (world, last_run, this_run) = (self.world, self.last_run, self.this_run);
        let lens = self.state.transmute_filtered::<(L, Entity), F>(world);
        // SAFETY: the lens reads a subset of what the query may access
        // (checked by `transmute_filtered`), and no item of the query has
        // been handed out yet; the lens's items are dropped below, before
        // any item of the query is fetched.
        let keys = unsafe { lens.iter_unchecked_manual(world, last_run, this_run) };
        let mut keys: Vec<(L::Item<'w>, Entity)> = keys.collect();
        if self.walks_set {
            // The lens may walk archetypes: put the keys in the order this
            // iterator would yield, so that a stable sort keeps ties so.
            let at: EntityHashMap<usize> = self
                .table_entities
                .iter()
                .enumerate()
                .map(|(at, &entity)| (entity, at))
                .collect();
            keys.sort_by_key(|(_, entity)| at.get(entity).copied());
        }
        sort(&mut keys);
        let entities: Vec<Entity> = keys.into_iter().map(|(_, entity)| entity).collect();
        // SAFETY: the query's access is held for `'w` (it was the
        // iterator's); the entities are the query's matches, each once,
        // and no structural change can happen while the world is borrowed.
        unsafe { QuerySortedIter::new(world, self.state, entities.into_iter(), last_run, this_run) }
    }
}
