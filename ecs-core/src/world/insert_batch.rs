//! Inserting a bundle into many entities: [`World::insert_batch`] and its
//! keep-old and fallible forms.

use std::any::type_name;

use super::{
    bulk::{insert_groups, MatchedGroup},
    error::TryInsertBatchError,
    World,
};
use crate::{
    archetype::ArchetypeId,
    bundle::{insert_bundle, Bundle, BundleId, InsertMode},
    entity::Entity,
    utils::DropPanics,
};
use hashbrown::HashMap;

impl World {
    /// Inserts each bundle of `batch` into its entity, replacing (and
    /// dropping) values the entity already has: the result of
    /// [`EntityWorldMut::insert`](super::EntityWorldMut::insert) for each
    /// pair, done archetype by archetype as
    /// [`QueryState::insert_all`](crate::query::QueryState::insert_all)
    /// does (a batch covering a whole table moves it with one copy per
    /// column), with the hooks and observers in its order and the
    /// commands they queue applied once, at the end. A batch naming an
    /// entity twice is inserted pair by pair, in order.
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
    /// If an entity is not spawned, naming the first such and the bundle,
    /// before anything is inserted (every bundle is dropped).
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
    /// As [`World::insert_batch`].
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
        let pairs: Vec<(Entity, B)> = batch.into_iter().collect();
        if let Some(&(entity, _)) = pairs.iter().find(|(e, _)| !self.entities.contains(*e)) {
            let error = self.entities.not_spawned_error(entity);
            panic!(
                "could not insert a bundle of type `{}` into entity {entity}: {error}",
                type_name::<B>()
            );
        }
        self.insert_pairs(pairs, bundle_id, mode);
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
        let (pairs, skipped): (Vec<_>, Vec<_>) = batch
            .into_iter()
            .partition(|(entity, _)| self.entities.contains(*entity));
        let missing: Vec<Entity> = skipped.into_iter().map(|(entity, _)| entity).collect();
        self.insert_pairs(pairs, bundle_id, mode);
        if missing.is_empty() {
            Ok(())
        } else {
            Err(TryInsertBatchError {
                bundle_type: type_name::<B>().to_owned(),
                entities: missing,
            })
        }
    }

    /// Inserts the pairs, all of spawned entities: archetype by archetype
    /// (a group that is a whole table moves with one copy per column),
    /// unless an entity appears twice, when each pair is inserted in turn.
    fn insert_pairs<B: Bundle>(
        &mut self,
        pairs: Vec<(Entity, B)>,
        bundle_id: BundleId,
        mode: InsertMode,
    ) {
        // Grouped by archetype in first-seen order, each group in row
        // order, the order a whole-table move keeps.
        let mut order: Vec<(usize, u32, usize)> = Vec::with_capacity(pairs.len());
        let mut group_of: HashMap<ArchetypeId, usize> = HashMap::default();
        let mut archetype_ids = Vec::new();
        // Batches come in runs of one archetype: look up the map per run.
        let mut last: Option<(ArchetypeId, usize)> = None;
        for (i, &(entity, _)) in pairs.iter().enumerate() {
            let location = self.entities.get(entity).expect("checked spawned");
            let group = match last {
                Some((archetype_id, group)) if archetype_id == location.archetype_id => group,
                _ => {
                    let next = archetype_ids.len();
                    let group = *group_of.entry(location.archetype_id).or_insert(next);
                    if group == next {
                        archetype_ids.push(location.archetype_id);
                    }
                    last = Some((location.archetype_id, group));
                    group
                }
            };
            order.push((group, location.table_row.index() as u32, i));
        }
        if !order.is_sorted() {
            order.sort_unstable();
        }
        // Distinct entities have distinct locations, so an entity named
        // twice shows as two neighbours with one (group, row).
        if order
            .windows(2)
            .any(|w| (w[0].0, w[0].1) == (w[1].0, w[1].1))
        {
            // A hook's or observer's panic stops no other pair; it goes on
            // once the commands queued have applied.
            let mut panics = DropPanics::default();
            for (entity, bundle) in pairs {
                panics.catch(|| {
                    let inserted = self.insert_batch_item(entity, bundle, bundle_id, mode);
                    debug_assert!(inserted, "checked spawned");
                });
            }
            self.flush_commands();
            panics.finish();
            return;
        }
        let mut slots: Vec<Option<(Entity, B)>> = pairs.into_iter().map(Some).collect();
        let mut groups: Vec<MatchedGroup> = archetype_ids
            .into_iter()
            .map(|archetype_id| MatchedGroup {
                archetype_id,
                entities: Vec::new(),
            })
            .collect();
        let mut values = Vec::with_capacity(order.len());
        for (group, _, i) in order {
            let (entity, bundle) = slots[i].take().expect("each pair once");
            groups[group].entities.push(entity);
            values.push(bundle);
        }
        let mut panics = DropPanics::default();
        panics.catch(|| insert_groups(self, &groups, values, bundle_id, mode));
        self.flush_commands();
        panics.finish();
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
