//! A load's entities placed archetype by archetype: each staged entity goes
//! straight into the archetype of its whole component set, and each
//! component's values are pushed onto their final columns once.
//!
//! ```text
//!  staged positions   0 ......... 99 | 100 ........ 149
//!  runs               P: 0..150, V: 0..150, H: 100..150
//!  segments           {P,V}          | {P,V,H}            (between run bounds)
//!  placed             table T0, rows n..n+100 | table T1, rows m..m+50
//!  values             P: one copy into T0, one into T1; H: one into T1
//! ```
//!
//! This is what inserting each component in turn would give, without the
//! table moves in between, so it is taken only when nothing could tell
//! them apart: no target archetype has an `on_add` or `on_insert` hook or
//! observer, and no component brings required ones. Otherwise the caller
//! inserts component by component.

use hashbrown::HashMap;

use super::staging::{Placed, Staged};
use crate::{
    archetype::ArchetypeId, component::ComponentId, entity::Entity, observer::Lifecycle,
    storage::TableId, world::World,
};

/// Places the staged entities `ids`, live but not yet anywhere (their
/// locations invalid), into their final archetypes, and moves every staged
/// component value into its row. Returns `false`, having changed nothing
/// but registrations and archetypes (which a load by inserts would have
/// made too), when the load must insert component by component instead
/// (see the module docs); the caller then puts the entities in the empty
/// archetype with [`locate_in_empty`].
pub(super) fn place(world: &mut World, columns: &mut [Box<dyn Staged>], ids: &[Entity]) -> bool {
    let n = ids.len();
    let Ok(n32) = u32::try_from(n) else {
        return false;
    };
    // Each component column's id and runs of staged positions.
    let mut terms: Vec<(usize, ComponentId)> = Vec::new();
    let mut bounds: Vec<u32> = vec![0, n32];
    for (index, column) in columns.iter().enumerate() {
        // A component with no value staged takes no part (it may not even
        // have storage yet).
        if column.value_count() == 0 {
            continue;
        }
        let Some(id) = column.component_id(world) else {
            continue;
        };
        // Ascending, apart, within the staged entities, one per value: so
        // they are by construction; checked, since a mistake would write
        // values to rows not reserved for them.
        let runs = column.runs();
        let mut end = 0usize;
        let mut count = 0usize;
        for &(start, len) in runs {
            if (start as usize) < end || len == 0 {
                return false;
            }
            end = start as usize + len as usize;
            count += len as usize;
        }
        if end > n || count != column.value_count() {
            return false;
        }
        bounds.extend(runs.iter().flat_map(|&(start, len)| [start, start + len]));
        terms.push((index, id));
    }
    bounds.sort_unstable();
    bounds.dedup();

    // Between two bounds every position has the same components.
    let mut segments: Vec<(u32, u32, TableId)> = Vec::new();
    let mut archetypes: Vec<ArchetypeId> = Vec::new();
    let mut group_of: HashMap<Vec<ComponentId>, (ArchetypeId, TableId)> = HashMap::default();
    let mut cursors = vec![0usize; terms.len()];
    let mut set: Vec<ComponentId> = Vec::new();
    let mut last: Option<(Vec<ComponentId>, ArchetypeId, TableId)> = None;
    for pair in bounds.windows(2) {
        let (start, end) = (pair[0], pair[1]);
        set.clear();
        for (&(index, id), cursor) in terms.iter().zip(&mut cursors) {
            let runs = columns[index].runs();
            while runs.get(*cursor).is_some_and(|run| run.0 + run.1 <= start) {
                *cursor += 1;
            }
            if runs.get(*cursor).is_some_and(|run| run.0 <= start) {
                set.push(id);
            }
        }
        set.sort_unstable();
        let (archetype_id, table_id) = match &last {
            Some((previous, archetype_id, table_id)) if *previous == set => {
                (*archetype_id, *table_id)
            }
            _ => {
                let target = match group_of.get(&set) {
                    Some(&target) => target,
                    None => {
                        let Some(target) = target_of(world, &set) else {
                            return false;
                        };
                        group_of.insert(set.clone(), target);
                        target
                    }
                };
                last = Some((set.clone(), target.0, target.1));
                target
            }
        };
        match segments.last_mut() {
            Some(segment) if segment.1 == start && archetypes.last() == Some(&archetype_id) => {
                segment.1 = end;
            }
            _ => {
                segments.push((start, end, table_id));
                archetypes.push(archetype_id);
            }
        }
    }

    // From here on nothing can fail, and no user code runs until every
    // value is in place.
    // Room first, summed per archetype and per table (archetypes may share
    // one): each grows once.
    let mut archetype_rows: HashMap<ArchetypeId, usize> = HashMap::default();
    let mut table_rows: HashMap<TableId, usize> = HashMap::default();
    for (segment, &archetype_id) in segments.iter().zip(&archetypes) {
        let len = (segment.1 - segment.0) as usize;
        *archetype_rows.entry(archetype_id).or_default() += len;
        *table_rows.entry(segment.2).or_default() += len;
    }
    for (&archetype_id, &count) in &archetype_rows {
        world.archetypes[archetype_id].reserve(count);
    }
    for (&table_id, &count) in &table_rows {
        world.storages.tables[table_id].reserve(count);
    }
    for (&(start, end, table_id), &archetype_id) in segments.iter().zip(&archetypes) {
        let run = &ids[start as usize..end as usize];
        let first_table_row = world.storages.tables[table_id].push_entities(run).index();
        let first_archetype_row =
            world.archetypes[archetype_id].allocate_moved(run, first_table_row);
        // SAFETY: every entity of the run is live (flushed) and now at
        // consecutive rows of the archetype and its table; its values are
        // written below, before the world is next read.
        unsafe {
            world.entities.set_run(
                run,
                archetype_id,
                first_archetype_row,
                table_id,
                first_table_row,
            );
        }
    }
    let placed = Placed {
        ids,
        segments: &segments,
        tick: world.change_tick(),
    };
    for &(index, id) in &terms {
        // SAFETY: `id` is the entry's component; each position with a
        // value of it was placed above in its segment's table, that of an
        // archetype holding the component, whose rows were pushed in
        // position order.
        unsafe { columns[index].write_placed(world, id, placed) };
    }
    true
}

