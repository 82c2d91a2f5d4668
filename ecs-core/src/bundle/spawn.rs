use super::{
    insert::{fire_after_insert, write_bundle},
    BundleId, DynamicBundle, InsertMode,
};
use crate::{
    archetype::{ArchetypeId, EdgeKind},
    change_detection::Tick,
    entity::{Entity, EntityLocation},
    observer::Lifecycle,
    storage::TableId,
    utils::DropPanics,
    world::relocation::{enter_archetype, move_entity},
    world::World,
};

/// Spawns entities of one bundle type: the target archetype and table are
/// resolved once, so a batch pays that cost once.
pub(crate) struct BundleSpawner<'w> {
    world: &'w mut World,
    bundle_id: BundleId,
    archetype_id: ArchetypeId,
    table_id: TableId,
    has_required: bool,
    /// Whether the archetype has `on_add`/`on_insert` hooks or observers.
    /// Flags change only through `&mut World` (adding an observer,
    /// registering hooks), which during a batch can only happen in the
    /// commands flushed between spawns, after which this is re-read.
    fires_lifecycle: bool,
    /// Neither required components nor lifecycle work: the fast path.
    plain: bool,
    change_tick: Tick,
}

impl<'w> BundleSpawner<'w> {
    #[inline]
    pub(crate) fn new(world: &'w mut World, bundle_id: BundleId, change_tick: Tick) -> Self {
        let target = world.bundles.spawn_target(
            bundle_id,
            &mut world.archetypes,
            &mut world.storages,
            &world.components,
        );
        BundleSpawner {
            world,
            bundle_id,
            archetype_id: target.archetype_id,
            table_id: target.table_id,
            has_required: target.has_required,
            fires_lifecycle: false,
            plain: false,
            change_tick,
        }
        .with_flags_read()
    }

    /// Makes room for `additional` more entities in the archetype and table.
    pub(crate) fn reserve(&mut self, additional: usize) {
        // Checked first: the tables would otherwise try to allocate for it.
        let count = u32::try_from(additional).unwrap_or_else(|_| {
            panic!(
                "cannot reserve room for {additional} entities: a world holds at most {} entities",
                u32::MAX
            )
        });
        self.world.archetypes[self.archetype_id].reserve(additional);
        self.world.storages.tables[self.table_id].reserve(additional);
        self.world.entities.reserve(count);
    }

    #[inline]
    fn with_flags_read(mut self) -> Self {
        self.read_flags();
        self
    }

    #[inline]
    fn read_flags(&mut self) {
        self.fires_lifecycle = self.world.archetypes[self.archetype_id]
            .flags()
            .intersects(Lifecycle::Add.any_flags() | Lifecycle::Insert.any_flags());
        self.plain = !self.has_required && !self.fires_lifecycle;
    }

    /// Applies commands queued by hooks and observers of the last spawn
    /// (only they queue commands during a batch).
    #[inline]
    pub(crate) fn flush_commands(&mut self) {
        if !self.plain && self.fires_lifecycle {
            // A hook or observer may have reserved entities without queueing
            // a command (`commands().spawn_empty()`): they must become live
            // before the next allocation, or the batch would hand out
            // their ids again.
            self.world.flush_entities();
            if !self.world.command_queue.get_mut().is_empty() {
                self.world.flush_commands();
                self.read_flags();
            }
        }
    }

    /// Allocates an entity and writes the bundle into it.
    #[inline]
    pub(crate) fn spawn<B: DynamicBundle>(&mut self, bundle: B) -> Entity {
        if !self.plain {
            return self.spawn_full(bundle).0;
        }
        // Not through `spawn_located`: the location would come back through
        // memory, and its narrow stores stall the wide load that reads it.
        let entity = self.world.entities.alloc(self.change_tick);
        self.spawn_plain(entity, bundle);
        entity
    }

