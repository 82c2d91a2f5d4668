//! Systems: functions of queries, resources and commands that a schedule
//! runs, in parallel when their data access allows.
//!
//! A function becomes a system when each of its parameters is a
//! [`SystemParam`], after an optional first input ([`In`], [`InRef`],
//! [`InMut`]) that the caller passes on each run
//! ([`RunSystemOnce::run_system_once_with`]); a schedule runs systems
//! without input. At initialisation each parameter records what it
//! reads and writes ([`FilteredAccessSet`]); two parameters of one system
//! that conflict panic then, naming the system and the component. The
//! schedule uses the same records to run non-conflicting systems at once.

/// The [`System`] methods a wrapper of one system hands straight to it
/// (access, exclusivity, deferred work, last run): `$field` is the wrapped
/// system.
macro_rules! delegate_to_inner_system {
    ($field:ident) => {
        fn access(&self) -> &$crate::query::FilteredAccessSet {
            self.$field.access()
        }

        fn is_exclusive(&self) -> bool {
            self.$field.is_exclusive()
        }

        fn is_send(&self) -> bool {
            self.$field.is_send()
        }

        fn has_deferred(&self) -> bool {
            self.$field.has_deferred()
        }

        fn apply_deferred(&mut self, world: &mut $crate::world::World) {
            self.$field.apply_deferred(world);
        }

        fn last_run(&self) -> $crate::change_detection::Tick {
            self.$field.last_run()
        }

        fn set_last_run(&mut self, last_run: $crate::change_detection::Tick) {
            self.$field.set_last_run(last_run);
        }
    };
}
use delegate_to_inner_system;

/// The [`System`] methods of a system made of two systems `a` and `b` run
/// one after the other, with its own `name` and its `access` (set by
/// `initialize`): everything but initialising and running.
macro_rules! delegate_to_both_systems {
    () => {
        fn name(&self) -> std::borrow::Cow<'static, str> {
            self.name.clone()
        }

        fn type_id(&self) -> std::any::TypeId {
            std::any::TypeId::of::<Self>()
        }

        fn access(&self) -> &$crate::query::FilteredAccessSet {
            &self.access
        }

        fn is_exclusive(&self) -> bool {
            self.a.is_exclusive() || self.b.is_exclusive()
        }

        fn is_send(&self) -> bool {
            self.a.is_send() && self.b.is_send()
        }

        fn has_deferred(&self) -> bool {
            self.a.has_deferred() || self.b.has_deferred()
        }

        fn apply_deferred(&mut self, world: &mut $crate::world::World) {
            self.a.apply_deferred(world);
            self.b.apply_deferred(world);
        }

        fn last_run(&self) -> $crate::change_detection::Tick {
            self.a.last_run()
        }

        fn set_last_run(&mut self, last_run: $crate::change_detection::Tick) {
            self.a.set_last_run(last_run);
            self.b.set_last_run(last_run);
        }
    };
}
use delegate_to_both_systems;

mod adapter;
mod builder;
mod combinator;
mod commands;
mod deferred;
mod dyn_param;
mod filtered_resources;
mod function_system;
mod input;
mod non_send;
mod parallel_commands;
pub(crate) mod param;
mod param_set;
mod query;
mod read_only;
mod run_error;
mod single;
mod system_registry;
mod system_state;
mod with_input;
mod world_params;
mod wrappers;

/// Parameter types with `'static` lifetimes, for naming a system
/// parameter where lifetimes cannot be written (a [`SystemParam`]
/// implementation's `State`, a `SystemState<..>` in a struct), at bevy's
/// paths.
///
/// ```
/// use ecs::prelude::*;
/// use ecs::system::{lifetimeless::{Read, SQuery, SRes}, SystemState};
///
/// #[derive(Component)]
/// struct Speed(f32);
/// #[derive(Resource)]
/// struct Scale(f32);
///
/// struct Cached {
///     state: SystemState<(SQuery<Read<Speed>>, SRes<Scale>)>,
/// }
///
/// let mut world = World::new();
/// world.insert_resource(Scale(2.0));
/// world.spawn(Speed(3.0));
/// let mut cached = Cached { state: SystemState::new(&mut world) };
/// let (query, scale) = cached.state.get(&world);
/// let total: f32 = query.iter().map(|s| s.0 * scale.0).sum();
/// assert_eq!(total, 6.0);
/// ```
pub mod lifetimeless {
    /// A [`Query`](super::Query) with `'static` lifetimes.
    pub type SQuery<D, F = ()> = super::Query<'static, 'static, D, F>;
    /// `&'static T`.
    pub type Read<T> = &'static T;
    /// `&'static mut T`.
    pub type Write<T> = &'static mut T;
    /// A [`Res`](super::Res) with a `'static` lifetime.
    pub type SRes<T> = super::Res<'static, T>;
    /// A [`ResMut`](super::ResMut) with a `'static` lifetime.
    pub type SResMut<T> = super::ResMut<'static, T>;
    /// [`Commands`](super::Commands) with `'static` lifetimes.
    pub type SCommands = super::Commands<'static, 'static>;
}

