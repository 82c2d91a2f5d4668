//! Query-level bulk changes: insert a bundle into, remove a bundle from, or
//! despawn every entity a query matches ([`QueryState::insert_all`],
//! [`QueryState::remove_all`], [`QueryState::despawn_all`] and the
//! [`World::insert_for`] family).
//!
//! Each runs in three phases, so that user code never sees a half-moved
//! table:
//!
//! ```text
//!  1. before   on_discard / on_remove / on_despawn (and removal records),
//!              entity by entity, every value still in place
//!  2. move     archetype by archetype; a table whose every row matched
//!              moves whole to the target table:
//!
//!              table {A}                 table {A,B}
//!              rows 0..n  ── A: one copy ──▶ rows m..m+n   (B written next)
//!
//!              then each moved entity's location is set, in one pass
//!  3. after    on_add / on_insert, entity by entity
//! ```
//!
//! When every matched archetype owns its table, the bundle's components
//! are all new to it, and no hook or observer watches either side, an
//! insert makes each value straight into its row of the target table
//! (past the columns' lengths) before anything moves, and never lists the
//! matched entities.
//!
//! A table shared with archetypes the query did not match whole (or rows a
//! `Changed`/`Added` filter rejected) moves row by row, as a one-by-one
//! change would. Hooks and observers run for every entity in the order of
//! the query's archetypes, each in row order; the commands they queue are
//! applied once, at the end. A panic in a hook or observer stops nothing:
//! every entity is changed and every hook runs, then the first panic goes
//! on.

use crate::{
    archetype::{ArchetypeFlags, ArchetypeId, EdgeKind},
    bundle::{
        before_remove_flags, fire_after_insert, fire_before_remove, fire_before_replace,
        insert_bundle, move_and_write, remove_bundle_unhooked, write_bundle, Bundle, BundleId,
        ComponentSink, InsertMode, InsertTarget,
    },
    change_detection::Tick,
    component::{Component, ComponentId, StorageType},
    entity::{Entity, EntityLocation},
    observer::{trigger_lifecycle, Lifecycle},
    query::{QueryData, QueryFilter, QueryState},
    storage::{column_slot, ColumnTail, TableId, TableRow, NO_COLUMN},
    utils::DropPanics,
    world::{
        relocation::{drop_sparse_values, remove_entity},
        unsafe_world_cell::UnsafeWorldCell,
        World,
    },
};

/// The entities a query matched in one archetype, in row order.
pub(super) struct MatchedGroup {
    pub(super) archetype_id: ArchetypeId,
    /// In table-row order when the group is every row of its table.
    pub(super) entities: Vec<Entity>,
}

impl<D: QueryData, F: QueryFilter> QueryState<D, F> {
    /// Inserts a clone of `bundle` into every entity the query matches,
    /// replacing (and dropping) values an entity already has. Returns the
    /// number of entities changed.
    ///
    /// The result is that of
    /// [`EntityWorldMut::insert`](super::EntityWorldMut::insert) on each
    /// entity, but a table whose every row matched moves to its target
    /// table whole: one copy per column. `on_discard` hooks and observers
    /// run for every entity before anything moves, `on_add` and
    /// `on_insert` for every entity once every value is in place: entity
    /// by entity, archetype by archetype in the query's order, each in row
    /// order. The commands hooks and observers queue apply once, at the
    /// end. When the bundle brings required components, each entity is
    /// inserted in turn instead, hooks included, as
    /// [`World::insert_batch`] does.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Component)]
    /// struct Enemy;
    /// #[derive(Component, Clone, Debug, PartialEq)]
    /// struct Frozen(u32);
    ///
    /// let mut world = World::new();
    /// world.spawn_batch((0..10).map(|_| Enemy));
    /// let mut enemies = world.query_filtered::<Entity, With<Enemy>>();
    /// assert_eq!(enemies.insert_all(&mut world, Frozen(3)), 10);
    /// assert_eq!(world.query::<&Frozen>().iter(&world).count(), 10);
    /// ```
    #[track_caller]
    pub fn insert_all<B: Bundle + Clone>(&mut self, world: &mut World, bundle: B) -> usize {
        self.insert_all_with(world, |_| bundle.clone())
    }

