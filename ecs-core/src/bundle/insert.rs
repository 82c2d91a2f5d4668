use std::mem::ManuallyDrop;

use super::{info::InsertTarget, BundleId, BundleInfo, ComponentSink, DynamicBundle};
use crate::{
    archetype::{ArchetypeAfterBundleInsert, ArchetypeId, ComponentStatus, EdgeKind},
    change_detection::{ComponentTicks, Tick},
    component::{Component, ComponentId, Components, StorageType},
    entity::{Entity, EntityLocation},
    observer::{trigger_lifecycle, Lifecycle},
    storage::{SparseSets, Table, TableRow},
    utils::DropPanics,
    world::relocation::move_entity,
    world::World,
};

/// What an insert does with components the entity already has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InsertMode {
    /// Replace the old value (dropping it).
    Replace,
    /// Keep the old value (dropping the new one).
    Keep,
}

/// Writes each component of `bundle` into the entity's storage: a new
/// table value is pushed onto its column, a new sparse value inserted, and
/// an existing value replaced or kept by `mode`.
///
/// # Safety
/// `table` is the entity's table with the row being built (new table
/// components are pushed, so the entity's row must be the last) at
/// `table_row`; `bundle_info` is the bundle's info; `status` (one entry
/// per bundle component; `None` when every component is new, as at spawn)
/// matches the entity's archetype before the insert;
/// every sparse-set component of the bundle has a set; `columns`, if
/// given, holds the position of each bundle component's column in `table`
/// (any value for a sparse-set one), as `BundleInfo::spawn_columns` does
/// for the spawn target's table.
#[allow(clippy::too_many_arguments)]
#[inline]
pub(crate) unsafe fn write_bundle<B: DynamicBundle>(
    bundle: B,
    bundle_info: &BundleInfo,
    status: Option<&[ComponentStatus]>,
    columns: Option<&[u32]>,
    entity: Entity,
    table: &mut Table,
    table_row: TableRow,
    sparse_sets: &mut SparseSets,
    components: &Components,
    tick: Tick,
    mode: InsertMode,
    panics: &mut DropPanics,
) {
    let ids = bundle_info.components();
    debug_assert!(status.is_none_or(|s| s.len() == ids.len()));
    debug_assert!(columns.is_none_or(|c| c.len() == ids.len()));
    let mut writer = BundleWriter {
        ids,
        status,
        columns,
        next: 0,
        entity,
        table,
        table_row,
        sparse_sets,
        components,
        tick,
        mode,
        panics,
    };
    bundle.get_components(&mut writer);
    debug_assert_eq!(
        writer.next,
        ids.len(),
        "the bundle handed out every component"
    );
}

/// The [`ComponentSink`] of [`write_bundle`]: its arguments, and the index
/// of the next component.
///
/// Invariant: the safety conditions of `write_bundle` hold, and the bundle
/// hands out exactly `ids.len()` values, in the order of `ids`.
struct BundleWriter<'a> {
    ids: &'a [ComponentId],
    status: Option<&'a [ComponentStatus]>,
    columns: Option<&'a [u32]>,
    next: usize,
    entity: Entity,
    table: &'a mut Table,
    table_row: TableRow,
    sparse_sets: &'a mut SparseSets,
    components: &'a Components,
    tick: Tick,
    mode: InsertMode,
    panics: &'a mut DropPanics,
}

