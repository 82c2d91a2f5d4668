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
/// assert!(condition.run((), &mut world));
/// world.insert_resource(Paused);
/// assert!(!condition.run((), &mut world));
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
/// assert!(condition.run((), &mut world));
/// assert!(!condition.run((), &mut world));
/// assert!(condition.run((), &mut world));
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
/// assert!(condition.run(4, &mut world));
/// assert!(!condition.run(3, &mut world));
/// assert!(!condition.run(-2, &mut world));
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
    /// assert!(!condition.run((), &mut world));
    /// world.insert_resource(Level(2));
    /// assert!(condition.run((), &mut world));
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
    /// assert!(!condition.run((), &mut world));
    /// assert!(!condition.run((), &mut world));
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
    /// assert!(!game_over.run((), &mut world));
    /// world.remove_resource::<EnemyAlive>();
    /// assert!(game_over.run((), &mut world));
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
    /// assert!(!condition.run((), &mut world));
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
    /// assert!(slow_growth.run((), &mut world));
    /// world.insert_resource(Fertilized);
    /// assert!(!slow_growth.run((), &mut world));
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
    /// assert!(condition.run((), &mut world));
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
    /// assert!(!either.run((), &mut world));
    /// world.insert_resource(B);
    /// assert!(either.run((), &mut world));
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
    /// assert!(condition.run((), &mut world));
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
    /// assert!(condition.run((), &mut world));
    /// world.insert_resource(KettleIdle);
    /// assert!(!condition.run((), &mut world));
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
    /// assert!(!condition.run((), &mut world));
    /// world.insert_resource(KettleIdle);
    /// assert!(condition.run((), &mut world));
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

/// Run conditions most programs need: on resources, on components, and
/// conditions built from other conditions.
///
/// `on_message` and `any_component_removed` are not here yet: they need
/// messages and `RemovedComponents`, which this crate does not have yet.
///
/// ```
/// use ecs::prelude::*;
///
/// #[derive(Resource)]
/// struct Paused;
///
/// let mut world = World::new();
/// let mut running = IntoSystem::into_system(not(resource_exists::<Paused>));
/// running.initialize(&mut world);
/// assert!(running.run((), &mut world));
/// world.insert_resource(Paused);
/// assert!(!running.run((), &mut world));
/// ```
pub mod common_conditions {
    use super::{NotMarker, NotSystem, SystemCondition};
    use crate::{
        change_detection::DetectChanges,
        component::Component,
        query::{QueryFilter, With},
        resource::Resource,
        system::{In, IntoSystem, Local, Query, Res, System, SystemInput},
    };

    /// A condition that is true the first time it runs and false ever
    /// after.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// let mut world = World::new();
    /// let mut condition = IntoSystem::into_system(run_once);
    /// condition.initialize(&mut world);
    /// assert!(condition.run((), &mut world));
    /// assert!(!condition.run((), &mut world));
    /// assert!(!condition.run((), &mut world));
    /// ```
    pub fn run_once(mut has_run: Local<bool>) -> bool {
        !std::mem::replace(&mut *has_run, true)
    }

    /// A condition that is true while the resource `T` exists.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Resource)]
    /// struct Score(u32);
    ///
    /// let mut world = World::new();
    /// let mut condition = IntoSystem::into_system(resource_exists::<Score>);
    /// condition.initialize(&mut world);
    /// assert!(!condition.run((), &mut world));
    /// world.insert_resource(Score(0));
    /// assert!(condition.run((), &mut world));
    /// ```
    pub fn resource_exists<T>(res: Option<Res<T>>) -> bool
    where
        T: Resource,
    {
        res.is_some()
    }

    /// A condition that is true while the resource `T` equals `value`.
    ///
    /// # Panics
    /// When it runs while `T` does not exist, naming the resource and the
    /// condition; [`resource_exists_and_equals`] is false instead.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Resource, PartialEq)]
    /// struct Level(u32);
    ///
    /// let mut world = World::new();
    /// world.insert_resource(Level(1));
    /// let mut condition = IntoSystem::into_system(resource_equals(Level(1)));
    /// condition.initialize(&mut world);
    /// assert!(condition.run((), &mut world));
    /// world.insert_resource(Level(2));
    /// assert!(!condition.run((), &mut world));
    /// ```
    pub fn resource_equals<T>(value: T) -> impl FnMut(Res<T>) -> bool
    where
        T: Resource + PartialEq,
    {
        move |res: Res<T>| *res == value
    }

    /// A condition that is true while the resource `T` exists and equals
    /// `value`; false while it does not exist.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Resource, PartialEq)]
    /// struct Level(u32);
    ///
    /// let mut world = World::new();
    /// let mut condition = IntoSystem::into_system(resource_exists_and_equals(Level(1)));
    /// condition.initialize(&mut world);
    /// assert!(!condition.run((), &mut world));
    /// world.insert_resource(Level(1));
    /// assert!(condition.run((), &mut world));
    /// ```
    pub fn resource_exists_and_equals<T>(value: T) -> impl FnMut(Option<Res<T>>) -> bool
    where
        T: Resource + PartialEq,
    {
        move |res: Option<Res<T>>| res.is_some_and(|res| *res == value)
    }