    /// [`QueryState::insert_all`] with a bundle made for each entity by
    /// `make`, which runs for every matched entity before any hook or move
    /// (a panic in it changes nothing).
    #[track_caller]
    pub fn insert_all_with<B: Bundle>(
        &mut self,
        world: &mut World,
        make: impl FnMut(Entity) -> B,
    ) -> usize {
        self.insert_all_with_mode(world, make, InsertMode::Replace)
    }

    /// [`QueryState::insert_all`], keeping the values an entity already
    /// has (the new ones are dropped).
    #[track_caller]
    pub fn insert_all_if_new<B: Bundle + Clone>(&mut self, world: &mut World, bundle: B) -> usize {
        self.insert_all_with_mode(world, |_| bundle.clone(), InsertMode::Keep)
    }

    #[track_caller]
    fn insert_all_with_mode<B: Bundle>(
        &mut self,
        world: &mut World,
        mut make: impl FnMut(Entity) -> B,
        mode: InsertMode,
    ) -> usize {
        let bundle_id = world.bundles.register_info::<B>(&mut world.components);
        if F::IS_ARCHETYPAL {
            world.flush_entities();
            self.update_archetypes(world);
            let sources = self.matched_archetype_ids.clone();
            if let Some(count) = insert_whole_tables(world, &sources, bundle_id, &mut make) {
                return count;
            }
        }
        let groups = self.matched_groups(world);
        // Made before anything runs or moves: `make` (and `Clone`) is user
        // code that may panic.
        let mut values: Vec<B> =
            Vec::with_capacity(groups.iter().map(|group| group.entities.len()).sum());
        for group in &groups {
            values.extend(group.entities.iter().map(|&entity| make(entity)));
        }
        let count = values.len();
        insert_groups(world, &groups, values, bundle_id, mode);
        world.flush_commands();
        count
    }

    /// Removes the components of the bundle `B` that each matched entity
    /// has, dropping them. Returns the number of entities matched.
    ///
    /// The result is that of
    /// [`EntityWorldMut::remove`](super::EntityWorldMut::remove) on each
    /// entity; `on_discard` and `on_remove` hooks and observers run, and
    /// [`RemovedComponents`](crate::lifecycle::RemovedComponents) records
    /// the removals, for every entity before anything moves.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Component)]
    /// struct Frozen;
    ///
    /// let mut world = World::new();
    /// world.spawn_batch((0..10).map(|_| Frozen));
    /// world.query::<&Frozen>().remove_all::<Frozen>(&mut world);
    /// assert_eq!(world.query::<&Frozen>().iter(&world).count(), 0);
    /// ```
    #[track_caller]
    pub fn remove_all<B: Bundle>(&mut self, world: &mut World) -> usize {
        let groups = self.matched_groups(world);
        let bundle_id = world.bundles.register_info::<B>(&mut world.components);
        let count = groups.iter().map(|group| group.entities.len()).sum();
        remove_groups(world, &groups, bundle_id);
        world.flush_commands();
        count
    }

    /// Despawns every entity the query matches, dropping its components.
    /// Returns the number of entities despawned.
    ///
    /// The result is that of [`World::despawn`] on each entity;
    /// `on_despawn`, `on_discard` and `on_remove` hooks and observers run
    /// for every entity before any is despawned.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Component)]
    /// struct Dead;
    ///
    /// let mut world = World::new();
    /// world.spawn_batch((0..10).map(|_| Dead));
    /// let alive = world.spawn_empty().id();
    /// assert_eq!(world.query_filtered::<(), With<Dead>>().despawn_all(&mut world), 10);
    /// assert_eq!(world.entities().len(), 1);
    /// assert!(world.get_entity(alive).is_ok());
    /// ```
    #[track_caller]
    pub fn despawn_all(&mut self, world: &mut World) -> usize {
        let groups = self.matched_groups(world);
        let count = groups.iter().map(|group| group.entities.len()).sum();
        despawn_groups(world, &groups);
        world.flush_commands();
        count
    }

