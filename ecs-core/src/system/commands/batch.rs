//! [`Commands::insert_batch`] and its keep-old and fallible forms: one
//! queued command inserting into many entities.

use super::Commands;
use crate::{bundle::Bundle, entity::Entity, error::warn, world::World};

impl Commands<'_, '_> {
    /// Queues [`World::try_insert_batch`]: each bundle of `batch` into its
    /// entity, replacing values it has. Entities gone by then are skipped,
    /// and the error naming them goes to the world's error handler.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Component)]
    /// struct Speed(u32);
    ///
    /// fn start(mut commands: Commands, movers: Query<Entity>) {
    ///     let batch: Vec<_> = movers.iter().map(|e| (e, Speed(1))).collect();
    ///     commands.insert_batch(batch);
    /// }
    ///
    /// let mut world = World::new();
    /// let e = world.spawn_empty().id();
    /// world.run_system_once(start).unwrap();
    /// assert_eq!(world.get::<Speed>(e).unwrap().0, 1);
    /// ```
    pub fn insert_batch<I, B>(&mut self, batch: I)
    where
        I: IntoIterator<Item = (Entity, B)> + Send + Sync + 'static,
        B: Bundle,
    {
        self.queue(move |world: &mut World| -> crate::error::Result {
            world.try_insert_batch(batch)?;
            Ok(())
        });
    }

    /// [`Commands::insert_batch`], keeping the values an entity already
    /// has.
    pub fn insert_batch_if_new<I, B>(&mut self, batch: I)
    where
        I: IntoIterator<Item = (Entity, B)> + Send + Sync + 'static,
        B: Bundle,
    {
        self.queue(move |world: &mut World| -> crate::error::Result {
            world.try_insert_batch_if_new(batch)?;
            Ok(())
        });
    }

    /// [`Commands::insert_batch`], with the error naming skipped entities
    /// logged as a warning instead of going to the error handler.
    pub fn try_insert_batch<I, B>(&mut self, batch: I)
    where
        I: IntoIterator<Item = (Entity, B)> + Send + Sync + 'static,
        B: Bundle,
    {
        self.queue_handled(
            move |world: &mut World| -> crate::error::Result {
                world.try_insert_batch(batch)?;
                Ok(())
            },
            warn,
        );
    }

    /// [`Commands::try_insert_batch`], keeping the values an entity
    /// already has.
    pub fn try_insert_batch_if_new<I, B>(&mut self, batch: I)
    where
        I: IntoIterator<Item = (Entity, B)> + Send + Sync + 'static,
        B: Bundle,
    {
        self.queue_handled(
            move |world: &mut World| -> crate::error::Result {
                world.try_insert_batch_if_new(batch)?;
                Ok(())
            },
            warn,
        );
    }
}
