//! [`DynSystemParam`]: a system parameter whose type is chosen by its
//! builder, [`DynParamBuilder`], and recovered at run time by downcasting.

use std::any::Any;

use super::{
    CommandQueue, ReadOnlySystemParam, SystemMeta, SystemParam, SystemParamBuilder,
    SystemParamValidationError,
};
use crate::{
    change_detection::Tick,
    world::{UnsafeWorldCell, World},
};

/// A system parameter of a type picked when the system is built
/// ([`DynParamBuilder::new::<P>`](DynParamBuilder::new)), reached by
/// downcasting to that type; a downcast to another type is `None`.
///
/// Built by default (without a [`DynParamBuilder`]) it holds `()`.
///
/// ```
/// use ecs::prelude::*;
/// use ecs::system::{DynParamBuilder, DynSystemParam, LocalBuilder, ParamBuilder};
///
/// #[derive(Resource)]
/// struct Score(u32);
///
/// let mut world = World::new();
/// world.insert_resource(Score(7));
///
/// let system = (
///     DynParamBuilder::new::<Res<Score>>(ParamBuilder),
///     DynParamBuilder::new(LocalBuilder(10u32)),
/// )
///     .build_state(&mut world)
///     .build_system(|mut score: DynSystemParam, local: DynSystemParam| {
///         assert!(score.is::<Res<Score>>());
///         assert!(score.downcast_mut::<Local<u32>>().is_none());
///         let local: Local<u32> = local.downcast().unwrap();
///         let score: Res<Score> = score.downcast().unwrap();
///         score.0 + *local
///     });
/// assert_eq!(world.run_system_once(system).unwrap(), 17);
/// ```
pub struct DynSystemParam<'w, 's> {
    /// A `ParamState<P>` for the parameter `P` it was built as.
    state: &'s mut dyn Any,
    world: UnsafeWorldCell<'w>,
    meta: SystemMeta,
    change_tick: Tick,
}

impl<'w, 's> DynSystemParam<'w, 's> {
    /// Whether the parameter was built as a `T`.
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::system::{DynParamBuilder, DynSystemParam, ParamBuilder};
    ///
    /// let mut world = World::new();
    /// let system = (DynParamBuilder::new::<Local<u8>>(ParamBuilder),)
    ///     .build_state(&mut world)
    ///     .build_system(|param: DynSystemParam| {
    ///         (param.is::<Local<u8>>(), param.is::<Local<u16>>())
    ///     });
    /// assert_eq!(world.run_system_once(system).unwrap(), (true, false));
    /// ```
    // `T::Item<'static, 'static>` is the `'static` twin of `T` that `Any`
    // needs; the bound ties it back to `T` so the caller may name `T`.
    pub fn is<T: SystemParam>(&self) -> bool
    where
        T::Item<'static, 'static>: SystemParam<Item<'w, 's> = T> + 'static,
    {
        self.state.is::<ParamState<T::Item<'static, 'static>>>()
    }

    /// The parameter as a `T`, if it was built as one; it keeps the full
    /// world and state lifetimes, as the `DynSystemParam` is consumed.
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::system::{DynParamBuilder, DynSystemParam, LocalBuilder};
    ///
    /// let mut world = World::new();
    /// let system = (DynParamBuilder::new(LocalBuilder(3u8)),)
    ///     .build_state(&mut world)
    ///     .build_system(|param: DynSystemParam| param.downcast::<Local<u8>>().map(|l| *l));
    /// assert_eq!(world.run_system_once(system).unwrap(), Some(3));
    /// ```
    ///
    /// # Panics
    /// If the parameter fails validation (checked before the system ran,
    /// but earlier writes in the run can change that).
    #[track_caller]
    pub fn downcast<T: SystemParam>(self) -> Option<T>
    where
        T::Item<'static, 'static>: SystemParam<Item<'w, 's> = T> + 'static,
    {
        // SAFETY: the state was built for this world with its access
        // recorded (see `DynSystemParamState`), and consuming `self` makes
        // this the only use of that access for `'w`.
        unsafe { downcast::<T>(self.state, &self.meta, self.world, self.change_tick) }
    }