    /// The matched entities, archetype by archetype, each in row order.
    #[track_caller]
    fn matched_groups(&mut self, world: &mut World) -> Vec<MatchedGroup> {
        world.flush_entities();
        self.update_archetypes(world);
        let (last_run, this_run) = (world.last_change_tick(), world.change_tick());
        let world: &World = world;
        let mut groups = Vec::new();
        for &archetype_id in &self.matched_archetype_ids {
            let archetype = &world.archetypes[archetype_id];
            if archetype.is_empty() {
                continue;
            }
            let table = &world.storages.tables[archetype.table_id()];
            let rows = archetype.entities_in(table);
            let entities: Vec<Entity> = if F::IS_ARCHETYPAL && archetype.owns_table() {
                // The archetype's rows are its table's: one copy.
                table.entities().to_vec()
            } else if F::IS_ARCHETYPAL {
                rows.map(|row| row.id()).collect()
            } else {
                // SAFETY: the state was built for this world (checked by
                // `update_archetypes`), whose shared borrow covers the
                // filter's reads; it matches `archetype`, whose table is
                // `table`.
                let mut filter = unsafe {
                    let mut filter = F::init_fetch(
                        UnsafeWorldCell::new_readonly(world),
                        &self.filter_state,
                        last_run,
                        this_run,
                    );
                    F::set_archetype(&mut filter, &self.filter_state, archetype, table);
                    filter
                };
                rows.filter(|row| {
                    // SAFETY: `row` is a row of the archetype the fetch was
                    // set to.
                    unsafe { F::filter_fetch(&mut filter, row.id(), row.table_row()) }
                })
                .map(|row| row.id())
                .collect()
            };
            if !entities.is_empty() {
                groups.push(MatchedGroup {
                    archetype_id,
                    entities,
                });
            }
        }
        groups
    }
}

impl World {
    /// Inserts a clone of `bundle` into every entity matching the filter
    /// `F`: [`QueryState::insert_all`] on `World::query_filtered::<Entity,
    /// F>()`. Returns the number of entities changed.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Component)]
    /// struct Enemy;
    /// #[derive(Component, Clone)]
    /// struct Frozen;
    ///
    /// let mut world = World::new();
    /// world.spawn_batch((0..3).map(|_| Enemy));
    /// assert_eq!(world.insert_for::<With<Enemy>, _>(Frozen), 3);
    /// ```
    #[track_caller]
    pub fn insert_for<F: QueryFilter, B: Bundle + Clone>(&mut self, bundle: B) -> usize {
        self.query_filtered::<Entity, F>().insert_all(self, bundle)
    }

    /// Removes the bundle `B` from every entity matching the filter `F`:
    /// [`QueryState::remove_all`]. Returns the number of entities matched.
    #[track_caller]
    pub fn remove_for<F: QueryFilter, B: Bundle>(&mut self) -> usize {
        self.query_filtered::<Entity, F>().remove_all::<B>(self)
    }

    /// Despawns every entity matching the filter `F`:
    /// [`QueryState::despawn_all`]. Returns the number of entities
    /// despawned.
    #[track_caller]
    pub fn despawn_for<F: QueryFilter>(&mut self) -> usize {
        self.query_filtered::<Entity, F>().despawn_all(self)
    }
}

/// Whether `group` is every row of its table, which belongs to its
/// archetype alone: then the table can move whole.
fn moves_whole_table(world: &World, group: &MatchedGroup) -> bool {
    let archetype = &world.archetypes[group.archetype_id];
    archetype.owns_table()
        && world.storages.tables[archetype.table_id()].entity_count() == group.entities.len()
}

/// The current location of a matched entity, which no hook could despawn
/// (hooks and observers only queue commands).
#[track_caller]
fn matched_location(world: &World, entity: Entity) -> EntityLocation {
    world
        .entities
        .get(entity)
        .unwrap_or_else(|| panic!("entity {entity} matched by a bulk change is no longer spawned"))
}

