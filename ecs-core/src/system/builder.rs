//! [`SystemParamBuilder`]: system parameters whose state is chosen at run
//! time (a `Local`'s first value, extra query terms, the resources a
//! [`FilteredResources`](super::FilteredResources) may reach), and systems
//! built from them.
//!
//! ```text
//!  (LocalBuilder(10), QueryParamBuilder::new(..))      one builder per parameter
//!        │ build_state(&mut world)
//!        ▼
//!  SystemState<(Local<u32>, Query<..>)>                state built, access recorded
//!        │ build_system(func)
//!        ▼
//!  FunctionSystem                                      already initialised for `world`
//! ```
//!
//! `builder.build_system(func)` skips the middle step: the state is built
//! when the system is first initialised.

use std::{any::type_name, borrow::Cow, marker::PhantomData};

use super::{
    param_set::init_member_with, FunctionSystem, IntoResult, IntoSystem, Local, ParamSet, Query,
    ReadOnlySystem, Res, ResMut, RunSystemError, System, SystemIn, SystemInput, SystemMeta,
    SystemParam, SystemParamFunction, SystemParamItem, SystemState,
};
use crate::{
    change_detection::Tick,
    query::{FilteredAccessSet, QueryBuilder, QueryData, QueryFilter, QueryState},
    resource::Resource,
    utils::SyncCell,
    world::{FromWorld, UnsafeWorldCell, World},
};

/// Builds the state of the system parameter `P`, recording its access:
/// what a system built from it starts with instead of `P`'s default
/// ([`SystemParam::init_state`]).
///
/// A system's builder is a tuple with one builder per parameter, even for
/// one parameter. [`ParamBuilder`] builds any parameter as a plain system
/// would; [`LocalBuilder`], [`QueryParamBuilder`], [`ParamSetBuilder`] and
/// [`FilteredResourcesParamBuilder`](super::FilteredResourcesParamBuilder)
/// choose their parameter's state; a [`QueryState`] is a builder of its
/// `Query`.
///
/// ```
/// use ecs::prelude::*;
/// use ecs::system::{LocalBuilder, ParamBuilder, QueryParamBuilder};
///
/// #[derive(Component)]
/// struct Health(u32);
/// #[derive(Component)]
/// struct Player;
/// #[derive(Resource)]
/// struct Bonus(u32);
///
/// let mut world = World::new();
/// world.insert_resource(Bonus(5));
/// let player = world.spawn((Health(1), Player)).id();
/// let other = world.spawn(Health(1)).id();
///
/// // A closure's parameter types come from the builders.
/// let system = (
///     LocalBuilder(10u32),
///     QueryParamBuilder::new(|query: &mut QueryBuilder<&mut Health>| {
///         query.with::<Player>();
///     }),
///     ParamBuilder::resource::<Bonus>(),
/// )
///     .build_state(&mut world)
///     .build_system(|base, mut healths, bonus| {
///         let bonus: Res<Bonus> = bonus;
///         for mut health in &mut healths {
///             health.0 = *base + bonus.0;
///         }
///     });
/// world.run_system_once(system).unwrap();
/// assert_eq!(world.get::<Health>(player).unwrap().0, 15);
/// assert_eq!(world.get::<Health>(other).unwrap().0, 1);
/// ```
///
/// `build` takes the [`SystemMeta`] beside the world, unlike bevy's: our
/// [`SystemParam::init_state`] records a parameter's access as it builds
/// the state, and a builder does the same.
///
/// # Safety
/// `build` returns a state valid for `P` in `world` (one made by
/// `P::init_state`, another builder of `P`, or the same construction), and
/// records in `meta` every access `P::get_param` makes with that state.
pub unsafe trait SystemParamBuilder<P: SystemParam>: Sized {
    /// Builds the parameter's state for `world` and records its access in
    /// `meta`.
    ///
    /// # Panics
    /// If the access conflicts with an earlier parameter's in `meta`,
    /// naming the system, the parameter and the component.
    fn build(self, world: &mut World, meta: &mut SystemMeta) -> P::State;

