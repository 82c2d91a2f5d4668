use super::{insert::write_bundle, BundleId, DynamicBundle};
use crate::{
    archetype::{ArchetypeId, ArchetypeRow},
    change_detection::Tick,
    entity::{Entity, EntityLocation},
    storage::{TableId, TableRow},
    utils::DropPanics,
    world::World,
};

/// Spawns entities of one bundle type: the target archetype and table are
/// resolved once, so a batch pays that cost once.
pub(crate) struct BundleSpawner<'w> {
    world: &'w mut World,
    bundle_id: BundleId,
    archetype_id: ArchetypeId,
    table_id: TableId,
    change_tick: Tick,
}

impl<'w> BundleSpawner<'w> {
    #[inline]
    pub(crate) fn new(world: &'w mut World, bundle_id: BundleId, change_tick: Tick) -> Self {
        let archetype_id = world.bundles[bundle_id].insert_bundle_into_archetype(
            &mut world.archetypes,
            &mut world.storages,
            &world.components,
            ArchetypeId::EMPTY,
        );
        let table_id = world.archetypes[archetype_id].table_id();
        BundleSpawner {
            world,
            bundle_id,
            archetype_id,
            table_id,
            change_tick,
        }
    }

    /// Makes room for `additional` more entities in the archetype and table.
    pub(crate) fn reserve(&mut self, additional: usize) {
        self.world.archetypes[self.archetype_id].reserve(additional);
        self.world.storages.tables[self.table_id].reserve(additional);
        self.world.entities.reserve(additional as u32);
    }

    /// Allocates an entity and writes the bundle into it.
    #[inline]
    pub(crate) fn spawn<B: DynamicBundle>(&mut self, bundle: B) -> Entity {
        let entity = self.world.entities.alloc();
        self.spawn_non_existent(entity, bundle);
        entity
    }

    /// Writes the bundle into `entity`, which is allocated but has no
    /// location yet.
    #[inline]
    pub(crate) fn spawn_non_existent<B: DynamicBundle>(
        &mut self,
        entity: Entity,
        bundle: B,
    ) -> EntityLocation {
        let world = &mut *self.world;
        let table = &mut world.storages.tables[self.table_id];
        let table_row = table.push_entity(entity);
        let archetype_row: ArchetypeRow =
            world.archetypes[self.archetype_id].allocate(entity, table_row);
        let location = EntityLocation {
            archetype_id: self.archetype_id,
            archetype_row,
            table_id: self.table_id,
            table_row: TableRow::new(table_row.index()),
        };
        // SAFETY: `entity` was just allocated and `location` is where its
        // row now is.
        unsafe { world.entities.set(entity.index(), location) };
        let mut panics = DropPanics::default();
        // SAFETY: the bundle's archetype is the spawner's archetype, so its
        // table has a column for each table component of the bundle; every
        // component is new to the entity.
        unsafe {
            write_bundle(
                bundle,
                &world.bundles[self.bundle_id],
                None,
                entity,
                table,
                table_row,
                &mut world.storages.sparse_sets,
                &world.components,
                self.change_tick,
                super::InsertMode::Replace,
                &mut panics,
            );
        }
        // Spawning adds only new values: nothing was dropped.
        debug_assert!(panics.is_empty());
        location
    }
}