/// Inserts `values` (one per matched entity, in group order) into the
/// groups' entities.
pub(super) fn insert_groups<B: Bundle>(
    world: &mut World,
    groups: &[MatchedGroup],
    values: Vec<B>,
    bundle_id: BundleId,
    mode: InsertMode,
) {
    // Read before any hook runs: the values carry the tick of the call.
    let change_tick = world.change_tick();
    let targets: Vec<InsertTarget> = groups
        .iter()
        .map(|group| {
            world.bundles[bundle_id].insert_bundle_into_archetype(
                &mut world.archetypes,
                &mut world.storages,
                &world.components,
                group.archetype_id,
            )
        })
        .collect();
    if targets.iter().any(|target| target.has_required) {
        // Required components are made by user constructors, one entity at
        // a time: then each entity is inserted in turn, hooks included.
        // A panic of one stops none of the others.
        let mut panics = DropPanics::default();
        let entities = groups.iter().flat_map(|group| group.entities.iter());
        for (&entity, value) in entities.zip(values) {
            panics.catch(|| {
                world.flush_entities();
                let location = matched_location(world, entity);
                // SAFETY: `location` is current and the world is flushed.
                unsafe { insert_bundle(world, entity, location, bundle_id, value, mode) };
            });
        }
        panics.finish();
        return;
    }
    let mut panics = DropPanics::default();
    if mode == InsertMode::Replace {
        for group in groups {
            let flags = world.archetypes[group.archetype_id].flags();
            if flags.intersects(Lifecycle::Discard.any_flags()) {
                for &entity in &group.entities {
                    fire_before_replace(world, entity, group.archetype_id, bundle_id, &mut panics);
                }
            }
        }
    }
    world.flush_entities();
    let mut values = values.into_iter();
    for (group, &target) in groups.iter().zip(&targets) {
        let values = values.by_ref().take(group.entities.len());
        let whole = target.archetype_id != group.archetype_id
            && moves_whole_table(world, group)
            && world.archetypes[target.archetype_id].table_id()
                != world.archetypes[group.archetype_id].table_id();
        if whole {
            // SAFETY: the group is every row of its table, which its
            // archetype owns; `target` was resolved for it and leads to
            // another table.
            unsafe {
                insert_whole_table(
                    world,
                    group,
                    values,
                    bundle_id,
                    target,
                    change_tick,
                    mode,
                    &mut panics,
                )
            };
        } else {
            for (&entity, value) in group.entities.iter().zip(values) {
                let location = matched_location(world, entity);
                // SAFETY: `location` is current; `target` was resolved for
                // its archetype and nothing changed archetypes since.
                unsafe {
                    move_and_write(
                        world,
                        entity,
                        location,
                        bundle_id,
                        value,
                        mode,
                        target,
                        change_tick,
                        &mut panics,
                    )
                };
            }
        }
    }
    for (group, target) in groups.iter().zip(&targets) {
        let flags = world.archetypes[target.archetype_id].flags();
        if flags.intersects(Lifecycle::Add.any_flags() | Lifecycle::Insert.any_flags()) {
            for &entity in &group.entities {
                fire_after_insert(
                    world,
                    entity,
                    target.archetype_id,
                    bundle_id,
                    group.archetype_id,
                    mode,
                    &mut panics,
                );
            }
        }
    }
    // A panicking `Drop` (of a replaced value), hook or observer goes on
    // once every entity is whole and every hook has run.
    panics.finish();
}

/// A whole-table insert planned by [`insert_whole_tables`]: every row of
/// `source`'s table goes to `target`'s, which gains the bundle's
/// components in the columns at `columns` (bundle order).
struct WholeTablePlan {
    source: ArchetypeId,
    target: ArchetypeId,
    source_table: TableId,
    target_table: TableId,
    columns: Vec<u32>,
}