    /// [`BundleSpawner::spawn`], also returning where the entity is (before
    /// any command its hooks or observers queued has run).
    #[inline]
    pub(crate) fn spawn_located<B: DynamicBundle>(
        &mut self,
        bundle: B,
    ) -> (Entity, EntityLocation) {
        if !self.plain {
            return self.spawn_full(bundle);
        }
        let entity = self.world.entities.alloc(self.change_tick);
        let location = self.spawn_plain(entity, bundle);
        (entity, location)
    }

    /// Writes the bundle into `entity`, which is allocated but has no
    /// location yet: the path without required components or lifecycle
    /// work.
    #[inline]
    fn spawn_plain<B: DynamicBundle>(&mut self, entity: Entity, bundle: B) -> EntityLocation {
        debug_assert!(self.plain);
        let world = &mut *self.world;
        let table = &mut world.storages.tables[self.table_id];
        let table_row = table.push_entity(entity);
        // SAFETY: `entity` was just allocated, and its row was just pushed
        // onto the archetype's table.
        let location = unsafe {
            enter_archetype(
                &mut world.entities,
                &mut world.archetypes,
                entity,
                self.archetype_id,
                self.table_id,
                table_row,
            )
        };
        let mut panics = DropPanics::default();
        // SAFETY: the bundle's archetype is the spawner's archetype, so its
        // table has a column for each table component of the bundle, at the
        // positions `spawn_columns` holds (computed for that table with the
        // spawn target, which `new` made sure of); every component is new
        // to the entity.
        unsafe {
            let bundle_info = &world.bundles[self.bundle_id];
            write_bundle(
                bundle,
                bundle_info,
                None,
                Some(bundle_info.spawn_columns()),
                entity,
                table,
                table_row,
                &mut world.storages.sparse_sets,
                &world.components,
                self.change_tick,
                InsertMode::Replace,
                &mut panics,
            );
        }
        // Only an ignored bundle field's `Drop` can have panicked: the
        // entity is whole.
        panics.finish();
        location
    }

    /// The general path: required components and lifecycle work. The
    /// required values are made before the entity is allocated: their
    /// constructors may panic, and then nothing has changed.
    #[cold]
    fn spawn_full<B: DynamicBundle>(&mut self, bundle: B) -> (Entity, EntityLocation) {
        if self.has_required {
            self.make_required();
        }
        let entity = self.world.entities.alloc(self.change_tick);
        let location = self.place(entity);
        let mut panics = DropPanics::default();
        // SAFETY: `location` is the entity's fresh, last row.
        unsafe { self.write(entity, location, bundle, &mut panics) };
        if self.has_required {
            self.write_required(entity, &mut panics);
        }
        if self.fires_lifecycle {
            fire_after_insert(
                self.world,
                entity,
                self.archetype_id,
                self.bundle_id,
                ArchetypeId::EMPTY,
                InsertMode::Replace,
                &mut panics,
            );
        }
        // A panicking `Drop` of an ignored bundle field, hook or observer
        // goes on once the entity is whole and every hook has run.
        panics.finish();
        (entity, location)
    }

    /// Whether spawns of this bundle set off `on_add`/`on_insert` hooks or
    /// observers.
    #[inline]
    pub(crate) fn fires_lifecycle(&self) -> bool {
        self.fires_lifecycle
    }

    /// Makes room for `additional` more rows in the archetype and table
    /// (not in the entity list: for entities already allocated).
    pub(crate) fn reserve_rows(&mut self, additional: usize) {
        self.world.archetypes[self.archetype_id].reserve(additional);
        self.world.storages.tables[self.table_id].reserve(additional);
    }

