mod batch;
mod clone_commands;
mod entity_command;
mod entity_commands;
mod spawn_run;

use std::any::type_name;

use super::system_registry::command::{
    run_cached_with, unregister_cached, warn_on_error, RunSystemWith, UnregisterSystem,
};
use super::system_registry::SystemIdMarker;
use super::{BoxedSystem, CommandQueue, IntoSystem, RegisteredSystem, SystemId, SystemInput};
pub use crate::world::Command;
use crate::{
    bundle::Bundle,
    entity::{Entities, Entity, EntityNotSpawnedError, InvalidEntityError},
    error::{BevyError, ErrorContext},
    query::{QueryData, QueryFilter},
    resource::Resource,
    world::{FromWorld, World, WorldId},
};
pub use entity_command::EntityCommand;
pub use entity_commands::EntityEntryCommands;

/// Queues structural changes to apply later, when the world is free: from
/// systems (applied before any system ordered after, and at the end of a
/// schedule run) or from anywhere with a [`CommandQueue`].
///
/// ```
/// use ecs::prelude::*;
/// use ecs::system::CommandQueue;
///
/// #[derive(Component)]
/// struct Health(u32);
///
/// let mut world = World::new();
/// let mut queue = CommandQueue::default();
/// let mut commands = Commands::new(&mut queue, &world);
/// let e = commands.spawn(Health(3)).id(); // usable at once
/// commands.entity(e).insert(Health(4));
/// queue.apply(&mut world);
/// assert_eq!(world.get::<Health>(e).unwrap().0, 4);
/// ```
pub struct Commands<'w, 's> {
    queue: &'s mut CommandQueue,
    entities: &'w Entities,
}

impl<'w, 's> Commands<'w, 's> {
    /// Commands that push onto `queue`, reserving entities in `world`.
    ///
    /// # Panics
    /// If `queue` holds commands recorded for another world.
    #[track_caller]
    pub fn new(queue: &'s mut CommandQueue, world: &'w World) -> Self {
        Commands::new_from_entities(queue, world.entities(), world.id())
    }

    #[track_caller]
    pub(crate) fn new_from_entities(
        queue: &'s mut CommandQueue,
        entities: &'w Entities,
        world: WorldId,
    ) -> Self {
        queue.bind_world(world);
        Commands { queue, entities }
    }

    /// Queues a command; if it returns an error, the error goes to the
    /// world's error handler
    /// ([`World::fallback_error_handler`](crate::world::World::fallback_error_handler)).
    #[inline]
    pub fn queue(&mut self, command: impl Command) {
        self.queue.push(command.handle_error());
    }

    /// Queues a command; if it returns an error, the error goes to
    /// `error_handler`.
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::error::{warn, ErrorContext};
    ///
    /// fn fail(mut commands: Commands) {
    ///     commands.queue_handled(|_: &mut World| -> Result { Err("no room".into()) }, warn);
    /// }
    ///
    /// let mut world = World::new();
    /// world.run_system_once(fail).unwrap();
    /// ```
    #[inline]
    pub fn queue_handled(
        &mut self,
        command: impl Command,
        error_handler: impl FnOnce(BevyError, ErrorContext) + Send + 'static,
    ) {
        self.queue.push(command.handle_error_with(error_handler));
    }

    /// Queues a command; an error it returns is dropped.
    #[inline]
    pub fn queue_silenced(&mut self, command: impl Command) {
        self.queue.push(command.ignore_error());
    }

