//! One-shot systems: systems stored in the world and run on demand by id.
//!
//! ```text
//! world.register_system(f) ──► entity { RegisteredSystem<I, O>, SystemIdMarker }
//!                        ◄──── SystemId<I, O> (the entity, and the world)
//! world.run_system(id):  take the system out of its entity ─► run ─► apply
//!                        its commands ─► put it back ─► apply the commands
//!                        queued for it while it was out
//! ```
//!
//! A registered system is an entity, so despawning it unregisters the
//! system. The system keeps its state ([`Local`](super::Local)s, change
//! ticks) between runs, unlike [`RunSystemOnce`](super::RunSystemOnce),
//! which builds a fresh system each time. While a system runs, its entity
//! holds no system: running it again from inside itself is an error
//! ([`RegisteredSystemError::SystemMissing`]), not a deadlock.

use std::{
    any::{type_name, TypeId},
    borrow::Cow,
    fmt,
    hash::{Hash, Hasher},
    marker::PhantomData,
    panic::{catch_unwind, resume_unwind, AssertUnwindSafe},
};

pub mod command;
mod error;

pub use error::RegisteredSystemError;

use super::{BoxedSystem, CommandQueue, IntoSystem, SystemInput};
use crate::{
    change_detection::Mut,
    component::Component,
    entity::Entity,
    resource::Resource,
    world::{World, WorldId},
};

/// The component holding a registered system: the boxed system (absent
/// while it runs), whether it was initialised, and the commands aimed at it
/// while it ran, applied once it is back.
///
/// ```
/// use ecs::prelude::*;
/// use ecs::system::{RegisteredSystem, SystemIdMarker};
///
/// let mut world = World::new();
/// let id = world.register_system(|| 7);
/// assert!(world.entity(id.entity()).contains::<RegisteredSystem<(), i32>>());
/// assert!(world.entity(id.entity()).contains::<SystemIdMarker>());
/// ```
#[derive(Component)]
pub struct RegisteredSystem<I: SystemInput + 'static, O: 'static> {
    initialized: bool,
    system: Option<BoxedSystem<I, O>>,
    pending: CommandQueue,
}

impl<I: SystemInput + 'static, O: 'static> RegisteredSystem<I, O> {
    /// An uninitialised registered system; it is initialised on its first
    /// run.
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::system::{RegisteredSystem, SystemId};
    ///
    /// let mut world = World::new();
    /// let system: ecs::system::BoxedSystem<(), u8> = Box::new(IntoSystem::into_system(|| 3u8));
    /// // Without its `SystemIdMarker`, a wrong-typed id is reported as unregistered.
    /// let entity = world.spawn(RegisteredSystem::new(system)).id();
    /// assert_eq!(world.run_system(SystemId::<(), u8>::from_entity(entity)).unwrap(), 3);
    /// ```
    pub fn new(system: BoxedSystem<I, O>) -> Self {
        RegisteredSystem {
            initialized: false,
            system: Some(system),
            pending: CommandQueue::default(),
        }
    }
}

/// A type's id and name, so a type mismatch can name both sides.
#[derive(Debug, Clone)]
struct TypeIdAndName {
    type_id: TypeId,
    name: &'static str,
}

impl TypeIdAndName {
    fn of<T: 'static>() -> Self {
        TypeIdAndName {
            type_id: TypeId::of::<T>(),
            name: type_name::<T>(),
        }
    }
}

/// Marks an entity as a registered system and records its input and output
/// types and its name, so that a [`SystemId`] of the wrong types gets
/// [`RegisteredSystemError::IncorrectType`] naming them.
///
/// Unlike bevy's, it also holds the system's name, so errors about the
/// entity can name the system.
///
/// ```
/// use ecs::prelude::*;
/// use ecs::system::SystemIdMarker;
///
/// fn score() -> u32 {
///     3
/// }
///
/// let mut world = World::new();
/// let id = world.register_system(score);
/// let marker = world.get::<SystemIdMarker>(id.entity()).unwrap();
/// assert!(marker.system_name().ends_with("score"));
/// ```
#[derive(Component, Debug, Clone)]
pub struct SystemIdMarker {
    input: TypeIdAndName,
    output: TypeIdAndName,
    system_name: Cow<'static, str>,
}

