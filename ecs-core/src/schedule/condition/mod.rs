//! Run conditions: read-only systems that return `bool` and decide whether
//! other systems run.
//!
//! Any system that only reads the world and returns `bool` is a
//! [`SystemCondition`]; its methods combine two conditions into one, and
//! [`common_conditions`] holds the conditions most programs need.
//!
//! ```text
//! a.and_then(b)   a ─true─▶ b ─▶ a && b      b runs only when a is true
//! a.and_eager(b)  a ──▶ b ──▶ a & b          both always run, a first
//! not(a)          a ──▶ !a
//! ```
//!
//! A combined condition is one system: its access is the union of its
//! parts', and it only reads, so it can run beside other readers.

use crate::system::RunSystemError;
use std::ops::Not;

use crate::system::{
    Adapt, AdapterSystem, CombinatorSystem, Combine, IntoSystem, ReadOnlySystem, System, SystemIn,
    SystemInput,
};

/// A run condition in a [`Box`], its type erased.
///
/// ```
/// use ecs::prelude::*;
/// use ecs::schedule::BoxedCondition;
///
/// #[derive(Resource)]
/// struct Paused;
///
/// let mut world = World::new();
/// let mut condition: BoxedCondition =
///     Box::new(IntoSystem::into_system(not(resource_exists::<Paused>)));
/// condition.initialize(&mut world);
/// assert!(condition.run((), &mut world).unwrap());
/// world.insert_resource(Paused);
/// assert!(!condition.run((), &mut world).unwrap());
/// ```
pub type BoxedCondition<In = ()> = Box<dyn ReadOnlySystem<In = In, Out = bool>>;