    /// Reserves an entity now and queues spawning it with `bundle`.
    ///
    /// Spawns of one bundle type queued one after another, with nothing
    /// queued between them, apply together: the bundle's archetype is
    /// found once and its rows reserved once. The result is the same as
    /// applying each spawn on its own, in order (hooks and observers
    /// included).
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::system::CommandQueue;
    ///
    /// #[derive(Component)]
    /// struct Speed(u32);
    ///
    /// let mut world = World::new();
    /// let mut queue = CommandQueue::default();
    /// let mut commands = Commands::new(&mut queue, &world);
    /// let ids: Vec<Entity> = (0..3).map(|i| commands.spawn(Speed(i)).id()).collect();
    /// queue.apply(&mut world);
    /// for (i, e) in ids.into_iter().enumerate() {
    ///     assert_eq!(world.get::<Speed>(e).unwrap().0, i as u32);
    /// }
    /// ```
    pub fn spawn<B: Bundle>(&mut self, bundle: B) -> EntityCommands<'_> {
        let entity = self.entities.reserve_entity();
        self.queue
            .push_run_entry::<spawn_run::SpawnRun<B>>((entity, bundle));
        EntityCommands {
            entity,
            commands: self.reborrow(),
        }
    }

    /// Reserves an entity now (with no components).
    pub fn spawn_empty(&mut self) -> EntityCommands<'_> {
        let entity = self.entities.reserve_entity();
        EntityCommands {
            entity,
            commands: self.reborrow(),
        }
    }

    /// Queues spawning one entity per bundle of `iter`.
    pub fn spawn_batch<I>(&mut self, iter: I)
    where
        I: IntoIterator + Send + 'static,
        I::Item: Bundle,
    {
        self.queue.push(move |world: &mut World| {
            world.spawn_batch(iter);
        });
    }

    /// Queues despawning every entity that matches the filter `F` when
    /// the command applies ([`World::despawn_all`]): one command, however
    /// many entities.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Component)]
    /// struct Bullet;
    ///
    /// fn clear_bullets(mut commands: Commands) {
    ///     commands.despawn_all::<With<Bullet>>();
    /// }
    ///
    /// let mut world = World::new();
    /// world.spawn_batch((0..3).map(|_| Bullet));
    /// world.run_system_once(clear_bullets).unwrap();
    /// assert_eq!(world.entities().len(), 0);
    /// ```
    pub fn despawn_all<F: QueryFilter>(&mut self) {
        self.queue.push(crate::system::command::despawn_all::<F>());
    }

    /// Queues despawning every entity that matches `F` and for whose item
    /// of `D` `cond` answers true when the command applies
    /// ([`World::despawn_all_where`]).
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Component)]
    /// struct Health(f32);
    ///
    /// fn despawn_dead(mut commands: Commands) {
    ///     commands.despawn_all_where::<&Health, ()>(|health| health.0 <= 0.0);
    /// }
    ///
    /// let mut world = World::new();
    /// world.spawn(Health(0.0));
    /// world.spawn(Health(2.0));
    /// world.run_system_once(despawn_dead).unwrap();
    /// assert_eq!(world.entities().len(), 1);
    /// ```
    pub fn despawn_all_where<D: QueryData, F: QueryFilter>(
        &mut self,
        cond: impl FnMut(D::Item<'_>) -> bool + Send + 'static,
    ) {
        self.queue
            .push(crate::system::command::despawn_all_where::<D, F>(cond));
    }

    /// Commands for an existing entity. Commands aimed at an entity that
    /// is gone when they apply do nothing (and log a warning).
    pub fn entity(&mut self, entity: Entity) -> EntityCommands<'_> {
        EntityCommands {
            entity,
            commands: self.reborrow(),
        }
    }

    /// Commands for `entity` if its handle is current: spawned, or reserved
    /// by a `spawn` not applied yet. The commands may still find it gone
    /// when they apply.
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::system::CommandQueue;
    ///
    /// let mut world = World::new();
    /// let gone = world.spawn_empty().id();
    /// world.despawn(gone);
    /// let mut queue = CommandQueue::default();
    /// let mut commands = Commands::new(&mut queue, &world);
    /// let reserved = commands.spawn_empty().id();
    /// assert!(commands.get_entity(reserved).is_ok());
    /// assert!(commands.get_spawned_entity(reserved).is_err());
    /// let error = commands.get_entity(gone).err().unwrap();
    /// assert_eq!(error.entity, gone);
    /// ```
    ///
    /// # Errors
    /// [`InvalidEntityError`] if the handle is stale (its index was freed
    /// or reused since), naming it. A handle whose index was never handed
    /// out is current, as in bevy: its commands find no entity.
    #[track_caller]
    pub fn get_entity(&mut self, entity: Entity) -> Result<EntityCommands<'_>, InvalidEntityError> {
        match self.entities.get_spawned(entity) {
            Ok(_) | Err(EntityNotSpawnedError::ValidButNotSpawned(_)) => Ok(self.entity(entity)),
            Err(EntityNotSpawnedError::Invalid(error)) => Err(error),
        }
    }

    /// Commands for `entity` if it is spawned now (not only reserved).
    ///
    /// # Errors
    /// [`EntityNotSpawnedError`] naming the entity and why it is not
    /// spawned.
    #[track_caller]
    pub fn get_spawned_entity(
        &mut self,
        entity: Entity,
    ) -> Result<EntityCommands<'_>, EntityNotSpawnedError> {
        self.entities.get_spawned(entity)?;
        Ok(self.entity(entity))
    }

    /// Queues inserting (or replacing) a resource.
    pub fn insert_resource<R: Resource>(&mut self, resource: R) {
        self.queue
            .push(move |world: &mut World| world.insert_resource(resource));
    }

    /// Queues inserting `resource` unless the resource there equals it
    /// (which is then left as it is, not marked changed).
    pub fn insert_resource_if_neq<R: Resource + PartialEq>(&mut self, resource: R) {
        self.queue.push(move |world: &mut World| {
            if world.get_resource::<R>() != Some(&resource) {
                world.insert_resource(resource);
            }
        });
    }

    /// Queues initialising a resource with [`FromWorld`], if absent.
    pub fn init_resource<R: Resource + FromWorld>(&mut self) {
        self.queue.push(move |world: &mut World| {
            world.init_resource::<R>();
        });
    }

    /// Queues removing a resource.
    pub fn remove_resource<R: Resource>(&mut self) {
        self.queue.push(move |world: &mut World| {
            world.remove_resource::<R>();
        });
    }

    /// Moves every command of `other` to the end of this queue.
    pub fn append(&mut self, other: &mut CommandQueue) {
        self.queue.append(other);
    }

    /// Commands of the same world that record into `queue` instead; this
    /// `Commands` stays usable. Applying `queue` is the caller's job (for
    /// instance through [`Commands::append`] here): entities spawned into
    /// a queue never applied become empty entities at the world's next
    /// flush.
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::world::CommandQueue;
    ///
    /// #[derive(Component)]
    /// struct Marker;
    ///
    /// let mut world = World::new();
    /// let mut main = CommandQueue::default();
    /// let mut side = CommandQueue::default();
    /// let mut commands = Commands::new(&mut main, &world);
    /// let e = commands.rebound_to(&mut side).spawn(Marker).id();
    /// commands.append(&mut side);
    /// main.apply(&mut world);
    /// assert!(world.get::<Marker>(e).is_some());
    /// ```
    ///
    /// # Panics
    /// If `queue` holds commands recorded for another world.
    #[track_caller]
    pub fn rebound_to<'q>(&self, queue: &'q mut CommandQueue) -> Commands<'w, 'q> {
        let world = self
            .queue
            .world_id()
            .expect("a `Commands` binds its queue to its world");
        Commands::new_from_entities(queue, self.entities, world)
    }

    /// Shorter-lived commands onto the same queue.
    pub fn reborrow(&mut self) -> Commands<'w, '_> {
        Commands {
            queue: self.queue,
            entities: self.entities,
        }
    }
}