impl SystemIdMarker {
    pub(crate) fn new<I: 'static, O: 'static>(system_name: Cow<'static, str>) -> Self {
        SystemIdMarker {
            input: TypeIdAndName::of::<I>(),
            output: TypeIdAndName::of::<O>(),
            system_name,
        }
    }

    /// The registered system's name.
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::system::SystemIdMarker;
    ///
    /// let mut world = World::new();
    /// let id = world.register_system(|| {});
    /// assert!(!world.get::<SystemIdMarker>(id.entity()).unwrap().system_name().is_empty());
    /// ```
    pub fn system_name(&self) -> &str {
        &self.system_name
    }

    fn matches<I: 'static, O: 'static>(&self) -> bool {
        self.input.type_id == TypeId::of::<I>() && self.output.type_id == TypeId::of::<O>()
    }
}

/// A system taken out of the world by [`World::unregister_system`].
///
/// ```
/// use ecs::prelude::*;
///
/// let mut world = World::new();
/// let id = world.register_system(|| 5);
/// world.run_system(id).unwrap();
/// let removed = world.unregister_system(id).unwrap();
/// assert!(removed.initialized());
/// let mut system = removed.system();
/// assert_eq!(system.run((), &mut world).unwrap(), 5);
/// ```
pub struct RemovedSystem<I = (), O = ()> {
    initialized: bool,
    system: BoxedSystem<I, O>,
}

impl<I, O> RemovedSystem<I, O> {
    /// Whether the system was initialised (it is on its first run).
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// let mut world = World::new();
    /// let id = world.register_system(|| {});
    /// assert!(!world.unregister_system(id).unwrap().initialized());
    /// ```
    pub fn initialized(&self) -> bool {
        self.initialized
    }

    /// The system itself.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// let mut world = World::new();
    /// let id = world.register_system(|| 2 + 2);
    /// let mut system = world.unregister_system(id).unwrap().system();
    /// system.initialize(&mut world);
    /// assert_eq!(system.run((), &mut world).unwrap(), 4);
    /// ```
    pub fn system(self) -> BoxedSystem<I, O> {
        self.system
    }
}

/// The id of a registered system: the entity that holds it, typed by the
/// system's input `I` and output `O`.
///
/// Unlike bevy's, an id made by registering also remembers its world, so
/// that using it with another world is an error
/// ([`RegisteredSystemError::IncorrectWorld`]) rather than running whatever
/// that world holds at the same entity; an id made by
/// [`SystemId::from_entity`] is not checked. Equality and hashing look at
/// the entity alone, as bevy's do.
///
/// ```
/// use ecs::prelude::*;
/// use ecs::system::SystemId;
///
/// let mut world = World::new();
/// let id: SystemId<In<u32>, u32> = world.register_system(|In(n): In<u32>| n * 2);
/// assert_eq!(world.run_system_with(id, 21).unwrap(), 42);
/// assert_eq!(SystemId::<In<u32>, u32>::from_entity(id.entity()), id);
/// ```
pub struct SystemId<I: SystemInput = (), O = ()> {
    entity: Entity,
    world: Option<WorldId>,
    marker: PhantomData<fn(I) -> O>,
}

impl<I: SystemInput, O> SystemId<I, O> {
    pub(crate) fn new(entity: Entity, world: Option<WorldId>) -> Self {
        SystemId {
            entity,
            world,
            marker: PhantomData,
        }
    }

    /// The entity holding the system (to name it, or despawn it to
    /// unregister the system).
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// let mut world = World::new();
    /// let id = world.register_system(|| {});
    /// world.despawn(id.entity());
    /// assert!(world.run_system(id).is_err());
    /// ```
    pub fn entity(self) -> Entity {
        self.entity
    }

