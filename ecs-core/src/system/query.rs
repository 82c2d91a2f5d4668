use std::any::type_name;

use crate::{
    change_detection::Tick,
    entity::Entity,
    query::{
        QueryData, QueryEntityError, QueryFilter, QueryIter, QueryParIter, QuerySingleError,
        QueryState,
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

    /// The items of several distinct entities at once, mutably.
    pub fn get_many_mut<const N: usize>(
        &mut self,
        entities: [Entity; N],
    ) -> Result<[D::Item<'_>; N], QueryEntityError> {
        for (i, a) in entities.iter().enumerate() {
            if entities[..i].contains(a) {
                return Err(QueryEntityError::AliasedMutability(*a));
            }
        }
        let world: UnsafeWorldCell<'_> = self.world;
        for &entity in &entities {
            // SAFETY: as in `iter_mut`; the probe items are dropped at once.
            unsafe {
                self.state
                    .get_unchecked_manual(world, entity, self.last_run, self.this_run)
            }?;
        }
        Ok(entities.map(|entity| {
            // SAFETY: distinct entities, so the items do not alias.
            unsafe {
                self.state
                    .get_unchecked_manual(world, entity, self.last_run, self.this_run)
            }
            .expect("checked above")
        }))
    }

    /// The read-only item of the only matching entity.
    pub fn single(&self) -> Result<<D::ReadOnly as QueryData>::Item<'_>, QuerySingleError> {
        crate::query::single_of(self.iter(), type_name::<Self>())
    }

    /// The item of the only matching entity, mutably.
    pub fn single_mut(&mut self) -> Result<D::Item<'_>, QuerySingleError> {
        crate::query::single_of(self.iter_mut(), type_name::<Self>())
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