/// Puts the staged entities `ids`, live but not yet anywhere, in the empty
/// archetype, as a flush of reserved entities would have.
pub(super) fn locate_in_empty(world: &mut World, ids: &[Entity]) {
    let first_table_row = world.storages.tables[TableId::EMPTY]
        .push_entities(ids)
        .index();
    let archetype = &mut world.archetypes[ArchetypeId::EMPTY];
    archetype.reserve(ids.len());
    let first_archetype_row = archetype.allocate_moved(ids, first_table_row);
    // SAFETY: the entities are live and now at consecutive rows of the
    // empty archetype and table, which hold no values.
    unsafe {
        world.entities.set_run(
            ids,
            ArchetypeId::EMPTY,
            first_archetype_row,
            TableId::EMPTY,
            first_table_row,
        );
    }
}

/// The archetype and table of entities with exactly the components `set`,
/// or `None` if placing them there would skip work an insert does.
fn target_of(world: &mut World, set: &[ComponentId]) -> Option<(ArchetypeId, TableId)> {
    if set.is_empty() {
        return Some((ArchetypeId::EMPTY, TableId::EMPTY));
    }
    let bundle_id = world.bundles.register_dynamic(set, &world.components);
    let target = world.bundles.spawn_target(
        bundle_id,
        &mut world.archetypes,
        &mut world.storages,
        &world.components,
    );
    let lifecycle = Lifecycle::Add.any_flags() | Lifecycle::Insert.any_flags();
    if target.has_required
        || world.archetypes[target.archetype_id]
            .flags()
            .intersects(lifecycle)
    {
        return None;
    }
    Some((target.archetype_id, target.table_id))
}