// Bevy's paths for items defined in other modules.
/// The [`Command`] trait and the one-shot system commands, at the paths
/// bevy gives them.
pub mod command {
    pub use super::system_registry::command::{
        run_system, run_system_cached, run_system_cached_with, run_system_with, unregister_system,
        unregister_system_cached,
    };
    pub use super::Command;

    use crate::{
        query::{QueryData, QueryFilter},
        world::World,
    };

    /// The command of [`Commands::despawn_all`](super::Commands::despawn_all).
    pub fn despawn_all<F: QueryFilter>() -> impl Command<Out = ()> {
        |world: &mut World| world.despawn_all::<F>()
    }

    /// The command of
    /// [`Commands::despawn_all_where`](super::Commands::despawn_all_where).
    pub fn despawn_all_where<D: QueryData, F: QueryFilter>(
        cond: impl FnMut(D::Item<'_>) -> bool + Send + 'static,
    ) -> impl Command<Out = ()> {
        move |world: &mut World| world.despawn_all_where::<D, F>(cond)
    }
}

pub use crate::world::CommandQueue;
pub use adapter::{Adapt, AdapterSystem, IntoAdapterSystem, IsAdapterSystemMarker};
pub use builder::{
    BuilderSystem, IntoBuilderSystem, IsBuilderSystem, LocalBuilder, ParamBuilder, ParamSetBuilder,
    QueryParamBuilder, SystemParamBuilder,
};
pub use combinator::{
    CombinatorSystem, Combine, IntoPipeSystem, IsPipeSystemMarker, PipeSystem, PipeSystemName,
};
pub use commands::{Command, Commands, EntityCommand, EntityCommands, EntityEntryCommands};
pub use deferred::{Deferred, DeferredState, SystemBuffer};
pub use dyn_param::{DynParamBuilder, DynSystemParam, DynSystemParamState};
pub use ecs_macros::SystemParam;
pub use filtered_resources::{
    FilteredResources, FilteredResourcesBuilder, FilteredResourcesMut, FilteredResourcesMutBuilder,
    FilteredResourcesMutParamBuilder, FilteredResourcesParamBuilder, ResourceFetchError,
};
pub(crate) use function_system::Never;
pub use function_system::{
    ExclusiveFunctionSystem, ExclusiveSystemParamFunction, FunctionSystem, HasSystemInput,
    IntoResult, IsExclusiveFunctionSystem, IsFunctionSystem, SystemParamFunction,
};
pub use input::{In, InMut, InRef, StaticSystemInput, SystemIn, SystemInput};
pub use non_send::{NonSend, NonSendMut};
pub use parallel_commands::{ParallelCommandQueues, ParallelCommands};
pub use param::{
    Local, ReadOnlySystemParam, Res, ResMut, SystemMeta, SystemParam, SystemParamItem,
};
pub use param_set::ParamSet;
pub use query::{Query, QueryLens};
pub use read_only::{
    assert_is_read_only_system, assert_is_system, assert_system_does_not_conflict, ReadOnlySystem,
};
pub use run_error::{RunSystemError, SystemParamValidationError};
pub use single::{Populated, Single};
pub use system_registry::{
    CachedSystemId, RegisteredSystem, RegisteredSystemError, RemovedSystem, SystemId,
    SystemIdMarker,
};
pub use system_state::SystemState;
pub use with_input::{WithInputFromWrapper, WithInputWrapper};
pub use world_params::{NonSendMarker, StaticSystemParam, SystemChangeTick, SystemName};
pub use wrappers::{If, IfBuilder, OptionBuilder, ResultBuilder};

use std::{any::TypeId, borrow::Cow};

use crate::{
    change_detection::Tick,
    query::FilteredAccessSet,
    world::{DeferredWorld, FromWorld, UnsafeWorldCell, World},
};

/// Something a schedule can run: it takes an input ([`System::In`]), reads
/// and writes the world, and returns an output ([`System::Out`]).
pub trait System: Send + Sync + 'static {
    /// What a caller passes on each run (`()` for none).
    type In: SystemInput;
    /// What a run returns.
    type Out;

