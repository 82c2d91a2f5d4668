//! Relocating rows: how an entity's data moves between archetypes and
//! tables on insert, remove and take, and leaves them on despawn.
//!
//! An entity's place is its [`EntityLocation`]: a row in its archetype and
//! a row in its archetype's table. A structural change takes the entity
//! out of both by swap-remove and, unless it is despawned, appends it to
//! the target archetype and (when the target's table differs) the target's
//! table:
//!
//! ```text
//!  insert B into e: archetype {A} -> {A,B}, table {A} -> table {A,B}
//!
//!  table {A}                     table {A,B}
//!  row 0  x                      row 0  y
//!  row 1  e  ── A by memcpy ──▶  row 1  e   (B is written next)
//!  row 2  z  ── swapped into row 1 of table {A}: z's location is fixed
//! ```
//!
//! Every swap-remove that vacates a row in the middle fills it with the
//! last row's entity, whose recorded location then points at a row that
//! no longer holds it. The functions here fix it at once, so the
//! invariant "every live entity's location is where its data is" holds
//! again before any user code runs:
//!
//! - [`moved_in_archetype`]: an archetype's entity list was swap-removed;
//!   the moved entity's archetype row changes.
//! - [`moved_in_table`]: a table was swap-removed; the moved entity's table
//!   row changes, in its location and in its archetype's entity list (an
//!   archetype that owns its table has no list: its rows are the table's,
//!   so the moved entity's archetype row changes instead).
//!
//! Sparse-set values do not move with the row: they are keyed by entity,
//! and a sparse set's own swap-removes touch no location. Insert, remove
//! and take move rows with [`move_entity`], along an archetype edge that
//! caches where each column goes; despawn removes them with
//! [`remove_entity`]. Callers fire hooks before or after, never between:
//! the world is consistent whenever user code runs.

use crate::{
    archetype::{ArchetypeId, ArchetypeRow, Archetypes, EdgeKind},
    component::ComponentId,
    entity::{Entities, Entity, EntityLocation},
    storage::{SparseSets, TableId, TableRow},
    utils::DropPanics,
    world::World,
};

/// Moves `entity` from its archetype to `new_archetype_id` along the
/// cached edge `edge`, moving its table row if the tables differ (each
/// column found by the position the edge cached), and fixes the locations
/// of the entities swapped into the vacated rows. Returns the new
/// location.
///
/// # Safety
/// `location` is `entity`'s current location; `edge` is cached on its
/// archetype and leads to `new_archetype_id`; for a take, the values of
/// the columns the new table lacks were already moved out.
#[inline(always)]
pub(crate) unsafe fn move_entity(
    world: &mut World,
    entity: Entity,
    location: EntityLocation,
    new_archetype_id: ArchetypeId,
    edge: EdgeKind,
    panics: &mut DropPanics,
) -> EntityLocation {
    let entities = &mut world.entities;
    let archetypes = &mut world.archetypes;
    let tables = &mut world.storages.tables;
    debug_assert_eq!(
        archetypes[location.archetype_id].edges().target(edge),
        Some(new_archetype_id),
        "a move follows a cached edge to its target"
    );
    // The archetype row first: the order the hot path was tuned for (either
    // is correct).
    // SAFETY: `location` is `entity`'s current location (caller).
    unsafe { leave_archetype(entities, archetypes, location) };
    let new_table_id = archetypes[new_archetype_id].table_id();
    let new_table_row = if new_table_id == location.table_id {
        location.table_row
    } else {
        let moves = archetypes[location.archetype_id].edges().table_moves(edge);
        let (old_table, new_table) = tables.get_2_mut(location.table_id, new_table_id);
        let row = location.table_row;
        // SAFETY: `row` is the entity's row; the edge was computed for
        // these two archetypes (caller), so `moves` holds the positions of
        // the old table's columns in the new one, which an insert's edge
        // only adds to and a remove's or take's only takes from; a take's
        // missing values were moved out (caller).
        let result = unsafe {
            match edge {
                EdgeKind::Insert(_) => old_table.move_to_superset(row, new_table, moves),
                EdgeKind::Remove(_) => {
                    old_table.move_to_subset(row, new_table, moves, true, panics)
                }
                EdgeKind::Take(_) => old_table.move_to_subset(row, new_table, moves, false, panics),
            }
        };
        if let Some(swapped) = result.swapped_entity {
            // SAFETY: `swapped` was in the table, so it is live, and it
            // now sits at the vacated row.
            unsafe { moved_in_table(entities, archetypes, swapped, location.table_row) };
        }
        result.new_row
    };
    // SAFETY: `entity` is live, and its row in the new archetype's table
    // is `new_table_row`.
    unsafe {
        enter_archetype(
            entities,
            archetypes,
            entity,
            new_archetype_id,
            new_table_id,
            new_table_row,
        )
    }
}

