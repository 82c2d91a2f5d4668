use std::{any::type_name, borrow::Borrow};

use crate::{
    change_detection::Tick,
    entity::{Entity, EntityEquivalent, EntitySet, EntitySetIterator, UniqueEntityArray},
    query::{
        ArchetypeFilter, ContiguousQueryData, QueryCombinationIter, QueryContiguousIter,
        QueryContiguousParIter, QueryData, QueryEntityError, QueryFilter, QueryIter, QueryManyIter,
        QueryManyUniqueIter, QueryNotDenseError, QueryParIter, QueryParManyIter,
        QueryParManyUniqueIter, QuerySingleError, QueryState, ReadOnlyQueryData,
    },
    world::UnsafeWorldCell,
};

/// A query as a system parameter: the entities with data `D` that pass the
/// filter `F`, seen with the system's own change ticks.
///
/// ```
/// use ecs::prelude::*;
///
/// #[derive(Component)]
/// struct Position(f32);
/// #[derive(Component)]
/// struct Velocity(f32);
///
/// fn movement(mut query: Query<(&mut Position, &Velocity)>) {
///     for (mut p, v) in &mut query {
///         p.0 += v.0;
///     }
/// }
///
/// let mut world = World::new();
/// let e = world.spawn((Position(0.0), Velocity(2.0))).id();
/// world.run_system_once(movement).unwrap();
/// assert_eq!(world.get::<Position>(e).unwrap().0, 2.0);
/// ```
pub struct Query<'w, 's, D: QueryData, F: QueryFilter = ()> {
    world: UnsafeWorldCell<'w>,
    state: &'s QueryState<D, F>,
    last_run: Tick,
    this_run: Tick,
}

impl<'w, 's, D: QueryData, F: QueryFilter> Query<'w, 's, D, F> {
    /// # Safety
    /// The state is up to date for `world`, and the caller holds the
    /// state's access for `'w`.
    pub(crate) unsafe fn new(
        world: UnsafeWorldCell<'w>,
        state: &'s QueryState<D, F>,
        last_run: Tick,
        this_run: Tick,
    ) -> Self {
        Query {
            world,
            state,
            last_run,
            this_run,
        }
    }

    /// Read-only items.
    #[inline]
    pub fn iter(&self) -> QueryIter<'_, 's, D::ReadOnly, F> {
        let world: UnsafeWorldCell<'_> = self.world;
        // SAFETY: shared items through `&self`; the access is held.
        unsafe {
            self.state
                .as_readonly()
                .iter_unchecked_manual(world, self.last_run, self.this_run)
        }
    }

    /// Items, mutably.
    #[inline]
    pub fn iter_mut(&mut self) -> QueryIter<'_, 's, D, F> {
        let world: UnsafeWorldCell<'_> = self.world;
        // SAFETY: `&mut self` makes the items exclusive; the access is held.
        unsafe {
            self.state
                .iter_unchecked_manual(world, self.last_run, self.this_run)
        }
    }