/// A system that decides whether scheduled systems run: anything that
/// becomes a [`ReadOnlySystem`] returning `bool` (a function or closure of
/// read-only parameters, or such a system itself).
///
/// `Marker` has no meaning of its own; it tells the blanket impls for
/// functions apart. [`IntoSystem::into_system`] turns any condition into
/// one whose marker is `()`, which is what a function returning
/// `impl SystemCondition<()>` needs.
///
/// A condition that writes does not compile: it is not a read-only system.
///
/// A combination runs its halves as they are; bevy counts a half that
/// fails parameter validation as `false`, but our systems cannot fail
/// validation (a missing resource panics naming it and the system).
///
/// ```
/// use ecs::prelude::*;
///
/// /// True on every other run.
/// fn every_other_time() -> impl SystemCondition<()> {
///     IntoSystem::into_system(|mut flag: Local<bool>| {
///         *flag = !*flag;
///         *flag
///     })
/// }
///
/// let mut world = World::new();
/// let mut condition = IntoSystem::into_system(every_other_time());
/// condition.initialize(&mut world);
/// assert!(condition.run((), &mut world).unwrap());
/// assert!(!condition.run((), &mut world).unwrap());
/// assert!(condition.run((), &mut world).unwrap());
/// ```
///
/// A condition may take an input, which both halves of a combination
/// receive:
///
/// ```
/// use ecs::prelude::*;
///
/// fn positive(In(n): In<i32>) -> bool {
///     n > 0
/// }
/// fn even(In(n): In<i32>) -> bool {
///     n % 2 == 0
/// }
///
/// let mut world = World::new();
/// let mut condition = IntoSystem::into_system(positive.and_then(even));
/// condition.initialize(&mut world);
/// assert!(condition.run(4, &mut world).unwrap());
/// assert!(!condition.run(3, &mut world).unwrap());
/// assert!(!condition.run(-2, &mut world).unwrap());
/// ```
pub trait SystemCondition<Marker, In: SystemInput = ()>:
    IntoSystem<In, bool, Marker, System: ReadOnlySystem>
{
    /// A condition that is true when both this one and `then_run` are,
    /// named `a && b`.
    ///
    /// It short-circuits: `then_run` runs only when `self` is true. A
    /// change-detecting or stateful (`Local`) `then_run` therefore sees
    /// changes since `self` was last true, not since the combination last
    /// ran; [`and_eager`](SystemCondition::and_eager) runs both every time.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Resource, PartialEq)]
    /// struct Level(u32);
    ///
    /// let mut world = World::new();
    /// // `resource_equals` alone would panic while `Level` is missing.
    /// let mut condition =
    ///     IntoSystem::into_system(resource_exists::<Level>.and_then(resource_equals(Level(2))));
    /// condition.initialize(&mut world);
    /// assert!(!condition.run((), &mut world).unwrap());
    /// world.insert_resource(Level(2));
    /// assert!(condition.run((), &mut world).unwrap());
    /// ```
    fn and_then<M, C: SystemCondition<M, In>>(
        self,
        then_run: C,
    ) -> AndThen<Self::System, C::System> {
        combine(self, then_run, |a, b| format!("{a} && {b}"))
    }

    /// A condition that is true when both this one and `other` are, named
    /// `a & b`. Both always run, `self` first.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// fn never() -> bool {
    ///     false
    /// }
    /// fn count_runs(mut runs: Local<u32>) -> bool {
    ///     *runs += 1;
    ///     *runs > 1
    /// }
    ///
    /// let mut world = World::new();
    /// let mut condition = IntoSystem::into_system(never.and_eager(count_runs));
    /// condition.initialize(&mut world);
    /// assert!(!condition.run((), &mut world).unwrap());
    /// assert!(!condition.run((), &mut world).unwrap());
    /// // `count_runs` ran both times although `never` was false.
    /// ```
    fn and_eager<M, C: SystemCondition<M, In>>(
        self,
        other: C,
    ) -> AndEager<Self::System, C::System> {
        combine(self, other, |a, b| format!("{a} & {b}"))
    }

    /// A condition that is false only when both this one and `then_run`
    /// are true, named `!(a && b)`.
    ///
    /// It short-circuits: `then_run` runs only when `self` is true. See
    /// [`nand_eager`](SystemCondition::nand_eager) to run both every time.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Resource)]
    /// struct PlayerAlive;
    /// #[derive(Resource)]
    /// struct EnemyAlive;
    ///
    /// let mut world = World::new();
    /// world.insert_resource(PlayerAlive);
    /// world.insert_resource(EnemyAlive);
    /// let mut game_over = IntoSystem::into_system(
    ///     resource_exists::<PlayerAlive>.nand_then(resource_exists::<EnemyAlive>),
    /// );
    /// game_over.initialize(&mut world);
    /// assert!(!game_over.run((), &mut world).unwrap());
    /// world.remove_resource::<EnemyAlive>();
    /// assert!(game_over.run((), &mut world).unwrap());
    /// ```
    fn nand_then<M, C: SystemCondition<M, In>>(
        self,
        then_run: C,
    ) -> NandThen<Self::System, C::System> {
        combine(self, then_run, |a, b| format!("!({a} && {b})"))
    }

    /// A condition that is false only when both this one and `other` are
    /// true, named `!(a & b)`. Both always run, `self` first.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// let mut world = World::new();
    /// let mut condition = IntoSystem::into_system((|| true).nand_eager(|| true));
    /// condition.initialize(&mut world);
    /// assert!(!condition.run((), &mut world).unwrap());
    /// ```
    fn nand_eager<M, C: SystemCondition<M, In>>(
        self,
        other: C,
    ) -> NandEager<Self::System, C::System> {
        combine(self, other, |a, b| format!("!({a} & {b})"))
    }

    /// A condition that is true only when both this one and `else_run` are
    /// false, named `!(a || b)`.
    ///
    /// It short-circuits: `else_run` runs only when `self` is false. See
    /// [`nor_eager`](SystemCondition::nor_eager) to run both every time.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Resource)]
    /// struct Sunny;
    /// #[derive(Resource)]
    /// struct Fertilized;
    ///
    /// let mut world = World::new();
    /// let mut slow_growth = IntoSystem::into_system(
    ///     resource_exists::<Sunny>.nor_else(resource_exists::<Fertilized>),
    /// );
    /// slow_growth.initialize(&mut world);
    /// assert!(slow_growth.run((), &mut world).unwrap());
    /// world.insert_resource(Fertilized);
    /// assert!(!slow_growth.run((), &mut world).unwrap());
    /// ```
    fn nor_else<M, C: SystemCondition<M, In>>(
        self,
        else_run: C,
    ) -> NorElse<Self::System, C::System> {
        combine(self, else_run, |a, b| format!("!({a} || {b})"))
    }

    /// A condition that is true only when both this one and `other` are
    /// false, named `!(a | b)`. Both always run, `self` first.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// let mut world = World::new();
    /// let mut condition = IntoSystem::into_system((|| false).nor_eager(|| false));
    /// condition.initialize(&mut world);
    /// assert!(condition.run((), &mut world).unwrap());
    /// ```
    fn nor_eager<M, C: SystemCondition<M, In>>(
        self,
        other: C,
    ) -> NorEager<Self::System, C::System> {
        combine(self, other, |a, b| format!("!({a} | {b})"))
    }

    /// A condition that is true when this one or `else_run` is, named
    /// `a || b`.
    ///
    /// It short-circuits: `else_run` runs only when `self` is false. See
    /// [`or_eager`](SystemCondition::or_eager) to run both every time.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Resource)]
    /// struct A;
    /// #[derive(Resource)]
    /// struct B;
    ///
    /// let mut world = World::new();
    /// let mut either =
    ///     IntoSystem::into_system(resource_exists::<A>.or_else(resource_exists::<B>));
    /// either.initialize(&mut world);
    /// assert!(!either.run((), &mut world).unwrap());
    /// world.insert_resource(B);
    /// assert!(either.run((), &mut world).unwrap());
    /// ```
    fn or_else<M, C: SystemCondition<M, In>>(self, else_run: C) -> OrElse<Self::System, C::System> {
        combine(self, else_run, |a, b| format!("{a} || {b}"))
    }

    /// A condition that is true when this one or `other` is, named
    /// `a | b`. Both always run, `self` first.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// let mut world = World::new();
    /// let mut condition = IntoSystem::into_system((|| true).or_eager(|| false));
    /// condition.initialize(&mut world);
    /// assert!(condition.run((), &mut world).unwrap());
    /// ```
    fn or_eager<M, C: SystemCondition<M, In>>(self, other: C) -> OrEager<Self::System, C::System> {
        combine(self, other, |a, b| format!("{a} | {b}"))
    }

    /// A condition that is true when this one and `other` agree (both true
    /// or both false), named `!(a ^ b)`. Both always run, `self` first.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Resource)]
    /// struct CoffeeIdle;
    /// #[derive(Resource)]
    /// struct KettleIdle;
    ///
    /// let mut world = World::new();
    /// let mut condition = IntoSystem::into_system(
    ///     resource_exists::<CoffeeIdle>.xnor(resource_exists::<KettleIdle>),
    /// );
    /// condition.initialize(&mut world);
    /// assert!(condition.run((), &mut world).unwrap());
    /// world.insert_resource(KettleIdle);
    /// assert!(!condition.run((), &mut world).unwrap());
    /// ```
    fn xnor<M, C: SystemCondition<M, In>>(self, other: C) -> Xnor<Self::System, C::System> {
        combine(self, other, |a, b| format!("!({a} ^ {b})"))
    }

    /// A condition that is true when exactly one of this one and `other`
    /// is, named `(a ^ b)`. Both always run, `self` first.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Resource)]
    /// struct CoffeeIdle;
    /// #[derive(Resource)]
    /// struct KettleIdle;
    ///
    /// let mut world = World::new();
    /// let mut condition = IntoSystem::into_system(
    ///     resource_exists::<CoffeeIdle>.xor(resource_exists::<KettleIdle>),
    /// );
    /// condition.initialize(&mut world);
    /// assert!(!condition.run((), &mut world).unwrap());
    /// world.insert_resource(KettleIdle);
    /// assert!(condition.run((), &mut world).unwrap());
    /// ```
    fn xor<M, C: SystemCondition<M, In>>(self, other: C) -> Xor<Self::System, C::System> {
        combine(self, other, |a, b| format!("({a} ^ {b})"))
    }
}

