//! [`QueryManyIter`]: a query's items for a list of entities, in the
//! list's order, with an error for each entity the query cannot return.
//!
//! ```text
//!  entities  [e7, e2, e9, e2]
//!  items     [Ok(e7's), Ok(e2's), Err(QueryDoesNotMatch(e9)), Ok(e2's)]
//! ```
//!
//! A list may name an entity twice. Read-only items may alias, so the
//! read-only form is an [`Iterator`]; a mutable one hands out one item at a
//! time through [`QueryManyIter::fetch_next`], whose item borrows the
//! iterator and so is gone before the next call can alias it.

use std::{borrow::Borrow, iter::FusedIterator};

use super::{QueryData, QueryEntityError, QueryFilter, QueryState, ReadOnlyQueryData};
use crate::{
    change_detection::Tick,
    entity::{ContainsEntity, Entity, EntitySet, EntitySetIterator},
    world::UnsafeWorldCell,
};

/// The items of a query for the entities of a list, in the list's order;
/// an entity that does not exist or does not match yields a
/// [`QueryEntityError`] instead.
///
/// Made by [`Query::iter_many`](crate::system::Query::iter_many),
/// [`Query::iter_many_mut`](crate::system::Query::iter_many_mut) and their
/// [`QueryState`] twins. The list's items are anything that
/// [`Borrow<Entity>`](Borrow) (`Entity`, `&Entity`, ...) where bevy's are
/// [`EntityEquivalent`](crate::entity::EntityEquivalent): the standard
/// trait already covers the ways a list holds entities.
///
/// ```
/// use ecs::prelude::*;
///
/// #[derive(Component)]
/// struct Health(u32);
///
/// let mut world = World::new();
/// let a = world.spawn(Health(3)).id();
/// let b = world.spawn(Health(5)).id();
/// let c = world.spawn_empty().id();
///
/// let mut query = world.query::<&mut Health>();
/// let mut iter = query.iter_many_mut(&mut world, [b, a, b, c]);
/// // Mutable items come one at a time: the list names `b` twice.
/// while let Some(item) = iter.fetch_next() {
///     if let Ok(mut health) = item {
///         health.0 += 1;
///     }
/// }
/// let healths: Vec<u32> = query.iter_many(&world, [a, b]).map(|h| h.unwrap().0).collect();
/// assert_eq!(healths, [4, 7]);
/// ```
pub struct QueryManyIter<'w, 's, D: QueryData, F: QueryFilter, I: Iterator<Item: Borrow<Entity>>> {
    pub(super) world: UnsafeWorldCell<'w>,
    pub(super) state: &'s QueryState<D, F>,
    pub(super) entity_iter: I,
    pub(super) last_run: Tick,
    pub(super) this_run: Tick,
}

impl<'w, 's, D: QueryData, F: QueryFilter, I: Iterator<Item: Borrow<Entity>>>
    QueryManyIter<'w, 's, D, F, I>
{
    /// # Safety
    /// `world` is the world `state` was built for, and the caller has the
    /// access `state` records for `'w`.
    pub(crate) unsafe fn new<EntityList: IntoIterator<IntoIter = I>>(
        world: UnsafeWorldCell<'w>,
        state: &'s QueryState<D, F>,
        entities: EntityList,
        last_run: Tick,
        this_run: Tick,
    ) -> Self {
        QueryManyIter {
            world,
            state,
            entity_iter: entities.into_iter(),
            last_run,
            this_run,
        }
    }

    /// The item of `entity`, with the lifetime the caller picks.
    ///
    /// # Safety
    /// No other live item aliases what this one writes (always so for
    /// read-only data).
    #[inline]
    unsafe fn fetch<'a>(&self, entity: Entity) -> Result<D::Item<'a>, QueryEntityError>
    where
        'w: 'a,
    {
        let world: UnsafeWorldCell<'a> = self.world;
        // SAFETY: the state belongs to `world` and the access is held
        // (`new`); aliasing is the caller's concern.
        unsafe {
            self.state
                .get_unchecked_manual(world, entity, self.last_run, self.this_run)
        }
    }

    /// The next entity's item (or why there is none), borrowing the
    /// iterator: a mutable item must be gone before the next call, since
    /// the list may name the same entity again.
    #[inline]
    pub fn fetch_next(&mut self) -> Option<Result<D::Item<'_>, QueryEntityError>> {
        let entity = *self.entity_iter.next()?.borrow();
        // SAFETY: the item borrows `self` mutably, so no earlier item of
        // this iterator is alive.
        Some(unsafe { self.fetch(entity) })
    }

    /// An iterator that unwraps each result, panicking on an entity the
    /// query cannot return.
    #[inline]
    pub fn unwrapped(self) -> QueryManyUnwrappedIter<Self> {
        QueryManyUnwrappedIter(self)
    }

    /// An iterator that skips the entities the query cannot return.
    #[inline]
    pub fn matched(self) -> QueryManyMatchedIter<Self> {
        QueryManyMatchedIter(self)
    }
}