    /// The id of the system held by `entity`. The entity must hold a system
    /// of input `I` and output `O` for runs to succeed; the id does not know
    /// its world, so it is not checked against the world it is used with.
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::system::SystemId;
    ///
    /// let mut world = World::new();
    /// let entity = world.register_system(|| 1).entity();
    /// assert_eq!(world.run_system(SystemId::<(), i32>::from_entity(entity)).unwrap(), 1);
    /// ```
    pub fn from_entity(entity: Entity) -> Self {
        SystemId::new(entity, None)
    }
}

// Manual impls: the bounds must not fall on the phantom `I` and `O`.
impl<I: SystemInput, O> Copy for SystemId<I, O> {}

impl<I: SystemInput, O> Clone for SystemId<I, O> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<I: SystemInput, O> PartialEq for SystemId<I, O> {
    fn eq(&self, other: &Self) -> bool {
        self.entity == other.entity
    }
}

impl<I: SystemInput, O> Eq for SystemId<I, O> {}

impl<I: SystemInput, O> Hash for SystemId<I, O> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.entity.hash(state);
    }
}

impl<I: SystemInput, O> fmt::Debug for SystemId<I, O> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("SystemId").field(&self.entity).finish()
    }
}

/// The resource remembering the id of a cached system, keyed by the
/// system's (zero-sized) type `S`; inserted by
/// [`World::register_system_cached`].
///
/// ```
/// use ecs::prelude::*;
/// use ecs::system::CachedSystemId;
///
/// fn tick() {}
///
/// let mut world = World::new();
/// let id = world.register_system_cached(tick);
/// fn cached_entity<S: 'static>(_: S, world: &World) -> Entity {
///     world.resource::<CachedSystemId<S>>().entity
/// }
/// assert_eq!(cached_entity(tick, &world), id.entity());
/// ```
#[derive(Resource)]
pub struct CachedSystemId<S: 'static> {
    /// The entity holding the cached system.
    pub entity: Entity,
    _marker: PhantomData<fn() -> S>,
}

impl<S: 'static> CachedSystemId<S> {
    /// The cache entry for the system of `id`.
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::system::CachedSystemId;
    ///
    /// fn tick() {}
    /// let mut world = World::new();
    /// let id = world.register_system(tick);
    /// assert_eq!(CachedSystemId::<fn()>::new(id).entity, id.entity());
    /// ```
    pub fn new<I: SystemInput, O>(id: SystemId<I, O>) -> Self {
        CachedSystemId {
            entity: id.entity(),
            _marker: PhantomData,
        }
    }
}

impl World {
    /// Registers a system, to run later by the returned id
    /// ([`World::run_system`]); registering one function twice gives two
    /// systems with their own state ([`World::register_system_cached`]
    /// gives one).
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// fn count(mut n: Local<u32>) -> u32 {
    ///     *n += 1;
    ///     *n
    /// }
    ///
    /// let mut world = World::new();
    /// let a = world.register_system(count);
    /// let b = world.register_system(count);
    /// assert_eq!(world.run_system(a).unwrap(), 1);
    /// assert_eq!(world.run_system(a).unwrap(), 2);
    /// assert_eq!(world.run_system(b).unwrap(), 1);
    /// ```
    pub fn register_system<I, O, M>(
        &mut self,
        system: impl IntoSystem<I, O, M> + 'static,
    ) -> SystemId<I, O>
    where
        I: SystemInput + 'static,
        O: 'static,
    {
        self.register_boxed_system(Box::new(IntoSystem::into_system(system)))
    }

    /// [`World::register_system`] for a system already boxed.
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::system::BoxedSystem;
    ///
    /// let mut world = World::new();
    /// let system: BoxedSystem<(), &'static str> = Box::new(IntoSystem::into_system(|| "hi"));
    /// let id = world.register_boxed_system(system);
    /// assert_eq!(world.run_system(id).unwrap(), "hi");
    /// ```
    pub fn register_boxed_system<I, O>(&mut self, system: BoxedSystem<I, O>) -> SystemId<I, O>
    where
        I: SystemInput + 'static,
        O: 'static,
    {
        let marker = SystemIdMarker::new::<I, O>(system.name());
        let entity = self.spawn((RegisteredSystem::new(system), marker)).id();
        SystemId::new(entity, Some(self.id()))
    }