    /// Builds the state for `world` as a [`SystemState`], to fetch by hand
    /// or to turn into a system with [`SystemState::build_system`].
    ///
    /// # Panics
    /// As [`build`](SystemParamBuilder::build).
    #[track_caller]
    fn build_state(self, world: &mut World) -> SystemState<P>
    where
        P: 'static,
    {
        let mut meta = SystemMeta::new(type_name::<P>().into());
        meta.set_never_run(world);
        let state = super::param::build_in_place(world, type_name::<P>(), |world| {
            self.build(world, &mut meta)
        });
        SystemState::from_built(meta, state, world)
    }

    /// A system running `func` whose parameters are built by this builder
    /// when the system is first initialised. A closure's parameter types
    /// must be written out here; [`build_state`](Self::build_state) and
    /// then [`SystemState::build_system`] infers them.
    fn build_system<Marker, Out, Func>(
        self,
        func: Func,
    ) -> IntoBuilderSystem<Marker, Out, Func, Self>
    where
        Self: 'static,
        Func: SystemParamFunction<Marker, Param = P>,
    {
        IntoBuilderSystem::new(self, func)
    }
}

/// Builds any system parameter as a plain system does
/// ([`SystemParam::init_state`]); its methods name the parameter, so that
/// a closure's parameter type can be inferred from them.
///
/// ```
/// use ecs::prelude::*;
/// use ecs::system::ParamBuilder;
///
/// #[derive(Component)]
/// struct Health(u32);
///
/// let mut world = World::new();
/// world.spawn(Health(3));
/// let system = (ParamBuilder::query::<&Health>(), ParamBuilder::local::<u32>())
///     .build_state(&mut world)
///     .build_system(|healths, mut runs| {
///         *runs += 1;
///         healths.iter().map(|h| h.0).sum::<u32>() + *runs
///     });
/// assert_eq!(world.run_system_once(system).unwrap(), 4);
/// ```
#[derive(Default, Debug, Clone, Copy)]
pub struct ParamBuilder;

// SAFETY: the state is `P`'s own, from `P::init_state`, which records `P`'s
// access.
unsafe impl<P: SystemParam> SystemParamBuilder<P> for ParamBuilder {
    #[track_caller]
    fn build(self, world: &mut World, meta: &mut SystemMeta) -> P::State {
        P::init_state(world, meta)
    }
}

impl ParamBuilder {
    /// A builder of `T` with its default state.
    pub fn of<T: SystemParam>() -> impl SystemParamBuilder<T> {
        Self
    }

    /// A builder of [`Res<T>`](Res).
    pub fn resource<'w, T: Resource>() -> impl SystemParamBuilder<Res<'w, T>> {
        Self
    }

    /// A builder of [`ResMut<T>`](ResMut).
    pub fn resource_mut<'w, T: Resource>() -> impl SystemParamBuilder<ResMut<'w, T>> {
        Self
    }

    /// A builder of [`Local<T>`](Local) starting at `T::from_world`
    /// ([`LocalBuilder`] gives the first value).
    pub fn local<'s, T: FromWorld + Send + 'static>() -> impl SystemParamBuilder<Local<'s, T>> {
        Self
    }

    /// A builder of [`Query<D>`](Query).
    pub fn query<'w, 's, D: QueryData + 'static>() -> impl SystemParamBuilder<Query<'w, 's, D, ()>>
    {
        Self
    }

    /// A builder of [`Query<D, F>`](Query).
    pub fn query_filtered<'w, 's, D: QueryData + 'static, F: QueryFilter + 'static>(
    ) -> impl SystemParamBuilder<Query<'w, 's, D, F>> {
        Self
    }
}

/// Builds a [`Local`] that starts at the value given.
///
/// ```
/// use ecs::prelude::*;
/// use ecs::system::LocalBuilder;
///
/// let mut world = World::new();
/// let system = (LocalBuilder(100usize),)
///     .build_state(&mut world)
///     .build_system(|mut local: Local<usize>| {
///         *local += 1;
///         *local
///     });
/// assert_eq!(world.run_system_once(system).unwrap(), 101);
/// ```
#[derive(Default, Debug, Clone)]
pub struct LocalBuilder<T>(pub T);

