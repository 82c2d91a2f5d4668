use super::{Bundle, BundleFromComponents, BundleId};
use crate::{
    archetype::{ArchetypeFlags, EdgeKind},
    component::{ComponentId, StorageType},
    entity::{Entity, EntityLocation},
    observer::{trigger_lifecycle, Lifecycle},
    utils::DropPanics,
    world::{
        relocation::{drop_sparse_values, move_entity},
        World,
    },
};

/// Fires `on_discard` then `on_remove` hooks and observers for the
/// components of the bundle that the entity has, while they are still in
/// place. Their panics go into `panics`, for the removal to re-raise once
/// it is done. Only the flag test is on the hot path.
#[inline]
pub(crate) fn fire_before_remove(
    world: &mut World,
    entity: Entity,
    location: EntityLocation,
    bundle_id: BundleId,
    panics: &mut DropPanics,
) {
    let flags = world.archetypes[location.archetype_id].flags();
    if flags.intersects(before_remove_flags()) {
        fire_before_remove_slow(world, entity, location, bundle_id, flags, panics);
    }
}

/// The archetype flags under which [`fire_before_remove`] has work: a
/// discard or remove hook or observer, or removal tracking.
#[inline]
pub(crate) fn before_remove_flags() -> ArchetypeFlags {
    Lifecycle::Discard.any_flags() | Lifecycle::Remove.any_flags() | ArchetypeFlags::REMOVAL_TRACKED
}

#[cold]
fn fire_before_remove_slow(
    world: &mut World,
    entity: Entity,
    location: EntityLocation,
    bundle_id: BundleId,
    flags: ArchetypeFlags,
    panics: &mut DropPanics,
) {
    let archetype = &world.archetypes[location.archetype_id];
    let present: Vec<ComponentId> = world.bundles[bundle_id]
        .components()
        .iter()
        .copied()
        .filter(|&id| archetype.contains(id))
        .collect();
    for kind in [Lifecycle::Discard, Lifecycle::Remove] {
        if flags.intersects(kind.any_flags()) {
            trigger_lifecycle(world, kind, entity, &present, panics);
        }
    }
    if flags.contains(ArchetypeFlags::REMOVAL_TRACKED) {
        world.removed_components.record(entity, present.into_iter());
    }
}

/// Removes whatever components of the bundle `bundle_id` the entity has,
/// dropping them. Returns the new location.
///
/// # Safety
/// `location` is `entity`'s current location and the world is flushed.
pub(crate) unsafe fn remove_bundle(
    world: &mut World,
    entity: Entity,
    location: EntityLocation,
    bundle_id: BundleId,
) -> EntityLocation {
    let bundle_info = &world.bundles[bundle_id];
    let new_archetype_id = bundle_info
        .remove_bundle_from_archetype(
            &mut world.archetypes,
            &mut world.storages,
            &world.components,
            location.archetype_id,
            true,
        )
        .expect("remove always has a target archetype");
    if new_archetype_id == location.archetype_id {
        return location;
    }
    let mut panics = DropPanics::default();
    fire_before_remove(world, entity, location, bundle_id, &mut panics);
    // SAFETY: `location` is current (nothing moves in the hooks above), and
    // the edge to `new_archetype_id` was just cached.
    let new_location = unsafe {
        remove_bundle_unhooked(
            world,
            entity,
            location,
            bundle_id,
            new_archetype_id,
            &mut panics,
        )
    };
    panics.finish();
    new_location
}