impl<'w, D: QueryData, F: QueryFilter, I: DoubleEndedIterator<Item: Borrow<Entity>>>
    QueryManyIter<'w, '_, D, F, I>
{
    /// [`QueryManyIter::fetch_next`] from the back of the list.
    #[inline]
    pub fn fetch_next_back(&mut self) -> Option<Result<D::Item<'_>, QueryEntityError>> {
        let entity = *self.entity_iter.next_back()?.borrow();
        // SAFETY: as in `fetch_next`.
        Some(unsafe { self.fetch(entity) })
    }
}

impl<'w, D: ReadOnlyQueryData, F: QueryFilter, I: Iterator<Item: Borrow<Entity>>> Iterator
    for QueryManyIter<'w, '_, D, F, I>
{
    type Item = Result<D::Item<'w>, QueryEntityError>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let entity = *self.entity_iter.next()?.borrow();
        // SAFETY: read-only items may alias.
        Some(unsafe { self.fetch(entity) })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.entity_iter.size_hint()
    }
}

impl<D: ReadOnlyQueryData, F: QueryFilter, I: DoubleEndedIterator<Item: Borrow<Entity>>>
    DoubleEndedIterator for QueryManyIter<'_, '_, D, F, I>
{
    #[inline]
    fn next_back(&mut self) -> Option<Self::Item> {
        let entity = *self.entity_iter.next_back()?.borrow();
        // SAFETY: read-only items may alias.
        Some(unsafe { self.fetch(entity) })
    }
}

impl<D: ReadOnlyQueryData, F: QueryFilter, I: ExactSizeIterator<Item: Borrow<Entity>>>
    ExactSizeIterator for QueryManyIter<'_, '_, D, F, I>
{
}

impl<D: ReadOnlyQueryData, F: QueryFilter, I: FusedIterator<Item: Borrow<Entity>>> FusedIterator
    for QueryManyIter<'_, '_, D, F, I>
{
}

impl<D: QueryData, F: QueryFilter, I: Iterator<Item: Borrow<Entity>>> std::fmt::Debug
    for QueryManyIter<'_, '_, D, F, I>
{
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QueryManyIter")
            .field("query", &std::any::type_name::<(D, F)>())
            .finish_non_exhaustive()
    }
}

/// The items of a [`QueryManyIter`], unwrapped: panics on an entity the
/// query cannot return, naming it. Made by [`QueryManyIter::unwrapped`].
pub struct QueryManyUnwrappedIter<I>(I);

impl<D: QueryData, F: QueryFilter, I: Iterator<Item: Borrow<Entity>>>
    QueryManyUnwrappedIter<QueryManyIter<'_, '_, D, F, I>>
{
    /// The next item, borrowing the iterator (see
    /// [`QueryManyIter::fetch_next`]).
    ///
    /// # Panics
    /// If the entity does not exist or does not match the query.
    #[inline]
    #[track_caller]
    pub fn fetch_next(&mut self) -> Option<D::Item<'_>> {
        self.0.fetch_next().map(unwrap_item)
    }
}

impl<D: QueryData, F: QueryFilter, I: DoubleEndedIterator<Item: Borrow<Entity>>>
    QueryManyUnwrappedIter<QueryManyIter<'_, '_, D, F, I>>
{
    /// The next item from the back, borrowing the iterator.
    ///
    /// # Panics
    /// If the entity does not exist or does not match the query.
    #[inline]
    #[track_caller]
    pub fn fetch_next_back(&mut self) -> Option<D::Item<'_>> {
        self.0.fetch_next_back().map(unwrap_item)
    }
}

