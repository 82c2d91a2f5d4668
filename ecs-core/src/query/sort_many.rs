//! Sorting the items of a list of entities: [`QueryManyIter::sort`] and
//! its siblings, and the iterator they return, [`QuerySortedManyIter`].
//!
//! As for [`QueryIter::sort`](super::QueryIter::sort), a key is read for
//! each listed entity through a read-only lens, the `(key, entity)` pairs
//! are sorted and the keys dropped before any item is fetched:
//!
//! ```text
//!  query.iter_many_mut([e4, e9, e1]).sort::<&Rank>()
//!    lens (&Rank, Entity) per entity -> [Ok((2, e4)), Err(e9 no match), Ok((1, e1))]
//!    sort the keyed ones by key      -> [e1, e4], then the errors in list order: [e9]
//!    fetch the query's own items     -> Ok(item(e1)), Ok(item(e4)), Err(e9 no match)
//! ```

use std::{borrow::Borrow, cmp::Ordering, iter::FusedIterator};

use super::{
    QueryData, QueryEntityError, QueryFilter, QueryManyIter, QueryState, ReadOnlyQueryData,
};
use crate::{change_detection::Tick, entity::Entity, world::UnsafeWorldCell};

/// The items of a query for a list of entities, in an order given by
/// their sort keys: what [`QueryManyIter::sort`] and its siblings return.
/// Entities the query cannot return come last, as errors.
///
/// The list may name an entity twice, so mutable items come one at a time
/// through [`QuerySortedManyIter::fetch_next`]; read-only ones also through
/// [`Iterator`].
pub struct QuerySortedManyIter<'w, 's, D: QueryData, F: QueryFilter, I>
where
    I: Iterator<Item = Result<Entity, QueryEntityError>>,
{
    world: UnsafeWorldCell<'w>,
    state: &'s QueryState<D, F>,
    entity_iter: I,
    last_run: Tick,
    this_run: Tick,
}

impl<'w, D: QueryData, F: QueryFilter, I> QuerySortedManyIter<'w, '_, D, F, I>
where
    I: Iterator<Item = Result<Entity, QueryEntityError>>,
{
    /// The item of the listed entity (or the error it was listed with).
    ///
    /// # Safety
    /// No other live item aliases what this one writes (always so for
    /// read-only data).
    #[inline]
    unsafe fn fetch<'a>(
        &self,
        entity: Result<Entity, QueryEntityError>,
    ) -> Result<D::Item<'a>, QueryEntityError>
    where
        'w: 'a,
    {
        let world: UnsafeWorldCell<'a> = self.world;
        // SAFETY: the state belongs to `world` and the access is held (it
        // was the many-iterator's); aliasing is the caller's concern.
        unsafe {
            self.state
                .get_unchecked_manual(world, entity?, self.last_run, self.this_run)
        }
    }

    /// The next item (or why there is none), borrowing the iterator: a
    /// mutable item must be gone before the next call, since the list may
    /// name the same entity again.
    #[inline]
    pub fn fetch_next(&mut self) -> Option<Result<D::Item<'_>, QueryEntityError>> {
        let entity = self.entity_iter.next()?;
        // SAFETY: the item borrows `self` mutably, so no earlier item of
        // this iterator is alive.
        Some(unsafe { self.fetch(entity) })
    }
}

impl<D: QueryData, F: QueryFilter, I> QuerySortedManyIter<'_, '_, D, F, I>
where
    I: DoubleEndedIterator<Item = Result<Entity, QueryEntityError>>,
{
    /// [`QuerySortedManyIter::fetch_next`] from the back.
    #[inline]
    pub fn fetch_next_back(&mut self) -> Option<Result<D::Item<'_>, QueryEntityError>> {
        let entity = self.entity_iter.next_back()?;
        // SAFETY: as in `fetch_next`.
        Some(unsafe { self.fetch(entity) })
    }
}

impl<'w, D: ReadOnlyQueryData, F: QueryFilter, I> Iterator for QuerySortedManyIter<'w, '_, D, F, I>
where
    I: Iterator<Item = Result<Entity, QueryEntityError>>,
{
    type Item = Result<D::Item<'w>, QueryEntityError>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let entity = self.entity_iter.next()?;
        // SAFETY: read-only items may alias.
        Some(unsafe { self.fetch(entity) })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.entity_iter.size_hint()
    }
}

