use std::{any::type_name, borrow::Cow, marker::PhantomData};

use super::{
    IntoSystem, RunSystemError, System, SystemIn, SystemInput, SystemMeta, SystemParam,
    SystemParamItem,
};
use crate::{
    change_detection::Tick,
    error::BevyError,
    query::FilteredAccessSet,
    world::{UnsafeWorldCell, World, WorldId},
};

/// A function usable as a system: an optional first input ([`In<T>`],
/// [`InRef<T>`], [`InMut<T>`], ...), then [`SystemParam`]s.
///
/// Implemented for functions and closures of up to 16 parameters (besides
/// the input).
///
/// [`In<T>`]: super::In
/// [`InRef<T>`]: super::InRef
/// [`InMut<T>`]: super::InMut
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a valid system: every parameter must be a `SystemParam`",
    label = "not a system",
    note = "system parameters are `Query`, `Res`, `ResMut`, `Option<Res>`, `Option<ResMut>`, `Local`, `Commands`, `&World` and `#[derive(SystemParam)]` structs, after an optional first input (`In<T>`, `InRef<T>`, `InMut<T>`); an exclusive system takes `&mut World`, after an optional input"
)]
pub trait SystemParamFunction<Marker>: Send + Sync + 'static {
    /// The input, `()` when the function takes none.
    type In: SystemInput;
    /// What the function returns.
    type Out;
    /// The parameters, as one tuple parameter.
    type Param: SystemParam;
    /// Calls the function.
    fn run(
        &mut self,
        input: <Self::In as SystemInput>::Inner<'_>,
        param: SystemParamItem<'_, '_, Self::Param>,
    ) -> Self::Out;
}

/// Marks the `SystemParamFunction` impls of functions taking an input.
#[doc(hidden)]
pub struct HasSystemInput;