/// One-shot systems ([`World::register_system`] and the rest), queued.
///
/// Failures (an unregistered or wrong-typed id) log a warning, as bevy's
/// do. A command aimed at a system that is running (one it queued for
/// itself) waits until its run ends, then applies.
impl Commands<'_, '_> {
    /// Queues running the system of `id` (no input, no output).
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Resource, Default)]
    /// struct Runs(u32);
    ///
    /// let mut world = World::new();
    /// world.init_resource::<Runs>();
    /// let bump = world.register_system(|mut runs: ResMut<Runs>| runs.0 += 1);
    /// world.run_system_once(move |mut commands: Commands| commands.run_system(bump)).unwrap();
    /// assert_eq!(world.resource::<Runs>().0, 1);
    /// ```
    pub fn run_system(&mut self, id: impl Into<SystemId> + Send) {
        self.queue(RunSystemWith {
            id: id.into(),
            input: (),
            on_error: warn_on_error,
        });
    }

    /// Queues running the system of `id` with `input`.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Resource, Default)]
    /// struct Total(u32);
    ///
    /// let mut world = World::new();
    /// world.init_resource::<Total>();
    /// let add = world.register_system(|In(n): In<u32>, mut total: ResMut<Total>| total.0 += n);
    /// world.run_system_once(move |mut commands: Commands| commands.run_system_with(add, 7)).unwrap();
    /// assert_eq!(world.resource::<Total>().0, 7);
    /// ```
    pub fn run_system_with<I>(
        &mut self,
        id: impl Into<SystemId<I>> + Send,
        input: I::Inner<'static>,
    ) where
        I: SystemInput<Inner<'static>: Send> + Send + 'static,
    {
        self.queue(RunSystemWith {
            id: id.into(),
            input,
            on_error: warn_on_error,
        });
    }

    /// Registers a system, returning its id at once; the system is stored
    /// when the commands apply.
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::system::{CommandQueue, SystemId};
    ///
    /// let mut world = World::new();
    /// let mut queue = CommandQueue::default();
    /// let id: SystemId<(), u8> = Commands::new(&mut queue, &world).register_system(|| 9u8);
    /// queue.apply(&mut world);
    /// assert_eq!(world.run_system(id).unwrap(), 9);
    /// ```
    pub fn register_system<I, O, M>(
        &mut self,
        system: impl IntoSystem<I, O, M> + 'static,
    ) -> SystemId<I, O>
    where
        I: SystemInput + Send + 'static,
        O: Send + 'static,
    {
        self.register_boxed_system(Box::new(IntoSystem::into_system(system)))
    }

    /// [`Commands::register_system`] for a system already boxed.
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::system::{BoxedSystem, CommandQueue};
    ///
    /// let mut world = World::new();
    /// let mut queue = CommandQueue::default();
    /// let system: BoxedSystem<(), u8> = Box::new(IntoSystem::into_system(|| 1u8));
    /// let id = Commands::new(&mut queue, &world).register_boxed_system(system);
    /// queue.apply(&mut world);
    /// assert_eq!(world.run_system(id).unwrap(), 1);
    /// ```
    pub fn register_boxed_system<I, O>(&mut self, system: BoxedSystem<I, O>) -> SystemId<I, O>
    where
        I: SystemInput + Send + 'static,
        O: Send + 'static,
    {
        let marker = SystemIdMarker::new::<I, O>(system.name());
        let entity = self.spawn((RegisteredSystem::new(system), marker)).id();
        SystemId::new(entity, self.queue.world_id())
    }

    /// Queues unregistering the system of `system_id`.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// let mut world = World::new();
    /// let id = world.register_system(|| {});
    /// world.run_system_once(move |mut commands: Commands| commands.unregister_system(id)).unwrap();
    /// assert!(world.run_system(id).is_err());
    /// ```
    pub fn unregister_system<I, O>(&mut self, system_id: SystemId<I, O>)
    where
        I: SystemInput + Send + 'static,
        O: Send + 'static,
    {
        self.queue(UnregisterSystem {
            id: system_id,
            on_error: warn_on_error,
        });
    }

    /// Queues unregistering the cached system of `system`'s type
    /// ([`World::unregister_system_cached`]).
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// fn noop() {}
    ///
    /// let mut world = World::new();
    /// let id = world.register_system_cached(noop);
    /// world.run_system_once(|mut commands: Commands| commands.unregister_system_cached(noop)).unwrap();
    /// assert!(world.run_system(id).is_err());
    /// ```
    pub fn unregister_system_cached<I, O, M, S>(&mut self, system: S)
    where
        I: SystemInput + Send + 'static,
        O: 'static,
        M: 'static,
        S: IntoSystem<I, O, M> + Send + 'static,
    {
        self.queue(unregister_cached(system, warn_on_error));
    }

    /// Queues running the cached system of `system`'s type
    /// ([`World::run_system_cached`]).
    ///
    /// ```
    /// use ecs::prelude::*;
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
    /// world.run_system_once(|mut commands: Commands| commands.run_system_cached(bump)).unwrap();
    /// assert_eq!(world.resource::<Runs>().0, 1);
    /// ```
    pub fn run_system_cached<M, S>(&mut self, system: S)
    where
        M: 'static,
        S: IntoSystem<(), (), M> + Send + 'static,
    {
        self.queue(run_cached_with(system, (), warn_on_error));
    }

    /// Queues running the cached system of `system`'s type with `input`.
    ///
    /// ```
    /// use ecs::prelude::*;
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
    /// world.run_system_once(|mut commands: Commands| commands.run_system_cached_with(add, 2)).unwrap();
    /// assert_eq!(world.resource::<Total>().0, 2);
    /// ```
    pub fn run_system_cached_with<I, M, S>(&mut self, system: S, input: I::Inner<'static>)
    where
        I: SystemInput<Inner<'static>: Send> + Send + 'static,
        M: 'static,
        S: IntoSystem<I, (), M> + Send + 'static,
    {
        self.queue(run_cached_with(system, input, warn_on_error));
    }
}