impl<T, I: Iterator<Item = Result<T, QueryEntityError>>> Iterator for QueryManyUnwrappedIter<I> {
    type Item = T;

    #[inline]
    #[track_caller]
    fn next(&mut self) -> Option<T> {
        self.0.next().map(unwrap_item)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl<T, I: DoubleEndedIterator<Item = Result<T, QueryEntityError>>> DoubleEndedIterator
    for QueryManyUnwrappedIter<I>
{
    #[inline]
    #[track_caller]
    fn next_back(&mut self) -> Option<T> {
        self.0.next_back().map(unwrap_item)
    }
}

impl<T, I: FusedIterator<Item = Result<T, QueryEntityError>>> FusedIterator
    for QueryManyUnwrappedIter<I>
{
}

impl<I> std::fmt::Debug for QueryManyUnwrappedIter<I> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QueryManyUnwrappedIter")
            .finish_non_exhaustive()
    }
}

#[inline]
#[track_caller]
fn unwrap_item<T>(item: Result<T, QueryEntityError>) -> T {
    match item {
        Ok(item) => item,
        Err(error) => panic!("iter_many(..).unwrapped(): {error}"),
    }
}

/// The items of a [`QueryManyIter`] for the entities the query can
/// return; the others are skipped. Made by [`QueryManyIter::matched`].
pub struct QueryManyMatchedIter<I>(I);

impl<D: QueryData, F: QueryFilter, I: Iterator<Item: Borrow<Entity>>>
    QueryManyMatchedIter<QueryManyIter<'_, '_, D, F, I>>
{
    /// The next matching item, borrowing the iterator (see
    /// [`QueryManyIter::fetch_next`]).
    #[inline]
    pub fn fetch_next(&mut self) -> Option<D::Item<'_>> {
        let inner = &mut self.0;
        loop {
            let entity = *inner.entity_iter.next()?.borrow();
            // SAFETY: the item borrows `self` mutably, so no earlier item
            // of this iterator is alive; a failed fetch yields none.
            if let Ok(item) = unsafe { inner.fetch(entity) } {
                return Some(item);
            }
        }
    }
}

impl<D: QueryData, F: QueryFilter, I: DoubleEndedIterator<Item: Borrow<Entity>>>
    QueryManyMatchedIter<QueryManyIter<'_, '_, D, F, I>>
{
    /// The next matching item from the back, borrowing the iterator.
    #[inline]
    pub fn fetch_next_back(&mut self) -> Option<D::Item<'_>> {
        let inner = &mut self.0;
        loop {
            let entity = *inner.entity_iter.next_back()?.borrow();
            // SAFETY: as in `fetch_next`.
            if let Ok(item) = unsafe { inner.fetch(entity) } {
                return Some(item);
            }
        }
    }
}

impl<T, E, I: Iterator<Item = Result<T, E>>> Iterator for QueryManyMatchedIter<I> {
    type Item = T;

    #[inline]
    fn next(&mut self) -> Option<T> {
        self.0.by_ref().find_map(Result::ok)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, self.0.size_hint().1)
    }
}

impl<T, E, I: DoubleEndedIterator<Item = Result<T, E>>> DoubleEndedIterator
    for QueryManyMatchedIter<I>
{
    #[inline]
    fn next_back(&mut self) -> Option<T> {
        self.0.by_ref().rev().find_map(Result::ok)
    }
}

impl<T, E, I: FusedIterator<Item = Result<T, E>>> FusedIterator for QueryManyMatchedIter<I> {}

impl<I> std::fmt::Debug for QueryManyMatchedIter<I> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QueryManyMatchedIter")
            .finish_non_exhaustive()
    }
}