    /// Unregisters a system, despawning its entity, and hands it back.
    ///
    /// # Errors
    /// If no system is registered under `id` here, or it is of other types;
    /// a running system that unregisters itself gets
    /// [`RegisteredSystemError::SelfRemove`] (its entity is despawned all
    /// the same, as in bevy).
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// let mut world = World::new();
    /// let id = world.register_system(|| {});
    /// assert!(world.unregister_system(id).is_ok());
    /// assert!(world.unregister_system(id).is_err());
    /// ```
    pub fn unregister_system<I, O>(
        &mut self,
        id: SystemId<I, O>,
    ) -> Result<RemovedSystem<I, O>, RegisteredSystemError<I, O>>
    where
        I: SystemInput + 'static,
        O: 'static,
    {
        self.check_registered(id)?;
        let mut entity = self.entity_mut(id.entity);
        let registered = entity
            .take::<RegisteredSystem<I, O>>()
            .expect("checked just above");
        entity.despawn();
        match registered.system {
            Some(system) => Ok(RemovedSystem {
                initialized: registered.initialized,
                system,
            }),
            None => Err(RegisteredSystemError::SelfRemove(id)),
        }
    }

    /// Runs a registered system that takes no input, applies its commands,
    /// and returns its output. The system keeps its state between runs:
    /// its [`Local`](super::Local)s, and the change ticks that make
    /// `Added`/`Changed` report each change once.
    ///
    /// # Errors
    /// If no system of these types is registered under `id` in this world,
    /// or it is already running.
    ///
    /// # Panics
    /// If the system (or one of its commands) panics; the system stays
    /// registered and runnable. As in a schedule, commands a panicked run
    /// queued before panicking stay with the system and apply after its
    /// next run.
    ///
    /// Unlike bevy, the system's commands apply before the system is back
    /// in the world: a command of its own that runs it again finds it
    /// missing (`SystemMissing`), and a `run_system` command for itself
    /// waits until it is back, so it runs after the system's other
    /// commands. Commands waiting that way are dropped, unapplied, if the
    /// run despawned the system's entity.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Resource, Default)]
    /// struct Alarm;
    ///
    /// let mut world = World::new();
    /// world.init_resource::<Alarm>();
    /// let rang = world.register_system(|alarm: Res<Alarm>| alarm.is_changed());
    /// assert!(world.run_system(rang).unwrap());
    /// assert!(!world.run_system(rang).unwrap());
    /// world.resource_mut::<Alarm>().set_changed();
    /// assert!(world.run_system(rang).unwrap());
    /// ```
    #[track_caller]
    pub fn run_system<O: 'static>(
        &mut self,
        id: impl Into<SystemId<(), O>>,
    ) -> Result<O, RegisteredSystemError<(), O>> {
        self.run_system_with(id, ())
    }

    /// [`World::run_system`] for a system taking an input
    /// ([`In`](super::In), [`InRef`](super::InRef), [`InMut`](super::InMut)).
    ///
    /// # Errors
    /// As [`World::run_system`].
    ///
    /// # Panics
    /// As [`World::run_system`].
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// fn add(In(n): In<u8>, mut total: Local<u8>) -> u8 {
    ///     *total += n;
    ///     *total
    /// }
    ///
    /// let mut world = World::new();
    /// let id = world.register_system(add);
    /// assert_eq!(world.run_system_with(id, 1).unwrap(), 1);
    /// assert_eq!(world.run_system_with(id, 20).unwrap(), 21);
    /// ```
    #[track_caller]
    pub fn run_system_with<I, O>(
        &mut self,
        id: impl Into<SystemId<I, O>>,
        input: I::Inner<'_>,
    ) -> Result<O, RegisteredSystemError<I, O>>
    where
        I: SystemInput + 'static,
        O: 'static,
    {
        let id = id.into();
        self.check_registered(id)?;
        let mut registered = self
            .get_mut::<RegisteredSystem<I, O>>(id.entity)
            .expect("checked just above");
        let initialized = registered.initialized;
        let mut system = registered
            .system
            .take()
            .ok_or(RegisteredSystemError::SystemMissing(id))?;
        let mut now_initialized = initialized;
        let result = catch_unwind(AssertUnwindSafe(|| {
            // Initialising twice does nothing; it panics on conflicting
            // parameters, which must not lose the system.
            system.initialize(self);
            now_initialized = true;
            // A failed run's commands apply too, as bevy's do.
            let output = system.run_without_applying_deferred(input, self);
            system.apply_deferred(self);
            output
        }));
        let name = (result.is_err()).then(|| system.name());
        let pending = self.put_back(id, system, now_initialized);
        match result {
            Ok(output) => {
                if let Some(mut pending) = pending {
                    pending.apply(self);
                }
                self.flush();
                Ok(output?)
            }
            Err(payload) => {
                // Commands aimed at the system during a run that did not
                // finish are dropped; a panic in a drop is second to the
                // system's.
                let _ = catch_unwind(AssertUnwindSafe(|| drop(pending)));
                let name = name.expect("set on panic");
                resume_unwind(crate::utils::name_panic("system", &name, payload))
            }
        }
    }

    /// Registers `system` once per type and returns its id: later calls
    /// with the same function return the same id (and state), even after
    /// its entity was despawned (it is registered again).
    ///
    /// Only zero-sized systems (functions, closures capturing nothing) can
    /// be cached, so that two values of one type are the same system; pass
    /// values in through [`World::run_system_cached_with`] instead.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// fn four() -> i32 {
    ///     4
    /// }
    ///
    /// let mut world = World::new();
    /// let id = world.register_system_cached(four);
    /// assert_eq!(world.register_system_cached(four), id);
    /// assert_eq!(world.run_system(id).unwrap(), 4);
    /// ```
    pub fn register_system_cached<I, O, M, S>(&mut self, system: S) -> SystemId<I, O>
    where
        I: SystemInput + 'static,
        O: 'static,
        S: IntoSystem<I, O, M> + 'static,
    {
        const {
            assert!(
                size_of::<S>() == 0,
                "Non-ZST systems (e.g. capturing closures, function pointers) cannot be cached.",
            );
        }
        if !self.contains_resource::<CachedSystemId<S>>() {
            let id = self.register_system(system);
            self.insert_resource(CachedSystemId::<S>::new(id));
            return id;
        }
        let world_id = self.id();
        self.resource_scope(|world, mut cached: Mut<CachedSystemId<S>>| {
            match world.get_entity_mut(cached.entity) {
                Ok(mut entity) => {
                    if !entity.contains::<RegisteredSystem<I, O>>() {
                        let system: BoxedSystem<I, O> = Box::new(IntoSystem::into_system(system));
                        let marker = SystemIdMarker::new::<I, O>(system.name());
                        entity.insert((RegisteredSystem::new(system), marker));
                    }
                }
                Err(_) => cached.entity = world.register_system(system).entity(),
            }
            SystemId::new(cached.entity, Some(world_id))
        })
    }

    /// Unregisters the cached system of `system`'s type and forgets its id.
    ///
    /// # Errors
    /// [`RegisteredSystemError::SystemNotCached`] if none is cached; else
    /// as [`World::unregister_system`].
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// fn noop() {}
    ///
    /// let mut world = World::new();
    /// world.run_system_cached(noop).unwrap();
    /// assert!(world.unregister_system_cached(noop).is_ok());
    /// assert!(world.unregister_system_cached(noop).is_err());
    /// ```
    pub fn unregister_system_cached<I, O, M, S>(
        &mut self,
        _system: S,
    ) -> Result<RemovedSystem<I, O>, RegisteredSystemError<I, O>>
    where
        I: SystemInput + 'static,
        O: 'static,
        S: IntoSystem<I, O, M> + 'static,
    {
        let cached = self
            .remove_resource::<CachedSystemId<S>>()
            .ok_or(RegisteredSystemError::SystemNotCached)?;
        self.unregister_system(SystemId::new(cached.entity, Some(self.id())))
    }

    /// Runs the cached system of `system`'s type, registering it first if
    /// needed ([`World::register_system_cached`]).
    ///
    /// # Errors
    /// As [`World::run_system`].
    ///
    /// # Panics
    /// As [`World::run_system`].
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// fn count(mut n: Local<u32>) -> u32 {
    ///     *n += 1;
    ///     *n
    /// }
    ///
    /// let mut world = World::new();
    /// assert_eq!(world.run_system_cached(count).unwrap(), 1);
    /// assert_eq!(world.run_system_cached(count).unwrap(), 2);
    /// ```
    #[track_caller]
    pub fn run_system_cached<O: 'static, M, S: IntoSystem<(), O, M> + 'static>(
        &mut self,
        system: S,
    ) -> Result<O, RegisteredSystemError<(), O>> {
        self.run_system_cached_with(system, ())
    }

    /// [`World::run_system_cached`] with an input.
    ///
    /// # Errors
    /// As [`World::run_system`].
    ///
    /// # Panics
    /// As [`World::run_system`].
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// fn double(In(n): In<i32>) -> i32 {
    ///     n * 2
    /// }
    ///
    /// let mut world = World::new();
    /// assert_eq!(world.run_system_cached_with(double, 4).unwrap(), 8);
    /// ```
    #[track_caller]
    pub fn run_system_cached_with<I, O, M, S>(
        &mut self,
        system: S,
        input: I::Inner<'_>,
    ) -> Result<O, RegisteredSystemError<I, O>>
    where
        I: SystemInput + 'static,
        O: 'static,
        S: IntoSystem<I, O, M> + 'static,
    {
        let id = self.register_system_cached(system);
        self.run_system_with(id, input)
    }

    /// Checks that `id` names a registered system of its types in this
    /// world (it may be running).
    fn check_registered<I, O>(&self, id: SystemId<I, O>) -> Result<(), RegisteredSystemError<I, O>>
    where
        I: SystemInput + 'static,
        O: 'static,
    {
        if id.world.is_some_and(|world| world != self.id()) {
            return Err(RegisteredSystemError::IncorrectWorld(id, self.id()));
        }
        let Ok(entity) = self.get_entity(id.entity) else {
            return Err(RegisteredSystemError::SystemIdNotRegistered(id));
        };
        if entity.contains::<RegisteredSystem<I, O>>() {
            return Ok(());
        }
        Err(match entity.get::<SystemIdMarker>() {
            None => RegisteredSystemError::SystemIdNotRegistered(id),
            Some(marker) if !marker.matches::<I, O>() => {
                RegisteredSystemError::IncorrectType(id, marker.clone())
            }
            Some(_) => RegisteredSystemError::MissingRegisteredSystemComponent(id),
        })
    }

    /// Puts a system back after its run and takes the commands queued for
    /// it meanwhile; if it was unregistered during the run, drops it.
    fn put_back<I, O>(
        &mut self,
        id: SystemId<I, O>,
        system: BoxedSystem<I, O>,
        initialized: bool,
    ) -> Option<CommandQueue>
    where
        I: SystemInput + 'static,
        O: 'static,
    {
        match self.get_mut::<RegisteredSystem<I, O>>(id.entity) {
            Some(mut registered) if registered.system.is_none() => {
                registered.system = Some(system);
                registered.initialized = initialized;
                Some(std::mem::take(&mut registered.pending))
            }
            // Unregistered (or replaced) during the run: this one goes.
            _ => {
                drop(system);
                None
            }
        }
    }

    /// The queue of commands waiting for the system of `id` to finish its
    /// run, if it is running.
    fn pending_while_running<I, O>(&mut self, id: SystemId<I, O>) -> Option<&mut CommandQueue>
    where
        I: SystemInput + 'static,
        O: 'static,
    {
        if id.world.is_some_and(|world| world != self.id()) {
            return None;
        }
        let registered = self.get_mut::<RegisteredSystem<I, O>>(id.entity)?;
        registered
            .system
            .is_none()
            .then(|| &mut registered.into_inner().pending)
    }
}
