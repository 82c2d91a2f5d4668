//! Parameters that read the world's metadata or the system's own ticks:
//! [`SystemChangeTick`], [`SystemName`], [`NonSendMarker`], `WorldId`,
//! `PhantomData<T>`, `&Archetypes`, `&Components`, `&Entities`,
//! `&Bundles`, and the wrapper [`StaticSystemParam`].

use std::{
    borrow::Cow,
    marker::PhantomData,
    ops::{Deref, DerefMut},
};

use super::{CommandQueue, ReadOnlySystemParam, SystemMeta, SystemParam, SystemParamItem};
use crate::{
    archetype::Archetypes,
    bundle::Bundles,
    change_detection::Tick,
    component::Components,
    entity::Entities,
    world::{UnsafeWorldCell, World, WorldId},
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

/// The name of the system it is a parameter of, for logging and
/// debugging (a function system's name is its path).
///
/// ```
/// use ecs::prelude::*;
/// use ecs::system::SystemName;
///
/// fn greet(name: SystemName) -> String {
///     format!("hello from {name}")
/// }
///
/// let mut world = World::new();
/// let said = world.run_system_once(greet).unwrap();
/// assert!(said.ends_with("::greet"), "{said}");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SystemName(Cow<'static, str>);

impl SystemName {
    /// The system's name.
    pub fn name(&self) -> Cow<'static, str> {
        self.0.clone()
    }

    /// The system's name, borrowed.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for SystemName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<SystemName> for Cow<'static, str> {
    fn from(name: SystemName) -> Self {
        name.0
    }
}

// SAFETY: touches no world data.
unsafe impl SystemParam for SystemName {
    type State = Cow<'static, str>;
    type Item<'w, 's> = SystemName;

    fn init_state(_: &mut World, meta: &mut SystemMeta) -> Cow<'static, str> {
        meta.name.clone()
    }

    #[inline]
    unsafe fn get_param<'w>(
        name: &mut Cow<'static, str>,
        _: &SystemMeta,
        _: UnsafeWorldCell<'w>,
        _: Tick,
    ) -> SystemName {
        SystemName(name.clone())
    }
}

// SAFETY: touches no world data.
unsafe impl ReadOnlySystemParam for SystemName {}

// SAFETY: touches no world data; registering `T` happens in
// `init_state`, with the world exclusively borrowed.
unsafe impl<T: crate::component::Component> SystemParam
    for crate::component::ComponentIdFor<'_, T>
{
    type State = crate::component::ComponentId;
    type Item<'w, 's> = crate::component::ComponentIdFor<'s, T>;

    fn init_state(world: &mut World, _: &mut SystemMeta) -> crate::component::ComponentId {
        world.register_component::<T>()
    }

    #[inline]
    unsafe fn get_param<'w, 's>(
        id: &'s mut crate::component::ComponentId,
        _: &SystemMeta,
        _: UnsafeWorldCell<'w>,
        _: Tick,
    ) -> crate::component::ComponentIdFor<'s, T> {
        crate::component::ComponentIdFor::new(*id)
    }
}

// SAFETY: touches no world data.
unsafe impl<T: crate::component::Component> ReadOnlySystemParam
    for crate::component::ComponentIdFor<'_, T>
{
}

/// A parameter that makes its system run on the thread that runs the
/// schedule, as a [`NonSend`](super::NonSend) parameter does, without
/// reading anything: for systems that call thread-bound APIs.
///
/// ```
/// use ecs::prelude::*;
/// use ecs::system::NonSendMarker;
///
/// fn on_main_thread(_: NonSendMarker) {}
///
/// let mut world = World::new();
/// let mut schedule = Schedule::default();
/// schedule.add_systems(on_main_thread);
/// schedule.run(&mut world);
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct NonSendMarker;

// SAFETY: touches no world data.
unsafe impl SystemParam for NonSendMarker {
    type State = ();
    type Item<'w, 's> = NonSendMarker;

    fn init_state(_: &mut World, meta: &mut SystemMeta) {
        meta.set_non_send();
    }

    #[inline]
    unsafe fn get_param<'w>(
        _: &mut (),
        _: &SystemMeta,
        _: UnsafeWorldCell<'w>,
        _: Tick,
    ) -> NonSendMarker {
        NonSendMarker
    }
}

// SAFETY: touches no world data.
unsafe impl ReadOnlySystemParam for NonSendMarker {}

/// `PhantomData<T>` as a parameter: nothing, for systems generic over a
/// type they do not otherwise name.
// SAFETY: touches no world data.
unsafe impl<T: ?Sized> SystemParam for PhantomData<T> {
    type State = ();
    type Item<'w, 's> = PhantomData<T>;

    fn init_state(_: &mut World, _: &mut SystemMeta) {}

    #[inline]
    unsafe fn get_param<'w>(
        _: &mut (),
        _: &SystemMeta,
        _: UnsafeWorldCell<'w>,
        _: Tick,
    ) -> PhantomData<T> {
        PhantomData
    }
}

// SAFETY: touches no world data.
unsafe impl<T: ?Sized> ReadOnlySystemParam for PhantomData<T> {}

/// The id of the world the system runs in.
// SAFETY: reads only the world's id, which never changes.
unsafe impl SystemParam for WorldId {
    type State = ();
    type Item<'w, 's> = WorldId;

    fn init_state(_: &mut World, _: &mut SystemMeta) {}

    #[inline]
    unsafe fn get_param<'w>(
        _: &mut (),
        _: &SystemMeta,
        world: UnsafeWorldCell<'w>,
        _: Tick,
    ) -> WorldId {
        world.id()
    }
}

// SAFETY: reads only the world's id.
unsafe impl ReadOnlySystemParam for WorldId {}

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