impl BundleWriter<'_> {
    /// The id and status of the next component.
    #[inline(always)]
    fn next(&mut self) -> (ComponentId, ComponentStatus) {
        let i = self.next;
        debug_assert!(i < self.ids.len());
        self.next += 1;
        // SAFETY: the bundle hands out exactly `ids.len()` values (type
        // invariant), and `status` has one entry per bundle component.
        unsafe {
            (
                *self.ids.get_unchecked(i),
                self.status
                    .map_or(ComponentStatus::Added, |s| *s.get_unchecked(i)),
            )
        }
    }

    /// Stores or drops one value by pointer.
    ///
    /// # Safety
    /// `value` is an owned value of component `id`, of `storage_type`.
    #[inline(always)]
    unsafe fn write_ptr(
        &mut self,
        id: ComponentId,
        status: ComponentStatus,
        storage_type: StorageType,
        value: *mut u8,
    ) {
        // SAFETY: (whole block) `value` is an owned value of component
        // `id` (caller); the table has its column (table component) or a
        // sparse set exists (sparse component), by `write_bundle`'s
        // contract.
        unsafe {
            match (status, self.mode) {
                (ComponentStatus::Existing, InsertMode::Keep) => {
                    if let Some(drop) = self.components.get_info_unchecked(id).drop_fn() {
                        self.panics.drop_value(drop, value);
                    }
                }
                (ComponentStatus::Added, _) => match storage_type {
                    StorageType::Table => {
                        self.table
                            .push_value(id, value, ComponentTicks::new(self.tick))
                    }
                    StorageType::SparseSet => self
                        .sparse_sets
                        .get_mut(id)
                        .unwrap_unchecked()
                        .insert(self.entity, value, self.tick, self.panics),
                },
                (ComponentStatus::Existing, InsertMode::Replace) => match storage_type {
                    StorageType::Table => self.table.get_column_mut(id).unwrap_unchecked().replace(
                        self.table_row.index(),
                        value,
                        self.tick,
                        self.panics,
                    ),
                    StorageType::SparseSet => self
                        .sparse_sets
                        .get_mut(id)
                        .unwrap_unchecked()
                        .insert(self.entity, value, self.tick, self.panics),
                },
            }
        }
    }
}

impl ComponentSink for BundleWriter<'_> {
    #[inline(always)]
    fn put<C: Component>(&mut self, value: C) {
        let index = self.next;
        let (id, status) = self.next();
        if status == ComponentStatus::Added {
            // The common case (every spawn, every insert of a new
            // component): a typed write.
            match C::STORAGE_TYPE {
                // SAFETY: the table has a column for `id`, at
                // `columns[index]` if given (`write_bundle`'s contract,
                // one entry per component), and the bundle's order makes
                // `C` its component.
                StorageType::Table => unsafe {
                    let ticks = ComponentTicks::new(self.tick);
                    match self.columns {
                        Some(columns) => self.table.push_typed_at(
                            *columns.get_unchecked(index) as usize,
                            id,
                            value,
                            ticks,
                        ),
                        None => self.table.push_typed(id, value, ticks),
                    }
                },
                // SAFETY: the set of `id` exists (`write_bundle`'s
                // contract), holds `C`s, and has no value for the entity
                // (the component is new to it).
                StorageType::SparseSet => unsafe {
                    self.sparse_sets
                        .get_mut(id)
                        .unwrap_unchecked()
                        .insert_new_typed(self.entity, value, self.tick)
                },
            }
        } else {
            let mut value = ManuallyDrop::new(value);
            // SAFETY: `value` is an owned `C`, the component `id`, whose
            // ownership moves on (it is never dropped here).
            unsafe { self.write_ptr(id, status, C::STORAGE_TYPE, (&mut *value as *mut C).cast()) };
        }
    }

    #[inline]
    unsafe fn put_ptr(&mut self, storage_type: StorageType, value: *mut u8) {
        let (id, status) = self.next();
        // SAFETY: the caller hands an owned value of the next component,
        // which is `id`.
        unsafe { self.write_ptr(id, status, storage_type, value) };
    }

    #[inline]
    fn drop_unused<T>(&mut self, value: T) {
        self.panics.drop_owned(value);
    }
}

/// The components an insert added and inserted (bundle order, then the
/// required ones): what `on_add` and `on_insert` fire for.
pub(crate) fn added_and_inserted(
    bundle_info: &BundleInfo,
    after: &ArchetypeAfterBundleInsert,
    mode: InsertMode,
) -> (Vec<ComponentId>, Vec<ComponentId>) {
    let mut added = Vec::new();
    let mut inserted = Vec::new();
    for (&id, &status) in bundle_info
        .components()
        .iter()
        .zip(after.bundle_status.iter())
    {
        match status {
            ComponentStatus::Added => {
                added.push(id);
                inserted.push(id);
            }
            ComponentStatus::Existing if mode == InsertMode::Replace => inserted.push(id),
            ComponentStatus::Existing => {}
        }
    }
    for required in after.required_components.iter() {
        added.push(required.id);
        inserted.push(required.id);
    }
    (added, inserted)
}

