//! Parameters that wrap other parameters: `Option<P>` and
//! `Result<P, SystemParamValidationError>` (run anyway when `P` fails
//! validation), [`If<P>`] (skip instead of failing), `Vec<P>` (as many `P`
//! as builders were given) and `ParamSet<Vec<P>>`, with their builders.
//!
//! A wrapper's state is its inner parameter's, so any builder of `P`
//! builds the wrapper through [`OptionBuilder`], [`ResultBuilder`] or
//! [`IfBuilder`].

use std::ops::{Deref, DerefMut};

use super::{
    param_set::init_member_with, CommandQueue, ParamSet, ParamSetBuilder, ReadOnlySystemParam,
    SystemMeta, SystemParam, SystemParamBuilder, SystemParamItem, SystemParamValidationError,
};
use crate::{
    change_detection::Tick,
    world::{UnsafeWorldCell, World},
};

// ---- Option ---------------------------------------------------------------------

// SAFETY: the state and access are `P`'s own, and the item is fetched by `P`.
unsafe impl<P: SystemParam> SystemParam for Option<P> {
    type State = P::State;
    type Item<'w, 's> = Option<P::Item<'w, 's>>;

    #[track_caller]
    fn init_state(world: &mut World, meta: &mut SystemMeta) -> Self::State {
        P::init_state(world, meta)
    }

    #[inline]
    unsafe fn get_param<'w, 's>(
        state: &'s mut Self::State,
        meta: &SystemMeta,
        world: UnsafeWorldCell<'w>,
        change_tick: Tick,
    ) -> Self::Item<'w, 's> {
        // SAFETY: forwarded from the caller.
        unsafe { P::try_get_param(state, meta, world, change_tick) }.ok()
    }

    fn apply(state: &mut Self::State, world: &mut World) {
        P::apply(state, world);
    }

    fn queue(state: &mut Self::State, queue: &mut CommandQueue) {
        P::queue(state, queue);
    }
}

// SAFETY: `P` only reads.
unsafe impl<P: ReadOnlySystemParam> ReadOnlySystemParam for Option<P> {}

// ---- Result -----------------------------------------------------------------------

// SAFETY: the state and access are `P`'s own, and the item is fetched by `P`.
unsafe impl<P: SystemParam> SystemParam for Result<P, SystemParamValidationError> {
    type State = P::State;
    type Item<'w, 's> = Result<P::Item<'w, 's>, SystemParamValidationError>;

    #[track_caller]
    fn init_state(world: &mut World, meta: &mut SystemMeta) -> Self::State {
        P::init_state(world, meta)
    }

    #[inline]
    unsafe fn get_param<'w, 's>(
        state: &'s mut Self::State,
        meta: &SystemMeta,
        world: UnsafeWorldCell<'w>,
        change_tick: Tick,
    ) -> Self::Item<'w, 's> {
        // SAFETY: forwarded from the caller.
        unsafe { P::try_get_param(state, meta, world, change_tick) }
    }

    fn apply(state: &mut Self::State, world: &mut World) {
        P::apply(state, world);
    }

    fn queue(state: &mut Self::State, queue: &mut CommandQueue) {
        P::queue(state, queue);
    }
}

// SAFETY: `P` only reads.
unsafe impl<P: ReadOnlySystemParam> ReadOnlySystemParam for Result<P, SystemParamValidationError> {}

// ---- If -----------------------------------------------------------------------------

/// A parameter that skips its system, instead of failing it, when the
/// inner parameter `T` fails validation (a missing resource, a
/// [`Single`](super::Single) with no match): the system does not run and
/// its last run stays where it was.
///
/// ```
/// use ecs::prelude::*;
///
/// #[derive(Resource)]
/// struct Score(u32);
///
/// // Fails (by default, panics) while `Score` is missing.
/// fn strict(score: Res<Score>) -> u32 {
///     score.0
/// }
///
/// // Is skipped while `Score` is missing; `If` derefs to the `Res`, or
/// // destructures.
/// fn lenient(If(score): If<Res<Score>>) -> u32 {
///     score.0
/// }
///
/// let mut world = World::new();
/// assert!(world.run_system_once(strict).is_err());
/// let skipped = world.run_system_once(lenient).unwrap_err();
/// assert!(matches!(skipped, ecs::system::RunSystemError::Skipped(_)));
/// world.insert_resource(Score(3));
/// assert_eq!(world.run_system_once(lenient).unwrap(), 3);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct If<T>(pub T);