impl<D: ReadOnlyQueryData, F: QueryFilter, I> DoubleEndedIterator
    for QuerySortedManyIter<'_, '_, D, F, I>
where
    I: DoubleEndedIterator<Item = Result<Entity, QueryEntityError>>,
{
    #[inline]
    fn next_back(&mut self) -> Option<Self::Item> {
        let entity = self.entity_iter.next_back()?;
        // SAFETY: read-only items may alias.
        Some(unsafe { self.fetch(entity) })
    }
}

impl<D: ReadOnlyQueryData, F: QueryFilter, I> ExactSizeIterator
    for QuerySortedManyIter<'_, '_, D, F, I>
where
    I: ExactSizeIterator<Item = Result<Entity, QueryEntityError>>,
{
}

impl<D: ReadOnlyQueryData, F: QueryFilter, I> FusedIterator for QuerySortedManyIter<'_, '_, D, F, I> where
    I: FusedIterator<Item = Result<Entity, QueryEntityError>>
{
}

impl<D: QueryData, F: QueryFilter, I> std::fmt::Debug for QuerySortedManyIter<'_, '_, D, F, I>
where
    I: Iterator<Item = Result<Entity, QueryEntityError>>,
{
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QuerySortedManyIter")
            .field("query", &std::any::type_name::<(D, F)>())
            .finish_non_exhaustive()
    }
}

/// The entity order a sort of a many-iterator returns.
type SortedEntities = std::vec::IntoIter<Result<Entity, QueryEntityError>>;

macro_rules! sorted_many_iter {
    ($w:lifetime, $s:lifetime) => {
        QuerySortedManyIter<
            $w,
            $s,
            D,
            F,
            impl ExactSizeIterator<Item = Result<Entity, QueryEntityError>>
                + DoubleEndedIterator
                + FusedIterator
                + $w,
        >
    };
}