impl<Marker, In: SystemInput, F> SystemCondition<Marker, In> for F where
    F: IntoSystem<In, bool, Marker, System: ReadOnlySystem>
{
}

/// Builds the combinator system of two conditions, named by `name` from
/// their names.
fn combine<Func, A, B, MA, MB, In>(
    a: A,
    b: B,
    name: impl FnOnce(&str, &str) -> String,
) -> CombinatorSystem<Func, A::System, B::System>
where
    In: SystemInput,
    A: SystemCondition<MA, In>,
    B: SystemCondition<MB, In>,
{
    let a = IntoSystem::into_system(a);
    let b = IntoSystem::into_system(b);
    let name = name(&a.name(), &b.name());
    CombinatorSystem::new(a, b, name.into())
}

pub mod common_conditions;

/// A system whose output is the [`Not`] of another system's output: what
/// [`common_conditions::not`] returns.
///
/// ```
/// use ecs::prelude::*;
/// use ecs::schedule::{NotMarker, NotSystem};
///
/// let inner = IntoSystem::into_system(|| 3u8);
/// let mut world = World::new();
/// let inverted = NotSystem::new(NotMarker, inner, "!three".into());
/// assert_eq!(world.run_system_once(inverted).unwrap(), !3u8);
/// ```
pub type NotSystem<S> = AdapterSystem<NotMarker, S>;