impl<T> If<T> {
    /// The inner parameter.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Resource)]
    /// struct Score(u32);
    ///
    /// fn read(score: If<Res<Score>>) -> u32 {
    ///     let score: Res<Score> = score.into_inner();
    ///     score.0
    /// }
    ///
    /// let mut world = World::new();
    /// world.insert_resource(Score(2));
    /// assert_eq!(world.run_system_once(read).unwrap(), 2);
    /// ```
    pub fn into_inner(self) -> T {
        self.0
    }
}

impl<T> Deref for If<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> DerefMut for If<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.0
    }
}

// SAFETY: the state and access are `P`'s own, and the item is fetched by `P`.
unsafe impl<P: SystemParam> SystemParam for If<P> {
    type State = P::State;
    type Item<'w, 's> = If<P::Item<'w, 's>>;

    #[track_caller]
    fn init_state(world: &mut World, meta: &mut SystemMeta) -> Self::State {
        P::init_state(world, meta)
    }

    #[inline]
    #[track_caller]
    unsafe fn get_param<'w, 's>(
        state: &'s mut Self::State,
        meta: &SystemMeta,
        world: UnsafeWorldCell<'w>,
        change_tick: Tick,
    ) -> Self::Item<'w, 's> {
        // SAFETY: forwarded from the caller.
        If(unsafe { P::get_param(state, meta, world, change_tick) })
    }

    #[inline]
    unsafe fn try_get_param<'w, 's>(
        state: &'s mut Self::State,
        meta: &SystemMeta,
        world: UnsafeWorldCell<'w>,
        change_tick: Tick,
    ) -> Result<Self::Item<'w, 's>, SystemParamValidationError> {
        // SAFETY: forwarded from the caller.
        unsafe { P::try_get_param(state, meta, world, change_tick) }
            .map(If)
            .map_err(|mut error| {
                error.skipped = true;
                error
            })
    }

    fn apply(state: &mut Self::State, world: &mut World) {
        P::apply(state, world);
    }

    fn queue(state: &mut Self::State, queue: &mut CommandQueue) {
        P::queue(state, queue);
    }
}

// SAFETY: `P` only reads.
unsafe impl<P: ReadOnlySystemParam> ReadOnlySystemParam for If<P> {}

// ---- Vec --------------------------------------------------------------------------

// SAFETY: every element's state was built by a builder of `P`, which
// recorded its access in the system's meta (and panicked on a conflict,
// also with an earlier element); by default there is no element.
unsafe impl<P: SystemParam> SystemParam for Vec<P> {
    type State = Vec<P::State>;
    type Item<'w, 's> = Vec<P::Item<'w, 's>>;

    fn init_state(_: &mut World, _: &mut SystemMeta) -> Self::State {
        Vec::new()
    }

    #[inline]
    #[track_caller]
    unsafe fn get_param<'w, 's>(
        state: &'s mut Self::State,
        meta: &SystemMeta,
        world: UnsafeWorldCell<'w>,
        change_tick: Tick,
    ) -> Self::Item<'w, 's> {
        state
            .iter_mut()
            // SAFETY: forwarded from the caller; the elements' accesses
            // were checked against each other when built.
            .map(|state| unsafe { P::get_param(state, meta, world, change_tick) })
            .collect()
    }

    #[inline]
    unsafe fn try_get_param<'w, 's>(
        state: &'s mut Self::State,
        meta: &SystemMeta,
        world: UnsafeWorldCell<'w>,
        change_tick: Tick,
    ) -> Result<Self::Item<'w, 's>, SystemParamValidationError> {
        state
            .iter_mut()
            // SAFETY: as in `get_param`.
            .map(|state| unsafe { P::try_get_param(state, meta, world, change_tick) })
            .collect()
    }

    fn apply(state: &mut Self::State, world: &mut World) {
        for state in state {
            P::apply(state, world);
        }
    }

    fn queue(state: &mut Self::State, queue: &mut CommandQueue) {
        for state in state {
            P::queue(state, queue);
        }
    }
}

// SAFETY: every element only reads.
unsafe impl<P: ReadOnlySystemParam> ReadOnlySystemParam for Vec<P> {}

// ---- ParamSet<Vec<P>> ------------------------------------------------------------

// SAFETY: each member's state was built by `ParamSetBuilder<Vec<B>>`,
// which checked its access against the system's other parameters and
// recorded it; members, which may conflict with each other, are only
// reached one at a time through `&mut self`. By default there is none.
unsafe impl<P: SystemParam> SystemParam for ParamSet<'_, '_, Vec<P>> {
    type State = Vec<P::State>;
    type Item<'w, 's> = ParamSet<'w, 's, Vec<P>>;

    fn init_state(_: &mut World, _: &mut SystemMeta) -> Self::State {
        Vec::new()
    }