// SAFETY: any value of `T` is a valid `Local<T>` state, which touches no
// world data.
unsafe impl<'s, T: FromWorld + Send + 'static> SystemParamBuilder<Local<'s, T>>
    for LocalBuilder<T>
{
    fn build(self, _: &mut World, _: &mut SystemMeta) -> SyncCell<T> {
        SyncCell::new(self.0)
    }
}

// SAFETY: the state is checked to belong to `world`, and its access is
// recorded.
unsafe impl<'w, 's, D: QueryData + 'static, F: QueryFilter + 'static>
    SystemParamBuilder<Query<'w, 's, D, F>> for QueryState<D, F>
{
    #[track_caller]
    fn build(self, world: &mut World, meta: &mut SystemMeta) -> QueryState<D, F> {
        self.validate_world(world.id());
        meta.add_param_access(
            type_name::<Query<D, F>>(),
            self.component_access().clone(),
            world,
        );
        self
    }
}

/// Builds a [`Query`] through a [`QueryBuilder`] that a closure is given:
/// to add terms (`with`, `without`, `or`, ..) to the query's type, or to
/// choose what a [`FilteredEntityRef`](crate::world::FilteredEntityRef)
/// may read.
///
/// ```
/// use ecs::prelude::*;
/// use ecs::system::QueryParamBuilder;
///
/// #[derive(Component)]
/// struct Player;
///
/// let mut world = World::new();
/// world.spawn(Player);
/// world.spawn_empty();
/// let system = (QueryParamBuilder::new(|builder| {
///     builder.with::<Player>();
/// }),)
///     .build_state(&mut world)
///     .build_system(|query: Query<()>| query.iter().count());
/// assert_eq!(world.run_system_once(system).unwrap(), 1);
/// ```
#[derive(Clone)]
pub struct QueryParamBuilder<T>(T);

impl<T> QueryParamBuilder<T> {
    /// A builder of a `Query<D, F>` whose terms `f` adds to.
    pub fn new<D: QueryData, F: QueryFilter>(f: T) -> Self
    where
        T: FnOnce(&mut QueryBuilder<D, F>),
    {
        QueryParamBuilder(f)
    }
}

impl<'a, D: QueryData, F: QueryFilter>
    QueryParamBuilder<Box<dyn FnOnce(&mut QueryBuilder<D, F>) + 'a>>
{
    /// As [`new`](QueryParamBuilder::new), with the closure boxed so that
    /// builders of different closures have one type.
    pub fn new_box(f: impl FnOnce(&mut QueryBuilder<D, F>) + 'a) -> Self {
        QueryParamBuilder(Box::new(f))
    }
}

// SAFETY: `QueryBuilder` builds a state of `Query<D, F>` for `world`,
// whose access is recorded.
unsafe impl<'w, 's, D, F, T> SystemParamBuilder<Query<'w, 's, D, F>> for QueryParamBuilder<T>
where
    D: QueryData + 'static,
    F: QueryFilter + 'static,
    T: FnOnce(&mut QueryBuilder<D, F>),
{
    #[track_caller]
    fn build(self, world: &mut World, meta: &mut SystemMeta) -> QueryState<D, F> {
        let mut builder = QueryBuilder::new(world);
        (self.0)(&mut builder);
        let state = builder.build();
        meta.add_param_access(
            type_name::<Query<D, F>>(),
            state.component_access().clone(),
            world,
        );
        state
    }
}

macro_rules! tuple_param_builder {
    ($(($param:ident, $builder:ident)),*) => {
        // SAFETY: each element builds (and records the access of) its own
        // parameter.
        #[allow(non_snake_case, unused_variables, clippy::unused_unit)]
        unsafe impl<$($param: SystemParam,)* $($builder: SystemParamBuilder<$param>,)*>
            SystemParamBuilder<($($param,)*)> for ($($builder,)*)
        {
            #[track_caller]
            fn build(self, world: &mut World, meta: &mut SystemMeta) -> <($($param,)*) as SystemParam>::State {
                let ($($builder,)*) = self;
                ($($builder.build(world, meta),)*)
            }
        }
    };
}

crate::utils::all_tuples!(tuple_param_builder; (P0, B0), (P1, B1), (P2, B2), (P3, B3), (P4, B4), (P5, B5), (P6, B6), (P7, B7), (P8, B8), (P9, B9), (P10, B10), (P11, B11), (P12, B12), (P13, B13), (P14, B14), (P15, B15));