/// The last step of [`insert_bundle`]: fires `on_add` and `on_insert` if
/// the entity's new archetype has any such hook or observer. Only the flag
/// test is on the hot path.
#[inline(always)]
fn fire_insert_hooks(
    world: &mut World,
    entity: Entity,
    new_location: EntityLocation,
    bundle_id: BundleId,
    location: EntityLocation,
    mode: InsertMode,
    panics: &mut DropPanics,
) {
    if world.archetypes[new_location.archetype_id]
        .flags()
        .intersects(Lifecycle::Add.any_flags() | Lifecycle::Insert.any_flags())
    {
        fire_after_insert(
            world,
            entity,
            new_location.archetype_id,
            bundle_id,
            location.archetype_id,
            mode,
            panics,
        );
    }
}

/// Fires `on_add` / `on_insert` hooks and observers after an insert or
/// spawn; their panics go into `panics`. Callers test the archetype's
/// flags first, so this is off the hot path.
#[cold]
pub(crate) fn fire_after_insert(
    world: &mut World,
    entity: Entity,
    archetype: ArchetypeId,
    bundle_id: BundleId,
    from: ArchetypeId,
    mode: InsertMode,
    panics: &mut DropPanics,
) {
    let flags = world.archetypes[archetype].flags();
    if !flags.intersects(Lifecycle::Add.any_flags() | Lifecycle::Insert.any_flags()) {
        return;
    }
    let after = world.archetypes[from]
        .edges()
        .get_archetype_after_bundle_insert(bundle_id)
        .expect("insert edge is cached");
    let (added, inserted) = added_and_inserted(&world.bundles[bundle_id], after, mode);
    if flags.intersects(Lifecycle::Add.any_flags()) && !added.is_empty() {
        trigger_lifecycle(world, Lifecycle::Add, entity, &added, panics);
    }
    if flags.intersects(Lifecycle::Insert.any_flags()) && !inserted.is_empty() {
        trigger_lifecycle(world, Lifecycle::Insert, entity, &inserted, panics);
    }
}

/// Fires `on_discard` hooks and observers for the components of the bundle
/// the entity already has, before they are overwritten; their panics go
/// into `panics`, for the insert to re-raise once it is whole.
#[cold]
pub(crate) fn fire_before_replace(
    world: &mut World,
    entity: Entity,
    archetype: ArchetypeId,
    bundle_id: BundleId,
    panics: &mut DropPanics,
) {
    let after = world.archetypes[archetype]
        .edges()
        .get_archetype_after_bundle_insert(bundle_id)
        .expect("insert edge was just cached");
    let replaced: Vec<ComponentId> = world.bundles[bundle_id]
        .components()
        .iter()
        .zip(after.bundle_status.iter())
        .filter(|(_, &status)| status == ComponentStatus::Existing)
        .map(|(&id, _)| id)
        .collect();
    if !replaced.is_empty() {
        trigger_lifecycle(world, Lifecycle::Discard, entity, &replaced, panics);
    }
}

/// Inserts `bundle` (registered as `bundle_id`) into `entity`, which is at
/// `location`, in three steps: [`resolve_insert`] finds the target and fires
/// `on_discard` (values still in place), [`move_and_write`] moves the row and
/// writes the values, [`fire_insert_hooks`] fires `on_add` and `on_insert`.
/// Returns the entity's new location.
///
/// # Safety
/// `location` is `entity`'s current location and the world is flushed.
#[inline]
pub(crate) unsafe fn insert_bundle<B: DynamicBundle>(
    world: &mut World,
    entity: Entity,
    location: EntityLocation,
    bundle_id: BundleId,
    bundle: B,
    mode: InsertMode,
) -> EntityLocation {
    // Read before any hook runs: the values carry the tick of the call.
    let change_tick = world.change_tick();
    let mut panics = DropPanics::default();
    let target = resolve_insert(world, entity, location, bundle_id, mode, &mut panics);
    // SAFETY: `location` is current (caller) and `target` was resolved for
    // it, with nothing moved since (`on_discard` cannot change archetypes).
    let new_location = unsafe {
        move_and_write(
            world,
            entity,
            location,
            bundle_id,
            bundle,
            mode,
            target,
            change_tick,
            &mut panics,
        )
    };
    fire_insert_hooks(
        world,
        entity,
        new_location,
        bundle_id,
        location,
        mode,
        &mut panics,
    );
    // A panicking `Drop` (of a replaced value, or of an ignored bundle
    // field), hook or observer goes on only once the insert is whole,
    // every hook and observer run.
    panics.finish();
    new_location
}