    /// The read-only item of one entity.
    #[inline]
    pub fn get(
        &self,
        entity: Entity,
    ) -> Result<<D::ReadOnly as QueryData>::Item<'_>, QueryEntityError> {
        let world: UnsafeWorldCell<'_> = self.world;
        // SAFETY: as in `iter`.
        unsafe {
            self.state.as_readonly().get_unchecked_manual(
                world,
                entity,
                self.last_run,
                self.this_run,
            )
        }
    }

    /// The item of one entity, mutably.
    #[inline]
    pub fn get_mut(&mut self, entity: Entity) -> Result<D::Item<'_>, QueryEntityError> {
        let world: UnsafeWorldCell<'_> = self.world;
        // SAFETY: as in `iter_mut`.
        unsafe {
            self.state
                .get_unchecked_manual(world, entity, self.last_run, self.this_run)
        }
    }

    /// The item of one entity, consuming the query (so the item may
    /// live as long as the world borrow).
    #[inline]
    pub fn get_inner(self, entity: Entity) -> Result<D::Item<'w>, QueryEntityError> {
        // SAFETY: the query is consumed, so the item is the only use of
        // its access; the access is held for `'w`.
        unsafe {
            self.state
                .get_unchecked_manual(self.world, entity, self.last_run, self.this_run)
        }
    }

    /// The read-only items of several entities at once, in the order
    /// given; an entity may be named twice.
    ///
    /// # Errors
    /// The first entity (in order) that does not exist or does not match.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Component)]
    /// struct Position(f32);
    ///
    /// let mut world = World::new();
    /// let a = world.spawn(Position(1.0)).id();
    /// let b = world.spawn(Position(4.0)).id();
    /// world
    ///     .run_system_once(move |query: Query<&Position>| {
    ///         let [pa, pb, pa2] = query.get_many([a, b, a]).unwrap();
    ///         assert_eq!((pa.0, pb.0, pa2.0), (1.0, 4.0, 1.0));
    ///     })
    ///     .unwrap();
    /// ```
    #[inline]
    pub fn get_many<const N: usize>(
        &self,
        entities: [Entity; N],
    ) -> Result<[<D::ReadOnly as QueryData>::Item<'_>; N], QueryEntityError> {
        self.as_readonly().get_many_inner(entities)
    }

    /// The items of several distinct entities at once, mutably.
    ///
    /// # Errors
    /// [`QueryEntityError::AliasedMutability`] naming the first entity
    /// given twice; otherwise the first entity (in order) that does not
    /// exist or does not match.
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::query::QueryEntityError;
    ///
    /// #[derive(Component)]
    /// struct Health(u32);
    ///
    /// let mut world = World::new();
    /// let a = world.spawn(Health(10)).id();
    /// let b = world.spawn(Health(20)).id();
    /// world
    ///     .run_system_once(move |mut query: Query<&mut Health>| {
    ///         let [mut ha, mut hb] = query.get_many_mut([a, b]).unwrap();
    ///         std::mem::swap(&mut ha.0, &mut hb.0);
    ///         assert!(matches!(
    ///             query.get_many_mut([a, a]),
    ///             Err(QueryEntityError::AliasedMutability(e)) if e == a
    ///         ));
    ///     })
    ///     .unwrap();
    /// assert_eq!(world.get::<Health>(a).unwrap().0, 20);
    /// ```
    #[inline]
    pub fn get_many_mut<const N: usize>(
        &mut self,
        entities: [Entity; N],
    ) -> Result<[D::Item<'_>; N], QueryEntityError> {
        self.reborrow().get_many_mut_inner(entities)
    }

    /// [`Query::get_many`], consuming a read-only query (so the items may
    /// live as long as the world borrow).
    #[inline]
    pub fn get_many_inner<const N: usize>(
        self,
        entities: [Entity; N],
    ) -> Result<[D::Item<'w>; N], QueryEntityError>
    where
        D: ReadOnlyQueryData,
    {
        // SAFETY: read-only items may alias.
        unsafe { self.get_many_unchecked(entities) }
    }

    /// [`Query::get_many_mut`], consuming the query (so the items may live
    /// as long as the world borrow).
    ///
    /// # Errors
    /// As for [`Query::get_many_mut`].
    #[inline]
    pub fn get_many_mut_inner<const N: usize>(
        self,
        entities: [Entity; N],
    ) -> Result<[D::Item<'w>; N], QueryEntityError> {
        for (i, entity) in entities.iter().enumerate() {
            if entities[..i].contains(entity) {
                return Err(QueryEntityError::AliasedMutability(*entity));
            }
        }
        // SAFETY: the entities are distinct (checked above), so the items
        // do not alias.
        unsafe { self.get_many_unchecked(entities) }
    }

    /// The read-only items of several distinct entities at once, in the
    /// order given.
    ///
    /// # Errors
    /// The first entity (in order) that does not exist or does not match.
    #[inline]
    pub fn get_many_unique<const N: usize>(
        &self,
        entities: UniqueEntityArray<N>,
    ) -> Result<[<D::ReadOnly as QueryData>::Item<'_>; N], QueryEntityError> {
        self.as_readonly().get_many_unique_inner(entities)
    }

    /// The items of several distinct entities at once, mutably; the array
    /// is unique, so there is no aliasing check to fail.
    ///
    /// ```
    /// use ecs::entity::{UniqueEntityArray, UniqueEntityVec};
    /// use ecs::prelude::*;
    ///
    /// #[derive(Component)]
    /// struct Health(u32);
    ///
    /// let mut world = World::new();
    /// let a = world.spawn(Health(10)).id();
    /// let b = world.spawn(Health(20)).id();
    /// let pair: UniqueEntityVec = [a, b].into_iter().collect();
    /// let pair = UniqueEntityArray::<2>::try_from(pair).unwrap();
    /// world
    ///     .run_system_once(move |mut query: Query<&mut Health>| {
    ///         let [mut ha, mut hb] = query.get_many_unique_mut(pair).unwrap();
    ///         std::mem::swap(&mut ha.0, &mut hb.0);
    ///     })
    ///     .unwrap();
    /// assert_eq!(world.get::<Health>(a).unwrap().0, 20);
    /// ```
    ///
    /// # Errors
    /// The first entity (in order) that does not exist or does not match.
    #[inline]
    pub fn get_many_unique_mut<const N: usize>(
        &mut self,
        entities: UniqueEntityArray<N>,
    ) -> Result<[D::Item<'_>; N], QueryEntityError> {
        self.reborrow().get_many_unique_inner(entities)
    }

    /// [`Query::get_many_unique_mut`], consuming the query (so the items
    /// may live as long as the world borrow).
    ///
    /// # Errors
    /// As for [`Query::get_many_unique_mut`].
    #[inline]
    pub fn get_many_unique_inner<const N: usize>(
        self,
        entities: UniqueEntityArray<N>,
    ) -> Result<[D::Item<'w>; N], QueryEntityError> {
        // SAFETY: the entities of a unique array are distinct.
        unsafe { self.get_many_unchecked(entities.into_inner()) }
    }

    /// The items of `entities`, all or the first error.
    ///
    /// # Safety
    /// For mutable data, the entities are distinct.
    unsafe fn get_many_unchecked<const N: usize>(
        self,
        entities: [Entity; N],
    ) -> Result<[D::Item<'w>; N], QueryEntityError> {
        let items = entities.map(|entity| {
            // SAFETY: the query is consumed and its access held for `'w`;
            // the items do not alias (caller).
            unsafe {
                self.state
                    .get_unchecked_manual(self.world, entity, self.last_run, self.this_run)
            }
        });
        if let Some(error) = items.iter().find_map(|item| item.as_ref().err()) {
            return Err(*error);
        }
        Ok(items.map(|item| match item {
            Ok(item) => item,
            Err(_) => unreachable!("errors were returned above"),
        }))
    }

    // ---- views of the query ---------------------------------------------------

    /// This query, read-only, borrowed from `self`.
    #[inline]
    pub fn as_readonly(&self) -> Query<'_, 's, D::ReadOnly, F> {
        // SAFETY: the read-only twin accesses a subset of `D`'s access,
        // and `&self` keeps mutable uses of `self` out while it lives.
        unsafe {
            Query::new(
                self.world,
                self.state.as_readonly(),
                self.last_run,
                self.this_run,
            )
        }
    }

    /// This query, read-only, consuming it.
    #[inline]
    pub fn into_readonly(self) -> Query<'w, 's, D::ReadOnly, F> {
        // SAFETY: the read-only twin accesses a subset of `D`'s access,
        // which the consumed query held for `'w`.
        unsafe {
            Query::new(
                self.world,
                self.state.as_readonly(),
                self.last_run,
                self.this_run,
            )
        }
    }

    /// This query, borrowed from `self`: a `Query` to pass on by value
    /// (to a `*_inner` method or a function) while keeping this one.
    #[inline]
    pub fn reborrow(&mut self) -> Query<'_, 's, D, F> {
        // SAFETY: `&mut self` keeps every other use of `self` out while
        // the new query lives.
        unsafe { Query::new(self.world, self.state, self.last_run, self.this_run) }
    }

    /// The items of every matching entity, consuming the query (so the
    /// items may live as long as the world borrow).
    #[inline]
    pub fn iter_inner(self) -> QueryIter<'w, 's, D, F> {
        // SAFETY: the query is consumed; its access is held for `'w`.
        unsafe {
            self.state
                .iter_unchecked_manual(self.world, self.last_run, self.this_run)
        }
    }

    // ---- lists of entities and combinations -----------------------------------

    /// The read-only items of the entities of `entities`, in its order,
    /// each an error if the entity does not exist or does not match
    /// ([`QueryManyIter::unwrapped`] and [`QueryManyIter::matched`] turn
    /// the errors into panics or skips).
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Component)]
    /// struct Score(u32);
    ///
    /// let mut world = World::new();
    /// let a = world.spawn(Score(3)).id();
    /// let b = world.spawn_empty().id();
    /// world
    ///     .run_system_once(move |query: Query<&Score>| {
    ///         let scores: Vec<u32> = query.iter_many([a, b, a]).matched().map(|s| s.0).collect();
    ///         assert_eq!(scores, [3, 3]);
    ///     })
    ///     .unwrap();
    /// ```
    #[inline]
    pub fn iter_many<EntityList: IntoIterator<Item: Borrow<Entity>>>(
        &self,
        entities: EntityList,
    ) -> QueryManyIter<'_, 's, D::ReadOnly, F, EntityList::IntoIter> {
        self.as_readonly().iter_many_inner(entities)
    }

    /// The items of the entities of `entities`, mutably, one at a time
    /// through [`QueryManyIter::fetch_next`]: the list may repeat an
    /// entity, so two items must never be alive together.
    #[inline]
    pub fn iter_many_mut<EntityList: IntoIterator<Item: Borrow<Entity>>>(
        &mut self,
        entities: EntityList,
    ) -> QueryManyIter<'_, 's, D, F, EntityList::IntoIter> {
        self.reborrow().iter_many_inner(entities)
    }

    /// [`Query::iter_many_mut`], consuming the query.
    #[inline]
    pub fn iter_many_inner<EntityList: IntoIterator<Item: Borrow<Entity>>>(
        self,
        entities: EntityList,
    ) -> QueryManyIter<'w, 's, D, F, EntityList::IntoIter> {
        // SAFETY: the query is consumed; its access is held for `'w`, and
        // the iterator hands out mutable items one at a time.
        unsafe {
            QueryManyIter::new(
                self.world,
                self.state,
                entities,
                self.last_run,
                self.this_run,
            )
        }
    }

    /// The read-only items of the entities of the set `entities`, in its
    /// order, each an error if the entity does not exist or does not match.
    #[inline]
    pub fn iter_many_unique<EntityList: EntitySet>(
        &self,
        entities: EntityList,
    ) -> QueryManyUniqueIter<'_, 's, D::ReadOnly, F, EntityList::IntoIter> {
        self.as_readonly().iter_many_unique_inner(entities)
    }

    /// The items of the entities of the set `entities`, mutably: the set
    /// names each entity once, so this is a plain [`Iterator`] whose items
    /// may all be alive together.
    ///
    /// ```
    /// use ecs::entity::EntityHashSet;
    /// use ecs::prelude::*;
    ///
    /// #[derive(Component)]
    /// struct Health(u32);
    ///
    /// #[derive(Resource)]
    /// struct Poisoned(EntityHashSet);
    ///
    /// fn poison(mut query: Query<&mut Health>, poisoned: Res<Poisoned>) {
    ///     for mut health in query.iter_many_unique_mut(&poisoned.0).matched() {
    ///         health.0 -= 1;
    ///     }
    /// }
    ///
    /// let mut world = World::new();
    /// let a = world.spawn(Health(3)).id();
    /// world.insert_resource(Poisoned(EntityHashSet::from([a])));
    /// world.run_system_once(poison).unwrap();
    /// assert_eq!(world.get::<Health>(a).unwrap().0, 2);
    /// ```
    #[inline]
    pub fn iter_many_unique_mut<EntityList: EntitySet>(
        &mut self,
        entities: EntityList,
    ) -> QueryManyUniqueIter<'_, 's, D, F, EntityList::IntoIter> {
        self.reborrow().iter_many_unique_inner(entities)
    }

    /// [`Query::iter_many_unique_mut`], consuming the query.
    #[inline]
    pub fn iter_many_unique_inner<EntityList: EntitySet>(
        self,
        entities: EntityList,
    ) -> QueryManyUniqueIter<'w, 's, D, F, EntityList::IntoIter> {
        // SAFETY: the query is consumed; its access is held for `'w`.
        unsafe {
            QueryManyUniqueIter::new(
                self.world,
                self.state,
                entities,
                self.last_run,
                self.this_run,
            )
        }
    }

    /// Every combination of `K` distinct matching entities, read-only, as
    /// `[item; K]`: `n` matches give `n` choose `K` combinations.
    ///
    /// # Panics
    /// If `K` is 0.
    #[inline]
    #[track_caller]
    pub fn iter_combinations<const K: usize>(
        &self,
    ) -> QueryCombinationIter<'_, 's, D::ReadOnly, F, K> {
        self.as_readonly().iter_combinations_inner()
    }

    /// Every combination of `K` distinct matching entities, mutably, one
    /// array at a time through [`QueryCombinationIter::fetch_next`].
    ///
    /// # Panics
    /// If `K` is 0.
    #[inline]
    #[track_caller]
    pub fn iter_combinations_mut<const K: usize>(
        &mut self,
    ) -> QueryCombinationIter<'_, 's, D, F, K> {
        self.reborrow().iter_combinations_inner()
    }

    /// [`Query::iter_combinations_mut`], consuming the query.
    ///
    /// # Panics
    /// If `K` is 0.
    #[inline]
    #[track_caller]
    pub fn iter_combinations_inner<const K: usize>(self) -> QueryCombinationIter<'w, 's, D, F, K> {
        // SAFETY: the query is consumed; its access is held for `'w`, and
        // the iterator hands out mutable arrays one at a time.
        unsafe { QueryCombinationIter::new(self.world, self.state, self.last_run, self.this_run) }
    }

    /// The read-only item of the only matching entity.
    pub fn single(&self) -> Result<<D::ReadOnly as QueryData>::Item<'_>, QuerySingleError> {
        crate::query::single_of(self.iter(), type_name::<Self>())
    }

    /// The item of the only matching entity, mutably.
    pub fn single_mut(&mut self) -> Result<D::Item<'_>, QuerySingleError> {
        crate::query::single_of(self.iter_mut(), type_name::<Self>())
    }

    /// [`Query::single_mut`], consuming the query for its whole lifetime.
    pub fn single_inner(self) -> Result<D::Item<'w>, QuerySingleError> {
        crate::query::single_of(self.iter_inner(), type_name::<Self>())
    }

    /// Whether no entity matches.
    pub fn is_empty(&self) -> bool {
        self.iter().next().is_none()
    }

    /// The number of matching entities.
    pub fn count(&self) -> usize {
        self.iter().count()
    }

    /// Whether the entity matches.
    pub fn contains(&self, entity: Entity) -> bool {
        self.get(entity).is_ok()
    }

    /// A parallel iterator over read-only items.
    pub fn par_iter(&self) -> QueryParIter<'_, 's, D::ReadOnly, F> {
        let world: UnsafeWorldCell<'_> = self.world;
        QueryParIter::new(
            world,
            self.state.as_readonly(),
            self.last_run,
            self.this_run,
        )
    }

    /// A parallel iterator over items, mutably.
    pub fn par_iter_mut(&mut self) -> QueryParIter<'_, 's, D, F> {
        let world: UnsafeWorldCell<'_> = self.world;
        QueryParIter::new(world, self.state, self.last_run, self.this_run)
    }

    /// A parallel iterator over items, consuming the query (its items keep
    /// the query's full lifetime).
    pub fn par_iter_inner(self) -> QueryParIter<'w, 's, D, F> {
        QueryParIter::new(self.world, self.state, self.last_run, self.this_run)
    }

    /// A parallel iterator over the read-only items of the entities of the
    /// list `entities`, which may repeat an entity: each item is a
    /// `Result`, an error for an entity the query cannot return. Order and
    /// threads are unspecified; for a mutable walk use
    /// [`Query::par_iter_many_unique_mut`] with a set.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicU32, Ordering};
    /// use ecs::prelude::*;
    ///
    /// #[derive(Component)]
    /// struct Health(u32);
    ///
    /// let mut world = World::new();
    /// let a = world.spawn(Health(3)).id();
    /// let b = world.spawn(Health(4)).id();
    /// let total = AtomicU32::new(0);
    /// let mut state = world.query::<&Health>();
    /// state.query(&world).par_iter_many([a, b, a]).for_each(|health| {
    ///     total.fetch_add(health.unwrap().0, Ordering::Relaxed);
    /// });
    /// assert_eq!(total.into_inner(), 10);
    /// ```
    pub fn par_iter_many<EntityList: IntoIterator<Item: EntityEquivalent + Sync>>(
        &self,
        entities: EntityList,
    ) -> QueryParManyIter<'_, 's, D::ReadOnly, F, EntityList::Item> {
        // SAFETY: the read-only state's access is a subset of this query's,
        // held while `self` is borrowed.
        unsafe {
            QueryParManyIter::new(
                self.world,
                self.state.as_readonly(),
                entities.into_iter().collect(),
                self.last_run,
                self.this_run,
            )
        }
    }

    /// A parallel iterator over the read-only items of the entities of the
    /// set `entities`: each item is a `Result`, an error for an entity the
    /// query cannot return. Order and threads are unspecified.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicU32, Ordering};
    /// use ecs::entity::EntityHashSet;
    /// use ecs::prelude::*;
    ///
    /// #[derive(Component)]
    /// struct Health(u32);
    ///
    /// let mut world = World::new();
    /// let a = world.spawn(Health(3)).id();
    /// let b = world.spawn(Health(4)).id();
    /// let set: EntityHashSet = [a, b].into_iter().collect();
    /// let total = AtomicU32::new(0);
    /// let mut state = world.query::<&Health>();
    /// state.query(&world).par_iter_many_unique(&set).for_each(|health| {
    ///     total.fetch_add(health.unwrap().0, Ordering::Relaxed);
    /// });
    /// assert_eq!(total.into_inner(), 7);
    /// ```
    pub fn par_iter_many_unique<EntityList: EntitySet<Item: Sync>>(
        &self,
        entities: EntityList,
    ) -> QueryParManyUniqueIter<'_, 's, D::ReadOnly, F, EntityList::Item> {
        // SAFETY: the read-only state's access is a subset of this query's,
        // held while `self` is borrowed.
        unsafe {
            QueryParManyUniqueIter::new(
                self.world,
                self.state.as_readonly(),
                entities.into_iter().collect_set(),
                self.last_run,
                self.this_run,
            )
        }
    }

    /// A parallel iterator over the items of the entities of the set
    /// `entities`, mutably; see [`Query::par_iter_many_unique`].
    pub fn par_iter_many_unique_mut<EntityList: EntitySet<Item: Sync>>(
        &mut self,
        entities: EntityList,
    ) -> QueryParManyUniqueIter<'_, 's, D, F, EntityList::Item> {
        // SAFETY: this query's access, held while `self` is mutably
        // borrowed.
        unsafe {
            QueryParManyUniqueIter::new(
                self.world,
                self.state,
                entities.into_iter().collect_set(),
                self.last_run,
                self.this_run,
            )
        }
    }
}

