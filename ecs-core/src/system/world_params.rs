//! Parameters that read the world's metadata or the system's own ticks:
//! [`SystemChangeTick`], `&Archetypes`, `&Components`, `&Entities`,
//! `&Bundles`, and the wrapper [`StaticSystemParam`].

use std::ops::{Deref, DerefMut};

use super::{CommandQueue, ReadOnlySystemParam, SystemMeta, SystemParam, SystemParamItem};
use crate::{
    archetype::Archetypes,
    bundle::Bundles,
    change_detection::Tick,
    component::Components,
    entity::Entities,
    world::{UnsafeWorldCell, World},
};

/// The ticks a system compares change ticks against: the tick it last ran
/// at and the tick of this run.
///
/// ```
/// use ecs::prelude::*;
/// use ecs::system::SystemChangeTick;
///
/// fn ticks(ticks: SystemChangeTick) -> bool {
///     ticks.this_run().is_newer_than(ticks.last_run(), ticks.this_run())
/// }
///
/// let mut world = World::new();
/// assert!(world.run_system_once(ticks).unwrap());
/// ```
#[derive(Debug, Clone, Copy)]
pub struct SystemChangeTick {
    last_run: Tick,
    this_run: Tick,
}

impl SystemChangeTick {
    /// The world's change tick for this run.
    #[inline]
    pub fn this_run(&self) -> Tick {
        self.this_run
    }

    /// The world's change tick at the system's previous run: changes newer
    /// than it are what the system detects.
    #[inline]
    pub fn last_run(&self) -> Tick {
        self.last_run
    }
}

// SAFETY: touches no world data.
unsafe impl SystemParam for SystemChangeTick {
    type State = ();
    type Item<'w, 's> = SystemChangeTick;

    fn init_state(_: &mut World, _: &mut SystemMeta) {}

    #[inline]
    unsafe fn get_param<'w>(
        _: &mut (),
        meta: &SystemMeta,
        _: UnsafeWorldCell<'w>,
        change_tick: Tick,
    ) -> SystemChangeTick {
        SystemChangeTick {
            last_run: meta.last_run(),
            this_run: change_tick,
        }
    }
}

// SAFETY: touches no world data.
unsafe impl ReadOnlySystemParam for SystemChangeTick {}

/// `&Archetypes`, `&Components`, `&Entities` and `&Bundles`: metadata that
/// only exclusive access changes, so a running system reads it freely.
macro_rules! world_metadata_param {
    ($ty:ty, $get:ident) => {
        // SAFETY: records no access: the metadata changes only with
        // exclusive world access (structural changes, registration), never
        // while a system runs; entity reservation, the one change made
        // through a shared world, is atomic.
        unsafe impl SystemParam for &$ty {
            type State = ();
            type Item<'w, 's> = &'w $ty;

            fn init_state(_: &mut World, _: &mut SystemMeta) {}

            #[inline]
            unsafe fn get_param<'w>(
                _: &mut (),
                _: &SystemMeta,
                world: UnsafeWorldCell<'w>,
                _: Tick,
            ) -> &'w $ty {
                world.$get()
            }
        }

        // SAFETY: hands out a shared reference to metadata only.
        unsafe impl ReadOnlySystemParam for &$ty {}
    };
}

world_metadata_param!(Archetypes, archetypes);
world_metadata_param!(Components, components);
world_metadata_param!(Entities, entities);
world_metadata_param!(Bundles, bundles);

/// A system parameter `P` named through a type parameter, for systems
/// generic over their parameter: `fn sys<P: SystemParam>(p: P)` does not
/// give `p` the run's lifetimes, `StaticSystemParam<P>` does, and derefs
/// to `P`'s item.
///
/// ```
/// use ecs::prelude::*;
/// use ecs::system::{StaticSystemParam, SystemParam};
///
/// #[derive(Resource, Default)]
/// struct Score(u32);
/// #[derive(Resource)]
/// struct Bonus(u32);
///
/// fn add<P: SystemParam + 'static>(bonus: StaticSystemParam<P>, mut score: ResMut<Score>)
/// where
///     for<'w, 's> P::Item<'w, 's>: std::ops::Deref<Target = Bonus>,
/// {
///     score.0 += bonus.0;
/// }
///
/// let mut world = World::new();
/// world.init_resource::<Score>();
/// world.insert_resource(Bonus(3));
/// world.run_system_once(add::<Res<Bonus>>).unwrap();
/// world.run_system_once(add::<ResMut<Bonus>>).unwrap();
/// assert_eq!(world.resource::<Score>().0, 6);
/// ```
pub struct StaticSystemParam<'w, 's, P: SystemParam>(SystemParamItem<'w, 's, P>);

impl<'w, 's, P: SystemParam> Deref for StaticSystemParam<'w, 's, P> {
    type Target = SystemParamItem<'w, 's, P>;

    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl<P: SystemParam> DerefMut for StaticSystemParam<'_, '_, P> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.0
    }
}

impl<'w, 's, P: SystemParam> StaticSystemParam<'w, 's, P> {
    /// The parameter's item.
    pub fn into_inner(self) -> SystemParamItem<'w, 's, P> {
        self.0
    }
}

// SAFETY: `P` records its own access and fetches through it.
unsafe impl<P: SystemParam + 'static> SystemParam for StaticSystemParam<'_, '_, P> {
    type State = P::State;
    type Item<'w, 's> = StaticSystemParam<'w, 's, P>;

    #[track_caller]
    fn init_state(world: &mut World, meta: &mut SystemMeta) -> P::State {
        P::init_state(world, meta)
    }

    #[track_caller]
    unsafe fn get_param<'w, 's>(
        state: &'s mut P::State,
        meta: &SystemMeta,
        world: UnsafeWorldCell<'w>,
        change_tick: Tick,
    ) -> StaticSystemParam<'w, 's, P> {
        // SAFETY: forwarded from the caller.
        StaticSystemParam(unsafe { P::get_param(state, meta, world, change_tick) })
    }

    #[inline]
    unsafe fn try_get_param<'w, 's>(
        state: &'s mut P::State,
        meta: &SystemMeta,
        world: UnsafeWorldCell<'w>,
        change_tick: Tick,
    ) -> Result<StaticSystemParam<'w, 's, P>, super::SystemParamValidationError> {
        // SAFETY: forwarded from the caller.
        unsafe { P::try_get_param(state, meta, world, change_tick) }.map(StaticSystemParam)
    }

    fn apply(state: &mut P::State, world: &mut World) {
        P::apply(state, world);
    }

    fn queue(state: &mut P::State, queue: &mut CommandQueue) {
        P::queue(state, queue);
    }
}

// SAFETY: `P` only reads.
unsafe impl<P: ReadOnlySystemParam + 'static> ReadOnlySystemParam for StaticSystemParam<'_, '_, P> {}