/// The items of a query for the entities of an [`EntitySet`], in the
/// set's order; an entity that does not exist or does not match yields a
/// [`QueryEntityError`] instead.
///
/// The set names each entity once, so mutable items never alias and this
/// is an [`Iterator`] even for mutable data (unlike [`QueryManyIter`]).
/// Made by [`Query::iter_many_unique`](crate::system::Query::iter_many_unique),
/// [`Query::iter_many_unique_mut`](crate::system::Query::iter_many_unique_mut)
/// and their [`QueryState`] twins.
///
/// ```
/// use ecs::entity::EntityHashSet;
/// use ecs::prelude::*;
///
/// #[derive(Component)]
/// struct Health(u32);
///
/// let mut world = World::new();
/// let a = world.spawn(Health(3)).id();
/// let b = world.spawn(Health(5)).id();
/// let targets = EntityHashSet::from([a, b]);
///
/// let mut query = world.query::<&mut Health>();
/// // Every item may be alive at once: collect them, then write.
/// let mut items: Vec<_> = query.iter_many_unique_mut(&mut world, &targets).map(Result::unwrap).collect();
/// for health in &mut items {
///     health.0 *= 2;
/// }
/// assert_eq!(world.get::<Health>(a).unwrap().0 + world.get::<Health>(b).unwrap().0, 16);
/// ```
pub struct QueryManyUniqueIter<'w, 's, D: QueryData, F: QueryFilter, I: EntitySetIterator> {
    world: UnsafeWorldCell<'w>,
    state: &'s QueryState<D, F>,
    entity_iter: I,
    last_run: Tick,
    this_run: Tick,
}

impl<'w, 's, D: QueryData, F: QueryFilter, I: EntitySetIterator>
    QueryManyUniqueIter<'w, 's, D, F, I>
{
    /// # Safety
    /// `world` is the world `state` was built for, and the caller has the
    /// access `state` records for `'w`, for as long as the items live.
    pub(crate) unsafe fn new<EntityList: EntitySet<IntoIter = I>>(
        world: UnsafeWorldCell<'w>,
        state: &'s QueryState<D, F>,
        entities: EntityList,
        last_run: Tick,
        this_run: Tick,
    ) -> Self {
        QueryManyUniqueIter {
            world,
            state,
            entity_iter: entities.into_iter(),
            last_run,
            this_run,
        }
    }

    /// An iterator that unwraps each result, panicking on an entity the
    /// query cannot return.
    #[inline]
    pub fn unwrapped(self) -> QueryManyUnwrappedIter<Self> {
        QueryManyUnwrappedIter(self)
    }

    /// An iterator that skips the entities the query cannot return.
    #[inline]
    pub fn matched(self) -> QueryManyMatchedIter<Self> {
        QueryManyMatchedIter(self)
    }

    #[inline]
    fn fetch(&self, entity: Entity) -> Result<D::Item<'w>, QueryEntityError> {
        // SAFETY: the state belongs to `world` and the access is held for
        // `'w` (`new`); the set yields each entity once, so no two items of
        // this iterator alias.
        unsafe {
            self.state
                .get_unchecked_manual(self.world, entity, self.last_run, self.this_run)
        }
    }
}

impl<'w, D: QueryData, F: QueryFilter, I: EntitySetIterator> Iterator
    for QueryManyUniqueIter<'w, '_, D, F, I>
{
    type Item = Result<D::Item<'w>, QueryEntityError>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let entity = self.entity_iter.next()?.entity();
        Some(self.fetch(entity))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.entity_iter.size_hint()
    }
}

impl<D: QueryData, F: QueryFilter, I: EntitySetIterator + DoubleEndedIterator> DoubleEndedIterator
    for QueryManyUniqueIter<'_, '_, D, F, I>
{
    #[inline]
    fn next_back(&mut self) -> Option<Self::Item> {
        let entity = self.entity_iter.next_back()?.entity();
        Some(self.fetch(entity))
    }
}

impl<D: QueryData, F: QueryFilter, I: EntitySetIterator + ExactSizeIterator> ExactSizeIterator
    for QueryManyUniqueIter<'_, '_, D, F, I>
{
}

impl<D: QueryData, F: QueryFilter, I: EntitySetIterator + FusedIterator> FusedIterator
    for QueryManyUniqueIter<'_, '_, D, F, I>
{
}

impl<D: QueryData, F: QueryFilter, I: EntitySetIterator> std::fmt::Debug
    for QueryManyUniqueIter<'_, '_, D, F, I>
{
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QueryManyUniqueIter")
            .field("query", &std::any::type_name::<(D, F)>())
            .finish_non_exhaustive()
    }
}