impl crate::world::DeferredWorld<'_> {
    /// A [`Query`] of `state` over this world, as in a system: values may
    /// be read and written, archetypes not changed.
    ///
    /// # Panics
    /// If `state` was made for another world.
    #[inline]
    #[track_caller]
    pub fn query<'s, D: QueryData, F: QueryFilter>(
        &mut self,
        state: &'s mut QueryState<D, F>,
    ) -> Query<'_, 's, D, F> {
        state.query_mut(self.world_mut_internal())
    }
}

impl<D: ReadOnlyQueryData, F: QueryFilter> Clone for Query<'_, '_, D, F> {
    fn clone(&self) -> Self {
        *self
    }
}

/// A read-only query may be copied: its items may alias.
impl<D: ReadOnlyQueryData, F: QueryFilter> Copy for Query<'_, '_, D, F> {}

impl<'w, 's, D: QueryData, F: QueryFilter> IntoIterator for Query<'w, 's, D, F> {
    type Item = D::Item<'w>;
    type IntoIter = QueryIter<'w, 's, D, F>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter_inner()
    }
}

impl<'a, 's, D: QueryData, F: QueryFilter> IntoIterator for &'a Query<'_, 's, D, F> {
    type Item = <D::ReadOnly as QueryData>::Item<'a>;
    type IntoIter = QueryIter<'a, 's, D::ReadOnly, F>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<'a, 's, D: QueryData, F: QueryFilter> IntoIterator for &'a mut Query<'_, 's, D, F> {
    type Item = D::Item<'a>;
    type IntoIter = QueryIter<'a, 's, D, F>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter_mut()
    }
}

