//! [`AdapterSystem`]: a system wrapped by a function that decides how it
//! runs and what becomes of its input and output (as [`IntoSystem::map`]
//! does).

use std::borrow::Cow;

use super::{IntoSystem, ReadOnlySystem, RunSystemError, System, SystemIn, SystemInput};
use crate::world::{UnsafeWorldCell, World};

/// How an [`AdapterSystem`] runs its system: it receives the adapter's
/// input and a closure that runs the system, and returns the adapter's
/// output, or why there is none. Every `FnMut(S::Out) -> Out` is one,
/// mapping the output of a run that succeeded.
///
/// ```
/// use ecs::prelude::*;
/// use ecs::system::{Adapt, AdapterSystem, RunSystemError};
///
/// /// Negates a system's output.
/// pub struct NotMarker;
/// pub type NotSystem<S> = AdapterSystem<NotMarker, S>;
///
/// impl<S> Adapt<S> for NotMarker
/// where
///     S: System,
///     S::Out: std::ops::Not,
/// {
///     type In = S::In;
///     type Out = <S::Out as std::ops::Not>::Output;
///
///     fn adapt(
///         &mut self,
///         input: SystemIn<'_, S>,
///         run_system: impl FnOnce(SystemIn<'_, S>) -> Result<S::Out, RunSystemError>,
///     ) -> Result<Self::Out, RunSystemError> {
///         run_system(input).map(|out| !out)
///     }
/// }
///
/// let mut world = World::new();
/// let mut system = NotSystem::new(NotMarker, IntoSystem::into_system(|| false), "not".into());
/// system.initialize(&mut world);
/// assert!(system.run((), &mut world).unwrap());
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` can not adapt a system of type `{S}`",
    label = "invalid system adapter"
)]
pub trait Adapt<S: System>: Send + Sync + 'static {
    /// The adapter system's input.
    type In: SystemInput;
    /// The adapter system's output.
    type Out;

    /// Runs the system through `run_system` (at most once) and returns the
    /// adapter's output, or why there is none.
    fn adapt(
        &mut self,
        input: <Self::In as SystemInput>::Inner<'_>,
        run_system: impl FnOnce(SystemIn<'_, S>) -> Result<S::Out, RunSystemError>,
    ) -> Result<Self::Out, RunSystemError>;
}

impl<F, S, Out> Adapt<S> for F
where
    F: Send + Sync + 'static + FnMut(S::Out) -> Out,
    S: System,
{
    type In = S::In;
    type Out = Out;

    fn adapt(
        &mut self,
        input: <Self::In as SystemInput>::Inner<'_>,
        run_system: impl FnOnce(SystemIn<'_, S>) -> Result<S::Out, RunSystemError>,
    ) -> Result<Out, RunSystemError> {
        run_system(input).map(self)
    }
}

/// What [`IntoSystem::map`] returns: it becomes an [`AdapterSystem`] named
/// after the system it adapts.
///
/// ```
/// use ecs::prelude::*;
/// use ecs::system::IntoAdapterSystem;
///
/// fn answer() -> u32 {
///     42
/// }
///
/// let mut world = World::new();
/// let halved = IntoAdapterSystem::new(|n: u32| n / 2, answer);
/// assert_eq!(world.run_system_once(halved).unwrap(), 21);
/// ```
#[derive(Clone)]
pub struct IntoAdapterSystem<Func, S> {
    func: Func,
    system: S,
}

impl<Func, S> IntoAdapterSystem<Func, S> {
    /// Adapts `system` with `func`, through [`Adapt`]. [`IntoSystem::map`]
    /// calls it; see the type's docs for an example.
    pub const fn new(func: Func, system: S) -> Self {
        Self { func, system }
    }
}

/// Marks the `IntoSystem` impl of [`IntoAdapterSystem`].
#[doc(hidden)]
pub struct IsAdapterSystemMarker;

// Listing this impl under "other types implement `IntoSystem`" only
// buries the real problem of a function that is not a system.
#[diagnostic::do_not_recommend]
impl<Func, S, I, O, M> IntoSystem<Func::In, Func::Out, (IsAdapterSystemMarker, I, O, M)>
    for IntoAdapterSystem<Func, S>
where
    Func: Adapt<S::System>,
    I: SystemInput,
    S: IntoSystem<I, O, M>,
{
    type System = AdapterSystem<Func, S::System>;

    fn into_system(this: Self) -> Self::System {
        let system = IntoSystem::into_system(this.system);
        let name = system.name();
        AdapterSystem::new(this.func, system, name)
    }
}

/// A [`System`] that runs `S` as `Func`'s [`Adapt`] impl decides: with
/// the same access, exclusivity and deferred work as `S`.
///
/// ```
/// use ecs::prelude::*;
///
/// #[derive(Resource)]
/// struct Lives(u32);
///
/// fn lives(lives: Res<Lives>) -> u32 {
///     lives.0
/// }
///
/// let mut world = World::new();
/// world.insert_resource(Lives(3));
/// let mut system = IntoSystem::into_system(lives.map(|n| n == 0));
/// system.initialize(&mut world);
/// assert!(!system.run((), &mut world).unwrap());
/// ```
#[derive(Clone)]
pub struct AdapterSystem<Func, S> {
    func: Func,
    system: S,
    name: Cow<'static, str>,
}

impl<Func, S> AdapterSystem<Func, S>
where
    Func: Adapt<S>,
    S: System,
{
    /// Adapts `system` with `func`, as one system called `name`.
    ///
    /// The name is a `Cow<'static, str>` rather than bevy's `DebugName`,
    /// as every system name here is.
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::system::AdapterSystem;
    ///
    /// let mut world = World::new();
    /// let system = AdapterSystem::new(|n: u32| n + 1, IntoSystem::into_system(|| 1u32), "two".into());
    /// assert_eq!(system.name(), "two");
    /// assert_eq!(world.run_system_once(system).unwrap(), 2);
    /// ```
    pub const fn new(func: Func, system: S, name: Cow<'static, str>) -> Self {
        Self { func, system, name }
    }
}

impl<Func, S> System for AdapterSystem<Func, S>
where
    Func: Adapt<S>,
    S: System,
{
    type In = Func::In;
    type Out = Func::Out;

    super::delegate_to_inner_system!(system);

    fn name(&self) -> Cow<'static, str> {
        self.name.clone()
    }

    fn type_id(&self) -> std::any::TypeId {
        std::any::TypeId::of::<Self>()
    }

    #[track_caller]
    fn initialize(&mut self, world: &mut World) {
        self.system.initialize(world);
    }

    unsafe fn run_unsafe(
        &mut self,
        input: SystemIn<'_, Self>,
        world: UnsafeWorldCell<'_>,
    ) -> Result<Self::Out, RunSystemError> {
        let system = &mut self.system;
        self.func.adapt(input, |input| {
            // SAFETY: the caller's guarantee for this system is the one for
            // `system`, whose access and exclusivity this system reports.
            unsafe { system.run_unsafe(input, world) }
        })
    }
}

// SAFETY: the adapted system only reads, and the adapter reaches the world
// only through it.
unsafe impl<Func, S> ReadOnlySystem for AdapterSystem<Func, S>
where
    Func: Adapt<S>,
    S: ReadOnlySystem,
{
}