    /// The system's name (its function's path).
    fn name(&self) -> Cow<'static, str>;

    /// The identity used by `.before` / `.after` (the function's type).
    fn type_id(&self) -> TypeId;

    /// Builds the parameters' state and records their access. Runs once;
    /// later calls with the same world do nothing.
    ///
    /// # Panics
    /// If two parameters conflict, naming the system and the component; if
    /// called with another world.
    fn initialize(&mut self, world: &mut World);

    /// What the system reads and writes.
    fn access(&self) -> &FilteredAccessSet;

    /// Whether the system needs the whole world (`fn(&mut World)`).
    fn is_exclusive(&self) -> bool;

    /// Whether the system may run on any thread; `false` when it uses a
    /// non-send resource ([`NonSend`]), and a schedule then runs it on the
    /// thread that drives the schedule.
    fn is_send(&self) -> bool {
        true
    }

    /// Whether the system queues deferred work (commands).
    fn has_deferred(&self) -> bool;

    /// Runs the system with `input` through a shared world pointer, without
    /// applying its deferred work.
    ///
    /// Returns the output, or why there is none: the system was skipped
    /// or returned an error ([`RunSystemError`]).
    ///
    /// # Safety
    /// The system was initialised with this world; the caller holds the
    /// system's recorded access for the whole run (for an exclusive system:
    /// the whole world, from a mutable cell).
    unsafe fn run_unsafe(
        &mut self,
        input: SystemIn<'_, Self>,
        world: UnsafeWorldCell<'_>,
    ) -> Result<Self::Out, RunSystemError>;

    /// Runs the system with `input` and exclusive access, then applies its
    /// deferred work if the run succeeded (a failed run's stays queued
    /// until the next [`apply_deferred`](System::apply_deferred)).
    ///
    /// Returns the output, or why there is none ([`RunSystemError`]).
    fn run(
        &mut self,
        input: SystemIn<'_, Self>,
        world: &mut World,
    ) -> Result<Self::Out, RunSystemError> {
        let out = self.run_without_applying_deferred(input, world)?;
        self.apply_deferred(world);
        Ok(out)
    }

    /// Runs the system with `input` and exclusive access, leaving its
    /// deferred work queued for [`apply_deferred`](System::apply_deferred).
    fn run_without_applying_deferred(
        &mut self,
        input: SystemIn<'_, Self>,
        world: &mut World,
    ) -> Result<Self::Out, RunSystemError> {
        world.flush_entities();
        world.check_change_ticks();
        // SAFETY: `&mut World` holds every access.
        unsafe { self.run_unsafe(input, UnsafeWorldCell::new_mutable(world)) }
    }

    /// Applies deferred work (commands).
    fn apply_deferred(&mut self, world: &mut World);

    /// The tick the system last ran at.
    fn last_run(&self) -> Tick;

    /// Sets the tick the system last ran at: what its change detection
    /// compares against on its next run.
    fn set_last_run(&mut self, last_run: Tick);
}

/// A boxed system taking `In` and returning `Out`.
pub type BoxedSystem<In = (), Out = ()> = Box<dyn System<In = In, Out = Out>>;

/// A system a [`Schedule`](crate::schedule::Schedule) can hold: no input,
/// no output.
pub type ScheduleSystem = BoxedSystem<(), ()>;

/// Conversion into a [`System`] taking `In` and returning `Out`:
/// implemented for functions of system parameters (optionally preceded by
/// an input such as [`In<T>`]), for `fn(&mut World)` and
/// `fn(In<T>, &mut World)`, and for systems themselves.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a valid system with input `{In}` and output `{Out}`: every parameter must be a `SystemParam`",
    label = "not a system",
    note = "system parameters are `Query`, `Res`, `ResMut`, `Option<Res>`, `Option<ResMut>`, `Local`, `Commands`, `&World` and `#[derive(SystemParam)]` structs, after an optional first input (`In<T>`, `InRef<T>`, `InMut<T>`); an exclusive system takes `&mut World`, after an optional input"
)]
pub trait IntoSystem<In: SystemInput, Out, Marker>: Sized {
    /// The system type.
    type System: System<In = In, Out = Out>;
    /// Makes the system.
    fn into_system(this: Self) -> Self::System;