/// The move of [`remove_bundle`], after its hooks: drops the entity's
/// sparse values of the bundle and moves its row to `new_archetype_id`,
/// dropping the removed table values. Returns the new location.
///
/// # Safety
/// `location` is `entity`'s current location, the world is flushed, and
/// the remove edge of `bundle_id` from its archetype is cached and leads
/// to `new_archetype_id`.
pub(crate) unsafe fn remove_bundle_unhooked(
    world: &mut World,
    entity: Entity,
    location: EntityLocation,
    bundle_id: BundleId,
    new_archetype_id: crate::archetype::ArchetypeId,
    panics: &mut DropPanics,
) -> EntityLocation {
    let bundle_info = &world.bundles[bundle_id];
    let old_archetype = &world.archetypes[location.archetype_id];
    // Most archetypes have no sparse-set components: then there is nothing
    // to look up per bundle component.
    let sparse_components = if old_archetype.sparse_set_components().is_empty() {
        &[][..]
    } else {
        bundle_info.components()
    };
    let present_sparse = sparse_components
        .iter()
        .copied()
        .filter(|&id| old_archetype.get_storage_type(id) == Some(StorageType::SparseSet));
    drop_sparse_values(
        &mut world.storages.sparse_sets,
        present_sparse,
        entity,
        panics,
    );
    // SAFETY: the remove edge of `bundle_id` from the entity's archetype
    // is cached and leads to `new_archetype_id` (caller); the values of the
    // dropped table columns are dropped by the move.
    unsafe {
        move_entity(
            world,
            entity,
            location,
            new_archetype_id,
            EdgeKind::Remove(bundle_id),
            panics,
        )
    }
}

/// Moves the bundle `B` out of the entity if it has all of it. Returns the
/// bundle and the new location.
///
/// # Safety
/// `location` is `entity`'s current location, the world is flushed, and
/// `bundle_id` is `B`'s id.
pub(crate) unsafe fn take_bundle<B: Bundle + BundleFromComponents>(
    world: &mut World,
    entity: Entity,
    location: EntityLocation,
    bundle_id: BundleId,
) -> Option<(B, EntityLocation)> {
    let new_archetype_id = world.bundles[bundle_id].remove_bundle_from_archetype(
        &mut world.archetypes,
        &mut world.storages,
        &world.components,
        location.archetype_id,
        false,
    )?;
    let mut hook_panics = DropPanics::default();
    fire_before_remove(world, entity, location, bundle_id, &mut hook_panics);
    let ids = world.bundles[bundle_id].components();
    let old_archetype = &world.archetypes[location.archetype_id];
    let table = &world.storages.tables[location.table_id];
    let scratch = &mut world.value_scratch;
    assert!(
        scratch.is_empty(),
        "the value scratch holds values of an interrupted operation"
    );
    // The values move out to the scratch and the entity moves before any
    // user code (`from_components` runs `Default` of ignored fields) runs.
    for &id in ids {
        let storage_type = old_archetype
            .get_storage_type(id)
            .expect("the take edge exists, so the entity has every component");
        let value = match storage_type {
            // SAFETY: the archetype has the component in its table, and the
            // entity's row is in bounds.
            StorageType::Table => unsafe {
                table
                    .get_column(id)
                    .expect("table column exists")
                    .get_data_unchecked(location.table_row.index())
            },
            StorageType::SparseSet => {
                world
                    .storages
                    .sparse_sets
                    .get_mut(id)
                    .and_then(|set| set.remove_and_forget(entity))
                    .expect("sparse value exists")
                    .0
            }
        };
        // SAFETY: `value` is the entity's value of `id`: a table value left
        // in place and forgotten by the move below, or a sparse value just
        // unlinked from its set (valid until the set's next insert, and
        // copied now).
        unsafe { scratch.push_taken(id, storage_type, value, &world.components) };
    }
    let mut panics = DropPanics::default();
    // SAFETY: the take edge of `bundle_id` from the entity's archetype was
    // just cached and leads to `new_archetype_id`; the values of the
    // missing columns were moved into the scratch above.
    let new_location = unsafe {
        move_entity(
            world,
            entity,
            location,
            new_archetype_id,
            EdgeKind::Take(bundle_id),
            &mut panics,
        )
    };
    debug_assert!(panics.is_empty(), "a take drops nothing");
    // SAFETY: the scratch holds `B`'s components, in order (`bundle_id` is
    // `B`'s id, caller).
    let bundle = unsafe { world.value_scratch.take_bundle::<B>(&world.components) };
    // A hook's or observer's panic goes on once the take is done; the
    // bundle is dropped with the unwinding.
    hook_panics.finish();
    Some((bundle, new_location))
}