// ---- contiguous access -------------------------------------------------------

impl<'w, 's, D: QueryData, F: ArchetypeFilter> Query<'w, 's, D, F> {
    /// The matches as read-only slices, one table at a time (see
    /// [`ContiguousQueryData`]).
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Component)]
    /// struct Health(f32);
    ///
    /// let mut world = World::new();
    /// world.spawn(Health(1.0));
    /// world.spawn(Health(2.0));
    /// world
    ///     .run_system_once(|query: Query<(Entity, &Health)>| {
    ///         let mut total = 0.0;
    ///         for (entities, health) in query.contiguous_iter().unwrap() {
    ///             assert_eq!(entities.len(), health.len());
    ///             total += health.iter().map(|h| h.0).sum::<f32>();
    ///         }
    ///         assert_eq!(total, 3.0);
    ///     })
    ///     .unwrap();
    /// ```
    ///
    /// # Errors
    /// [`QueryNotDenseError`] if the query walks archetypes (a term or
    /// filter names a sparse-set component).
    pub fn contiguous_iter(
        &self,
    ) -> Result<QueryContiguousIter<'_, 's, D::ReadOnly, F>, QueryNotDenseError>
    where
        D::ReadOnly: ContiguousQueryData,
    {
        self.as_readonly().contiguous_iter_inner()
    }

    /// The matches as slices, one table at a time, mutably: each `&mut T`
    /// term is a [`ContiguousMut`](crate::query::ContiguousMut), which
    /// marks its table's rows changed once, when first written through.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Component)]
    /// struct Health(f32);
    ///
    /// let mut world = World::new();
    /// let e = world.spawn(Health(10.0)).id();
    /// world
    ///     .run_system_once(|mut query: Query<&mut Health>| {
    ///         for mut health in query.contiguous_iter_mut().unwrap() {
    ///             for h in health.iter_mut() {
    ///                 h.0 *= 0.5;
    ///             }
    ///         }
    ///     })
    ///     .unwrap();
    /// assert_eq!(world.get::<Health>(e).unwrap().0, 5.0);
    /// ```
    ///
    /// # Errors
    /// As for [`Query::contiguous_iter`].
    pub fn contiguous_iter_mut(
        &mut self,
    ) -> Result<QueryContiguousIter<'_, 's, D, F>, QueryNotDenseError>
    where
        D: ContiguousQueryData,
    {
        self.reborrow().contiguous_iter_inner()
    }

    /// A parallel walk over the matches as read-only slices: each batch
    /// of a table's rows is handed to the callback on rayon's pool.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicU32, Ordering};
    /// use ecs::prelude::*;
    ///
    /// #[derive(Component)]
    /// struct Health(u32);
    ///
    /// let mut world = World::new();
    /// world.spawn_batch((0..100).map(Health));
    /// let total = AtomicU32::new(0);
    /// let mut state = world.query::<&Health>();
    /// let query = state.query(&world);
    /// query.contiguous_par_iter().unwrap().for_each(|health| {
    ///     let sum: u32 = health.iter().map(|h| h.0).sum();
    ///     total.fetch_add(sum, Ordering::Relaxed);
    /// });
    /// assert_eq!(total.into_inner(), 4950);
    /// ```
    ///
    /// # Errors
    /// As for [`Query::contiguous_iter`].
    pub fn contiguous_par_iter(
        &self,
    ) -> Result<QueryContiguousParIter<'_, 's, D::ReadOnly, F>, QueryNotDenseError>
    where
        D::ReadOnly: ContiguousQueryData,
    {
        self.as_readonly().contiguous_par_iter_inner()
    }

    /// A parallel walk over the matches as slices, mutably; see
    /// [`Query::contiguous_par_iter`].
    ///
    /// # Errors
    /// As for [`Query::contiguous_iter`].
    pub fn contiguous_par_iter_mut(
        &mut self,
    ) -> Result<QueryContiguousParIter<'_, 's, D, F>, QueryNotDenseError>
    where
        D: ContiguousQueryData,
    {
        self.reborrow().contiguous_par_iter_inner()
    }

    /// [`Query::contiguous_par_iter_mut`], consuming the query.
    ///
    /// # Errors
    /// As for [`Query::contiguous_iter`].
    pub fn contiguous_par_iter_inner(
        self,
    ) -> Result<QueryContiguousParIter<'w, 's, D, F>, QueryNotDenseError>
    where
        D: ContiguousQueryData,
    {
        // SAFETY: the query is consumed; its access is held for `'w`.
        unsafe { QueryContiguousParIter::new(self.world, self.state, self.last_run, self.this_run) }
    }

    /// [`Query::contiguous_iter_mut`], consuming the query.
    ///
    /// # Errors
    /// As for [`Query::contiguous_iter`].
    pub fn contiguous_iter_inner(
        self,
    ) -> Result<QueryContiguousIter<'w, 's, D, F>, QueryNotDenseError>
    where
        D: ContiguousQueryData,
    {
        // SAFETY: the query is consumed; its access is held for `'w`.
        unsafe { QueryContiguousIter::new(self.world, self.state, self.last_run, self.this_run) }
    }
}

