//! [`SystemState`]: system parameters fetched by hand, outside a system.

use std::any::type_name;

use super::{ReadOnlySystemParam, SystemMeta, SystemParam, SystemParamItem};
use crate::world::{FromWorld, UnsafeWorldCell, World, WorldId};

/// The state of system parameters `Param` (one, or a tuple), to fetch them
/// from a world by hand: in an exclusive system, a test, or code that owns
/// the world and wants a `Query` and a `Res` at once.
///
/// Like a system, it keeps its own last-run tick (what `Added` and
/// `Changed` compare against: each fetch sees the changes since the
/// previous fetch), its queries' caches, and its deferred work
/// (`Commands`), which [`SystemState::apply`] applies.
///
/// ```
/// use ecs::prelude::*;
/// use ecs::system::SystemState;
///
/// #[derive(Component)]
/// struct Health(u32);
/// #[derive(Resource)]
/// struct Poison(u32);
///
/// let mut world = World::new();
/// world.insert_resource(Poison(2));
/// world.spawn(Health(10));
/// let mut state: SystemState<(Query<&mut Health>, Res<Poison>, Commands)> =
///     SystemState::new(&mut world);
///
/// let (mut healths, poison, mut commands) = state.get_mut(&mut world);
/// for mut health in &mut healths {
///     health.0 -= poison.0;
/// }
/// commands.spawn(Health(1));
/// state.apply(&mut world);
///
/// let mut read: SystemState<Query<&Health>> = SystemState::new(&mut world);
/// let healths = read.get(&world);
/// let mut values: Vec<u32> = healths.iter().map(|h| h.0).collect();
/// values.sort();
/// assert_eq!(values, [1, 8]);
/// ```
pub struct SystemState<Param: SystemParam + 'static> {
    meta: SystemMeta,
    /// The meta as the parameters recorded it: `meta_mut` hands out `meta`,
    /// which safe code may replace, so a system built from this state
    /// takes its access from here too.
    recorded: SystemMeta,
    param_state: Param::State,
    world_id: WorldId,
}

impl<Param: SystemParam + 'static> SystemState<Param> {
    /// Builds the parameters' state for `world`.
    ///
    /// # Panics
    /// If two of the parameters conflict (as a system's would), naming
    /// them and the component.
    #[track_caller]
    pub fn new(world: &mut World) -> Self {
        let mut meta = SystemMeta::new(type_name::<Param>().into());
        meta.set_never_run(world);
        let param_state = super::param::build_in_place(world, type_name::<Param>(), |world| {
            Param::init_state(world, &mut meta)
        });
        SystemState {
            recorded: meta.clone(),
            meta,
            param_state,
            world_id: world.id(),
        }
    }

    /// A state from parameter state already built for `world` (by a
    /// [`SystemParamBuilder`](super::SystemParamBuilder)) and the meta its
    /// access was recorded in.
    pub(crate) fn from_built(meta: SystemMeta, param_state: Param::State, world: &World) -> Self {
        SystemState {
            recorded: meta.clone(),
            meta,
            param_state,
            world_id: world.id(),
        }
    }

    /// The meta (with at least the access the parameters recorded), the
    /// parameters' state and the world they were built for.
    pub(crate) fn into_parts(mut self) -> (SystemMeta, Param::State, WorldId) {
        self.meta.keep_recorded(&self.recorded);
        (self.meta, self.param_state, self.world_id)
    }

    /// The name, access and last run of these parameters.
    pub fn meta(&self) -> &SystemMeta {
        &self.meta
    }

    /// The name, access and last run of these parameters, mutably: to
    /// rename them ([`SystemMeta::set_name`]) or move their last run
    /// ([`SystemMeta::set_last_run`]), which `Added` and `Changed` compare
    /// against. Access can only grow this way: a system built from this
    /// state keeps at least what its parameters recorded, whatever the
    /// meta is replaced with.
    pub fn meta_mut(&mut self) -> &mut SystemMeta {
        &mut self.meta
    }

    /// Whether this state was built for the world of `world_id`.
    pub fn matches_world(&self, world_id: WorldId) -> bool {
        self.world_id == world_id
    }

    /// Fetches read-only parameters through a shared borrow of the world.
    ///
    /// # Panics
    /// If `world` is not the world this state was built for.
    #[track_caller]
    pub fn get<'w, 's>(&'s mut self, world: &'w World) -> SystemParamItem<'w, 's, Param>
    where
        Param: ReadOnlySystemParam,
    {
        self.validate_world(world.id());
        // SAFETY: the parameters only read, and `&World` lets everyone read.
        unsafe { self.fetch(UnsafeWorldCell::new_readonly(world)) }
    }

    /// Fetches the parameters with exclusive access to the world (entities
    /// reserved by commands are spawned first).
    ///
    /// # Panics
    /// If `world` is not the world this state was built for.
    #[track_caller]
    pub fn get_mut<'w, 's>(&'s mut self, world: &'w mut World) -> SystemParamItem<'w, 's, Param> {
        self.validate_world(world.id());
        world.flush_entities();
        // SAFETY: `&mut World` holds every access.
        unsafe { self.fetch(UnsafeWorldCell::new_mutable(world)) }
    }

    /// Fetches the parameters through a world cell, without checking the
    /// world or the access.
    ///
    /// # Safety
    /// `world` is the world this state was built for, and the caller holds
    /// the parameters' access ([`SystemState::meta`]) for as long as the
    /// items live.
    pub unsafe fn get_unchecked<'w, 's>(
        &'s mut self,
        world: UnsafeWorldCell<'w>,
    ) -> SystemParamItem<'w, 's, Param> {
        // SAFETY: guaranteed by the caller.
        unsafe { self.fetch(world) }
    }

    /// Applies the parameters' deferred work (commands) to `world`.
    pub fn apply(&mut self, world: &mut World) {
        self.validate_world(world.id());
        Param::apply(&mut self.param_state, world);
    }

    /// # Safety
    /// As [`SystemState::get_unchecked`].
    unsafe fn fetch<'w, 's>(
        &'s mut self,
        world: UnsafeWorldCell<'w>,
    ) -> SystemParamItem<'w, 's, Param> {
        let change_tick = world.increment_change_tick();
        let this_run = self.meta.begin_run(world, change_tick);
        let state = &mut self.param_state;
        // SAFETY: guaranteed by the caller.
        let item = unsafe { Param::get_param(state, &self.meta, world, change_tick) };
        // As bevy does, the fetch counts as the run: the next fetch sees
        // the changes made after this one.
        self.meta.finish_run(this_run);
        item
    }

    #[track_caller]
    fn validate_world(&self, world_id: WorldId) {
        assert!(
            self.matches_world(world_id),
            "SystemState<{}> was built for world {:?} and used with world {world_id:?}: its component and resource ids belong to the first",
            type_name::<Param>(),
            self.world_id
        );
    }
}

impl<Param: SystemParam + 'static> FromWorld for SystemState<Param> {
    fn from_world(world: &mut World) -> Self {
        SystemState::new(world)
    }
}