    unsafe fn get_param<'w, 's>(
        state: &'s mut Self::State,
        meta: &SystemMeta,
        world: UnsafeWorldCell<'w>,
        change_tick: Tick,
    ) -> Self::Item<'w, 's> {
        ParamSet::from_parts(state, world, meta.for_member(), change_tick)
    }

    #[inline]
    unsafe fn try_get_param<'w, 's>(
        state: &'s mut Self::State,
        meta: &SystemMeta,
        world: UnsafeWorldCell<'w>,
        change_tick: Tick,
    ) -> Result<Self::Item<'w, 's>, SystemParamValidationError> {
        // Members are validated now, so one that cannot be fetched skips
        // the system rather than panicking in `get_mut`.
        for member in state.iter_mut() {
            // SAFETY: forwarded from the caller; each item is dropped
            // before the next member is fetched.
            drop(unsafe { P::try_get_param(member, meta, world, change_tick) }?);
        }
        // SAFETY: forwarded from the caller.
        Ok(unsafe { Self::get_param(state, meta, world, change_tick) })
    }

    fn apply(state: &mut Self::State, world: &mut World) {
        <Vec<P> as SystemParam>::apply(state, world);
    }

    fn queue(state: &mut Self::State, queue: &mut CommandQueue) {
        <Vec<P> as SystemParam>::queue(state, queue);
    }
}

// SAFETY: every member only reads.
unsafe impl<P: ReadOnlySystemParam> ReadOnlySystemParam for ParamSet<'_, '_, Vec<P>> {}

impl<P: SystemParam> ParamSet<'_, '_, Vec<P>> {
    /// The member at `index`; no other member can be used while it is
    /// alive.
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
    /// let system = (ParamSetBuilder(vec![
    ///     QueryParamBuilder::new_box(|q| {
    ///         q.with::<Enemy>();
    ///     }),
    ///     QueryParamBuilder::new_box(|q| {
    ///         q.without::<Enemy>();
    ///     }),
    /// ]),)
    ///     .build_state(&mut world)
    ///     .build_system(|mut set: ParamSet<Vec<Query<&mut Health>>>| {
    ///         for mut health in &mut set.get_mut(0) {
    ///             health.0 -= 1;
    ///         }
    ///         for mut health in &mut set.get_mut(1) {
    ///             health.0 += 1;
    ///         }
    ///     });
    /// world.run_system_once(system).unwrap();
    /// assert_eq!(world.get::<Health>(enemy).unwrap().0, 4);
    /// assert_eq!(world.get::<Health>(ally).unwrap().0, 6);
    /// ```
    ///
    /// # Panics
    /// If `index` is out of range, or the member fails validation (the
    /// system's fetch checked it, but writes through another member can
    /// change that).
    #[track_caller]
    pub fn get_mut(&mut self, index: usize) -> SystemParamItem<'_, '_, P> {
        let len = self.states.len();
        let Some(state) = self.states.get_mut(index) else {
            panic!(
                "system `{}`: ParamSet member {index} asked for, but the set has {len}",
                self.meta.name()
            )
        };
        // SAFETY: the system holds every member's access (recorded when
        // built); `&mut self` keeps any other member, which may conflict
        // with this one, from being alive.
        unsafe { P::get_param(state, &self.meta, self.world, self.change_tick) }
    }

    /// Calls `f` with each member in turn.
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
    /// world.spawn((Health(5), Enemy));
    /// world.spawn(Health(2));
    /// let system = (ParamSetBuilder(vec![
    ///     QueryParamBuilder::new_box(|q| {
    ///         q.with::<Enemy>();
    ///     }),
    ///     QueryParamBuilder::new_box(|q| {
    ///         q.without::<Enemy>();
    ///     }),
    /// ]),)
    ///     .build_state(&mut world)
    ///     .build_system(|mut set: ParamSet<Vec<Query<&mut Health>>>| {
    ///         let mut sums = Vec::new();
    ///         set.for_each(|query| sums.push(query.iter().map(|h| h.0).sum::<u32>()));
    ///         sums
    ///     });
    /// assert_eq!(world.run_system_once(system).unwrap(), [5, 2]);
    /// ```
    ///
    /// # Panics
    /// As [`get_mut`](Self::get_mut), if a member fails validation.
    #[track_caller]
    pub fn for_each(&mut self, mut f: impl FnMut(SystemParamItem<'_, '_, P>)) {
        for state in self.states.iter_mut() {
            // SAFETY: as in `get_mut`; each item is gone before the next
            // member is fetched, as `f` cannot keep it.
            f(unsafe { P::get_param(state, &self.meta, self.world, self.change_tick) });
        }
    }
}

// ---- builders -------------------------------------------------------------------

