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

use super::staging::{Placed, Staged, StagedTable};
use crate::{
    archetype::ArchetypeId, component::ComponentId, entity::Entity, observer::Lifecycle,
    storage::TableId, world::World,
};

/// How the staged entities go into their final archetypes, worked out by
/// [`plan`] and carried out by [`apply`].
pub(super) struct Plan {
    /// Each component's id and where its values are.
    terms: Vec<(Source, ComponentId)>,
    /// The staged positions as runs `(start, end, table)`, each placed in
    /// one table, and the archetype of each.
    segments: Vec<(u32, u32, TableId)>,
    archetypes: Vec<ArchetypeId>,
    /// Every run of every staged table by staged position: `(start, end,
    /// table, first row)`.
    staged_runs: Vec<(u32, u32, usize, usize)>,
    /// The world's table each staged table goes into.
    targets: Vec<Option<TableId>>,
}

/// Works out where each staged entity `ids` goes: its final archetype,
/// with its values moved in by whole staged tables or one run at a time.
/// Returns `None`, having changed nothing but registrations and archetypes
/// (which a load by inserts would have made too), when the load must insert
/// component by component instead (see the module docs). Registering a
/// component and working out its required components run user code, which
/// may panic; [`apply`] runs none.
pub(super) fn plan(
    world: &mut World,
    columns: &[Box<dyn Staged>],
    tables: &[StagedTable],
    ids: &[Entity],
) -> Option<Plan> {
    let n = ids.len();
    let n32 = u32::try_from(n).ok()?;
    // Each component's id and where its values are: a staged entry, or a
    // staged table (all its columns share its runs).
    let mut terms: Vec<(Source, ComponentId)> = Vec::new();
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
        if !push_runs(&mut bounds, column.runs(), column.value_count(), n) {
            return None;
        }
        terms.push((Source::Entry(index), id));
    }
    for (index, staged) in tables.iter().enumerate() {
        if !push_runs(&mut bounds, &staged.runs, staged.table.entity_count(), n) {
            return None;
        }
        terms.extend(
            staged
                .table
                .component_ids()
                .iter()
                .map(|&id| (Source::Table(index), id)),
        );
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
        for (&(source, id), cursor) in terms.iter().zip(&mut cursors) {
            let runs = source.runs(columns, tables);
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
                        let target = target_of(world, &set)?;
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

    // Each staged table goes whole into the world's table of its
    // components: the one every segment of its runs is placed in.
    let mut staged_runs: Vec<(u32, u32, usize, usize)> = Vec::new();
    for (index, staged) in tables.iter().enumerate() {
        let mut row = 0;
        for &(start, len) in &staged.runs {
            staged_runs.push((start, start + len, index, row));
            row += len as usize;
        }
    }
    staged_runs.sort_unstable_by_key(|run| run.0);
    let mut targets: Vec<Option<TableId>> = vec![None; tables.len()];
    let mut cursor = 0;
    for &(start, end, table_id) in &segments {
        while staged_runs.get(cursor).is_some_and(|run| run.1 <= start) {
            cursor += 1;
        }
        match staged_runs.get(cursor) {
            Some(&(run_start, run_end, index, _)) if run_start <= start => {
                debug_assert!(end <= run_end, "a segment ends at the latest with its run");
                match targets[index] {
                    None => targets[index] = Some(table_id),
                    Some(target) if target == table_id => {}
                    // Not the table of its components: never so, but then
                    // inserting is the way that cannot go wrong.
                    Some(_) => return None,
                }
            }
            _ => {}
        }
    }

    Some(Plan {
        terms,
        segments,
        archetypes,
        staged_runs,
        targets,
    })
}

/// Places the staged entities `ids`, live but not yet anywhere (their
/// locations invalid), as `plan` says, and moves every staged component
/// value into its row: the staged tables' rows by whole tables, the other
/// values one run at a time.
pub(super) fn apply(
    world: &mut World,
    plan: Plan,
    columns: &mut [Box<dyn Staged>],
    tables: &mut [StagedTable],
    ids: &[Entity],
) {
    let Plan {
        terms,
        segments,
        archetypes,
        staged_runs,
        targets,
    } = plan;
    // Nothing from here on can fail, and no user code runs until every
    // value is in place.
    // Room first, summed per archetype and per table (archetypes may share
    // one): each grows once. A staged table brings its own rows.
    let mut archetype_rows: HashMap<ArchetypeId, usize> = HashMap::default();
    let mut table_rows: HashMap<TableId, usize> = HashMap::default();
    for (segment, &archetype_id) in segments.iter().zip(&archetypes) {
        let len = (segment.1 - segment.0) as usize;
        *archetype_rows.entry(archetype_id).or_default() += len;
        if !targets.contains(&Some(segment.2)) {
            *table_rows.entry(segment.2).or_default() += len;
        }
    }
    for (&archetype_id, &count) in &archetype_rows {
        world.archetypes[archetype_id].reserve(count);
    }
    for (&table_id, &count) in &table_rows {
        world.storages.tables[table_id].reserve(count);
    }
    let mut first_rows = vec![0usize; tables.len()];
    for (index, staged) in tables.iter_mut().enumerate() {
        // A staged table without rows (an archetype saved with no entity)
        // is placed nowhere.
        let Some(target) = targets[index] else {
            debug_assert!(staged.table.is_empty());
            continue;
        };
        first_rows[index] = world.storages.tables[target].append_table(&mut staged.table);
    }
    let mut cursor = 0;
    for (&(start, end, table_id), &archetype_id) in segments.iter().zip(&archetypes) {
        let run = &ids[start as usize..end as usize];
        while staged_runs.get(cursor).is_some_and(|r| r.1 <= start) {
            cursor += 1;
        }
        let first_table_row = match staged_runs.get(cursor) {
            Some(&(run_start, _, index, row)) if run_start <= start => {
                first_rows[index] + row + (start - run_start) as usize
            }
            _ => world.storages.tables[table_id].push_entities(run).index(),
        };
        debug_assert_eq!(
            world.storages.tables[table_id].entities()[first_table_row..][..run.len()],
            *run,
            "the rows of the run hold its entities"
        );
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
    for &(source, id) in &terms {
        let Source::Entry(index) = source else {
            continue;
        };
        // SAFETY: `id` is the entry's component; each position with a
        // value of it was placed above in its segment's table, that of an
        // archetype holding the component, whose rows were pushed in
        // position order.
        unsafe { columns[index].write_placed(world, id, placed) };
    }
}

/// Where a component's staged values are.
#[derive(Clone, Copy)]
enum Source {
    /// The staged entry at this position.
    Entry(usize),
    /// The staged table at this position.
    Table(usize),
}

impl Source {
    fn runs<'a>(
        self,
        columns: &'a [Box<dyn Staged>],
        tables: &'a [StagedTable],
    ) -> &'a [(u32, u32)] {
        match self {
            Source::Entry(index) => columns[index].runs(),
            Source::Table(index) => &tables[index].runs,
        }
    }
}

/// Adds the bounds of `runs`, the staged positions of `count` values, to
/// `bounds`; `false` unless they are ascending, apart and within the `n`
/// staged entities, one per value. They are so by construction; checked,
/// since a mistake would write values to rows not reserved for them.
fn push_runs(bounds: &mut Vec<u32>, runs: &[(u32, u32)], count: usize, n: usize) -> bool {
    let mut end = 0usize;
    let mut total = 0usize;
    for &(start, len) in runs {
        if (start as usize) < end || len == 0 {
            return false;
        }
        end = start as usize + len as usize;
        total += len as usize;
    }
    if end > n || total != count {
        return false;
    }
    bounds.extend(runs.iter().flat_map(|&(start, len)| [start, start + len]));
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