/// The [`Adapt`] of a [`NotSystem`]: applies [`Not`] to the system's
/// output.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, Default)]
pub struct NotMarker;

impl<S: System<Out: Not>> Adapt<S> for NotMarker {
    type In = S::In;
    type Out = <S::Out as Not>::Output;

    fn adapt(
        &mut self,
        input: <Self::In as SystemInput>::Inner<'_>,
        run_system: impl FnOnce(SystemIn<'_, S>) -> Result<S::Out, RunSystemError>,
    ) -> Result<Self::Out, RunSystemError> {
        run_system(input).map(Not::not)
    }
}

/// Declares a combinator of two conditions: its [`CombinatorSystem`] alias
/// and the marker whose [`Combine`] impl computes `$body` from the closures
/// `$a` and `$b`, each called (at most once) as `$a($input, $data)`.
macro_rules! condition_combinator {
    (
        $(#[$alias_doc:meta])*
        $alias:ident, $marker:ident,
        |$input:ident, $data:ident, $a:ident, $b:ident| $body:expr
    ) => {
        $(#[$alias_doc])*
        pub type $alias<A, B> = CombinatorSystem<$marker, A, B>;

        #[doc = concat!("The [`Combine`] of [`", stringify!($alias), "`].")]
        #[doc(hidden)]
        #[derive(Clone, Copy, Debug, Default)]
        pub struct $marker;

        impl<In, A, B> Combine<A, B> for $marker
        where
            for<'a> In: SystemInput<Inner<'a>: Copy>,
            A: System<In = In, Out = bool>,
            B: System<In = In, Out = bool>,
        {
            type In = In;
            type Out = bool;

            fn combine<T>(
                $input: <Self::In as SystemInput>::Inner<'_>,
                $data: &mut T,
                a: impl FnOnce(SystemIn<'_, A>, &mut T) -> Result<bool, RunSystemError>,
                b: impl FnOnce(SystemIn<'_, B>, &mut T) -> Result<bool, RunSystemError>,
            ) -> Result<bool, RunSystemError> {
                // A half that is skipped or fails counts as false, as in bevy
                // (a failure has gone to the error handler already).
                let $a = |input: SystemIn<'_, A>, data: &mut T| a(input, data).unwrap_or(false);
                let $b = |input: SystemIn<'_, B>, data: &mut T| b(input, data).unwrap_or(false);
                Ok($body)
            }
        }
    };
}

condition_combinator! {
    /// Two conditions combined with `&&`: the second runs only when the
    /// first is true. Made by [`SystemCondition::and_then`].
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::schedule::AndThen;
    ///
    /// let mut world = World::new();
    /// let both: AndThen<_, _> = IntoSystem::into_system((|| true).and_then(|| false));
    /// assert!(!world.run_system_once(both).unwrap());
    /// ```
    AndThen, AndThenMarker, |input, data, a, b| a(input, data) && b(input, data)
}

condition_combinator! {
    /// Two conditions combined with `&`: both always run. Made by
    /// [`SystemCondition::and_eager`].
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::schedule::AndEager;
    ///
    /// let mut world = World::new();
    /// let both: AndEager<_, _> = IntoSystem::into_system((|| true).and_eager(|| true));
    /// assert!(world.run_system_once(both).unwrap());
    /// ```
    AndEager, AndEagerMarker, |input, data, a, b| a(input, data) & b(input, data)
}

condition_combinator! {
    /// Two conditions combined with `!(a && b)`: the second runs only
    /// when the first is true. Made by [`SystemCondition::nand_then`].
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::schedule::NandThen;
    ///
    /// let mut world = World::new();
    /// let nand: NandThen<_, _> = IntoSystem::into_system((|| false).nand_then(|| true));
    /// assert!(world.run_system_once(nand).unwrap());
    /// ```
    NandThen, NandThenMarker, |input, data, a, b| !(a(input, data) && b(input, data))
}

condition_combinator! {
    /// Two conditions combined with `!(a & b)`: both always run. Made by
    /// [`SystemCondition::nand_eager`].
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::schedule::NandEager;
    ///
    /// let mut world = World::new();
    /// let nand: NandEager<_, _> = IntoSystem::into_system((|| true).nand_eager(|| false));
    /// assert!(world.run_system_once(nand).unwrap());
    /// ```
    NandEager, NandEagerMarker, |input, data, a, b| !(a(input, data) & b(input, data))
}

condition_combinator! {
    /// Two conditions combined with `!(a || b)`: the second runs only when
    /// the first is false. Made by [`SystemCondition::nor_else`].
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::schedule::NorElse;
    ///
    /// let mut world = World::new();
    /// let nor: NorElse<_, _> = IntoSystem::into_system((|| false).nor_else(|| true));
    /// assert!(!world.run_system_once(nor).unwrap());
    /// ```
    NorElse, NorElseMarker, |input, data, a, b| !(a(input, data) || b(input, data))
}

condition_combinator! {
    /// Two conditions combined with `!(a | b)`: both always run. Made by
    /// [`SystemCondition::nor_eager`].
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::schedule::NorEager;
    ///
    /// let mut world = World::new();
    /// let nor: NorEager<_, _> = IntoSystem::into_system((|| false).nor_eager(|| false));
    /// assert!(world.run_system_once(nor).unwrap());
    /// ```
    NorEager, NorEagerMarker, |input, data, a, b| !(a(input, data) | b(input, data))
}

condition_combinator! {
    /// Two conditions combined with `||`: the second runs only when the
    /// first is false. Made by [`SystemCondition::or_else`].
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::schedule::OrElse;
    ///
    /// let mut world = World::new();
    /// let either: OrElse<_, _> = IntoSystem::into_system((|| false).or_else(|| true));
    /// assert!(world.run_system_once(either).unwrap());
    /// ```
    OrElse, OrElseMarker, |input, data, a, b| a(input, data) || b(input, data)
}

condition_combinator! {
    /// Two conditions combined with `|`: both always run. Made by
    /// [`SystemCondition::or_eager`].
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::schedule::OrEager;
    ///
    /// let mut world = World::new();
    /// let either: OrEager<_, _> = IntoSystem::into_system((|| false).or_eager(|| false));
    /// assert!(!world.run_system_once(either).unwrap());
    /// ```
    OrEager, OrEagerMarker, |input, data, a, b| a(input, data) | b(input, data)
}

condition_combinator! {
    /// Two conditions combined with `!(a ^ b)`: both always run. Made by
    /// [`SystemCondition::xnor`].
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::schedule::Xnor;
    ///
    /// let mut world = World::new();
    /// let same: Xnor<_, _> = IntoSystem::into_system((|| false).xnor(|| false));
    /// assert!(world.run_system_once(same).unwrap());
    /// ```
    Xnor, XnorMarker, |input, data, a, b| !(a(input, data) ^ b(input, data))
}

condition_combinator! {
    /// Two conditions combined with `^`: both always run. Made by
    /// [`SystemCondition::xor`].
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::schedule::Xor;
    ///
    /// let mut world = World::new();
    /// let one: Xor<_, _> = IntoSystem::into_system((|| true).xor(|| false));
    /// assert!(world.run_system_once(one).unwrap());
    /// ```
    Xor, XorMarker, |input, data, a, b| a(input, data) ^ b(input, data)
}