    /// Writes `bundle` into `entity`, a live entity with no component (in
    /// the empty archetype): what inserting the bundle would do, by the
    /// same row moves, for a bundle whose archetype fires no lifecycle
    /// work. Hands the bundle back if `entity` is not such an entity.
    ///
    /// # Panics
    /// If the archetype fires lifecycle work ([`Self::fires_lifecycle`]),
    /// or a required component's constructor panics (then nothing has
    /// changed), or an ignored bundle field's `Drop` does (then the entity
    /// is whole).
    #[inline]
    pub(crate) fn spawn_into_empty<B: DynamicBundle>(
        &mut self,
        entity: Entity,
        bundle: B,
    ) -> Result<(), B> {
        assert!(
            !self.fires_lifecycle,
            "a spawn into an empty entity skips hooks and observers: the archetype must have none"
        );
        let location = match self.world.entities.get(entity) {
            Some(location) if location.archetype_id == ArchetypeId::EMPTY => location,
            _ => return Err(bundle),
        };
        if self.has_required {
            self.make_required();
        }
        let mut panics = DropPanics::default();
        // SAFETY: `location` is the entity's current location, in the
        // empty archetype, whose insert edge for this bundle `new` cached
        // (the spawn target is that edge's target).
        let location = unsafe {
            move_entity(
                self.world,
                entity,
                location,
                self.archetype_id,
                EdgeKind::Insert(self.bundle_id),
                &mut panics,
            )
        };
        // SAFETY: the entity's row was just pushed onto the target table
        // (or, if that is the empty table, the bundle has only sparse-set
        // components, so no column needs the row to be last).
        unsafe { self.write(entity, location, bundle, &mut panics) };
        if self.has_required {
            self.write_required(entity, &mut panics);
        }
        // A panicking `Drop` of an ignored bundle field goes on once the
        // entity is whole.
        panics.finish();
        Ok(())
    }

    /// Makes the required components' values, before anything moves:
    /// their constructors may panic.
    fn make_required(&mut self) {
        let world = &mut *self.world;
        let after = world.archetypes[ArchetypeId::EMPTY]
            .edges()
            .get_archetype_after_bundle_insert(self.bundle_id)
            .expect("the spawn edge is cached by `new`");
        world
            .value_scratch
            .make(&after.required_components, &world.components);
    }

    /// Writes the required values [`Self::make_required`] made into the
    /// row being built for `entity`.
    fn write_required(&mut self, entity: Entity, panics: &mut DropPanics) {
        let world = &mut *self.world;
        let table = &mut world.storages.tables[self.table_id];
        // SAFETY: the archetype holds every required component; the row
        // being built is the last one of its table.
        unsafe {
            world.value_scratch.write(
                entity,
                table,
                &mut world.storages.sparse_sets,
                self.change_tick,
                panics,
            );
        }
    }

    /// Adds the entity's row to the archetype and table and records its
    /// location.
    #[inline]
    fn place(&mut self, entity: Entity) -> EntityLocation {
        let world = &mut *self.world;
        let table_row = world.storages.tables[self.table_id].push_entity(entity);
        // SAFETY: `entity` was just allocated, and its row was just pushed
        // onto the archetype's table.
        unsafe {
            enter_archetype(
                &mut world.entities,
                &mut world.archetypes,
                entity,
                self.archetype_id,
                self.table_id,
                table_row,
            )
        }
    }

    /// Writes the bundle's values into the row just placed.
    ///
    /// # Safety
    /// `location` is the entity's row, the last of its table.
    #[inline]
    unsafe fn write<B: DynamicBundle>(
        &mut self,
        entity: Entity,
        location: EntityLocation,
        bundle: B,
        panics: &mut DropPanics,
    ) {
        let world = &mut *self.world;
        // SAFETY: the bundle's archetype is the spawner's archetype, so its
        // table has a column for each table component of the bundle, at the
        // positions `spawn_columns` holds (computed for that table with the
        // spawn target, which `new` made sure of); every component is new
        // to the entity.
        unsafe {
            let bundle_info = &world.bundles[self.bundle_id];
            write_bundle(
                bundle,
                bundle_info,
                None,
                Some(bundle_info.spawn_columns()),
                entity,
                &mut world.storages.tables[self.table_id],
                location.table_row,
                &mut world.storages.sparse_sets,
                &world.components,
                self.change_tick,
                InsertMode::Replace,
                panics,
            );
        }
    }
}
