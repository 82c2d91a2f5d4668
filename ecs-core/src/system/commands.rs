use std::any::type_name;

use super::CommandQueue;
pub use crate::world::Command;
use crate::{
    bundle::Bundle,
    entity::{Entities, Entity},
    resource::Resource,
    world::{EntityWorldMut, FromWorld, World, WorldId},
};

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

    /// Queues a command.
    #[inline]
    pub fn queue<C: Command>(&mut self, command: C) {
        self.queue.push(command);
    }

    /// Reserves an entity now and queues spawning it with `bundle`.
    pub fn spawn<B: Bundle>(&mut self, bundle: B) -> EntityCommands<'_> {
        let entity = self.entities.reserve_entity();
        self.queue.push(move |world: &mut World| {
            if let Ok(mut e) = world.get_entity_mut(entity) {
                e.insert(bundle);
            }
        });
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

    /// Commands for an existing entity. Commands aimed at an entity that
    /// is gone when they apply do nothing (and log a warning).
    pub fn entity(&mut self, entity: Entity) -> EntityCommands<'_> {
        EntityCommands {
            entity,
            commands: self.reborrow(),
        }
    }

    /// Queues inserting (or replacing) a resource.
    pub fn insert_resource<R: Resource>(&mut self, resource: R) {
        self.queue
            .push(move |world: &mut World| world.insert_resource(resource));
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

    /// Shorter-lived commands onto the same queue.
    pub fn reborrow(&mut self) -> Commands<'w, '_> {
        Commands {
            queue: self.queue,
            entities: self.entities,
        }
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

    /// Queues a command on the entity; it is skipped (with a warning) if
    /// the entity is gone by then.
    pub fn queue(
        &mut self,
        command: impl FnOnce(EntityWorldMut<'_>) + Send + 'static,
    ) -> &mut Self {
        let entity = self.entity;
        self.commands.queue(
            move |world: &mut World| match world.get_entity_mut(entity) {
                Ok(e) => command(e),
                Err(_) => warn_missing(entity, "an entity command"),
            },
        );
        self
    }

    /// Queues inserting `bundle`.
    pub fn insert<B: Bundle>(&mut self, bundle: B) -> &mut Self {
        let entity = self.entity;
        self.commands.queue(
            move |world: &mut World| match world.get_entity_mut(entity) {
                Ok(mut e) => {
                    e.insert(bundle);
                }
                Err(_) => warn_missing(entity, &format!("insert of `{}`", type_name::<B>())),
            },
        );
        self
    }

    /// Queues inserting the components of `bundle` the entity lacks.
    pub fn insert_if_new<B: Bundle>(&mut self, bundle: B) -> &mut Self {
        let entity = self.entity;
        self.commands.queue(
            move |world: &mut World| match world.get_entity_mut(entity) {
                Ok(mut e) => {
                    e.insert_if_new(bundle);
                }
                Err(_) => warn_missing(entity, &format!("insert_if_new of `{}`", type_name::<B>())),
            },
        );
        self
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

    /// The commands this borrows from.
    pub fn commands(&mut self) -> Commands<'_, '_> {
        self.commands.reborrow()
    }
}