/// Inserts a bundle made by `make` into every entity of the archetypes
/// `sources` when each of them can move whole with nothing observable
/// between the first value made and the last entity moved: each owns its
/// table, the bundle's components are all new table components of a
/// distinct target table, no required component is added, and no hook or
/// observer watches the source or the target. Returns `None`, having
/// changed nothing an entity can see, when one of them cannot; the caller
/// then takes the general path.
///
/// Every value is made first, straight into the target tables' rows past
/// their length (a panic in `make` drops the values made so far and
/// changes nothing), then each table moves and its columns' lengths are
/// set: the matched entities are never copied into a list and the values
/// never into a buffer.
fn insert_whole_tables<B: Bundle>(
    world: &mut World,
    sources: &[ArchetypeId],
    bundle_id: BundleId,
    make: &mut impl FnMut(Entity) -> B,
) -> Option<usize> {
    let watched =
        Lifecycle::Discard.any_flags() | Lifecycle::Add.any_flags() | Lifecycle::Insert.any_flags();
    let mut plans: Vec<WholeTablePlan> = Vec::with_capacity(sources.len());
    for &source in sources {
        let archetype = &world.archetypes[source];
        if archetype.is_empty() {
            continue;
        }
        if !archetype.owns_table() || archetype.flags().intersects(watched) {
            return None;
        }
        let archetype_table = archetype.table_id();
        let target = world.bundles[bundle_id].insert_bundle_into_archetype(
            &mut world.archetypes,
            &mut world.storages,
            &world.components,
            source,
        );
        if target.has_required || !target.all_added || target.archetype_id == source {
            return None;
        }
        let target_archetype = &world.archetypes[target.archetype_id];
        if target_archetype.flags().intersects(watched) {
            return None;
        }
        let target_table = &world.storages.tables[target_archetype.table_id()];
        let columns: Vec<u32> = world.bundles[bundle_id]
            .components()
            .iter()
            .map(|&id| column_slot(target_table, id))
            .collect();
        if columns.contains(&NO_COLUMN) {
            return None;
        }
        plans.push(WholeTablePlan {
            source,
            target: target.archetype_id,
            source_table: archetype_table,
            target_table: target_archetype.table_id(),
            columns,
        });
    }
    // Each table is written by one plan only: no target is another plan's
    // source or target.
    let mut tables: Vec<TableId> = plans
        .iter()
        .flat_map(|plan| [plan.source_table, plan.target_table])
        .collect();
    tables.sort_unstable();
    if tables.windows(2).any(|pair| pair[0] == pair[1]) {
        return None;
    }

    // Read before anything is made: the values carry the tick of the call.
    let change_tick = world.change_tick();
    let mut panics = DropPanics::default();
    let mut made = MadeRows {
        runs: Vec::with_capacity(plans.len()),
    };
    for plan in &plans {
        let (old_table, new_table) = world
            .storages
            .tables
            .get_2_mut(plan.source_table, plan.target_table);
        let n = old_table.entity_count();
        new_table.reserve(n);
        let start = new_table.entity_count();
        let mut tails = Vec::with_capacity(plan.columns.len());
        let mut drops = Vec::with_capacity(plan.columns.len());
        for (&index, &id) in plan
            .columns
            .iter()
            .zip(world.bundles[bundle_id].components())
        {
            // SAFETY: `index` is the position of `id`'s column in
            // `new_table` (planned above).
            tails.push(unsafe { new_table.column_at_mut(index as usize) }.tail());
            drops.push(
                world
                    .components
                    .get_info(id)
                    .and_then(|info| info.drop_fn()),
            );
        }
        made.runs.push(MadeRun {
            tails,
            drops,
            start,
            written: 0,
        });
        let MadeRun { tails, written, .. } = made.runs.last_mut().expect("pushed above");
        // A slice of its own: the loop's stores go through raw pointers, so
        // the compiler would reload a `Vec`'s pointer and length each row.
        let tails: &[ColumnTail] = tails;
        for (i, &entity) in old_table.entities().iter().enumerate() {
            fill_row(tails, start + i, change_tick, &mut panics, make(entity));
            *written = i + 1;
        }
    }
    // Every value is made: from here on nothing runs user code but a
    // `Drop` of an ignored bundle field, which `panics` holds.
    let runs = std::mem::take(&mut made.runs);
    let mut count = 0;
    for (plan, run) in plans.iter().zip(runs) {
        let source = &world.archetypes[plan.source];
        let moves = source.edges().table_moves(EdgeKind::Insert(bundle_id));
        let (old_table, new_table) = world
            .storages
            .tables
            .get_2_mut(plan.source_table, plan.target_table);
        let n = old_table.entity_count();
        debug_assert_eq!(run.written, n);
        // SAFETY: different tables (checked above); `moves` is the cached
        // insert edge's for these two tables; the target's added columns
        // already hold a value for each row about to move in, and their
        // lengths are set right below.
        let start = unsafe { old_table.move_all_rows(new_table, moves, &mut panics) };
        assert_eq!(start, run.start, "no row was added since the fill");
        for &index in &plan.columns {
            // SAFETY: rows `start..start + n` of every added column were
            // written by the fill, within the capacity reserved there.
            unsafe { new_table.column_at_mut(index as usize).set_len(start + n) };
        }
        set_moved_locations(world, plan.source, plan.target, start, n);
        count += n;
    }
    world.flush_commands();
    panics.finish();
    Some(count)
}

/// The rows of one target table a whole-table fill has written past the
/// columns' lengths: `written` rows from `start`, each with a value in
/// every column of `tails` (dropped with the matching function of `drops`).
struct MadeRun {
    tails: Vec<ColumnTail>,
    drops: Vec<Option<unsafe fn(*mut u8)>>,
    start: usize,
    written: usize,
}

/// Drops the values a whole-table fill made, when a panic ends it before
/// they join their tables.
struct MadeRows {
    runs: Vec<MadeRun>,
}