    /// A condition that is true while the resource `T` exists and
    /// `condition` holds for it; false while it does not exist.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Resource)]
    /// struct Health(u32);
    ///
    /// let mut world = World::new();
    /// let mut dead = IntoSystem::into_system(resource_exists_and(|h: &Health| h.0 == 0));
    /// dead.initialize(&mut world);
    /// assert!(!dead.run((), &mut world));
    /// world.insert_resource(Health(0));
    /// assert!(dead.run((), &mut world));
    /// ```
    pub fn resource_exists_and<T>(
        condition: impl Fn(&T) -> bool,
    ) -> impl FnMut(Option<Res<T>>) -> bool
    where
        T: Resource,
    {
        move |res: Option<Res<T>>| res.is_some_and(|res| condition(&res))
    }

    /// A condition that is true when the resource `T` was added since the
    /// condition last ran (on its first run: since the resource exists);
    /// false while it does not exist.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Resource)]
    /// struct Score(u32);
    ///
    /// let mut world = World::new();
    /// let mut condition = IntoSystem::into_system(resource_added::<Score>);
    /// condition.initialize(&mut world);
    /// world.insert_resource(Score(0));
    /// assert!(condition.run((), &mut world));
    /// assert!(!condition.run((), &mut world));
    /// ```
    pub fn resource_added<T>(res: Option<Res<T>>) -> bool
    where
        T: Resource,
    {
        res.is_some_and(|res| res.is_added())
    }

    /// A condition that is true when the resource `T` was added or
    /// mutably dereferenced since the condition last ran. Writing the same
    /// value again counts: values are not compared.
    ///
    /// # Panics
    /// When it runs while `T` does not exist, naming the resource and the
    /// condition; [`resource_exists_and_changed`] is false instead.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Resource)]
    /// struct Score(u32);
    ///
    /// let mut world = World::new();
    /// world.insert_resource(Score(0));
    /// let mut condition = IntoSystem::into_system(resource_changed::<Score>);
    /// condition.initialize(&mut world);
    /// assert!(condition.run((), &mut world)); // added counts as changed
    /// assert!(!condition.run((), &mut world));
    /// world.resource_mut::<Score>().0 = 5;
    /// assert!(condition.run((), &mut world));
    /// ```
    pub fn resource_changed<T>(res: Res<T>) -> bool
    where
        T: Resource,
    {
        res.is_changed()
    }

    /// A condition that is true when the resource `T` exists and was added
    /// or mutably dereferenced since the condition last ran; false while it
    /// does not exist.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Resource)]
    /// struct Score(u32);
    ///
    /// let mut world = World::new();
    /// let mut condition = IntoSystem::into_system(resource_exists_and_changed::<Score>);
    /// condition.initialize(&mut world);
    /// assert!(!condition.run((), &mut world));
    /// world.insert_resource(Score(0));
    /// assert!(condition.run((), &mut world));
    /// assert!(!condition.run((), &mut world));
    /// ```
    pub fn resource_exists_and_changed<T>(res: Option<Res<T>>) -> bool
    where
        T: Resource,
    {
        res.is_some_and(|res| res.is_changed())
    }

    /// A condition that is true when the resource `T` was added, mutably
    /// dereferenced or removed since the condition last ran.
    ///
    /// A removal is seen only if the condition saw the resource on an
    /// earlier run.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Resource)]
    /// struct Score(u32);
    ///
    /// let mut world = World::new();
    /// world.insert_resource(Score(0));
    /// let mut condition = IntoSystem::into_system(resource_changed_or_removed::<Score>);
    /// condition.initialize(&mut world);
    /// assert!(condition.run((), &mut world));
    /// assert!(!condition.run((), &mut world));
    /// world.remove_resource::<Score>();
    /// assert!(condition.run((), &mut world));
    /// assert!(!condition.run((), &mut world));
    /// ```
    pub fn resource_changed_or_removed<T>(res: Option<Res<T>>, mut existed: Local<bool>) -> bool
    where
        T: Resource,
    {
        let existed_before = std::mem::replace(&mut *existed, res.is_some());
        match res {
            Some(res) => res.is_changed(),
            None => existed_before,
        }
    }

    /// A condition that is true when the resource `T` was removed since the
    /// condition last ran.
    ///
    /// A removal is seen only if the condition saw the resource on an
    /// earlier run; a resource removed and inserted again between two runs
    /// is not seen as removed.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Resource)]
    /// struct Score(u32);
    ///
    /// let mut world = World::new();
    /// world.insert_resource(Score(0));
    /// let mut condition = IntoSystem::into_system(resource_removed::<Score>);
    /// condition.initialize(&mut world);
    /// assert!(!condition.run((), &mut world));
    /// world.remove_resource::<Score>();
    /// assert!(condition.run((), &mut world));
    /// assert!(!condition.run((), &mut world));
    /// ```
    pub fn resource_removed<T>(res: Option<Res<T>>, mut existed: Local<bool>) -> bool
    where
        T: Resource,
    {
        let existed_before = std::mem::replace(&mut *existed, res.is_some());
        existed_before && res.is_none()
    }

