//! Systems made of two systems: [`PipeSystem`] feeds the output of one
//! into the input of the other; [`CombinatorSystem`] runs both as a
//! [`Combine`] decides.
//!
//! ```text
//! a.pipe(b):   input ──▶ a ──out──▶ b ──▶ output
//!              access = access(a) ∪ access(b); deferred work: a's, then b's
//! ```
//!
//! The two halves run one after the other on the same world, so they may
//! access the same data; other systems see the union of their accesses.

use std::{borrow::Cow, marker::PhantomData};

use super::{IntoSystem, ReadOnlySystem, RunSystemError, System, SystemIn, SystemInput};
use crate::{
    error::{ErrorContext, FallbackErrorHandler},
    query::{FilteredAccess, FilteredAccessSet},
    world::{UnsafeWorldCell, World},
};

/// How a [`CombinatorSystem`] runs its two systems and combines their
/// results.
///
/// A system that fails has its error handed to the world's error handler
/// before its closure returns the `Err`, so `combine` may treat a failure
/// as a plain value (as `unwrap_or(false)` does below).
///
/// ```
/// use ecs::prelude::*;
/// use ecs::system::{CombinatorSystem, Combine, RunSystemError};
///
/// /// Runs both systems and is true when exactly one is.
/// pub struct XorMarker;
/// pub type Xor<A, B> = CombinatorSystem<XorMarker, A, B>;
///
/// impl<A, B> Combine<A, B> for XorMarker
/// where
///     A: System<In = (), Out = bool>,
///     B: System<In = (), Out = bool>,
/// {
///     type In = ();
///     type Out = bool;
///
///     fn combine<T>(
///         _input: (),
///         data: &mut T,
///         a: impl FnOnce((), &mut T) -> Result<bool, RunSystemError>,
///         b: impl FnOnce((), &mut T) -> Result<bool, RunSystemError>,
///     ) -> Result<bool, RunSystemError> {
///         Ok(a((), data).unwrap_or(false) ^ b((), data).unwrap_or(false))
///     }
/// }
///
/// #[derive(Resource)]
/// struct Score(u32);
///
/// let mut world = World::new();
/// world.insert_resource(Score(7));
/// let mut system = Xor::new(
///     IntoSystem::into_system(|s: Res<Score>| s.0 > 5),
///     IntoSystem::into_system(|s: Res<Score>| s.0 > 10),
///     "above 5 xor above 10".into(),
/// );
/// system.initialize(&mut world);
/// assert!(system.run((), &mut world).unwrap());
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` can not combine systems `{A}` and `{B}`",
    label = "invalid system combination",
    note = "the inputs and outputs of `{A}` and `{B}` are not compatible with this combiner"
)]
pub trait Combine<A: System, B: System> {
    /// The combined system's input.
    type In: SystemInput;
    /// The combined system's output.
    type Out;

    /// Runs the systems through `a` and `b` (each at most once, in any
    /// order), passing `data` along, and returns the combined output, or
    /// why there is none.
    fn combine<T>(
        input: <Self::In as SystemInput>::Inner<'_>,
        data: &mut T,
        a: impl FnOnce(SystemIn<'_, A>, &mut T) -> Result<A::Out, RunSystemError>,
        b: impl FnOnce(SystemIn<'_, B>, &mut T) -> Result<B::Out, RunSystemError>,
    ) -> Result<Self::Out, RunSystemError>;
}

/// Initialises both systems and returns the union of their accesses.
fn initialize_both(
    a: &mut impl System,
    b: &mut impl System,
    world: &mut World,
) -> FilteredAccessSet {
    a.initialize(world);
    b.initialize(world);
    let mut access = a.access().clone();
    access.extend(b.access().clone());
    access
}

/// A [`System`] made of two systems, run as `Func`'s [`Combine`] impl
/// decides. Its access is the union of both; it is exclusive if either is,
/// and applies `A`'s deferred work, then `B`'s.
///
/// ```
/// use ecs::prelude::*;
/// use ecs::system::{CombinatorSystem, Combine, RunSystemError};
///
/// /// Runs both systems and adds their outputs.
/// pub struct SumMarker;
///
/// impl<A, B> Combine<A, B> for SumMarker
/// where
///     A: System<In = (), Out = u32>,
///     B: System<In = (), Out = u32>,
/// {
///     type In = ();
///     type Out = u32;
///
///     fn combine<T>(
///         _input: (),
///         data: &mut T,
///         a: impl FnOnce((), &mut T) -> Result<u32, RunSystemError>,
///         b: impl FnOnce((), &mut T) -> Result<u32, RunSystemError>,
///     ) -> Result<u32, RunSystemError> {
///         Ok(a((), data)? + b((), data)?)
///     }
/// }
///
/// let mut world = World::new();
/// let sum = CombinatorSystem::<SumMarker, _, _>::new(
///     IntoSystem::into_system(|| 2),
///     IntoSystem::into_system(|| 3),
///     "two plus three".into(),
/// );
/// assert_eq!(world.run_system_once(sum).unwrap(), 5);
/// ```
pub struct CombinatorSystem<Func, A, B> {
    marker: PhantomData<fn() -> Func>,
    a: A,
    b: B,
    name: Cow<'static, str>,
    access: FilteredAccessSet,
}