macro_rules! impl_system_function {
    ($(($param:ident, $s:ident)),*) => {
        #[allow(non_snake_case, clippy::too_many_arguments)]
        impl<Out: 'static, Func, $($param: SystemParam),*> SystemParamFunction<fn($($param,)*) -> Out> for Func
        where
            Func: Send + Sync + 'static,
            for<'a> &'a mut Func: FnMut($($param),*) -> Out + FnMut($(SystemParamItem<$param>),*) -> Out,
        {
            type In = ();
            type Out = Out;
            type Param = ($($param,)*);

            #[inline]
            fn run(&mut self, _input: (), param: SystemParamItem<'_, '_, ($($param,)*)>) -> Out {
                // Calling through a helper lets the compiler pick the
                // `FnMut(SystemParamItem..)` impl.
                fn call_inner<Out, $($param),*>(mut f: impl FnMut($($param),*) -> Out, $($param: $param),*) -> Out {
                    f($($param),*)
                }
                let ($($param,)*) = param;
                call_inner(self, $($param),*)
            }
        }

        #[allow(non_snake_case, clippy::too_many_arguments)]
        impl<In: SystemInput + 'static, Out: 'static, Func, $($param: SystemParam),*>
            SystemParamFunction<(HasSystemInput, fn(In, $($param,)*) -> Out)> for Func
        where
            Func: Send + Sync + 'static,
            for<'a> &'a mut Func:
                FnMut(In, $($param),*) -> Out + FnMut(In::Param<'_>, $(SystemParamItem<$param>),*) -> Out,
        {
            type In = In;
            type Out = Out;
            type Param = ($($param,)*);

            #[inline]
            fn run(&mut self, input: In::Inner<'_>, param: SystemParamItem<'_, '_, ($($param,)*)>) -> Out {
                // As above; `PhantomData` names `In` for the helper.
                fn call_inner<In: SystemInput, Out, $($param),*>(
                    _: PhantomData<In>,
                    mut f: impl FnMut(In::Param<'_>, $($param),*) -> Out,
                    input: In::Inner<'_>,
                    $($param: $param),*
                ) -> Out {
                    f(In::wrap(input), $($param),*)
                }
                let ($($param,)*) = param;
                call_inner(PhantomData::<In>, self, input, $($param),*)
            }
        }
    };
}

crate::utils::all_tuples!(impl_system_function; (P0, s0), (P1, s1), (P2, s2), (P3, s3), (P4, s4), (P5, s5), (P6, s6), (P7, s7), (P8, s8), (P9, s9), (P10, s10), (P11, s11), (P12, s12), (P13, s13), (P14, s14), (P15, s15));

/// A system made from a function of system parameters; its output is
/// `Out`, which the function returns directly or inside a `Result` (see
/// [`IntoResult`]).
///
/// It has no `In` parameter, unlike bevy's `FunctionSystem<Marker, In,
/// Out, F>`: the input is always the function's own, as we have no
/// `FromInput` conversion.
pub struct FunctionSystem<Marker, Out, F: SystemParamFunction<Marker>> {
    func: F,
    state: Option<<F::Param as SystemParam>::State>,
    meta: SystemMeta,
    world_id: Option<WorldId>,
    marker: PhantomData<fn() -> (Marker, Out)>,
}

/// What a system function may return for a system whose output is `Out`:
/// `Out` itself, or `Result<Out, BevyError>` /
/// `Result<Out, RunSystemError>`, whose error becomes the run's
/// [`RunSystemError`].
///
/// So a function returning [`Result`](crate::error::Result) is a system
/// with output `()`, which a schedule can run.
///
/// ```
/// use ecs::prelude::*;
/// use ecs::system::RunSystemError;
///
/// fn checked(input: In<u32>) -> Result<u32> {
///     input.0.checked_mul(2).ok_or_else(|| "overflow".into())
/// }
///
/// let mut world = World::new();
/// // `checked` is also a system of output `Result<u32>`: name the output.
/// assert_eq!(world.run_system_once_with::<_, _, u32, _>(checked, 21).unwrap(), 42);
/// let error = world.run_system_once_with::<_, _, u32, _>(checked, u32::MAX).unwrap_err();
/// assert!(matches!(error, RunSystemError::Failed(_)));
/// ```
pub trait IntoResult<Out>: Sized {
    /// The output, or the error of the run.
    fn into_result(self) -> Result<Out, RunSystemError>;
}

impl<T> IntoResult<T> for T {
    #[inline]
    fn into_result(self) -> Result<T, RunSystemError> {
        Ok(self)
    }
}

impl<T> IntoResult<T> for Result<T, RunSystemError> {
    #[inline]
    fn into_result(self) -> Result<T, RunSystemError> {
        self
    }
}

impl<T> IntoResult<T> for Result<T, BevyError> {
    #[inline]
    fn into_result(self) -> Result<T, RunSystemError> {
        self.map_err(RunSystemError::Failed)
    }
}

/// Names `!` on stable Rust, as the return type of a function pointer.
mod never {
    pub trait FnRet {
        type Output;
    }

    impl<R> FnRet for fn() -> R {
        type Output = R;
    }
}

/// The never type `!`: what a function that always panics returns.
pub(crate) type Never = <fn() -> ! as never::FnRet>::Output;

// A diverging function is a system of output `()` or `bool`; a blanket
// impl for `!` would overlap `IntoResult<T> for T` at `T = !`.
impl IntoResult<()> for Never {
    fn into_result(self) -> Result<(), RunSystemError> {
        self
    }
}

impl IntoResult<bool> for Never {
    fn into_result(self) -> Result<bool, RunSystemError> {
        self
    }
}

/// Marks the `IntoSystem` impl of functions of system parameters.
#[doc(hidden)]
pub struct IsFunctionSystem;

impl<Marker: 'static, Out: 'static, F> IntoSystem<F::In, Out, (IsFunctionSystem, Marker)> for F
where
    F: SystemParamFunction<Marker, Out: IntoResult<Out>>,
{
    type System = FunctionSystem<Marker, Out, F>;

    fn into_system(func: Self) -> Self::System {
        FunctionSystem {
            func,
            state: None,
            meta: SystemMeta::new(Cow::Borrowed(type_name::<F>())),
            world_id: None,
            marker: PhantomData,
        }
    }
}

/// A clone is a new system of the same function (cloned) and name, not
/// initialised: it builds its parameters' state for the world it first
/// runs in, as bevy's clone does. This is what lets
/// `distributive_run_if(not(run_once))` give each system a condition of
/// its own.
impl<Marker, Out, F> Clone for FunctionSystem<Marker, Out, F>
where
    F: SystemParamFunction<Marker> + Clone,
{
    fn clone(&self) -> Self {
        FunctionSystem {
            func: self.func.clone(),
            state: None,
            meta: SystemMeta::new(self.meta.name.clone()),
            world_id: None,
            marker: PhantomData,
        }
    }
}

impl<Marker: 'static, Out: 'static, F> FunctionSystem<Marker, Out, F>
where
    F: SystemParamFunction<Marker, Out: IntoResult<Out>>,
{
    /// The system, renamed: closures get a readable name in errors,
    /// panics, timings and schedule listings.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// let system = IntoSystem::into_system(|| {}).with_name("tick clock");
    /// assert_eq!(system.name(), "tick clock");
    /// ```
    pub fn with_name(mut self, name: impl Into<Cow<'static, str>>) -> Self {
        self.meta.set_name(name);
        self
    }

    /// A system already initialised for the world `world_id`, from
    /// parameter state built there ([`SystemState::build_system`](super::SystemState)):
    /// its `initialize` with that world only checks the world.
    pub(crate) fn from_built_state(
        func: F,
        state: <F::Param as SystemParam>::State,
        mut meta: SystemMeta,
        world_id: WorldId,
    ) -> Self {
        meta.name = Cow::Borrowed(type_name::<F>());
        FunctionSystem {
            func,
            state: Some(state),
            meta,
            world_id: Some(world_id),
            marker: PhantomData,
        }
    }
}

#[cold]
#[track_caller]
fn not_initialized(name: &str) -> ! {
    panic!("system `{name}` was run before `initialize`")
}

/// Records `world` as the system's own on its first `initialize`, with
/// its last run set to "never"; later calls (a schedule initialises its
/// systems again whenever systems are added) keep what it has seen.
/// Returns whether this was the first.
///
/// # Panics
/// If the system was initialised for another world; the message names it.
#[track_caller]
fn first_initialize(world_id: &mut Option<WorldId>, meta: &mut SystemMeta, world: &World) -> bool {
    if let Some(id) = *world_id {
        assert_eq!(
            id,
            world.id(),
            "system `{}` was initialised for another world",
            meta.name
        );
        return false;
    }
    *world_id = Some(world.id());
    meta.set_never_run(world);
    true
}

#[cold]
#[track_caller]
fn wrong_world(name: &str, initialized_for: Option<WorldId>) -> ! {
    match initialized_for {
        None => not_initialized(name),
        Some(id) => panic!(
            "system `{name}` was initialised for world {id:?} and run on another world: a system belongs to the world it was initialised with"
        ),
    }
}

impl<Marker: 'static, Out: 'static, F> System for FunctionSystem<Marker, Out, F>
where
    F: SystemParamFunction<Marker, Out: IntoResult<Out>>,
{
    type In = F::In;
    type Out = Out;

    fn name(&self) -> Cow<'static, str> {
        self.meta.name.clone()
    }

    fn type_id(&self) -> std::any::TypeId {
        std::any::TypeId::of::<F>()
    }

    #[track_caller]
    fn initialize(&mut self, world: &mut World) {
        if !first_initialize(&mut self.world_id, &mut self.meta, world) {
            return;
        }
        // A parameter conflict panics here; the system is left uninitialised
        // so that a later `initialize` reports the same conflict.
        let state = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let name = self.meta.name.clone();
            super::param::build_in_place(world, &name, |world| {
                F::Param::init_state(world, &mut self.meta)
            })
        }));
        match state {
            Ok(state) => self.state = Some(state),
            Err(payload) => {
                self.world_id = None;
                self.meta = SystemMeta::new(std::mem::take(&mut self.meta.name));
                std::panic::resume_unwind(payload)
            }
        }
    }

    fn access(&self) -> &FilteredAccessSet {
        &self.meta.access
    }

    fn is_exclusive(&self) -> bool {
        false
    }

    fn is_send(&self) -> bool {
        self.meta.is_send()
    }

    fn has_deferred(&self) -> bool {
        self.meta.has_deferred
    }

    unsafe fn run_unsafe(
        &mut self,
        input: SystemIn<'_, Self>,
        world: UnsafeWorldCell<'_>,
    ) -> Result<Out, RunSystemError> {
        // The parameters' state (component and resource ids) is only
        // meaningful in the world it was built for.
        if self.world_id != Some(world.id()) {
            wrong_world(&self.meta.name, self.world_id);
        }
        let change_tick = world.increment_change_tick();
        let this_run = self.meta.begin_run(world, change_tick);
        let state = self
            .state
            .as_mut()
            .unwrap_or_else(|| not_initialized(&self.meta.name));
        // SAFETY: the caller holds this system's recorded access; the state
        // was built for this world (checked just above).
        let params = unsafe { F::Param::try_get_param(state, &self.meta, world, change_tick) };
        // A parameter that fails validation skips (or fails) the run, which
        // then leaves the last run where it was.
        let params = params.map_err(RunSystemError::from)?;
        let out = self.func.run(input, params);
        self.meta.finish_run(this_run);
        out.into_result()
    }

    fn apply_deferred(&mut self, world: &mut World) {
        if let Some(state) = self.state.as_mut() {
            F::Param::apply(state, world);
        }
    }

    fn last_run(&self) -> Tick {
        self.meta.last_run()
    }

    fn set_last_run(&mut self, last_run: Tick) {
        self.meta.set_last_run(last_run);
    }
}