    /// Pipes this system's output into `system`, whose input
    /// ([`In<Out>`](In) for a function) receives it: one system taking this
    /// system's input and returning `system`'s output.
    ///
    /// The [`PipeSystem`] is named `Pipe(a, b)` after its halves unless
    /// renamed with [`IntoPipeSystem::with_name`],
    /// [`with_name_fn`](IntoPipeSystem::with_name_fn),
    /// [`with_first_name`](IntoPipeSystem::with_first_name) or
    /// [`with_second_name`](IntoPipeSystem::with_second_name).
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Component)]
    /// struct Enemy;
    /// #[derive(Resource, Default)]
    /// struct Alarm(bool);
    ///
    /// fn count(enemies: Query<&Enemy>) -> usize {
    ///     enemies.iter().count()
    /// }
    ///
    /// fn raise(In(enemies): In<usize>, mut alarm: ResMut<Alarm>) {
    ///     alarm.0 = enemies > 1;
    /// }
    ///
    /// let mut world = World::new();
    /// world.init_resource::<Alarm>();
    /// world.spawn(Enemy);
    /// world.spawn(Enemy);
    /// let mut schedule = Schedule::default();
    /// schedule.add_systems(count.pipe(raise));
    /// schedule.run(&mut world);
    /// assert!(world.resource::<Alarm>().0);
    /// ```
    fn pipe<B, BIn, BOut, MarkerB>(self, system: B) -> IntoPipeSystem<Self, B>
    where
        Out: 'static,
        B: IntoSystem<BIn, BOut, MarkerB>,
        for<'a> BIn: SystemInput<Inner<'a> = Out>,
    {
        IntoPipeSystem::new(self, system)
    }

    /// Passes this system's output through `f`: one system returning what
    /// `f` returns, with this system's access (an [`AdapterSystem`]).
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Resource)]
    /// struct Text(String);
    ///
    /// fn parse(text: Res<Text>) -> Result<u32, std::num::ParseIntError> {
    ///     text.0.parse()
    /// }
    ///
    /// let mut world = World::new();
    /// world.insert_resource(Text("x".to_owned()));
    /// let mut schedule = Schedule::default();
    /// // Ignores the output of a system that may fail.
    /// schedule.add_systems(parse.map(drop));
    /// schedule.run(&mut world);
    /// ```
    fn map<T, F>(self, f: F) -> IntoAdapterSystem<F, Self>
    where
        F: Send + Sync + 'static + FnMut(Out) -> T,
    {
        IntoAdapterSystem::new(f, self)
    }

    /// Owns `value` and passes `&mut value` as this system's input on
    /// every run: a system taking no input, which a schedule can run. The
    /// system's input is any that takes `&mut T`, such as [`InMut<T>`].
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Resource, Default)]
    /// struct Runs(u32);
    ///
    /// fn count(InMut(seen): InMut<u32>, mut runs: ResMut<Runs>) {
    ///     *seen += 1;
    ///     runs.0 = *seen;
    /// }
    ///
    /// let mut world = World::new();
    /// world.init_resource::<Runs>();
    /// let mut schedule = Schedule::default();
    /// schedule.add_systems(count.with_input(40));
    /// schedule.run(&mut world);
    /// schedule.run(&mut world);
    /// assert_eq!(world.resource::<Runs>().0, 42);
    /// ```
    fn with_input<T>(self, value: T) -> WithInputWrapper<Self::System, T>
    where
        for<'i> In: SystemInput<Inner<'i> = &'i mut T>,
        T: Send + Sync + 'static,
    {
        WithInputWrapper::new(self, value)
    }

    /// As [`with_input`](IntoSystem::with_input), with a value built by
    /// [`FromWorld`] when the system is first initialised.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Resource)]
    /// struct Start(u32);
    ///
    /// struct Counter(u32);
    ///
    /// impl FromWorld for Counter {
    ///     fn from_world(world: &mut World) -> Self {
    ///         Counter(world.resource::<Start>().0)
    ///     }
    /// }
    ///
    /// fn tick(InMut(counter): InMut<Counter>) -> u32 {
    ///     counter.0 += 1;
    ///     counter.0
    /// }
    ///
    /// let mut world = World::new();
    /// world.insert_resource(Start(10));
    /// let mut system = IntoSystem::into_system(tick.with_input_from::<Counter>());
    /// system.initialize(&mut world);
    /// assert_eq!(system.run((), &mut world).unwrap(), 11);
    /// ```
    fn with_input_from<T>(self) -> WithInputFromWrapper<Self::System, T>
    where
        for<'i> In: SystemInput<Inner<'i> = &'i mut T>,
        T: FromWorld + Send + Sync + 'static,
    {
        WithInputFromWrapper::new(self)
    }

    /// The [`TypeId`] of the system [`into_system`](IntoSystem::into_system)
    /// makes.
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use std::any::Any;
    ///
    /// fn noop() {}
    ///
    /// let system = IntoSystem::into_system(noop);
    /// assert_eq!(noop.system_type_id(), Any::type_id(&system));
    /// ```
    #[inline]
    fn system_type_id(&self) -> TypeId {
        TypeId::of::<Self::System>()
    }
}

