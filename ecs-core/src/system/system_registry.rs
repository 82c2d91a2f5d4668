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

use super::{BoxedSystem, Command, CommandQueue, IntoSystem, RunSystemError, SystemInput};
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
/// assert_eq!(system.run((), &mut world), 5);
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
    /// assert_eq!(system.run((), &mut world), 4);
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

/// Why an operation on a registered system failed. Each variant names the
/// system's id (its entity).
///
/// Bevy's `Skipped` and `Failed` are absent, since our system parameters
/// cannot fail validation (a missing resource panics naming it) and
/// systems return plain values; `IncorrectWorld` is ours, since our ids
/// remember their world.
///
/// ```
/// use ecs::prelude::*;
/// use ecs::system::RegisteredSystemError;
///
/// let mut world = World::new();
/// let id = world.register_system(|| {});
/// world.unregister_system(id).unwrap();
/// let error = world.run_system(id).unwrap_err();
/// assert!(matches!(error, RegisteredSystemError::SystemIdNotRegistered(gone) if gone == id));
/// assert!(error.to_string().contains(&format!("{:?}", id.entity())));
/// ```
pub enum RegisteredSystemError<I: SystemInput = (), O = ()> {
    /// No system is registered under the id: it was never registered here,
    /// or it was unregistered (or its entity despawned).
    SystemIdNotRegistered(SystemId<I, O>),
    /// A cached system was unregistered by value, but none of its type is
    /// cached.
    SystemNotCached,
    /// The entity is a registered system whose [`RegisteredSystem`]
    /// component was removed by hand.
    MissingRegisteredSystemComponent(SystemId<I, O>),
    /// A system unregistered itself while running: its entity is despawned
    /// and the system is dropped once its run ends, but it cannot be handed
    /// back.
    SelfRemove(SystemId<I, O>),
    /// The id's input or output type differs from the registered
    /// system's, which the marker names.
    IncorrectType(SystemId<I, O>, SystemIdMarker),
    /// The system is running: it was run again from inside its own run
    /// (through `World::run_system` in an exclusive system, or a command
    /// applied during its run). Unlike bevy, a panic in an earlier run
    /// never causes this: the system is put back as the panic unwinds.
    SystemMissing(SystemId<I, O>),
    /// The id was registered in another world than the one it was used
    /// with (the second field).
    IncorrectWorld(SystemId<I, O>, WorldId),
}

impl<I: SystemInput, O> From<RunSystemError> for RegisteredSystemError<I, O> {
    fn from(error: RunSystemError) -> Self {
        match error {}
    }
}

impl<I: SystemInput, O> fmt::Debug for RegisteredSystemError<I, O> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::SystemIdNotRegistered(id) => {
                f.debug_tuple("SystemIdNotRegistered").field(id).finish()
            }
            Self::SystemNotCached => f.write_str("SystemNotCached"),
            Self::MissingRegisteredSystemComponent(id) => f
                .debug_tuple("MissingRegisteredSystemComponent")
                .field(id)
                .finish(),
            Self::SelfRemove(id) => f.debug_tuple("SelfRemove").field(id).finish(),
            Self::IncorrectType(id, marker) => f
                .debug_tuple("IncorrectType")
                .field(id)
                .field(marker)
                .finish(),
            Self::SystemMissing(id) => f.debug_tuple("SystemMissing").field(id).finish(),
            Self::IncorrectWorld(id, world) => f
                .debug_tuple("IncorrectWorld")
                .field(id)
                .field(world)
                .finish(),
        }
    }
}

impl<I: SystemInput, O> fmt::Display for RegisteredSystemError<I, O> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::SystemIdNotRegistered(id) => write!(
                f,
                "system {id:?} is not registered: it was unregistered, its entity despawned, or it was never registered in this world"
            ),
            Self::SystemNotCached => f.write_str("no cached system of this type is registered"),
            Self::MissingRegisteredSystemComponent(id) => write!(
                f,
                "system {id:?} has no `RegisteredSystem` component: it was removed from the entity"
            ),
            Self::SelfRemove(id) => write!(
                f,
                "system {id:?} unregistered itself while running; it is dropped when its run ends"
            ),
            Self::IncorrectType(id, marker) => write!(
                f,
                "system {id:?} (`{}`) is a `SystemId<{}, {}>`, not a `{}`",
                marker.system_name,
                marker.input.name,
                marker.output.name,
                type_name::<SystemId<I, O>>()
            ),
            Self::SystemMissing(id) => write!(
                f,
                "system {id:?} is already running: a system cannot run itself recursively"
            ),
            Self::IncorrectWorld(id, world) => match id.world {
                Some(home) => write!(
                    f,
                    "system {id:?} was registered in {home:?}, not in {world:?} where it was used"
                ),
                None => write!(f, "system {id:?} belongs to another world than {world:?}"),
            },
        }
    }
}