impl<Func, A, B> CombinatorSystem<Func, A, B> {
    /// Combines `a` and `b` into one system called `name`; it is a
    /// [`System`] when `Func` implements [`Combine<A, B>`]. See [`Combine`]
    /// for an example.
    ///
    /// The name is a `Cow<'static, str>` rather than bevy's `DebugName`,
    /// as every system name here is.
    pub fn new(a: A, b: B, name: Cow<'static, str>) -> Self {
        Self {
            marker: PhantomData,
            a,
            b,
            name,
            access: FilteredAccessSet::default(),
        }
    }
}

/// A world cell that only [`CombinatorSystem::run_unsafe`] can make: a
/// `Combine` impl receives it as an opaque `&mut T`, so it cannot run the
/// two systems at once.
struct PrivateUnsafeWorldCell<'w>(UnsafeWorldCell<'w>);

/// Runs one half of a [`CombinatorSystem`], handing a failure to the
/// world's error handler: `combine` may discard the `Err` it gets.
///
/// # Safety
/// As [`System::run_unsafe`] for `system`; the caller also holds read
/// access to the [`FallbackErrorHandler`] resource.
unsafe fn run_half<S: System>(
    system: &mut S,
    input: SystemIn<'_, S>,
    world: &mut PrivateUnsafeWorldCell<'_>,
) -> Result<S::Out, RunSystemError> {
    // SAFETY: guaranteed by the caller.
    match unsafe { system.run_unsafe(input, world.0) } {
        Err(RunSystemError::Failed(error)) => {
            // SAFETY: the caller holds read access to the handler.
            let handler = unsafe { world.0.fallback_error_handler() };
            let name = system.name();
            handler(
                error,
                ErrorContext::System {
                    name: name.clone(),
                    last_run: system.last_run(),
                },
            );
            // The handler took the error; what `combine` gets only says
            // which system failed.
            Err(RunSystemError::Failed(
                format!("System `{name}` failed").into(),
            ))
        }
        result => result,
    }
}

impl<Func, A, B> System for CombinatorSystem<Func, A, B>
where
    Func: Combine<A, B> + 'static,
    A: System,
    B: System,
{
    type In = Func::In;
    type Out = Func::Out;

    super::delegate_to_both_systems!();

    /// Initialises both systems; the access is the union of theirs and a
    /// read of the [`FallbackErrorHandler`], which a failing half is
    /// handed to.
    #[track_caller]
    fn initialize(&mut self, world: &mut World) {
        let mut access = initialize_both(&mut self.a, &mut self.b, world);
        let handler = world.components.register_resource::<FallbackErrorHandler>();
        let mut read = crate::query::Access::default();
        read.add_read(handler);
        access.add(FilteredAccess::resources(read));
        self.access = access;
    }

    unsafe fn run_unsafe(
        &mut self,
        input: SystemIn<'_, Self>,
        world: UnsafeWorldCell<'_>,
    ) -> Result<Self::Out, RunSystemError> {
        Func::combine(
            input,
            &mut PrivateUnsafeWorldCell(world),
            // SAFETY: the caller holds the union of both systems' accesses
            // and the handler read recorded by `initialize` (the whole
            // world if either is exclusive); the closures need the one
            // `&mut PrivateUnsafeWorldCell`, which `combine` cannot forge,
            // so the two systems never run at the same time.
            |input, world| unsafe { run_half(&mut self.a, input, world) },
            // SAFETY: as above.
            |input, world| unsafe { run_half(&mut self.b, input, world) },
        )
    }
}

// SAFETY: both systems only read, so running either in any order only reads.
unsafe impl<Func, A, B> ReadOnlySystem for CombinatorSystem<Func, A, B>
where
    Func: Combine<A, B> + 'static,
    A: ReadOnlySystem,
    B: ReadOnlySystem,
{
}