impl<T: System> IntoSystem<T::In, T::Out, ()> for T {
    type System = T;

    fn into_system(this: Self) -> Self {
        this
    }
}

/// Running a system once, outside any schedule: implemented for
/// `&mut World`.
///
/// ```
/// use ecs::prelude::*;
/// use ecs::system::RunSystemOnce;
///
/// #[derive(Component)]
/// struct Health(u32);
///
/// fn wounded(In(below): In<u32>, query: Query<&Health>) -> usize {
///     query.iter().filter(|h| h.0 < below).count()
/// }
///
/// let mut world = World::new();
/// world.spawn(Health(3));
/// world.spawn(Health(30));
/// assert_eq!(world.run_system_once_with(wounded, 10).unwrap(), 1);
/// let total = world.run_system_once(|q: Query<&Health>| q.iter().map(|h| h.0).sum::<u32>());
/// assert_eq!(total.unwrap(), 33);
/// ```
pub trait RunSystemOnce: Sized {
    /// Initialises and runs a system that takes no input, applies its
    /// commands, and returns its output.
    ///
    /// # Errors
    /// [`RunSystemError::Failed`] if the system returned an error,
    /// [`RunSystemError::Skipped`] if it was skipped. A system returning
    /// `Result<T>` may need its output named, as in
    /// `run_system_once::<_, T, _>(system)`, since it is also a system of
    /// output `Result<T>`.
    ///
    /// # Panics
    /// If the system's parameters conflict (naming the system), or if the
    /// system panics.
    #[track_caller]
    fn run_system_once<T, Out, Marker>(self, system: T) -> Result<Out, RunSystemError>
    where
        T: IntoSystem<(), Out, Marker>,
    {
        self.run_system_once_with(system, ())
    }

    /// Initialises and runs a system with `input`, applies its commands,
    /// and returns its output.
    ///
    /// # Errors
    /// As [`run_system_once`](RunSystemOnce::run_system_once).
    ///
    /// # Panics
    /// If the system's parameters conflict (naming the system), or if the
    /// system panics.
    fn run_system_once_with<T, In, Out, Marker>(
        self,
        system: T,
        input: SystemIn<'_, T::System>,
    ) -> Result<Out, RunSystemError>
    where
        T: IntoSystem<In, Out, Marker>,
        In: SystemInput;
}

impl RunSystemOnce for &mut World {
    #[track_caller]
    fn run_system_once_with<T, In, Out, Marker>(
        self,
        system: T,
        input: SystemIn<'_, T::System>,
    ) -> Result<Out, RunSystemError>
    where
        T: IntoSystem<In, Out, Marker>,
        In: SystemInput,
    {
        let mut system = IntoSystem::into_system(system);
        system.initialize(self);
        system.run(input, self)
    }
}

impl DeferredWorld<'_> {
    /// Commands, applied right after the current operation.
    #[inline]
    pub fn commands(&mut self) -> Commands<'_, '_> {
        let world = self.world_mut_internal();
        let id = world.id();
        Commands::new_from_entities(world.command_queue.get_mut(), &world.entities, id)
    }
}

#[cfg(test)]
mod tests;