/// Appends `entity` to the rows of archetype `archetype_id`, whose table
/// `table_id` holds the entity's values at `table_row`, and records the
/// entity's new location. A spawn (after pushing the table row) and every
/// move end here.
///
/// # Safety
/// `entity` is live or just allocated, and `table_row` of `table_id`, the
/// archetype's table, is its row.
#[inline(always)]
pub(crate) unsafe fn enter_archetype(
    entities: &mut Entities,
    archetypes: &mut Archetypes,
    entity: Entity,
    archetype_id: ArchetypeId,
    table_id: TableId,
    table_row: TableRow,
) -> EntityLocation {
    let archetype_row = archetypes[archetype_id].allocate(entity, table_row);
    let location = EntityLocation {
        archetype_id,
        archetype_row,
        table_id,
        table_row,
    };
    // SAFETY: `entity` is live or just allocated (caller), and its data is
    // now at `location`.
    unsafe { entities.set(entity.index(), location) };
    location
}

/// Removes the despawned entity's rows from its archetype and table,
/// dropping its values (table and sparse-set), and fixes the locations of
/// the entities swapped into the vacated rows.
///
/// # Safety
/// `location` was `entity`'s location, and nothing has moved since; the
/// entity may already be freed in `world.entities`.
#[inline(always)]
pub(crate) unsafe fn remove_entity(
    world: &mut World,
    entity: Entity,
    location: EntityLocation,
    panics: &mut DropPanics,
) {
    // SAFETY: `location` is where the entity's rows are (caller).
    unsafe { leave_archetype(&mut world.entities, &mut world.archetypes, location) };
    drop_sparse_values(
        &mut world.storages.sparse_sets,
        world.archetypes[location.archetype_id]
            .sparse_set_components()
            .iter()
            .copied(),
        entity,
        panics,
    );
    let table = &mut world.storages.tables[location.table_id];
    // SAFETY: `location.table_row` was the entity's row.
    let swapped = unsafe { table.swap_remove_and_drop(location.table_row, panics) };
    if let Some(swapped) = swapped {
        // SAFETY: `swapped` was in the table, so it is live, and it is
        // now at the vacated table row.
        unsafe {
            moved_in_table(
                &mut world.entities,
                &mut world.archetypes,
                swapped,
                location.table_row,
            )
        };
    }
}

/// Drops `entity`'s value in the sparse set of each of `ids` (each a
/// sparse-set component the entity has): sparse values never move with a
/// row, so a remove or despawn drops them apart from the table move.
#[inline]
pub(crate) fn drop_sparse_values(
    sparse_sets: &mut SparseSets,
    ids: impl IntoIterator<Item = ComponentId>,
    entity: Entity,
    panics: &mut DropPanics,
) {
    for id in ids {
        let set = sparse_sets.get_mut(id).expect("sparse set exists");
        set.remove_and_drop(entity, panics);
    }
}

/// Swap-removes the entity at `location` from its archetype's rows and
/// fixes the location of the entity moved into the vacated row.
///
/// # Safety
/// `location` is where the entity's rows are.
#[inline(always)]
unsafe fn leave_archetype(
    entities: &mut Entities,
    archetypes: &mut Archetypes,
    location: EntityLocation,
) {
    let old_archetype = &mut archetypes[location.archetype_id];
    if let Some(swapped) = old_archetype
        .swap_remove(location.archetype_row)
        .swapped_entity
    {
        // SAFETY: `swapped` was in the archetype, so it is live, and it
        // now sits at the vacated row.
        unsafe { moved_in_archetype(entities, swapped, location.archetype_row) };
    }
}

/// Records that `swapped` moved to `row` of its archetype (a swap-remove
/// filled the vacated row with it).
///
/// # Safety
/// `swapped` is live and now sits at `row` of its archetype.
#[inline]
unsafe fn moved_in_archetype(entities: &mut Entities, swapped: Entity, row: ArchetypeRow) {
    // SAFETY: `swapped` is live (caller).
    unsafe { entities.location_mut(swapped.index()) }.archetype_row = row;
}

/// Records that `swapped` moved to `row` of its table (a swap-remove
/// filled the vacated row with it), in its location and in its
/// archetype's entity list (or, for an archetype that owns its table and
/// so shares the table's rows, in the location's archetype row).
///
/// # Safety
/// `swapped` is live and now sits at `row` of its table.
#[inline]
unsafe fn moved_in_table(
    entities: &mut Entities,
    archetypes: &mut Archetypes,
    swapped: Entity,
    row: TableRow,
) {
    // SAFETY: `swapped` is live (caller).
    let location = unsafe { entities.location_mut(swapped.index()) };
    location.table_row = row;
    location.archetype_row =
        archetypes[location.archetype_id].set_entity_table_row(location.archetype_row, row);
}