impl Drop for MadeRows {
    fn drop(&mut self) {
        let mut panics = DropPanics::default();
        for run in &self.runs {
            for (tail, &drop) in run.tails.iter().zip(&run.drops) {
                let Some(drop) = drop else { continue };
                for row in run.start..run.start + run.written {
                    // SAFETY: the fill wrote an owned value at `row` of this
                    // column, past its length, which nothing else owns.
                    unsafe { panics.drop_value(drop, tail.data.add(row * tail.stride)) };
                }
            }
        }
        // Already unwinding: a second panic out of a `Drop` is dropped
        // with `panics`.
    }
}

/// Moves the whole table of `group` to the table of `target`, writes the
/// values, and sets every moved entity's location.
///
/// # Safety
/// `group` is every row of its archetype's table, which the archetype
/// owns; `target` is the insert target of `bundle_id` from that archetype,
/// with a different table and no required components; `values` yields one
/// value per entity of the group.
#[allow(clippy::too_many_arguments)]
unsafe fn insert_whole_table<B: Bundle>(
    world: &mut World,
    group: &MatchedGroup,
    values: impl ExactSizeIterator<Item = B>,
    bundle_id: BundleId,
    target: InsertTarget,
    change_tick: crate::change_detection::Tick,
    mode: InsertMode,
    panics: &mut DropPanics,
) {
    let source = &world.archetypes[group.archetype_id];
    let (source_table, target_table) = (
        source.table_id(),
        world.archetypes[target.archetype_id].table_id(),
    );
    let edge = source
        .edges()
        .get_archetype_after_bundle_insert(bundle_id)
        .expect("insert edge is cached");
    let status = (!target.all_added).then_some(&*edge.bundle_status);
    let moves = source.edges().table_moves(EdgeKind::Insert(bundle_id));
    let (old_table, new_table) = world.storages.tables.get_2_mut(source_table, target_table);
    let n = group.entities.len();
    assert!(values.len() >= n, "one value per moved entity");
    // SAFETY: different tables; `moves` is the cached edge's (computed for
    // these two tables); right below, each moved row gets, in row order, a
    // value in every column the target adds (the bundle's new components;
    // required ones there are none), and nothing between can unwind.
    let start = unsafe { old_table.move_all_rows(new_table, moves, panics) };
    let bundle_info = &world.bundles[bundle_id];
    // Found once for the run: each value then goes straight to its column.
    let columns: Vec<u32> = bundle_info
        .components()
        .iter()
        .map(|&id| column_slot(new_table, id))
        .collect();
    if status.is_none() && !columns.contains(&NO_COLUMN) {
        // Every component is new to the entities and in the table: each
        // value goes straight to its row, and each column's length is set
        // once.
        let tails: Vec<ColumnTail> = columns
            .iter()
            // SAFETY: each position is a column of `new_table`.
            .map(|&index| unsafe { new_table.column_at_mut(index as usize) }.tail())
            .collect();
        for (row, value) in (start..start + n).zip(values) {
            fill_row(&tails, row, change_tick, panics, value);
        }
        for &index in &columns {
            // SAFETY: rows `start..start + n` of every added column were
            // written above, below the capacity reserved by the move.
            unsafe { new_table.column_at_mut(index as usize).set_len(start + n) };
        }
        set_moved_locations(world, group.archetype_id, target.archetype_id, start, n);
        return;
    }
    for (row, value) in (start..start + n).zip(values) {
        // SAFETY: `row` is a moved row, below the table's length.
        let entity = unsafe { *new_table.entities().get_unchecked(row) };
        // SAFETY: `row` is the entity's row, the next one whose added
        // columns lack a value; `status` was computed for the source
        // archetype; `columns` holds the position in `new_table` of each
        // bundle component's column (`NO_COLUMN`, never read, for a
        // sparse-set one); the target archetype has a sparse set for every
        // sparse bundle component.
        unsafe {
            write_bundle(
                value,
                bundle_info,
                status,
                Some(&columns),
                entity,
                new_table,
                TableRow::new(row),
                &mut world.storages.sparse_sets,
                &world.components,
                change_tick,
                mode,
                panics,
            )
        };
    }
    set_moved_locations(world, group.archetype_id, target.archetype_id, start, n);
}

/// The [`ComponentSink`] of a whole-table insert whose components are all
/// new table components: it writes each value and its ticks at `row` of
/// the columns `tails` (bundle order), past their length.
///
/// Invariant: the bundle hands out one value per tail, each of the tail's
/// component, and `row` is below every column's capacity.
struct FillSink<'a> {
    tails: &'a [ColumnTail],
    next: usize,
    row: usize,
    tick: Tick,
    panics: &'a mut DropPanics,
}