/// A function usable as an exclusive system: it takes `&mut World`, after
/// an optional first input ([`In<T>`](super::In), ...).
///
/// Exclusive systems take no other parameter, unlike bevy's (which also
/// accept `Local` and `SystemState` there): the world itself reaches
/// everything.
pub trait ExclusiveSystemParamFunction<Marker>: Send + Sync + 'static {
    /// The input, `()` when the function takes none.
    type In: SystemInput;
    /// What the function returns.
    type Out;
    /// Calls the function.
    fn run(&mut self, input: <Self::In as SystemInput>::Inner<'_>, world: &mut World) -> Self::Out;
}

impl<Out: 'static, Func> ExclusiveSystemParamFunction<fn(&mut World) -> Out> for Func
where
    Func: Send + Sync + 'static,
    for<'a> &'a mut Func: FnMut(&mut World) -> Out,
{
    type In = ();
    type Out = Out;

    #[inline]
    fn run(&mut self, _input: (), world: &mut World) -> Out {
        fn call_inner<Out>(mut f: impl FnMut(&mut World) -> Out, world: &mut World) -> Out {
            f(world)
        }
        call_inner(self, world)
    }
}

impl<In: SystemInput + 'static, Out: 'static, Func>
    ExclusiveSystemParamFunction<(HasSystemInput, fn(In, &mut World) -> Out)> for Func