    /// The parameter as a `T`, if it was built as one, for the time `self`
    /// is borrowed.
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::system::{DynParamBuilder, DynSystemParam, LocalBuilder};
    ///
    /// let mut world = World::new();
    /// let system = (DynParamBuilder::new(LocalBuilder(3u8)),)
    ///     .build_state(&mut world)
    ///     .build_system(|mut param: DynSystemParam| {
    ///         *param.downcast_mut::<Local<u8>>().unwrap() += 1;
    ///         *param.downcast_mut::<Local<u8>>().unwrap()
    ///     });
    /// assert_eq!(world.run_system_once(system).unwrap(), 4);
    /// ```
    ///
    /// # Panics
    /// As [`downcast`](Self::downcast).
    #[track_caller]
    pub fn downcast_mut<'a, T: SystemParam>(&'a mut self) -> Option<T>
    where
        T::Item<'static, 'static>: SystemParam<Item<'a, 'a> = T> + 'static,
    {
        // SAFETY: as in `downcast`; the exclusive borrow of `self` for
        // `'a` makes this the only use of the access for `'a`.
        unsafe { downcast::<T>(self.state, &self.meta, self.world, self.change_tick) }
    }

    /// The read-only parameter as a `T`, if it was built as one, for the
    /// time `self` is borrowed but with the world's full lifetime (so that
    /// [`Res::into_inner`](super::Res::into_inner) outlives the borrow).
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::system::{DynParamBuilder, DynSystemParam, ParamBuilder};
    ///
    /// #[derive(Resource)]
    /// struct Score(u32);
    ///
    /// let mut world = World::new();
    /// world.insert_resource(Score(5));
    /// let system = (DynParamBuilder::new(ParamBuilder::resource::<Score>()),)
    ///     .build_state(&mut world)
    ///     .build_system(|mut param: DynSystemParam| {
    ///         let score: &Score = param.downcast_mut_inner::<Res<Score>>().unwrap().into_inner();
    ///         score.0
    ///     });
    /// assert_eq!(world.run_system_once(system).unwrap(), 5);
    /// ```
    ///
    /// # Panics
    /// As [`downcast`](Self::downcast).
    #[track_caller]
    pub fn downcast_mut_inner<'a, T: ReadOnlySystemParam>(&'a mut self) -> Option<T>
    where
        T::Item<'static, 'static>: SystemParam<Item<'w, 'a> = T> + 'static,
    {
        // SAFETY: as in `downcast`; the parameter only reads, so its access
        // may be shared for the whole of `'w`.
        unsafe { downcast::<T>(self.state, &self.meta, self.world, self.change_tick) }
    }
}

/// The parameter `T` from `state`, if `state` is a `ParamState` of it.
///
/// # Safety
/// `state` was built for `world`, whose caller holds the access recorded
/// for it for `'w`, and nothing else uses that access meanwhile.
#[track_caller]
unsafe fn downcast<'w, 's, T: SystemParam>(
    state: &'s mut dyn Any,
    meta: &SystemMeta,
    world: UnsafeWorldCell<'w>,
    change_tick: Tick,
) -> Option<T>
where
    T::Item<'static, 'static>: SystemParam<Item<'w, 's> = T> + 'static,
{
    let state = state.downcast_mut::<ParamState<T::Item<'static, 'static>>>()?;
    // SAFETY: the downcast proved the state is `T`'s (up to lifetimes);
    // the rest is guaranteed by the caller.
    Some(unsafe {
        <T::Item<'static, 'static> as SystemParam>::get_param(
            &mut state.0,
            meta,
            world,
            change_tick,
        )
    })
}

/// The state of a [`DynSystemParam`]: the state of the parameter it was
/// built as, behind a trait object.
pub struct DynSystemParamState(Box<dyn DynParamState>);

impl DynSystemParamState {
    fn new<P: SystemParam + 'static>(state: P::State) -> Self {
        Self(Box::new(ParamState::<P>(state)))
    }
}

/// What a [`DynSystemParam`] needs of its inner parameter's state without
/// knowing its type.
trait DynParamState: Send + Sync + Any {
    fn as_any_mut(&mut self) -> &mut dyn Any;

    fn apply(&mut self, world: &mut World);

    fn queue(&mut self, queue: &mut CommandQueue);

    /// Fetches the inner parameter and drops it, to learn whether it can
    /// be fetched.
    ///
    /// # Safety
    /// As [`SystemParam::try_get_param`].
    unsafe fn validate(
        &mut self,
        meta: &SystemMeta,
        world: UnsafeWorldCell<'_>,
        change_tick: Tick,
    ) -> Result<(), SystemParamValidationError>;
}

/// The state of the parameter `P`, as a trait object can hold it.
struct ParamState<P: SystemParam>(P::State);