/// Writes the components of `value`, whose columns are `tails` (bundle
/// order, as [`FillSink`] requires), and their ticks at `row`.
#[inline(always)]
fn fill_row<B: Bundle>(
    tails: &[ColumnTail],
    row: usize,
    tick: Tick,
    panics: &mut DropPanics,
    value: B,
) {
    let mut sink = FillSink {
        tails,
        next: 0,
        row,
        tick,
        panics,
    };
    value.get_components(&mut sink);
    debug_assert_eq!(sink.next, tails.len(), "every component written");
}

impl FillSink<'_> {
    /// The next column, and its ticks of `row` set to the insert's tick.
    #[inline(always)]
    fn next_column(&mut self) -> ColumnTail {
        debug_assert!(self.next < self.tails.len());
        // SAFETY: one value per tail (type invariant).
        let tail = unsafe { *self.tails.get_unchecked(self.next) };
        self.next += 1;
        // SAFETY: `row` is within the tick arrays' capacity (invariant),
        // and nothing else reaches these rows while the insert runs.
        unsafe {
            (*tail.added.add(self.row)).get().write(self.tick);
            (*tail.changed.add(self.row)).get().write(self.tick);
        }
        tail
    }
}

impl ComponentSink for FillSink<'_> {
    #[inline(always)]
    fn put<C: Component>(&mut self, value: C) {
        let tail = self.next_column();
        // SAFETY: the column holds `C`s (invariant), so its stride is
        // `size_of::<C>()`, and `row` is within its capacity.
        unsafe { tail.data.cast::<C>().add(self.row).write(value) };
    }

    #[inline]
    unsafe fn put_ptr(&mut self, _: StorageType, value: *mut u8) {
        let tail = self.next_column();
        // SAFETY: `value` is an owned value of the column's component
        // (caller), moved into row `row`, within the capacity.
        unsafe {
            std::ptr::copy_nonoverlapping(value, tail.data.add(self.row * tail.stride), tail.size)
        };
    }

    #[inline]
    fn drop_unused<T>(&mut self, value: T) {
        self.panics.drop_owned(value);
    }
}

/// Records that the `n` entities of the archetype `from` (all of its rows)
/// moved to rows `start..start + n` of the table of archetype `to`.
fn set_moved_locations(
    world: &mut World,
    from: ArchetypeId,
    to: ArchetypeId,
    start: usize,
    n: usize,
) {
    world.archetypes[from].clear_entities();
    let target = &mut world.archetypes[to];
    let table_id = target.table_id();
    let moved = &world.storages.tables[table_id].entities()[start..start + n];
    let first_row = target.allocate_moved(moved, start);
    // SAFETY: the moved entities are live, and their values are now at
    // rows `start..start + n` of the target table, in order, and at the
    // archetype rows `allocate_moved` gave from `first_row` on.
    unsafe {
        world
            .entities
            .set_run(moved, to, first_row, table_id, start)
    };
}

/// Removes the bundle `bundle_id` from the groups' entities.
fn remove_groups(world: &mut World, groups: &[MatchedGroup], bundle_id: BundleId) {
    let targets: Vec<ArchetypeId> = groups
        .iter()
        .map(|group| {
            world.bundles[bundle_id]
                .remove_bundle_from_archetype(
                    &mut world.archetypes,
                    &mut world.storages,
                    &world.components,
                    group.archetype_id,
                    true,
                )
                .expect("remove always has a target archetype")
        })
        .collect();
    let mut panics = DropPanics::default();
    for (group, &target) in groups.iter().zip(&targets) {
        // A group whose archetype has no work before a remove passes whole
        // (hooks and observers change no entity's archetype: their
        // structural changes wait in commands).
        let flags = world.archetypes[group.archetype_id].flags();
        if target == group.archetype_id || !flags.intersects(before_remove_flags()) {
            continue;
        }
        for &entity in &group.entities {
            let location = matched_location(world, entity);
            fire_before_remove(world, entity, location, bundle_id, &mut panics);
        }
    }
    world.flush_entities();
    for (group, &target) in groups.iter().zip(&targets) {
        if target == group.archetype_id {
            continue;
        }
        let source_table = world.archetypes[group.archetype_id].table_id();
        if moves_whole_table(world, group) && world.archetypes[target].table_id() != source_table {
            remove_whole_table(world, group, bundle_id, target, &mut panics);
        } else {
            for &entity in &group.entities {
                let location = matched_location(world, entity);
                // SAFETY: `location` is current, the world is flushed, and
                // the remove edge to `target` was cached above.
                unsafe {
                    remove_bundle_unhooked(world, entity, location, bundle_id, target, &mut panics)
                };
            }
        }
    }
    panics.finish();
}