where
    Func: Send + Sync + 'static,
    for<'a> &'a mut Func: FnMut(In, &mut World) -> Out + FnMut(In::Param<'_>, &mut World) -> Out,
{
    type In = In;
    type Out = Out;

    #[inline]
    fn run(&mut self, input: In::Inner<'_>, world: &mut World) -> Out {
        fn call_inner<In: SystemInput, Out>(
            _: PhantomData<In>,
            mut f: impl FnMut(In::Param<'_>, &mut World) -> Out,
            input: In::Inner<'_>,
            world: &mut World,
        ) -> Out {
            f(In::wrap(input), world)
        }
        call_inner(PhantomData::<In>, self, input, world)
    }
}

/// A system that takes the whole world: it runs alone. Its output is
/// `Out`, which the function returns directly or inside a `Result` (see
/// [`IntoResult`]).
pub struct ExclusiveFunctionSystem<Marker, Out, F: ExclusiveSystemParamFunction<Marker>> {
    func: F,
    meta: SystemMeta,
    world_id: Option<WorldId>,
    marker: PhantomData<fn() -> (Marker, Out)>,
}

/// Marks the `IntoSystem` impl of exclusive functions.
#[doc(hidden)]
pub struct IsExclusiveFunctionSystem;

impl<Marker: 'static, Out: 'static, F> IntoSystem<F::In, Out, (IsExclusiveFunctionSystem, Marker)>
    for F
where
    F: ExclusiveSystemParamFunction<Marker, Out: IntoResult<Out>>,
{
    type System = ExclusiveFunctionSystem<Marker, Out, F>;

    fn into_system(func: Self) -> Self::System {
        let mut meta = SystemMeta::new(Cow::Borrowed(type_name::<F>()));
        let mut access = crate::query::FilteredAccess::default();
        access.access_mut().write_all();
        meta.access.add(access);
        ExclusiveFunctionSystem {
            func,
            meta,
            world_id: None,
            marker: PhantomData,
        }
    }
}

impl<Marker: 'static, Out: 'static, F> ExclusiveFunctionSystem<Marker, Out, F>
where
    F: ExclusiveSystemParamFunction<Marker, Out: IntoResult<Out>>,
{
    /// The system, renamed (see [`FunctionSystem::with_name`]).
    pub fn with_name(mut self, name: impl Into<Cow<'static, str>>) -> Self {
        self.meta.set_name(name);
        self
    }
}

impl<Marker: 'static, Out: 'static, F> System for ExclusiveFunctionSystem<Marker, Out, F>
where
    F: ExclusiveSystemParamFunction<Marker, Out: IntoResult<Out>>,
{
    type In = F::In;
    type Out = Out;

    fn name(&self) -> Cow<'static, str> {
        self.meta.name.clone()
    }

    fn type_id(&self) -> std::any::TypeId {
        std::any::TypeId::of::<F>()
    }

    #[track_caller]
    fn initialize(&mut self, world: &mut World) {
        first_initialize(&mut self.world_id, &mut self.meta, world);
    }

    fn access(&self) -> &FilteredAccessSet {
        &self.meta.access
    }

    fn is_exclusive(&self) -> bool {
        true
    }

    fn has_deferred(&self) -> bool {
        false
    }

    unsafe fn run_unsafe(
        &mut self,
        input: SystemIn<'_, Self>,
        world: UnsafeWorldCell<'_>,
    ) -> Result<Out, RunSystemError> {
        // Its last run is a tick of the world it was initialised with.
        if self.world_id != Some(world.id()) {
            wrong_world(&self.meta.name, self.world_id);
        }
        self.meta.begin_run(world, world.change_tick());
        // SAFETY: exclusive systems run with no other access alive (the
        // caller guarantees it) and from a mutable world cell.
        let world = unsafe { world.world_mut() };
        world.flush_entities();
        // Inside the system, what the world reports as added or changed is
        // what happened since this system's last run; its own writes carry
        // the current tick, which becomes its last run afterwards, so its
        // next run does not see them.
        // As bevy does, what the system queued on the world's own command
        // queue applies before it returns.
        let out = world.last_change_tick_scope(self.meta.last_run(), |world| {
            let out = self.func.run(input, world);
            world.flush();
            out
        });
        let this_run = world.increment_change_tick();
        self.meta.finish_run(world.counted_tick(this_run));
        out.into_result()
    }

    fn apply_deferred(&mut self, _: &mut World) {}

    fn last_run(&self) -> Tick {
        self.meta.last_run()
    }

    fn set_last_run(&mut self, last_run: Tick) {
        self.meta.set_last_run(last_run);
    }
}