/// Builds a [`ParamSet`] from a tuple of builders, one per member.
///
/// ```
/// use ecs::prelude::*;
/// use ecs::system::{ParamSetBuilder, QueryParamBuilder};
///
/// #[derive(Component)]
/// struct Health(u32);
/// #[derive(Component)]
/// struct Enemy;
///
/// let mut world = World::new();
/// let enemy = world.spawn((Health(5), Enemy)).id();
/// let ally = world.spawn(Health(5)).id();
/// let system = (ParamSetBuilder((
///     QueryParamBuilder::new(|builder| {
///         builder.with::<Enemy>();
///     }),
///     QueryParamBuilder::new(|builder| {
///         builder.without::<Enemy>();
///     }),
/// )),)
///     .build_state(&mut world)
///     .build_system(|mut set: ParamSet<(Query<&mut Health>, Query<&mut Health>)>| {
///         for mut health in &mut set.p0() {
///             health.0 -= 1;
///         }
///         for mut health in &mut set.p1() {
///             health.0 += 1;
///         }
///     });
/// world.run_system_once(system).unwrap();
/// assert_eq!(world.get::<Health>(enemy).unwrap().0, 4);
/// assert_eq!(world.get::<Health>(ally).unwrap().0, 6);
/// ```
#[derive(Debug, Default, Clone)]
pub struct ParamSetBuilder<T>(pub T);

macro_rules! param_set_builder {
    ($(($param:ident, $builder:ident)),*) => {
        // SAFETY: each member is built (and its access recorded) as
        // `ParamSet::init_state` builds it, by its own builder.
        #[allow(non_snake_case)]
        unsafe impl<'w, 's, $($param: SystemParam,)* $($builder: SystemParamBuilder<$param>,)*>
            SystemParamBuilder<ParamSet<'w, 's, ($($param,)*)>> for ParamSetBuilder<($($builder,)*)>
        {
            #[track_caller]
            fn build(self, world: &mut World, meta: &mut SystemMeta) -> <($($param,)*) as SystemParam>::State {
                let ParamSetBuilder(($($builder,)*)) = self;
                // As `ParamSet::init_state`: every member is checked against
                // the other parameters before any member's access joins them.
                $(let $builder = init_member_with::<$param>(world, meta, |world, member| $builder.build(world, member));)*
                $(meta.access.extend($builder.1);)*
                ($($builder.0,)*)
            }
        }
    };
}

crate::utils::all_tuples_nonempty!(param_set_builder; (P0, B0), (P1, B1), (P2, B2), (P3, B3), (P4, B4), (P5, B5), (P6, B6), (P7, B7));

// ---- systems from built state ------------------------------------------------------

impl<Param: SystemParam + 'static> SystemState<Param> {
    /// The system running `func` with these parameters, already
    /// initialised for the world they were built for. Any function of
    /// `Param` fits; a closure's parameter types must be written out
    /// ([`build_system`](Self::build_system) infers them).
    pub fn build_any_system<Marker, Out, F>(self, func: F) -> FunctionSystem<Marker, Out, F>
    where
        Marker: 'static,
        Out: 'static,
        F: SystemParamFunction<Marker, Param = Param, Out: IntoResult<Out>>,
    {
        let (meta, state, world_id) = self.into_parts();
        FunctionSystem::from_built_state(func, state, meta, world_id)
    }
}

macro_rules! impl_build_system {
    ($(($param:ident, $s:ident)),*) => {
        impl<$($param: SystemParam + 'static),*> SystemState<($($param,)*)> {
            /// The system running `func` with these parameters, already
            /// initialised for the world they were built for; a closure's
            /// parameter types are inferred from the parameters.
            pub fn build_system<InnerOut: IntoResult<Out>, Out: 'static, Marker: 'static, F>(
                self,
                func: F,
            ) -> FunctionSystem<Marker, Out, F>
            where
                F: FnMut($(SystemParamItem<$param>),*) -> InnerOut
                    + SystemParamFunction<Marker, In = (), Out = InnerOut, Param = ($($param,)*)>,
            {
                self.build_any_system(func)
            }

            /// As [`build_system`](Self::build_system), for a function
            /// whose first parameter is an input ([`In<T>`](super::In), ..).
            pub fn build_system_with_input<In, InnerOut: IntoResult<Out>, Out: 'static, Marker: 'static, F>(
                self,
                func: F,
            ) -> FunctionSystem<Marker, Out, F>
            where
                In: SystemInput,
                F: FnMut(In, $(SystemParamItem<$param>),*) -> InnerOut
                    + SystemParamFunction<Marker, In = In, Out = InnerOut, Param = ($($param,)*)>,
            {
                self.build_any_system(func)
            }
        }
    };
}

