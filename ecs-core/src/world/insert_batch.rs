//! Inserting a bundle into many entities: [`World::insert_batch`] and its
//! keep-old and fallible forms.

use std::any::type_name;

use super::{error::TryInsertBatchError, World};
use crate::{
    bundle::{insert_bundle, Bundle, BundleId, InsertMode},
    entity::Entity,
};

impl World {
    /// Inserts each bundle of `batch` into its entity, replacing (and
    /// dropping) values the entity already has: as
    /// [`EntityWorldMut::insert`](super::EntityWorldMut::insert) for each
    /// pair, with the bundle registered once and the commands that hooks
    /// and observers queue applied once, at the end.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Component, Debug, PartialEq)]
    /// struct Speed(u32);
    ///
    /// let mut world = World::new();
    /// let a = world.spawn_empty().id();
    /// let b = world.spawn_empty().id();
    /// world.insert_batch([(a, Speed(1)), (b, Speed(2))]);
    /// assert_eq!(world.get::<Speed>(b), Some(&Speed(2)));
    /// ```
    ///
    /// # Panics
    /// At the first entity that is not spawned, naming it and the bundle;
    /// the pairs before it are inserted, the rest dropped. Commands that
    /// the hooks of the earlier inserts queued stay queued until the next
    /// flush.
    #[track_caller]
    pub fn insert_batch<I, B>(&mut self, batch: I)
    where
        I: IntoIterator,
        I::IntoIter: Iterator<Item = (Entity, B)>,
        B: Bundle,
    {
        self.insert_batch_with_mode(batch, InsertMode::Replace);
    }

    /// [`World::insert_batch`], keeping the values an entity already has
    /// (the new ones are dropped).
    ///
    /// # Panics
    /// At the first entity that is not spawned, naming it and the bundle.
    #[track_caller]
    pub fn insert_batch_if_new<I, B>(&mut self, batch: I)
    where
        I: IntoIterator,
        I::IntoIter: Iterator<Item = (Entity, B)>,
        B: Bundle,
    {
        self.insert_batch_with_mode(batch, InsertMode::Keep);
    }

    /// [`World::insert_batch`], skipping the entities that are not
    /// spawned (their bundles are dropped).
    ///
    /// # Errors
    /// [`TryInsertBatchError`] naming every entity skipped and the bundle.
    #[track_caller]
    pub fn try_insert_batch<I, B>(&mut self, batch: I) -> Result<(), TryInsertBatchError>
    where
        I: IntoIterator,
        I::IntoIter: Iterator<Item = (Entity, B)>,
        B: Bundle,
    {
        self.try_insert_batch_with_mode(batch, InsertMode::Replace)
    }

    /// [`World::try_insert_batch`], keeping the values an entity already
    /// has.
    ///
    /// # Errors
    /// [`TryInsertBatchError`] naming every entity skipped and the bundle.
    #[track_caller]
    pub fn try_insert_batch_if_new<I, B>(&mut self, batch: I) -> Result<(), TryInsertBatchError>
    where
        I: IntoIterator,
        I::IntoIter: Iterator<Item = (Entity, B)>,
        B: Bundle,
    {
        self.try_insert_batch_with_mode(batch, InsertMode::Keep)
    }

    #[track_caller]
    fn insert_batch_with_mode<I, B>(&mut self, batch: I, mode: InsertMode)
    where
        I: IntoIterator,
        I::IntoIter: Iterator<Item = (Entity, B)>,
        B: Bundle,
    {
        let bundle_id = self.prepare_batch::<B>();
        for (entity, bundle) in batch {
            if !self.insert_batch_item(entity, bundle, bundle_id, mode) {
                let error = self.entities.not_spawned_error(entity);
                panic!(
                    "could not insert a bundle of type `{}` into entity {entity}: {error}",
                    type_name::<B>()
                );
            }
        }
        self.flush_commands();
    }

    fn try_insert_batch_with_mode<I, B>(
        &mut self,
        batch: I,
        mode: InsertMode,
    ) -> Result<(), TryInsertBatchError>
    where
        I: IntoIterator,
        I::IntoIter: Iterator<Item = (Entity, B)>,
        B: Bundle,
    {
        let bundle_id = self.prepare_batch::<B>();
        let mut missing = Vec::new();
        for (entity, bundle) in batch {
            if !self.insert_batch_item(entity, bundle, bundle_id, mode) {
                missing.push(entity);
            }
        }
        self.flush_commands();
        if missing.is_empty() {
            Ok(())
        } else {
            Err(TryInsertBatchError {
                bundle_type: type_name::<B>().to_owned(),
                entities: missing,
            })
        }
    }

    /// Flushes reserved entities and registers `B`, once per batch.
    #[track_caller]
    fn prepare_batch<B: Bundle>(&mut self) -> BundleId {
        self.flush_entities();
        self.bundles.register_info::<B>(&mut self.components)
    }

    /// Inserts one pair of a batch; `false` (the bundle dropped) if the
    /// entity is not spawned.
    ///
    /// Each insert follows its source archetype's cached edge, so a run of
    /// entities sharing an archetype resolves the target once. Hooks and
    /// observers only queue commands (applied after the batch), so no
    /// entity moves between the location read here and the insert.
    #[inline]
    fn insert_batch_item<B: Bundle>(
        &mut self,
        entity: Entity,
        bundle: B,
        bundle_id: BundleId,
        mode: InsertMode,
    ) -> bool {
        // Hooks of earlier pairs may have reserved entities.
        self.flush_entities();
        let Some(location) = self.entities.get(entity) else {
            return false;
        };
        // SAFETY: `location` is the entity's current location (read just
        // now) and the world is flushed; `bundle_id` is `B`'s.
        unsafe { insert_bundle(self, entity, location, bundle_id, bundle, mode) };
        true
    }
}