// ---- lenses ---------------------------------------------------------------

impl<'w, 's, D: QueryData, F: QueryFilter> Query<'w, 's, D, F> {
    /// A [`QueryLens`] fetching `NewD` from this query's matches: a way to
    /// hand a more general query (`Query<&Position>`) to code written for
    /// it, from a more specific one (`Query<(&Position, &Velocity)>`).
    ///
    /// `NewD` may read what this query reads or writes, write what it
    /// writes, and require only what it requires (so `Option<&T>` may become
    /// `Option<&T>` or `Has<T>`, not `&T`); `Entity` is always allowed.
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::system::QueryLens;
    ///
    /// #[derive(Component)]
    /// struct Position(f32);
    /// #[derive(Component)]
    /// struct Velocity(f32);
    ///
    /// fn total(lens: &mut QueryLens<&Position>) -> f32 {
    ///     lens.query().iter().map(|p| p.0).sum()
    /// }
    ///
    /// let mut world = World::new();
    /// world.spawn((Position(1.0), Velocity(0.0)));
    /// world.spawn((Position(2.0), Velocity(0.0)));
    /// world.spawn(Position(40.0));
    /// world
    ///     .run_system_once(|mut query: Query<(&Position, &Velocity)>| {
    ///         assert_eq!(total(&mut query.transmute_lens::<&Position>()), 3.0);
    ///     })
    ///     .unwrap();
    /// ```
    ///
    /// # Panics
    /// If `NewD` asks for access this query does not have, naming the
    /// component, or names a component not registered in the world.
    #[track_caller]
    pub fn transmute_lens<NewD: QueryData>(&mut self) -> QueryLens<'_, NewD> {
        self.reborrow().transmute_lens_filtered_inner::<NewD, ()>()
    }

    /// [`Query::transmute_lens`], consuming the query so the lens may live
    /// as long as the world borrow.
    ///
    /// # Panics
    /// As for [`Query::transmute_lens`].
    #[track_caller]
    pub fn transmute_lens_inner<NewD: QueryData>(self) -> QueryLens<'w, NewD> {
        self.transmute_lens_filtered_inner::<NewD, ()>()
    }

    /// [`Query::transmute_lens`] with a filter `NewF`, which may narrow the
    /// matches but not widen them.
    ///
    /// # Panics
    /// As for [`Query::transmute_lens`], for `NewD` and `NewF`.
    #[track_caller]
    pub fn transmute_lens_filtered<NewD: QueryData, NewF: QueryFilter>(
        &mut self,
    ) -> QueryLens<'_, NewD, NewF> {
        self.reborrow().transmute_lens_filtered_inner()
    }

    /// [`Query::transmute_lens_filtered`], consuming the query.
    ///
    /// # Panics
    /// As for [`Query::transmute_lens`], for `NewD` and `NewF`.
    #[track_caller]
    pub fn transmute_lens_filtered_inner<NewD: QueryData, NewF: QueryFilter>(
        self,
    ) -> QueryLens<'w, NewD, NewF> {
        let state = self.state.transmute_filtered::<NewD, NewF>(self.world);
        QueryLens {
            world: self.world,
            state,
            last_run: self.last_run,
            this_run: self.this_run,
        }
    }

    /// A [`QueryLens`] with this query's own data.
    pub fn as_query_lens(&mut self) -> QueryLens<'_, D> {
        self.transmute_lens()
    }

    /// [`Query::as_query_lens`], consuming the query.
    pub fn into_query_lens(self) -> QueryLens<'w, D> {
        self.transmute_lens_inner()
    }

    /// A [`QueryLens`] over the entities both this query and `other`
    /// match, fetching `NewD`, which may use the access of either.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Component)]
    /// struct Position(f32);
    /// #[derive(Component)]
    /// struct Player;
    ///
    /// let mut world = World::new();
    /// world.spawn((Position(1.0), Player));
    /// world.spawn(Position(2.0));
    /// world
    ///     .run_system_once(|mut positions: Query<&Position>, mut players: Query<&Player>| {
    ///         let mut lens = positions.join::<_, (&Position, &Player)>(&mut players);
    ///         let xs: Vec<f32> = lens.query().iter().map(|(p, _)| p.0).collect();
    ///         assert_eq!(xs, [1.0]);
    ///     })
    ///     .unwrap();
    /// ```
    ///
    /// # Panics
    /// If `NewD` asks for access neither query has, naming the component.
    #[track_caller]
    pub fn join<'a, OtherD: QueryData, NewD: QueryData>(
        &'a mut self,
        other: &'a mut Query<OtherD>,
    ) -> QueryLens<'a, NewD> {
        self.join_filtered(other)
    }

    /// [`Query::join`], consuming both queries.
    ///
    /// # Panics
    /// As for [`Query::join`].
    #[track_caller]
    pub fn join_inner<OtherD: QueryData, NewD: QueryData>(
        self,
        other: Query<'w, '_, OtherD>,
    ) -> QueryLens<'w, NewD> {
        self.join_filtered_inner(other)
    }

    /// [`Query::join`] with filters on `other` and on the lens.
    ///
    /// # Panics
    /// As for [`Query::join`], for `NewD` and `NewF`.
    #[track_caller]
    pub fn join_filtered<
        'a,
        OtherD: QueryData,
        OtherF: QueryFilter,
        NewD: QueryData,
        NewF: QueryFilter,
    >(
        &'a mut self,
        other: &'a mut Query<OtherD, OtherF>,
    ) -> QueryLens<'a, NewD, NewF> {
        self.reborrow().join_filtered_inner(other.reborrow())
    }

    /// [`Query::join_filtered`], consuming both queries.
    ///
    /// # Panics
    /// As for [`Query::join`], for `NewD` and `NewF`.
    #[track_caller]
    pub fn join_filtered_inner<
        OtherD: QueryData,
        OtherF: QueryFilter,
        NewD: QueryData,
        NewF: QueryFilter,
    >(
        self,
        other: Query<'w, '_, OtherD, OtherF>,
    ) -> QueryLens<'w, NewD, NewF> {
        let state = self
            .state
            .join_filtered::<OtherD, OtherF, NewD, NewF>(self.world, other.state);
        QueryLens {
            world: self.world,
            state,
            last_run: self.last_run,
            this_run: self.this_run,
        }
    }
}