/// Commands for one entity.
pub struct EntityCommands<'a> {
    entity: Entity,
    commands: Commands<'a, 'a>,
}

#[track_caller]
fn warn_missing(entity: Entity, command: &str) {
    log::warn!("{command} was queued for entity {entity:?}, which no longer exists; the command does nothing");
}

impl EntityCommands<'_> {
    /// The entity (usable at once, even before the commands apply).
    #[inline]
    pub fn id(&self) -> Entity {
        self.entity
    }

    /// Queues an [`EntityCommand`] on the entity (a closure taking
    /// [`EntityWorldMut`](crate::world::EntityWorldMut), or a type of yours); if the entity is gone by
    /// then, or the command returns an error, the error goes to the
    /// world's error handler
    /// ([`World::fallback_error_handler`](crate::world::World::fallback_error_handler)).
    pub fn queue(&mut self, command: impl EntityCommand) -> &mut Self {
        self.commands.queue(command.with_entity(self.entity));
        self
    }

    /// [`EntityCommands::queue`], with errors going to `error_handler`.
    pub fn queue_handled(
        &mut self,
        command: impl EntityCommand,
        error_handler: impl FnOnce(BevyError, ErrorContext) + Send + 'static,
    ) -> &mut Self {
        self.commands
            .queue_handled(command.with_entity(self.entity), error_handler);
        self
    }

    /// Queues inserting `bundle`. If the entity is gone by then, an error
    /// naming it goes to the world's error handler (which panics by
    /// default); [`try_insert`](Self::try_insert) does nothing instead.
    pub fn insert<B: Bundle>(&mut self, bundle: B) -> &mut Self {
        self.queue_named(
            || format!("insert of `{}`", type_name::<B>()),
            move |mut e| {
                e.insert(bundle);
            },
        )
    }

    /// Queues inserting the components of `bundle` the entity lacks. If the
    /// entity is gone by then, an error naming it goes to the world's error
    /// handler.
    pub fn insert_if_new<B: Bundle>(&mut self, bundle: B) -> &mut Self {
        self.queue_named(
            || format!("insert_if_new of `{}`", type_name::<B>()),
            move |mut e| {
                e.insert_if_new(bundle);
            },
        )
    }

    /// Queues removing the components of `B` the entity has.
    pub fn remove<B: Bundle>(&mut self) -> &mut Self {
        let entity = self.entity;
        self.commands.queue(
            move |world: &mut World| match world.get_entity_mut(entity) {
                Ok(mut e) => {
                    e.remove::<B>();
                }
                Err(_) => warn_missing(entity, &format!("remove of `{}`", type_name::<B>())),
            },
        );
        self
    }

    /// Queues despawning the entity.
    pub fn despawn(&mut self) {
        let entity = self.entity;
        self.commands.queue(move |world: &mut World| {
            if world.try_despawn(entity).is_err() {
                warn_missing(entity, "despawn");
            }
        });
    }

    /// Queues despawning the entity; if it is gone by then, nothing
    /// happens and nothing is logged.
    pub fn try_despawn(&mut self) {
        let entity = self.entity;
        self.commands.queue(move |world: &mut World| {
            let _ = world.try_despawn(entity);
        });
    }

    /// The commands this borrows from.
    pub fn commands(&mut self) -> Commands<'_, '_> {
        self.commands.reborrow()
    }
}

impl<'a> EntityCommands<'a> {
    /// Commands for `entity` on `commands`' queue.
    pub(crate) fn from_parts(entity: Entity, commands: Commands<'a, 'a>) -> Self {
        EntityCommands { entity, commands }
    }

    /// The commands this borrows from, as a reference.
    pub fn commands_mut(&mut self) -> &mut Commands<'a, 'a> {
        &mut self.commands
    }
}
