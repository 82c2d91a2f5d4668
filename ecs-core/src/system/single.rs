//! [`Single`] and [`Populated`]: query parameters that skip their system
//! unless exactly one entity (at least one, for `Populated`) matches.

use std::{
    any::type_name,
    marker::PhantomData,
    ops::{Deref, DerefMut},
};

use super::{Query, ReadOnlySystemParam, SystemMeta, SystemParam, SystemParamValidationError};
use crate::{
    change_detection::Tick,
    query::{QueryData, QueryFilter, QuerySingleError, QueryState, ReadOnlyQueryData},
    world::{UnsafeWorldCell, World},
};

/// The item of the one entity matching `D` and `F`, as a system parameter.
///
/// A system taking `Single` is skipped (its run returns
/// [`RunSystemError::Skipped`](super::RunSystemError::Skipped) and its
/// change ticks stay as they were) when no entity or several match; take
/// `Option<Single<D, F>>` to run anyway and get `None` then (for several
/// matches too, as bevy's `Option` of a parameter does on any failed
/// validation).
///
/// ```
/// use ecs::prelude::*;
///
/// #[derive(Component)]
/// struct Player;
/// #[derive(Component)]
/// struct Health(u32);
///
/// fn heal(mut player: Single<&mut Health, With<Player>>) {
///     player.0 += 1;
/// }
///
/// let mut world = World::new();
/// // No player yet: the system is skipped.
/// assert!(world.run_system_once(heal).is_err());
/// let player = world.spawn((Player, Health(1))).id();
/// world.run_system_once(heal).unwrap();
/// assert_eq!(world.get::<Health>(player).unwrap().0, 2);
/// ```
pub struct Single<'w, 's, D: QueryData, F: QueryFilter = ()> {
    item: D::Item<'w>,
    state: PhantomData<&'s ()>,
    filter: PhantomData<fn() -> F>,
}

impl<'w, D: QueryData, F: QueryFilter> Deref for Single<'w, '_, D, F> {
    type Target = D::Item<'w>;

    fn deref(&self) -> &D::Item<'w> {
        &self.item
    }
}

impl<'w, D: QueryData, F: QueryFilter> DerefMut for Single<'w, '_, D, F> {
    fn deref_mut(&mut self) -> &mut D::Item<'w> {
        &mut self.item
    }
}

impl<'w, D: QueryData, F: QueryFilter> Single<'w, '_, D, F> {
    /// The item, with the world borrow's full lifetime (to take the parts
    /// of a tuple item apart).
    pub fn into_inner(self) -> D::Item<'w> {
        self.item
    }
}

impl<'w, D: QueryData, F: QueryFilter> std::fmt::Debug for Single<'w, '_, D, F>
where
    D::Item<'w>: std::fmt::Debug,
{
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Single").field(&self.item).finish()
    }
}

/// The query's only item, or why there is none.
///
/// # Safety
/// As [`SystemParam::get_param`] for a `Query<D, F>` of this state.
unsafe fn fetch_single<'w, D: QueryData, F: QueryFilter>(
    state: &mut QueryState<D, F>,
    meta: &SystemMeta,
    world: UnsafeWorldCell<'w>,
    change_tick: Tick,
) -> Result<D::Item<'w>, QuerySingleError> {
    state.update_archetypes_unsafe_world_cell(world);
    // SAFETY: the state is up to date; the caller holds its access for
    // `'w`, and at most one item outlives this call.
    let iter = unsafe { state.iter_unchecked_manual(world, meta.last_run(), change_tick) };
    crate::query::single_of(iter, type_name::<Query<D, F>>())
}

fn skipped<P>(error: &QuerySingleError) -> SystemParamValidationError {
    let message = match error {
        QuerySingleError::NoEntities(_) => "no matching entities",
        QuerySingleError::MultipleEntities(_) => "several matching entities",
    };
    SystemParamValidationError::skipped::<P>(message)
}

#[cold]
#[track_caller]
fn unmet(meta: &SystemMeta, error: &SystemParamValidationError) -> ! {
    panic!(
        "system `{}`: {error}; a system skips this run on its own, but a `SystemState` or `ParamSet` member cannot",
        meta.name()
    )
}

// SAFETY: records the query's access, as `Query` does, and reads only
// through it.
unsafe impl<D: QueryData + 'static, F: QueryFilter + 'static> SystemParam for Single<'_, '_, D, F> {
    type State = QueryState<D, F>;
    type Item<'w, 's> = Single<'w, 's, D, F>;

    #[track_caller]
    fn init_state(world: &mut World, meta: &mut SystemMeta) -> QueryState<D, F> {
        let state = QueryState::new(world);
        meta.add_param_access(type_name::<Self>(), state.component_access().clone(), world);
        state
    }

    #[track_caller]
    unsafe fn get_param<'w, 's>(
        state: &'s mut QueryState<D, F>,
        meta: &SystemMeta,
        world: UnsafeWorldCell<'w>,
        change_tick: Tick,
    ) -> Single<'w, 's, D, F> {
        // SAFETY: forwarded from the caller.
        match unsafe { Self::try_get_param(state, meta, world, change_tick) } {
            Ok(single) => single,
            Err(error) => unmet(meta, &error),
        }
    }