/// A query state made from another query ([`Query::transmute_lens`],
/// [`Query::join`]), holding that query's world access; call
/// [`QueryLens::query`] (or `.into()`) for the [`Query`].
pub struct QueryLens<'w, Q: QueryData, F: QueryFilter = ()> {
    world: UnsafeWorldCell<'w>,
    state: QueryState<Q, F>,
    last_run: Tick,
    this_run: Tick,
}

impl<Q: QueryData, F: QueryFilter> QueryLens<'_, Q, F> {
    /// The lens as a [`Query`].
    pub fn query(&mut self) -> Query<'_, '_, Q, F> {
        // SAFETY: the lens's access is a subset of the access of the
        // query it came from (checked when it was made), which it holds
        // for its lifetime; `&mut self` keeps the query exclusive.
        unsafe { Query::new(self.world, &self.state, self.last_run, self.this_run) }
    }
}

impl<'w, Q: ReadOnlyQueryData, F: QueryFilter> QueryLens<'w, Q, F> {
    /// The lens as a read-only [`Query`] whose items live as long as the
    /// world borrow.
    pub fn query_inner(&self) -> Query<'w, '_, Q, F> {
        // SAFETY: as in `query`; read-only items may alias.
        unsafe { Query::new(self.world, &self.state, self.last_run, self.this_run) }
    }
}

impl<'w, 's, Q: QueryData, F: QueryFilter> From<&'s mut QueryLens<'w, Q, F>>
    for Query<'s, 's, Q, F>
{
    fn from(lens: &'s mut QueryLens<'w, Q, F>) -> Query<'s, 's, Q, F> {
        lens.query()
    }
}

impl<'q, Q: QueryData, F: QueryFilter> From<&'q mut Query<'_, '_, Q, F>> for QueryLens<'q, Q, F> {
    fn from(query: &'q mut Query<'_, '_, Q, F>) -> QueryLens<'q, Q, F> {
        query.transmute_lens_filtered()
    }
}