impl<Func, A: Clone, B: Clone> Clone for CombinatorSystem<Func, A, B> {
    /// Clones the two systems; the clone must be initialised before it
    /// runs.
    fn clone(&self) -> Self {
        CombinatorSystem::new(self.a.clone(), self.b.clone(), self.name.clone())
    }
}

/// What [`IntoSystem::pipe`] returns: it becomes a [`PipeSystem`].
///
/// ```
/// use ecs::prelude::*;
///
/// fn a() -> u32 {
///     2
/// }
/// fn b(In(n): In<u32>) -> u32 {
///     n * 10
/// }
///
/// let system = IntoSystem::into_system(a.pipe(b).with_name("a then b"));
/// assert_eq!(system.name(), "a then b");
/// ```
#[derive(Clone)]
pub struct IntoPipeSystem<A, B, N: PipeSystemName = ()> {
    a: A,
    b: B,
    /// Names the pipe from its halves' names; `()` gives `Pipe(a, b)`.
    name: N,
}

impl<A, B> IntoPipeSystem<A, B> {
    /// Pipes `a` into `b`; the system is named `Pipe(a, b)` after its
    /// halves. [`IntoSystem::pipe`] calls it.
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::system::IntoPipeSystem;
    ///
    /// let mut world = World::new();
    /// let pipe = IntoPipeSystem::new(|| 6u32, |In(n): In<u32>| n / 2);
    /// assert_eq!(world.run_system_once(pipe).unwrap(), 3);
    /// ```
    pub const fn new(a: A, b: B) -> Self {
        Self { a, b, name: () }
    }

    /// Names the pipe with `name`, called with the names of the first and
    /// the second system (either may itself be a pipe).
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// fn first() {}
    /// fn second(_: In<()>) {}
    ///
    /// let short = |name: &str| name.rsplit("::").next().unwrap().to_owned();
    /// let pipe = first
    ///     .pipe(second)
    ///     .with_name_fn(move |a, b| format!("{} -> {}", short(&a), short(&b)).into());
    /// assert_eq!(IntoSystem::into_system(pipe).name(), "first -> second");
    /// ```
    pub fn with_name_fn(
        self,
        name: impl FnOnce(Cow<'static, str>, Cow<'static, str>) -> Cow<'static, str>,
    ) -> IntoPipeSystem<A, B, impl PipeSystemName> {
        IntoPipeSystem {
            a: self.a,
            b: self.b,
            name,
        }
    }

    /// Names the pipe `name`.
    pub fn with_name(
        self,
        name: impl Into<Cow<'static, str>>,
    ) -> IntoPipeSystem<A, B, impl PipeSystemName> {
        self.with_name_fn(|_, _| name.into())
    }

    /// Names the pipe after its first system (the one `pipe` was called
    /// on).
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// fn first() {}
    /// fn second(_: In<()>) {}
    ///
    /// let system = IntoSystem::into_system(first.pipe(second).with_first_name());
    /// assert!(system.name().ends_with("first"));
    /// ```
    pub fn with_first_name(self) -> IntoPipeSystem<A, B, impl PipeSystemName> {
        self.with_name_fn(|first, _| first)
    }

    /// Names the pipe after its second system (the one passed to `pipe`).
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// fn first() {}
    /// fn second(_: In<()>) {}
    ///
    /// let system = IntoSystem::into_system(first.pipe(second).with_second_name());
    /// assert!(system.name().ends_with("second"));
    /// ```
    pub fn with_second_name(self) -> IntoPipeSystem<A, B, impl PipeSystemName> {
        self.with_name_fn(|_, second| second)
    }
}

/// Names a [`PipeSystem`] from the names of its two systems. A trait, so
/// that an [`IntoPipeSystem`] of function items stays zero-sized.
///
/// Names are `Cow<'static, str>` rather than bevy's `DebugName`, as every
/// system name here is.
///
/// ```
/// use ecs::system::PipeSystemName;
///
/// assert_eq!(().name("a".into(), "b".into()), "Pipe(a, b)");
/// ```
pub trait PipeSystemName {
    /// The pipe's name, from its first and second system's names.
    fn name(self, first: Cow<'static, str>, second: Cow<'static, str>) -> Cow<'static, str>;
}

impl<F: FnOnce(Cow<'static, str>, Cow<'static, str>) -> Cow<'static, str>> PipeSystemName for F {
    fn name(self, first: Cow<'static, str>, second: Cow<'static, str>) -> Cow<'static, str> {
        self(first, second)
    }
}