    /// A condition that is true while any entity has a `T` component; the
    /// same as [`any_match_filter::<With<T>>`](any_match_filter).
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Component)]
    /// struct Enemy;
    ///
    /// let mut world = World::new();
    /// let mut condition = IntoSystem::into_system(any_with_component::<Enemy>);
    /// condition.initialize(&mut world);
    /// assert!(!condition.run((), &mut world));
    /// let enemy = world.spawn(Enemy).id();
    /// assert!(condition.run((), &mut world));
    /// world.despawn(enemy);
    /// assert!(!condition.run((), &mut world));
    /// ```
    pub fn any_with_component<T: Component>(query: Query<(), With<T>>) -> bool {
        !query.is_empty()
    }

    /// A condition that is true while any entity matches the filter `F`.
    ///
    /// `F` must be `'static`, as every query parameter's filter here.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Component)]
    /// struct Enemy;
    /// #[derive(Component)]
    /// struct Boss;
    ///
    /// let mut world = World::new();
    /// world.spawn(Enemy);
    /// let mut condition = IntoSystem::into_system(any_match_filter::<(With<Enemy>, With<Boss>)>);
    /// condition.initialize(&mut world);
    /// assert!(!condition.run((), &mut world));
    /// world.spawn((Enemy, Boss));
    /// assert!(condition.run((), &mut world));
    /// ```
    pub fn any_match_filter<F: QueryFilter + 'static>(query: Query<(), F>) -> bool {
        !query.is_empty()
    }

    /// A condition (or any system whose output has [`Not`](std::ops::Not))
    /// with its output inverted, named `!name`.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// fn always() -> bool {
    ///     true
    /// }
    ///
    /// let mut world = World::new();
    /// let mut condition = IntoSystem::into_system(not(always));
    /// assert!(condition.name().starts_with('!'));
    /// condition.initialize(&mut world);
    /// assert!(!condition.run((), &mut world));
    /// ```
    pub fn not<Marker, TOut, T>(condition: T) -> NotSystem<T::System>
    where
        TOut: std::ops::Not,
        T: IntoSystem<(), TOut, Marker>,
    {
        let condition = IntoSystem::into_system(condition);
        let name = format!("!{}", condition.name());
        NotSystem::new(NotMarker, condition, name.into())
    }

    /// A condition that is true when `condition`'s value differs from its
    /// value on the previous run; on the first run, when it is true (as if
    /// it had been false before).
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Resource)]
    /// struct Paused;
    ///
    /// let mut world = World::new();
    /// world.insert_resource(Paused);
    /// let mut condition = IntoSystem::into_system(condition_changed(resource_exists::<Paused>));
    /// condition.initialize(&mut world);
    /// assert!(condition.run((), &mut world)); // false -> true
    /// assert!(!condition.run((), &mut world));
    /// world.remove_resource::<Paused>();
    /// assert!(condition.run((), &mut world)); // true -> false
    /// assert!(!condition.run((), &mut world));
    /// ```
    pub fn condition_changed<Marker, CIn, C>(condition: C) -> impl SystemCondition<(), CIn>
    where
        CIn: SystemInput,
        C: SystemCondition<Marker, CIn>,
    {
        IntoSystem::into_system(condition.pipe(|In(new): In<bool>, mut prev: Local<bool>| {
            new != std::mem::replace(&mut *prev, new)
        }))
    }

    /// A condition that is true when `condition`'s value became `to` since
    /// the previous run; on the first run, when it is true and `to` is
    /// true (as if it had been false before).
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Resource)]
    /// struct Paused;
    ///
    /// let mut world = World::new();
    /// let mut paused_now =
    ///     IntoSystem::into_system(condition_changed_to(true, resource_exists::<Paused>));
    /// paused_now.initialize(&mut world);
    /// assert!(!paused_now.run((), &mut world));
    /// world.insert_resource(Paused);
    /// assert!(paused_now.run((), &mut world));
    /// assert!(!paused_now.run((), &mut world));
    /// world.remove_resource::<Paused>();
    /// assert!(!paused_now.run((), &mut world)); // became false, not true
    /// ```
    pub fn condition_changed_to<Marker, CIn, C>(
        to: bool,
        condition: C,
    ) -> impl SystemCondition<(), CIn>
    where
        CIn: SystemInput,
        C: SystemCondition<Marker, CIn>,
    {
        IntoSystem::into_system(condition.pipe(
            move |In(new): In<bool>, mut prev: Local<bool>| -> bool {
                let changed = new != std::mem::replace(&mut *prev, new);
                changed && new == to
            },
        ))
    }
}

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
        run_system: impl FnOnce(SystemIn<'_, S>) -> S::Out,
    ) -> Self::Out {
        !run_system(input)
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
                $a: impl FnOnce(SystemIn<'_, A>, &mut T) -> bool,
                $b: impl FnOnce(SystemIn<'_, B>, &mut T) -> bool,
            ) -> bool {
                $body
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