/// Builds an `Option<P>` with a builder of `P`.
///
/// ```
/// use ecs::prelude::*;
/// use ecs::system::{OptionBuilder, ParamBuilder};
///
/// #[derive(Resource)]
/// struct Score(u32);
///
/// let mut world = World::new();
/// let system = (OptionBuilder(ParamBuilder::resource::<Score>()),)
///     .build_state(&mut world)
///     .build_system(|score: Option<Res<Score>>| score.map(|s| s.0));
/// assert_eq!(world.run_system_once(system).unwrap(), None);
/// ```
#[derive(Debug, Clone, Default)]
pub struct OptionBuilder<T>(pub T);

// SAFETY: a state `B` builds for `P` is a state of `Option<P>`, whose
// access is `P`'s.
unsafe impl<P: SystemParam, B: SystemParamBuilder<P>> SystemParamBuilder<Option<P>>
    for OptionBuilder<B>
{
    #[track_caller]
    fn build(self, world: &mut World, meta: &mut SystemMeta) -> P::State {
        self.0.build(world, meta)
    }
}

/// Builds a `Result<P, SystemParamValidationError>` with a builder of `P`.
///
/// ```
/// use ecs::prelude::*;
/// use ecs::system::{ParamBuilder, ResultBuilder, SystemParamValidationError};
///
/// #[derive(Resource)]
/// struct Score(u32);
///
/// let mut world = World::new();
/// let system = (ResultBuilder(ParamBuilder::resource::<Score>()),)
///     .build_state(&mut world)
///     .build_system(|score: Result<Res<Score>, SystemParamValidationError>| {
///         score.map(|s| s.0).map_err(|e| e.skipped)
///     });
/// assert_eq!(world.run_system_once(system).unwrap(), Err(false));
/// ```
#[derive(Debug, Clone, Default)]
pub struct ResultBuilder<T>(pub T);

// SAFETY: a state `B` builds for `P` is a state of the `Result`, whose
// access is `P`'s.
unsafe impl<P: SystemParam, B: SystemParamBuilder<P>>
    SystemParamBuilder<Result<P, SystemParamValidationError>> for ResultBuilder<B>
{
    #[track_caller]
    fn build(self, world: &mut World, meta: &mut SystemMeta) -> P::State {
        self.0.build(world, meta)
    }
}

/// Builds an [`If<P>`] with a builder of `P`.
///
/// ```
/// use ecs::prelude::*;
/// use ecs::system::{IfBuilder, ParamBuilder, RunSystemError};
///
/// #[derive(Resource)]
/// struct Score(u32);
///
/// let mut world = World::new();
/// let system = (IfBuilder(ParamBuilder::resource::<Score>()),)
///     .build_state(&mut world)
///     .build_system(|If(score): If<Res<Score>>| score.0);
/// let skipped = world.run_system_once(system).unwrap_err();
/// assert!(matches!(skipped, RunSystemError::Skipped(_)));
/// ```
#[derive(Debug, Clone, Default)]
pub struct IfBuilder<T>(pub T);

// SAFETY: a state `B` builds for `P` is a state of `If<P>`, whose access
// is `P`'s.
unsafe impl<P: SystemParam, B: SystemParamBuilder<P>> SystemParamBuilder<If<P>> for IfBuilder<B> {
    #[track_caller]
    fn build(self, world: &mut World, meta: &mut SystemMeta) -> P::State {
        self.0.build(world, meta)
    }
}

// SAFETY: every element is built by its builder, which records its access
// in `meta`, so two conflicting elements panic as two parameters would.
unsafe impl<P: SystemParam, B: SystemParamBuilder<P>> SystemParamBuilder<Vec<P>> for Vec<B> {
    #[track_caller]
    fn build(self, world: &mut World, meta: &mut SystemMeta) -> Vec<P::State> {
        self.into_iter()
            .map(|builder| builder.build(world, meta))
            .collect()
    }
}

// SAFETY: each member is built (and its access recorded) as the tuple
// `ParamSetBuilder` builds its members: checked against the system's other
// parameters, not against the other members.
unsafe impl<'w, 's, P: SystemParam, B: SystemParamBuilder<P>>
    SystemParamBuilder<ParamSet<'w, 's, Vec<P>>> for ParamSetBuilder<Vec<B>>
{
    #[track_caller]
    fn build(self, world: &mut World, meta: &mut SystemMeta) -> Vec<P::State> {
        let members: Vec<_> = self
            .0
            .into_iter()
            .map(|builder| init_member_with::<P>(world, meta, |world, m| builder.build(world, m)))
            .collect();
        members
            .into_iter()
            .map(|(state, access)| {
                meta.access.extend(access);
                state
            })
            .collect()
    }
}