impl PipeSystemName for () {
    fn name(self, first: Cow<'static, str>, second: Cow<'static, str>) -> Cow<'static, str> {
        Cow::Owned(format!("Pipe({first}, {second})"))
    }
}

/// Marks the `IntoSystem` impl of [`IntoPipeSystem`].
#[doc(hidden)]
pub struct IsPipeSystemMarker;

// Listing this impl under "other types implement `IntoSystem`" only
// buries the real problem of a function that is not a system.
#[diagnostic::do_not_recommend]
impl<A, B, N, IA, OA, IB, OB, MA, MB> IntoSystem<IA, OB, (IsPipeSystemMarker, OA, IB, MA, MB)>
    for IntoPipeSystem<A, B, N>
where
    IA: SystemInput,
    A: IntoSystem<IA, OA, MA>,
    B: IntoSystem<IB, OB, MB>,
    N: PipeSystemName,
    for<'a> IB: SystemInput<Inner<'a> = OA>,
{
    type System = PipeSystem<A::System, B::System>;

    fn into_system(this: Self) -> Self::System {
        let a = IntoSystem::into_system(this.a);
        let b = IntoSystem::into_system(this.b);
        let name = this.name.name(a.name(), b.name());
        PipeSystem::new(a, b, name)
    }
}

/// A [`System`] that runs `A`, then `B` with `A`'s output as its input,
/// and returns `B`'s output. Made by [`IntoSystem::pipe`].
///
/// Its access is the union of both; it is exclusive if either is, and
/// applies `A`'s deferred work, then `B`'s. A pipe with input `()` and
/// output `()` goes in a schedule like any system.
///
/// ```
/// use ecs::prelude::*;
/// use std::num::ParseIntError;
///
/// #[derive(Resource)]
/// struct Message(String);
///
/// fn parse(message: Res<Message>) -> Result<u32, ParseIntError> {
///     message.0.parse()
/// }
///
/// fn small(In(parsed): In<Result<u32, ParseIntError>>) -> Option<u32> {
///     parsed.ok().filter(|&n| n < 100)
/// }
///
/// let mut world = World::new();
/// world.insert_resource(Message("42".to_owned()));
/// let mut system = IntoSystem::into_system(parse.pipe(small));
/// system.initialize(&mut world);
/// assert_eq!(system.run((), &mut world).unwrap(), Some(42));
/// ```
pub struct PipeSystem<A, B> {
    a: A,
    b: B,
    name: Cow<'static, str>,
    access: FilteredAccessSet,
}

impl<A, B> PipeSystem<A, B>
where
    A: System,
    B: System,
    for<'a> B::In: SystemInput<Inner<'a> = A::Out>,
{
    /// Pipes `a` into `b`, as one system called `name`.
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::system::PipeSystem;
    ///
    /// let system = PipeSystem::new(
    ///     IntoSystem::into_system(|| 4u32),
    ///     IntoSystem::into_system(|In(n): In<u32>| n + 1),
    ///     "four plus one".into(),
    /// );
    /// let mut world = World::new();
    /// assert_eq!(world.run_system_once(system).unwrap(), 5);
    /// ```
    pub fn new(a: A, b: B, name: Cow<'static, str>) -> Self {
        Self {
            a,
            b,
            name,
            access: FilteredAccessSet::default(),
        }
    }
}

impl<A, B> System for PipeSystem<A, B>
where
    A: System,
    B: System,
    for<'a> B::In: SystemInput<Inner<'a> = A::Out>,
{
    type In = A::In;
    type Out = B::Out;

    super::delegate_to_both_systems!();

    #[track_caller]
    fn initialize(&mut self, world: &mut World) {
        self.access = initialize_both(&mut self.a, &mut self.b, world);
    }

    /// Runs `a`, then `b` with its output; if `a` fails or is skipped,
    /// `b` does not run and the run returns `a`'s error.
    unsafe fn run_unsafe(
        &mut self,
        input: SystemIn<'_, Self>,
        world: UnsafeWorldCell<'_>,
    ) -> Result<Self::Out, RunSystemError> {
        // SAFETY: the caller holds the union of both accesses (the whole
        // world if either is exclusive) and the halves run one at a time.
        let value = unsafe { self.a.run_unsafe(input, world) }?;
        // SAFETY: as above; `a` has returned.
        unsafe { self.b.run_unsafe(value, world) }
    }
}

// SAFETY: both halves only read, so running one after the other only reads.
unsafe impl<A, B> ReadOnlySystem for PipeSystem<A, B>
where
    A: ReadOnlySystem,
    B: ReadOnlySystem,
    for<'a> B::In: SystemInput<Inner<'a> = A::Out>,
{
}