impl<I: SystemInput, O> std::error::Error for RegisteredSystemError<I, O> {}

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
        let result = catch_unwind(AssertUnwindSafe(|| {
            // Initialising twice does nothing; it panics on conflicting
            // parameters, which must not lose the system.
            system.initialize(self);
            system.run(input, self)
        }));
        let name = (result.is_err()).then(|| system.name());
        let pending = self.put_back(id, system, initialized || result.is_ok());
        match result {
            Ok(output) => {
                if let Some(mut pending) = pending {
                    pending.apply(self);
                }
                self.flush();
                Ok(output)
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

/// The [`Command`]s behind [`Commands::run_system`](super::Commands::run_system)
/// and the other one-shot system commands, at bevy's `ecs::system::command`
/// path.
///
/// A command aimed at a system that is running (its own commands, applied
/// as its run ends) waits until the system is back, then applies: so a
/// system can run or unregister itself through its commands. Used on
/// their own (`commands.queue(command::run_system(id))`), they panic on an
/// error, as bevy's default error handler does; the [`Commands`](super::Commands)
/// methods log a warning instead.
pub mod command {
    use super::*;

    /// What to do with an error: panic (the bare command) or warn (the
    /// `Commands` method).
    pub(crate) type OnError = fn(&dyn fmt::Display);

    pub(crate) fn panic_on_error(error: &dyn fmt::Display) {
        panic!("{error}")
    }

    pub(crate) fn warn_on_error(error: &dyn fmt::Display) {
        log::warn!("{error}")
    }

    /// Runs the system of `id` with `input` now, or once it is back if it
    /// is running.
    pub(crate) struct RunSystemWith<I: SystemInput + 'static, O: 'static> {
        pub(crate) id: SystemId<I, O>,
        pub(crate) input: I::Inner<'static>,
        pub(crate) on_error: OnError,
    }

    impl<I, O> Command for RunSystemWith<I, O>
    where
        I: SystemInput<Inner<'static>: Send> + Send + 'static,
        O: 'static,
    {
        fn apply(self, world: &mut World) {
            if let Some(pending) = world.pending_while_running(self.id) {
                pending.push(self);
                return;
            }
            if let Err(error) = world.run_system_with(self.id, self.input) {
                (self.on_error)(&error);
            }
        }
    }

    /// Unregisters the system of `id` now, or once it is back if it is
    /// running.
    pub(crate) struct UnregisterSystem<I: SystemInput + 'static, O: 'static> {
        pub(crate) id: SystemId<I, O>,
        pub(crate) on_error: OnError,
    }

    impl<I, O> Command for UnregisterSystem<I, O>
    where
        I: SystemInput + Send + 'static,
        O: Send + 'static,
    {
        fn apply(self, world: &mut World) {
            if let Some(pending) = world.pending_while_running(self.id) {
                pending.push(self);
                return;
            }
            if let Err(error) = world.unregister_system(self.id) {
                (self.on_error)(&error);
            }
        }
    }

    pub(crate) fn cached_id<I, M, S>(world: &mut World, system: S) -> SystemId<I>
    where
        I: SystemInput + 'static,
        S: IntoSystem<I, (), M> + 'static,
    {
        world.register_system_cached(system)
    }

    /// A command that runs the system of `id` (no input).
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::system::{command, CommandQueue};
    ///
    /// #[derive(Resource, Default)]
    /// struct Runs(u32);
    ///
    /// let mut world = World::new();
    /// world.init_resource::<Runs>();
    /// let id = world.register_system(|mut runs: ResMut<Runs>| runs.0 += 1);
    /// let mut queue = CommandQueue::default();
    /// Commands::new(&mut queue, &world).queue(command::run_system(id));
    /// queue.apply(&mut world);
    /// assert_eq!(world.resource::<Runs>().0, 1);
    /// ```
    pub fn run_system<O: 'static>(id: impl Into<SystemId<(), O>> + Send) -> impl Command {
        // The output is dropped, as bevy's command does.
        RunSystemWith {
            id: id.into(),
            input: (),
            on_error: panic_on_error,
        }
    }

    /// A command that runs the system of `id` with `input`.
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::system::{command, CommandQueue};
    ///
    /// #[derive(Resource, Default)]
    /// struct Total(u32);
    ///
    /// let mut world = World::new();
    /// world.init_resource::<Total>();
    /// let id = world.register_system(|In(n): In<u32>, mut total: ResMut<Total>| total.0 += n);
    /// let mut queue = CommandQueue::default();
    /// Commands::new(&mut queue, &world).queue(command::run_system_with(id, 5));
    /// queue.apply(&mut world);
    /// assert_eq!(world.resource::<Total>().0, 5);
    /// ```
    pub fn run_system_with<I>(
        id: impl Into<SystemId<I>> + Send,
        input: I::Inner<'static>,
    ) -> impl Command
    where
        I: SystemInput<Inner<'static>: Send> + Send + 'static,
    {
        RunSystemWith {
            id: id.into(),
            input,
            on_error: panic_on_error,
        }
    }

    /// A command that runs the cached system of `system`'s type
    /// ([`World::run_system_cached`]).
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::system::{command, CommandQueue};
    ///
    /// #[derive(Resource, Default)]
    /// struct Runs(u32);
    ///
    /// fn bump(mut runs: ResMut<Runs>) {
    ///     runs.0 += 1;
    /// }
    ///
    /// let mut world = World::new();
    /// world.init_resource::<Runs>();
    /// let mut queue = CommandQueue::default();
    /// Commands::new(&mut queue, &world).queue(command::run_system_cached(bump));
    /// queue.apply(&mut world);
    /// assert_eq!(world.resource::<Runs>().0, 1);
    /// ```
    pub fn run_system_cached<M, S>(system: S) -> impl Command
    where
        M: 'static,
        S: IntoSystem<(), (), M> + Send + 'static,
    {
        run_system_cached_with(system, ())
    }

    /// A command that runs the cached system of `system`'s type with
    /// `input`.
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::system::{command, CommandQueue};
    ///
    /// #[derive(Resource, Default)]
    /// struct Total(u32);
    ///
    /// fn add(In(n): In<u32>, mut total: ResMut<Total>) {
    ///     total.0 += n;
    /// }
    ///
    /// let mut world = World::new();
    /// world.init_resource::<Total>();
    /// let mut queue = CommandQueue::default();
    /// Commands::new(&mut queue, &world).queue(command::run_system_cached_with(add, 3));
    /// queue.apply(&mut world);
    /// assert_eq!(world.resource::<Total>().0, 3);
    /// ```
    pub fn run_system_cached_with<I, M, S>(system: S, input: I::Inner<'static>) -> impl Command
    where
        I: SystemInput<Inner<'static>: Send> + Send + 'static,
        M: 'static,
        S: IntoSystem<I, (), M> + Send + 'static,
    {
        run_cached_with(system, input, panic_on_error)
    }

    pub(crate) fn run_cached_with<I, M, S>(
        system: S,
        input: I::Inner<'static>,
        on_error: OnError,
    ) -> impl Command
    where
        I: SystemInput<Inner<'static>: Send> + Send + 'static,
        M: 'static,
        S: IntoSystem<I, (), M> + Send + 'static,
    {
        move |world: &mut World| {
            let id = cached_id(world, system);
            RunSystemWith {
                id,
                input,
                on_error,
            }
            .apply(world);
        }
    }

    /// A command that unregisters the system of `id`.
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::system::{command, CommandQueue};
    ///
    /// let mut world = World::new();
    /// let id = world.register_system(|| {});
    /// let mut queue = CommandQueue::default();
    /// Commands::new(&mut queue, &world).queue(command::unregister_system(id));
    /// queue.apply(&mut world);
    /// assert!(world.run_system(id).is_err());
    /// ```
    pub fn unregister_system<I, O>(system_id: SystemId<I, O>) -> impl Command
    where
        I: SystemInput + Send + 'static,
        O: Send + 'static,
    {
        UnregisterSystem {
            id: system_id,
            on_error: panic_on_error,
        }
    }

    /// A command that unregisters the cached system of `system`'s type
    /// ([`World::unregister_system_cached`]).
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::system::{command, CommandQueue};
    ///
    /// fn noop() {}
    ///
    /// let mut world = World::new();
    /// let id = world.register_system_cached(noop);
    /// let mut queue = CommandQueue::default();
    /// Commands::new(&mut queue, &world).queue(command::unregister_system_cached(noop));
    /// queue.apply(&mut world);
    /// assert!(world.run_system(id).is_err());
    /// ```
    pub fn unregister_system_cached<I, O, M, S>(system: S) -> impl Command
    where
        I: SystemInput + Send + 'static,
        O: 'static,
        M: 'static,
        S: IntoSystem<I, O, M> + Send + 'static,
    {
        unregister_cached(system, panic_on_error)
    }

    pub(crate) fn unregister_cached<I, O, M, S>(system: S, on_error: OnError) -> impl Command
    where
        I: SystemInput + Send + 'static,
        O: 'static,
        M: 'static,
        S: IntoSystem<I, O, M> + Send + 'static,
    {
        UnregisterSystemCached {
            system,
            on_error,
            marker: PhantomData::<fn(I, M) -> O>,
        }
    }

    /// Unregisters the cached system of type `S` now, or once it is back
    /// if it is running.
    struct UnregisterSystemCached<S, T> {
        system: S,
        on_error: OnError,
        marker: PhantomData<T>,
    }

    impl<I, O, M, S> Command for UnregisterSystemCached<S, fn(I, M) -> O>
    where
        I: SystemInput + Send + 'static,
        O: 'static,
        M: 'static,
        S: IntoSystem<I, O, M> + Send + 'static,
    {
        fn apply(self, world: &mut World) {
            let Some(cached) = world.get_resource::<CachedSystemId<S>>() else {
                return (self.on_error)(&RegisteredSystemError::<I, O>::SystemNotCached);
            };
            let id = SystemId::<I, O>::new(cached.entity, Some(world.id()));
            if let Some(pending) = world.pending_while_running(id) {
                pending.push(self);
                return;
            }
            if let Err(error) = world.unregister_system_cached(self.system) {
                (self.on_error)(&error);
            }
        }
    }
}