crate::utils::all_tuples!(impl_build_system; (P0, s0), (P1, s1), (P2, s2), (P3, s3), (P4, s4), (P5, s5), (P6, s6), (P7, s7), (P8, s8), (P9, s9), (P10, s10), (P11, s11), (P12, s12), (P13, s13), (P14, s14), (P15, s15));

/// Marks the [`IntoSystem`] impl of [`IntoBuilderSystem`].
#[doc(hidden)]
pub struct IsBuilderSystem;

/// A function and the builder of its parameters, from
/// [`SystemParamBuilder::build_system`]: it becomes a [`BuilderSystem`].
///
/// It has no `In` parameter, unlike bevy's `IntoBuilderSystem<Marker, In,
/// Out, Func, Builder>`: the input is the function's own, as for
/// [`FunctionSystem`].
pub struct IntoBuilderSystem<Marker, Out, Func, Builder> {
    builder: Builder,
    func: Func,
    marker: PhantomData<fn() -> (Marker, Out)>,
}

impl<Marker, Out, Func, Builder> IntoBuilderSystem<Marker, Out, Func, Builder>
where
    Func: SystemParamFunction<Marker>,
    Builder: SystemParamBuilder<Func::Param>,
{
    /// `func`, whose parameters `builder` builds.
    pub fn new(builder: Builder, func: Func) -> Self {
        IntoBuilderSystem {
            builder,
            func,
            marker: PhantomData,
        }
    }
}

// Not offered in "the trait is implemented for" hints about plain functions.
#[diagnostic::do_not_recommend]
impl<Marker, Out, Func, Builder> IntoSystem<Func::In, Out, (IsBuilderSystem, Marker)>
    for IntoBuilderSystem<Marker, Out, Func, Builder>
where
    Marker: 'static,
    Out: 'static,
    Func: SystemParamFunction<Marker, Out: IntoResult<Out>>,
    Builder: SystemParamBuilder<Func::Param> + Send + Sync + 'static,
{
    type System = BuilderSystem<Marker, Out, Func, Builder>;

    fn into_system(this: Self) -> Self::System {
        BuilderSystem::new(this.builder, this.func)
    }
}

/// A system whose parameters a [`SystemParamBuilder`] builds when it is
/// first initialised; afterwards it is the [`FunctionSystem`] built.
pub struct BuilderSystem<Marker, Out, Func, Builder>
where
    Func: SystemParamFunction<Marker>,
{
    inner: BuilderSystemInner<Marker, Out, Func, Builder>,
    /// Name, empty access and last run until the system is built.
    meta: SystemMeta,
}

// The built variant is the one a system keeps for its life; boxing it
// would add an indirection to every run.
#[allow(clippy::large_enum_variant)]
enum BuilderSystemInner<Marker, Out, Func, Builder>
where
    Func: SystemParamFunction<Marker>,
{
    Built(FunctionSystem<Marker, Out, Func>),
    Unbuilt(Builder, Func),
    /// A build panicked, consuming the builder.
    Failed,
}

impl<Marker, Out, Func, Builder> BuilderSystem<Marker, Out, Func, Builder>
where
    Func: SystemParamFunction<Marker>,
    Builder: SystemParamBuilder<Func::Param>,
{
    /// `func`, whose parameters `builder` builds at the first
    /// `initialize`.
    pub fn new(builder: Builder, func: Func) -> Self {
        BuilderSystem {
            inner: BuilderSystemInner::Unbuilt(builder, func),
            meta: SystemMeta::new(Cow::Borrowed(type_name::<Func>())),
        }
    }
}