    #[inline]
    unsafe fn try_get_param<'w, 's>(
        state: &'s mut QueryState<D, F>,
        meta: &SystemMeta,
        world: UnsafeWorldCell<'w>,
        change_tick: Tick,
    ) -> Result<Single<'w, 's, D, F>, SystemParamValidationError> {
        // SAFETY: forwarded from the caller.
        match unsafe { fetch_single(state, meta, world, change_tick) } {
            Ok(item) => Ok(Single {
                item,
                state: PhantomData,
                filter: PhantomData,
            }),
            Err(error) => Err(skipped::<Self>(&error)),
        }
    }
}

// SAFETY: the query's data is read-only.
unsafe impl<D: ReadOnlyQueryData + 'static, F: QueryFilter + 'static> ReadOnlySystemParam
    for Single<'_, '_, D, F>
{
}

/// A [`Query`] with at least one match, as a system parameter: a system
/// taking it is skipped (with its change ticks as they were) while no
/// entity matches.
///
/// It dereferences to the [`Query`].
///
/// ```
/// use ecs::prelude::*;
///
/// #[derive(Component)]
/// struct Enemy;
/// #[derive(Resource, Default)]
/// struct Waves(u32);
///
/// fn count_wave(enemies: Populated<&Enemy>, mut waves: ResMut<Waves>) {
///     assert!(!enemies.is_empty());
///     waves.0 += 1;
/// }
///
/// let mut world = World::new();
/// world.init_resource::<Waves>();
/// assert!(world.run_system_once(count_wave).is_err());
/// world.spawn(Enemy);
/// world.run_system_once(count_wave).unwrap();
/// assert_eq!(world.resource::<Waves>().0, 1);
/// ```
pub struct Populated<'w, 's, D: QueryData, F: QueryFilter = ()>(Query<'w, 's, D, F>);

impl<'w, 's, D: QueryData, F: QueryFilter> Deref for Populated<'w, 's, D, F> {
    type Target = Query<'w, 's, D, F>;

    fn deref(&self) -> &Query<'w, 's, D, F> {
        &self.0
    }
}

impl<D: QueryData, F: QueryFilter> DerefMut for Populated<'_, '_, D, F> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.0
    }
}

impl<'w, 's, D: QueryData, F: QueryFilter> Populated<'w, 's, D, F> {
    /// The query itself.
    pub fn into_inner(self) -> Query<'w, 's, D, F> {
        self.0
    }
}

impl<'a, 's, D: QueryData, F: QueryFilter> IntoIterator for &'a Populated<'_, 's, D, F> {
    type Item = <D::ReadOnly as QueryData>::Item<'a>;
    type IntoIter = crate::query::QueryIter<'a, 's, D::ReadOnly, F>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl<'a, 's, D: QueryData, F: QueryFilter> IntoIterator for &'a mut Populated<'_, 's, D, F> {
    type Item = D::Item<'a>;
    type IntoIter = crate::query::QueryIter<'a, 's, D, F>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter_mut()
    }
}

// SAFETY: records the query's access, as `Query` does, and reads only
// through it.
unsafe impl<D: QueryData + 'static, F: QueryFilter + 'static> SystemParam
    for Populated<'_, '_, D, F>
{
    type State = QueryState<D, F>;
    type Item<'w, 's> = Populated<'w, 's, D, F>;

    #[track_caller]
    fn init_state(world: &mut World, meta: &mut SystemMeta) -> QueryState<D, F> {
        let state = QueryState::new(world);
        meta.add_param_access(type_name::<Self>(), state.component_access().clone(), world);
        state
    }

    #[track_caller]
    unsafe fn get_param<'w, 's>(
        state: &'s mut QueryState<D, F>,
        meta: &SystemMeta,
        world: UnsafeWorldCell<'w>,
        change_tick: Tick,
    ) -> Populated<'w, 's, D, F> {
        // SAFETY: forwarded from the caller.
        match unsafe { Self::try_get_param(state, meta, world, change_tick) } {
            Ok(populated) => populated,
            Err(error) => unmet(meta, &error),
        }
    }

    #[inline]
    unsafe fn try_get_param<'w, 's>(
        state: &'s mut QueryState<D, F>,
        meta: &SystemMeta,
        world: UnsafeWorldCell<'w>,
        change_tick: Tick,
    ) -> Result<Populated<'w, 's, D, F>, SystemParamValidationError> {
        // SAFETY: forwarded from the caller.
        let query = unsafe { Query::get_param(state, meta, world, change_tick) };
        if query.is_empty() {
            return Err(SystemParamValidationError::skipped::<Self>(
                "no matching entities",
            ));
        }
        Ok(Populated(query))
    }
}

// SAFETY: the query's data is read-only.
unsafe impl<D: ReadOnlyQueryData + 'static, F: QueryFilter + 'static> ReadOnlySystemParam
    for Populated<'_, '_, D, F>
{
}