/// Moves the whole table of `group` to the table of `target`, dropping the
/// bundle's values (table and sparse), and sets every moved entity's
/// location. `group` must be every row of its archetype's table, which the
/// archetype owns, and `target` the remove target of `bundle_id` from it,
/// with another table.
fn remove_whole_table(
    world: &mut World,
    group: &MatchedGroup,
    bundle_id: BundleId,
    target: ArchetypeId,
    panics: &mut DropPanics,
) {
    let source = &world.archetypes[group.archetype_id];
    assert!(
        moves_whole_table(world, group),
        "the group is its whole table"
    );
    let sparse: Vec<ComponentId> = world.bundles[bundle_id]
        .components()
        .iter()
        .copied()
        .filter(|&id| source.get_storage_type(id) == Some(StorageType::SparseSet))
        .collect();
    if !sparse.is_empty() {
        for &entity in &group.entities {
            drop_sparse_values(
                &mut world.storages.sparse_sets,
                sparse.iter().copied(),
                entity,
                panics,
            );
        }
    }
    let (source_table, target_table) = (source.table_id(), world.archetypes[target].table_id());
    let moves = source.edges().table_moves(EdgeKind::Remove(bundle_id));
    let (old_table, new_table) = world.storages.tables.get_2_mut(source_table, target_table);
    // SAFETY: different tables (checked by the caller); `moves` is the
    // cached remove edge's; the target adds no column (a remove only takes
    // away), so the moved rows are whole.
    let start = unsafe { old_table.move_all_rows(new_table, moves, panics) };
    let n = group.entities.len();
    set_moved_locations(world, group.archetype_id, target, start, n);
}

/// Despawns the groups' entities.
fn despawn_groups(world: &mut World, groups: &[MatchedGroup]) {
    let mut panics = DropPanics::default();
    for group in groups {
        let archetype = &world.archetypes[group.archetype_id];
        let flags = archetype.flags();
        if !flags.intersects(
            Lifecycle::Despawn.any_flags()
                | Lifecycle::Discard.any_flags()
                | Lifecycle::Remove.any_flags()
                | ArchetypeFlags::REMOVAL_TRACKED,
        ) {
            continue;
        }
        let components: Vec<ComponentId> = archetype.components().collect();
        for &entity in &group.entities {
            for kind in [Lifecycle::Despawn, Lifecycle::Discard, Lifecycle::Remove] {
                if flags.intersects(kind.any_flags()) {
                    trigger_lifecycle(world, kind, entity, &components, &mut panics);
                }
            }
            if flags.contains(ArchetypeFlags::REMOVAL_TRACKED) {
                world
                    .removed_components
                    .record(entity, components.iter().copied());
            }
        }
    }
    // Entities the hooks reserved become live before the frees below,
    // which would otherwise hand their ids out again.
    world.flush_entities();
    for group in groups {
        if moves_whole_table(world, group) {
            despawn_whole_table(world, group, &mut panics);
        } else {
            for &entity in &group.entities {
                let location = world.entities.free(entity).expect("hooks cannot despawn");
                // SAFETY: `location` was the entity's location as it was
                // freed, and nothing has moved since.
                unsafe { remove_entity(world, entity, location, &mut panics) };
            }
        }
    }
    panics.finish();
}

/// Frees every entity of `group`, which is every row of its archetype's
/// table (owned by the archetype), and drops all their values.
fn despawn_whole_table(world: &mut World, group: &MatchedGroup, panics: &mut DropPanics) {
    for &entity in &group.entities {
        world.entities.free(entity).expect("hooks cannot despawn");
    }
    let archetype = &mut world.archetypes[group.archetype_id];
    if !archetype.sparse_set_components().is_empty() {
        for &entity in &group.entities {
            drop_sparse_values(
                &mut world.storages.sparse_sets,
                archetype.sparse_set_components().iter().copied(),
                entity,
                panics,
            );
        }
    }
    archetype.clear_entities();
    world.storages.tables[archetype.table_id()].clear(panics);
}