#[cold]
#[track_caller]
fn build_failed(name: &str) -> ! {
    panic!(
        "system `{name}` cannot be initialised: building its parameters panicked earlier, which consumed its builder"
    )
}

#[cold]
#[track_caller]
fn not_built(name: &str) -> ! {
    panic!("system `{name}` was run before `initialize`")
}

impl<Marker, Out, Func, Builder> System for BuilderSystem<Marker, Out, Func, Builder>
where
    Marker: 'static,
    Out: 'static,
    Func: SystemParamFunction<Marker, Out: IntoResult<Out>>,
    Builder: SystemParamBuilder<Func::Param> + Send + Sync + 'static,
{
    type In = Func::In;
    type Out = Out;

    fn name(&self) -> Cow<'static, str> {
        self.meta.name.clone()
    }

    fn type_id(&self) -> std::any::TypeId {
        std::any::TypeId::of::<Func>()
    }

    #[track_caller]
    fn initialize(&mut self, world: &mut World) {
        if let BuilderSystemInner::Built(system) = &mut self.inner {
            // Built already: a wrong world is refused by the system itself,
            // which stays intact for its own world.
            system.initialize(world);
            return;
        }
        let inner = std::mem::replace(&mut self.inner, BuilderSystemInner::Failed);
        let mut system = match inner {
            BuilderSystemInner::Built(_) => unreachable!("handled above"),
            BuilderSystemInner::Unbuilt(builder, func) => {
                // A panic here leaves `Failed`: the builder and function are
                // dropped by the unwind, and a later `initialize` says why.
                // The meta is named after the function, so a conflict names it.
                let mut meta = SystemMeta::new(self.meta.name.clone());
                meta.set_never_run(world);
                let name = self.meta.name.clone();
                let state = super::param::build_in_place(world, &name, |world| {
                    builder.build(world, &mut meta)
                });
                SystemState::from_built(meta, state, world).build_any_system(func)
            }
            BuilderSystemInner::Failed => build_failed(&self.meta.name),
        };
        system.initialize(world);
        self.inner = BuilderSystemInner::Built(system);
    }

    fn access(&self) -> &FilteredAccessSet {
        match &self.inner {
            BuilderSystemInner::Built(system) => system.access(),
            _ => self.meta.access(),
        }
    }

    fn is_exclusive(&self) -> bool {
        false
    }

    fn is_send(&self) -> bool {
        match &self.inner {
            BuilderSystemInner::Built(system) => system.is_send(),
            _ => true,
        }
    }

    fn has_deferred(&self) -> bool {
        match &self.inner {
            BuilderSystemInner::Built(system) => system.has_deferred(),
            _ => false,
        }
    }

    unsafe fn run_unsafe(
        &mut self,
        input: SystemIn<'_, Self>,
        world: UnsafeWorldCell<'_>,
    ) -> Result<Out, RunSystemError> {
        match &mut self.inner {
            // SAFETY: forwarded from the caller.
            BuilderSystemInner::Built(system) => unsafe { system.run_unsafe(input, world) },
            _ => not_built(&self.meta.name),
        }
    }

    fn apply_deferred(&mut self, world: &mut World) {
        if let BuilderSystemInner::Built(system) = &mut self.inner {
            system.apply_deferred(world);
        }
    }

    fn set_last_run(&mut self, last_run: Tick) {
        match &mut self.inner {
            BuilderSystemInner::Built(system) => system.set_last_run(last_run),
            _ => self.meta.set_last_run(last_run),
        }
    }

    fn last_run(&self) -> Tick {
        match &self.inner {
            BuilderSystemInner::Built(system) => system.last_run(),
            _ => self.meta.last_run(),
        }
    }
}

// SAFETY: it runs only as the built `FunctionSystem`, which is read-only.
unsafe impl<Marker, Out, Func, Builder> ReadOnlySystem for BuilderSystem<Marker, Out, Func, Builder>
where
    Marker: 'static,
    Out: 'static,
    Func: SystemParamFunction<Marker, Out: IntoResult<Out>>,
    Builder: SystemParamBuilder<Func::Param> + Send + Sync + 'static,
    FunctionSystem<Marker, Out, Func>: ReadOnlySystem,
{
}