impl<P: SystemParam + 'static> DynParamState for ParamState<P> {
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }

    fn apply(&mut self, world: &mut World) {
        P::apply(&mut self.0, world);
    }

    fn queue(&mut self, queue: &mut CommandQueue) {
        P::queue(&mut self.0, queue);
    }

    unsafe fn validate(
        &mut self,
        meta: &SystemMeta,
        world: UnsafeWorldCell<'_>,
        change_tick: Tick,
    ) -> Result<(), SystemParamValidationError> {
        // SAFETY: forwarded from the caller.
        unsafe { P::try_get_param(&mut self.0, meta, world, change_tick) }.map(drop)
    }
}

// SAFETY: the state is built, with its access recorded, by the inner
// parameter's builder (`DynParamBuilder`) or is `()`'s, which has none;
// the item reaches world data only by downcasting to that parameter.
unsafe impl SystemParam for DynSystemParam<'_, '_> {
    type State = DynSystemParamState;
    type Item<'w, 's> = DynSystemParam<'w, 's>;

    fn init_state(_: &mut World, _: &mut SystemMeta) -> DynSystemParamState {
        DynSystemParamState::new::<()>(())
    }

    #[inline]
    unsafe fn get_param<'w, 's>(
        state: &'s mut DynSystemParamState,
        meta: &SystemMeta,
        world: UnsafeWorldCell<'w>,
        change_tick: Tick,
    ) -> DynSystemParam<'w, 's> {
        DynSystemParam {
            state: state.0.as_any_mut(),
            world,
            meta: meta.for_member(),
            change_tick,
        }
    }

    #[inline]
    unsafe fn try_get_param<'w, 's>(
        state: &'s mut DynSystemParamState,
        meta: &SystemMeta,
        world: UnsafeWorldCell<'w>,
        change_tick: Tick,
    ) -> Result<DynSystemParam<'w, 's>, SystemParamValidationError> {
        // Validated now, so an inner parameter that cannot be fetched skips
        // (or fails) the system as it would outside.
        // SAFETY: forwarded from the caller; the fetched item is dropped.
        unsafe { state.0.validate(meta, world, change_tick) }?;
        // SAFETY: forwarded from the caller.
        Ok(unsafe { Self::get_param(state, meta, world, change_tick) })
    }

    fn apply(state: &mut DynSystemParamState, world: &mut World) {
        state.0.apply(world);
    }

    fn queue(state: &mut DynSystemParamState, queue: &mut CommandQueue) {
        state.0.queue(queue);
    }
}

/// Builds a [`DynSystemParam`] as a `P`, with a builder of `P`; the
/// parameter downcasts to `P` only.
///
/// ```
/// use ecs::prelude::*;
/// use ecs::system::{DynParamBuilder, DynSystemParam, ParamBuilder};
///
/// #[derive(Component)]
/// struct Health(u32);
///
/// let mut world = World::new();
/// world.spawn(Health(4));
/// let system = (DynParamBuilder::new(ParamBuilder::query::<&Health>()),)
///     .build_state(&mut world)
///     .build_system(|param: DynSystemParam| {
///         let query: Query<&Health> = param.downcast().unwrap();
///         query.iter().map(|h| h.0).sum::<u32>()
///     });
/// assert_eq!(world.run_system_once(system).unwrap(), 4);
/// ```
#[allow(clippy::type_complexity)]
pub struct DynParamBuilder<'a>(
    Box<dyn FnOnce(&mut World, &mut SystemMeta) -> DynSystemParamState + 'a>,
);

impl<'a> DynParamBuilder<'a> {
    /// A builder of a [`DynSystemParam`] that holds a `P` built by
    /// `builder`.
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::system::{DynParamBuilder, DynSystemParam, ParamBuilder};
    ///
    /// let mut world = World::new();
    /// let system = (DynParamBuilder::new::<Local<u8>>(ParamBuilder),)
    ///     .build_state(&mut world)
    ///     .build_system(|param: DynSystemParam| param.is::<Local<u8>>());
    /// assert!(world.run_system_once(system).unwrap());
    /// ```
    pub fn new<P: SystemParam + 'static>(builder: impl SystemParamBuilder<P> + 'a) -> Self {
        Self(Box::new(|world, meta| {
            DynSystemParamState::new::<P>(builder.build(world, meta))
        }))
    }
}

// SAFETY: the state is built by a builder of `P`, which records `P`'s
// access; the item reaches the world only as that `P`.
unsafe impl<'w, 's> SystemParamBuilder<DynSystemParam<'w, 's>> for DynParamBuilder<'_> {
    #[track_caller]
    fn build(self, world: &mut World, meta: &mut SystemMeta) -> DynSystemParamState {
        (self.0)(world, meta)
    }
}