impl<'w, 's, D: QueryData, F: QueryFilter, I: Iterator<Item: Borrow<Entity>>>
    QueryManyIter<'w, 's, D, F, I>
{
    /// The items in the order of their `L` keys (a stable sort); entities
    /// the query cannot return come last, as errors, in list order.
    ///
    /// `L` is read-only query data the query's access covers (as for
    /// [`Query::transmute_lens`](crate::system::Query::transmute_lens)).
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Component, PartialEq, Eq, PartialOrd, Ord)]
    /// struct Rank(u32);
    ///
    /// let mut world = World::new();
    /// let a = world.spawn(Rank(2)).id();
    /// let b = world.spawn(Rank(1)).id();
    /// let mut query = world.query::<(Entity, &mut Rank)>();
    /// let mut iter = query.iter_many_mut(&mut world, [a, b]).sort::<&Rank>();
    /// let mut order = Vec::new();
    /// while let Some(Ok((entity, mut rank))) = iter.fetch_next() {
    ///     rank.0 *= 10;
    ///     order.push(entity);
    /// }
    /// assert_eq!(order, [b, a]);
    /// ```
    ///
    /// # Panics
    /// If `L` asks for access the query does not have.
    #[track_caller]
    pub fn sort<L: ReadOnlyQueryData + 'w>(self) -> sorted_many_iter!('w, 's)
    where
        for<'lw> L::Item<'lw>: Ord,
    {
        self.sort_impl::<L>(|keys| keys.sort_by(|(a, _), (b, _)| a.cmp(b)))
    }

    /// [`QueryManyIter::sort`], unstable (equal keys may come in any order).
    ///
    /// # Panics
    /// As for [`QueryManyIter::sort`].
    #[track_caller]
    pub fn sort_unstable<L: ReadOnlyQueryData + 'w>(self) -> sorted_many_iter!('w, 's)
    where
        for<'lw> L::Item<'lw>: Ord,
    {
        self.sort_impl::<L>(|keys| keys.sort_unstable_by(|(a, _), (b, _)| a.cmp(b)))
    }

    /// The items in the order `compare` gives their `L` keys (stable).
    ///
    /// # Panics
    /// As for [`QueryManyIter::sort`].
    #[track_caller]
    pub fn sort_by<L: ReadOnlyQueryData + 'w>(
        self,
        mut compare: impl FnMut(&L::Item<'_>, &L::Item<'_>) -> Ordering,
    ) -> sorted_many_iter!('w, 's) {
        self.sort_impl::<L>(move |keys| keys.sort_by(|(a, _), (b, _)| compare(a, b)))
    }

    /// [`QueryManyIter::sort_by`], unstable.
    ///
    /// # Panics
    /// As for [`QueryManyIter::sort`].
    #[track_caller]
    pub fn sort_unstable_by<L: ReadOnlyQueryData + 'w>(
        self,
        mut compare: impl FnMut(&L::Item<'_>, &L::Item<'_>) -> Ordering,
    ) -> sorted_many_iter!('w, 's) {
        self.sort_impl::<L>(move |keys| keys.sort_unstable_by(|(a, _), (b, _)| compare(a, b)))
    }

    /// The items in the order of `f` of their `L` keys (stable).
    ///
    /// # Panics
    /// As for [`QueryManyIter::sort`].
    #[track_caller]
    pub fn sort_by_key<L: ReadOnlyQueryData + 'w, K: Ord>(
        self,
        mut f: impl FnMut(&L::Item<'_>) -> K,
    ) -> sorted_many_iter!('w, 's) {
        self.sort_impl::<L>(move |keys| keys.sort_by_key(|(key, _)| f(key)))
    }

    /// [`QueryManyIter::sort_by_key`], unstable.
    ///
    /// # Panics
    /// As for [`QueryManyIter::sort`].
    #[track_caller]
    pub fn sort_unstable_by_key<L: ReadOnlyQueryData + 'w, K: Ord>(
        self,
        mut f: impl FnMut(&L::Item<'_>) -> K,
    ) -> sorted_many_iter!('w, 's) {
        self.sort_impl::<L>(move |keys| keys.sort_unstable_by_key(|(key, _)| f(key)))
    }

    /// [`QueryManyIter::sort_by_key`], calling `f` once per item (for
    /// costly keys).
    ///
    /// # Panics
    /// As for [`QueryManyIter::sort`].
    #[track_caller]
    pub fn sort_by_cached_key<L: ReadOnlyQueryData + 'w, K: Ord>(
        self,
        mut f: impl FnMut(&L::Item<'_>) -> K,
    ) -> sorted_many_iter!('w, 's) {
        self.sort_impl::<L>(move |keys| keys.sort_by_cached_key(|(key, _)| f(key)))
    }

    #[track_caller]
    fn sort_impl<L: ReadOnlyQueryData + 'w>(
        self,
        sort: impl FnOnce(&mut Vec<(L::Item<'w>, Entity)>),
    ) -> QuerySortedManyIter<'w, 's, D, F, SortedEntities> {
        let (world, last_run, this_run) = (self.world, self.last_run, self.this_run);
        let lens = self.state.transmute_filtered::<L, F>(world);
        let mut keys = Vec::with_capacity(self.entity_iter.size_hint().0);
        let mut errors = Vec::new();
        for entity in self.entity_iter {
            let entity = *entity.borrow();
            // SAFETY: the lens reads a subset of what the query may access
            // (checked by `transmute_filtered`), and no item of the query
            // has been handed out by this iterator; the keys are dropped
            // below, before any item of the query is fetched.
            match unsafe { lens.get_unchecked_manual(world, entity, last_run, this_run) } {
                Ok(key) => keys.push((key, entity)),
                Err(error) => errors.push(Err(error)),
            }
        }
        sort(&mut keys);
        let mut entities: Vec<Result<Entity, QueryEntityError>> =
            keys.into_iter().map(|(_, entity)| Ok(entity)).collect();
        entities.append(&mut errors);
        QuerySortedManyIter {
            world,
            state: self.state,
            entity_iter: entities.into_iter(),
            last_run,
            this_run,
        }
    }
}