/// The first step of [`insert_bundle`]: caches the insert edge, fires
/// `on_discard` for the components the entity already has (in
/// [`InsertMode::Replace`]), then makes the required components' values.
#[inline(always)]
fn resolve_insert(
    world: &mut World,
    entity: Entity,
    location: EntityLocation,
    bundle_id: BundleId,
    mode: InsertMode,
    panics: &mut DropPanics,
) -> InsertTarget {
    let target = world.bundles[bundle_id].insert_bundle_into_archetype(
        &mut world.archetypes,
        &mut world.storages,
        &world.components,
        location.archetype_id,
    );
    // Made before `on_discard`: a constructor that panics then leaves the
    // entity as it was, with no hook run. The hooks and observers that run
    // while the scratch holds the values cannot start another structural
    // operation, and their panics no longer stop this one.
    if target.has_required {
        let after = world.archetypes[location.archetype_id]
            .edges()
            .get_archetype_after_bundle_insert(bundle_id)
            .expect("insert edge was just cached");
        world
            .value_scratch
            .make(&after.required_components, &world.components);
    }
    if mode == InsertMode::Replace
        && world.archetypes[location.archetype_id]
            .flags()
            .intersects(Lifecycle::Discard.any_flags())
    {
        fire_before_replace(world, entity, location.archetype_id, bundle_id, panics);
    }
    target
}

/// The second step of [`insert_bundle`]: moves the entity to the target
/// archetype and writes the bundle's and the required components' values.
/// Returns the new location.
///
/// # Safety
/// `location` is `entity`'s current location, and `target` is what
/// [`resolve_insert`] gave for it and `bundle_id`.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) unsafe fn move_and_write<B: DynamicBundle>(
    world: &mut World,
    entity: Entity,
    location: EntityLocation,
    bundle_id: BundleId,
    bundle: B,
    mode: InsertMode,
    target: InsertTarget,
    change_tick: Tick,
    panics: &mut DropPanics,
) -> EntityLocation {
    let new_location = if target.archetype_id == location.archetype_id {
        location
    } else {
        // SAFETY: the insert edge of `bundle_id` from the entity's
        // archetype was cached by `resolve_insert` and leads to the target.
        unsafe {
            move_entity(
                world,
                entity,
                location,
                target.archetype_id,
                EdgeKind::Insert(bundle_id),
                panics,
            )
        }
    };
    // When every component is new (the common case), the writes need
    // no per-component status: one edge read fewer.
    let status = (!target.all_added).then(|| {
        &*world.archetypes[location.archetype_id]
            .edges()
            .get_archetype_after_bundle_insert(bundle_id)
            .expect("insert edge was just cached")
            .bundle_status
    });
    let table = &mut world.storages.tables[new_location.table_id];
    // SAFETY: the entity's row in its (new) table is `new_location`'s
    // row, and it is the last row if the table changed (it was just
    // pushed); `status` was computed for the old archetype; the new
    // archetype holds every required component made.
    unsafe {
        write_bundle(
            bundle,
            &world.bundles[bundle_id],
            status,
            None,
            entity,
            table,
            new_location.table_row,
            &mut world.storages.sparse_sets,
            &world.components,
            change_tick,
            mode,
            panics,
        );
        if target.has_required {
            world.value_scratch.write(
                entity,
                table,
                &mut world.storages.sparse_sets,
                change_tick,
                panics,
            );
        }
    }
    new_location
}
