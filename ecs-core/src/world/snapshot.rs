//! In-memory snapshots of a world, their restore, and checksums.
//!
//! A snapshot copies what the world holds of the components and resources
//! opted in ([`World::register_snapshot`] and its siblings): every table
//! column and sparse set of those components, value by value with their
//! ticks, plus the entity allocator, each archetype's entity list, the
//! opted-in resources, and the last runs of the systems and run conditions
//! of the schedules stored in the world. A restore puts exactly that back,
//! so entity ids, archetypes, values and `Added`/`Changed` answers are the
//! snapshot's, and runs no hook, observer or command.
//!
//! [`World::snapshot_into`] writes over a snapshot made before, reusing
//! its memory: a rollback that snapshots every frame into a ring of
//! snapshots allocates nothing once the ring is warm (for `Copy`
//! components; a `Clone` type's values are cloned into new columns).
//!
//! # Ticks
//! The world's clock never runs back. A restore moves every tick it puts
//! back (values, resources, system last runs, the world's last change
//! tick) on by the ticks elapsed since the snapshot, so every comparison
//! answers as it did then. A system outside the stored schedules (one of a
//! schedule running at the time, an observer, a one-shot system) keeps its
//! own last run, and may see the restored values as changed once.
//!
//! # Opting in
//! On the type, for every world: `#[component(snapshot)]` /
//! `#[resource(snapshot)]`, or `snapshot = hash` to take part in
//! [`World::checksum`] too (see
//! [`SnapshotBehavior`](crate::component::SnapshotBehavior)). Per world:
//! [`World::register_snapshot`] and its siblings, which win over the type's
//! declaration.
//!
//! # System state
//! A restore rewinds the world, not the systems: a system's `Local`s, and
//! so a `MessageReader`'s cursor, keep their values. State that must roll
//! back lives in opted-in resources, and a rolled-back system reads
//! messages through `Res<Messages<M>>`.
//!
//! # Components that are not opted in
//! They are left as they are: an entity restored with such a component in
//! its archetype keeps the value it has now (moved to its restored row),
//! and the sparse set of such a component gets back the entity order it
//! had at the snapshot, which a query walking the set iterates in.
//! The restore is refused, before anything changes, when a restored entity
//! no longer has one of them, or when it would drop a value of one whose
//! component has lifecycle hooks (an observer spawned after the snapshot,
//! for instance), since dropping it without its hooks would leave what the
//! hooks maintain behind. A relationship's two ends (`ChildOf` and
//! `Children`, a derived `#[relationship]` and its target, a relation's
//! `Targets` and `Sources`) are opted in together or not at all: a
//! restore with only one of them opted in is refused, since the restored
//! end would name entities the kept end does not list back.
//!
//! # How a restore stays whole
//! It checks everything first, then clones the snapshot's values into
//! columns of their own (a panicking `Clone` drops those and leaves the
//! world untouched), and only then empties the world's storage and moves
//! the clones in. From there on no user code runs but `Drop` of the values
//! replaced, whose panics are caught and re-raised once the world is whole.
//!
//! Values of `Copy` components opted in as such
//! ([`World::register_snapshot_copy`], or `#[component(snapshot)]` on a
//! `Copy` type) skip the staging: no `Clone` runs for them, so nothing can
//! fail half way, and each column is copied from the snapshot straight
//! into the emptied table with one `memcpy`:
//!
//! ```text
//!  snapshot column ──clone──▶ staged column ──move──▶ table   (Clone types)
//!  snapshot column ─────────── memcpy ──────────────▶ table   (Copy types)
//! ```

use std::hash::{DefaultHasher, Hash, Hasher};

use hashbrown::HashMap;

use super::{World, WorldId};
use crate::{
    archetype::{ArchetypeEntity, ArchetypeId},
    change_detection::{DetectChangesMut, Tick},
    component::{Component, ComponentId, HashValueFn, SnapshotBehavior, SnapshotFns},
    entity::{Entities, Entity, EntityHashMap},
    resource::Resource,
    schedule::{InternedScheduleLabel, Schedules},
    storage::{CloneValuesFn, Column, FillValues, TableId},
    utils::{slot_at, DropPanics},
};

/// The components and resources opted into snapshots, by id.
#[derive(Default)]
pub(crate) struct SnapshotRegistry {
    fns: Vec<Option<SnapshotFns>>,
}

impl std::fmt::Debug for SnapshotRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SnapshotRegistry")
            .field("opted_in", &self.fns.iter().filter(|f| f.is_some()).count())
            .finish()
    }
}

impl SnapshotRegistry {
    fn get(&self, id: ComponentId) -> Option<SnapshotFns> {
        self.fns.get(id.index()).copied().flatten()
    }

    fn set(&mut self, id: ComponentId, behavior: SnapshotBehavior) {
        if self.fns.len() <= id.index() {
            self.fns.resize(id.index() + 1, None);
        }
        self.fns[id.index()] = behavior.fns();
    }
}

/// A copy of a world's opted-in state, made by [`World::snapshot`] and put
/// back by [`World::restore`], as many times as wanted.
///
/// It holds clones of the opted-in values, so it is as `Send` and `Sync`
/// as they are (components and resources are both).
pub struct WorldSnapshot {
    world: WorldId,
    change_tick: Tick,
    last_change_tick: Tick,
    entities: Entities,
    tables: Vec<TableSnapshot>,
    sparse_sets: Vec<SparseSnapshot>,
    /// The entity order of each sparse set not opted in (its values are
    /// left as they are): a restore puts the values it keeps back in this
    /// order, which a query walking the set iterates in.
    sparse_orders: Vec<(ComponentId, Vec<Entity>)>,
    archetypes: Vec<ArchetypeSnapshot>,
    /// Every resource opted in when the snapshot was made, with its value
    /// (and ticks) if it was present.
    resources: Vec<(ComponentId, Option<Cloned>)>,
    /// The last runs of the systems and run conditions of the schedules
    /// stored in the world.
    schedules: Vec<(InternedScheduleLabel, Vec<Tick>)>,
}

/// Clones of one component's values (with ticks), and how to clone them
/// again.
struct Cloned {
    values: Column,
    clone: CloneValuesFn,
    /// The type is `Copy` ([`SnapshotFns::bitwise`]).
    bitwise: bool,
}

impl Cloned {
    /// Another clone of the values, to move into the world, with every
    /// tick moved on by `delta`.
    fn clone_again(&self, delta: u32) -> Column {
        // SAFETY: `clone` is the function the values were cloned with, of
        // their component's type.
        let mut column = unsafe { self.values.clone_column(self.clone) };
        column.shift_ticks(delta);
        column
    }

    /// The values to put into the emptied world: a `Copy` type's straight
    /// from the snapshot (nothing can panic), any other's cloned now into
    /// a column of their own (a panic leaves the world untouched).
    fn stage(&self, delta: u32) -> FillValues<'_> {
        if self.bitwise {
            FillValues::Copied(&self.values, delta)
        } else {
            FillValues::Moved(self.clone_again(delta))
        }
    }
}

impl std::fmt::Debug for WorldSnapshot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WorldSnapshot")
            .field("world", &self.world)
            .field("change_tick", &self.change_tick)
            .field("entities", &self.entities.len())
            .field("tables", &self.tables.len())
            .finish_non_exhaustive()
    }
}

impl WorldSnapshot {
    /// The world the snapshot was made of.
    pub fn world_id(&self) -> WorldId {
        self.world
    }

    /// The number of live entities the snapshot holds.
    pub fn entity_count(&self) -> u32 {
        self.entities.len()
    }
}

struct TableSnapshot {
    entities: Vec<Entity>,
    /// By column position: the clones of an opted-in component's values.
    columns: Vec<Option<Cloned>>,
}

struct SparseSnapshot {
    id: ComponentId,
    entities: Vec<Entity>,
    values: Cloned,
}

struct ArchetypeSnapshot {
    len: u32,
    /// `None` when the archetype owned its table.
    entities: Option<Vec<ArchetypeEntity>>,
}

/// Why [`World::restore`] refused a snapshot. The world is unchanged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RestoreError {
    /// The snapshot was made of another world.
    WrongWorld {
        /// The world the snapshot was made of.
        snapshot: WorldId,
        /// The world asked to restore it.
        world: WorldId,
    },
    /// A restored entity no longer has a component that is not opted into
    /// snapshots, so there is no value to give it.
    MissingComponent {
        /// The entity.
        entity: Entity,
        /// The component's name.
        component: String,
    },
    /// Restoring would drop a value of a component that is not opted into
    /// snapshots and has lifecycle hooks, without running them.
    WouldDropHooked {
        /// The entity holding the value.
        entity: Entity,
        /// The component's name.
        component: String,
    },
    /// One end of a relationship (`ChildOf`, a derived `#[relationship]`,
    /// a relation's `Targets`) is opted into snapshots and the other
    /// (`Children`, the `#[relationship_target]`, `Sources`) is not: the
    /// restored end would name entities the kept end does not list back.
    HalfARelationship {
        /// The end opted in.
        opted_in: String,
        /// The end that is not.
        other: String,
    },
}

impl std::fmt::Display for RestoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RestoreError::WrongWorld { snapshot, world } => write!(
                f,
                "cannot restore a snapshot of world {snapshot:?} into world {world:?}"
            ),
            RestoreError::MissingComponent { entity, component } => write!(
                f,
                "cannot restore entity {entity}: it needs its current `{component}` \
                 (not opted into snapshots), which it no longer has"
            ),
            RestoreError::WouldDropHooked { entity, component } => write!(
                f,
                "restoring would drop `{component}` of entity {entity} without running its \
                 hooks (`{component}` is not opted into snapshots and has lifecycle hooks)"
            ),
            RestoreError::HalfARelationship { opted_in, other } => write!(
                f,
                "cannot restore `{opted_in}` without `{other}`, the other end of its \
                 relationship: opt both into snapshots, or neither"
            ),
        }
    }
}

impl std::error::Error for RestoreError {}

/// A value of a component that is not opted in, moved from where it is now
/// to a restored entity's row.
struct Source {
    table: TableId,
    position: usize,
    row: usize,
}

/// The values of one not-opted-in component a restored table needs.
struct TablePlan {
    table: usize,
    position: usize,
    sources: Vec<Source>,
}

/// The values of one not-opted-in sparse-set component restored entities
/// need, by the entity's dense row now.
struct SparsePlan {
    id: ComponentId,
    entities: Vec<Entity>,
    rows: Vec<usize>,
}

impl SparsePlan {
    /// Puts the planned entities in the order they had in the set when the
    /// snapshot was made (`order`), so that a walk of the restored set
    /// iterates as it did then. Every planned entity had the component
    /// then; one missing from `order` would go last.
    fn follow(&mut self, order: &[Entity]) {
        let position: EntityHashMap<usize> =
            order.iter().enumerate().map(|(at, &e)| (e, at)).collect();
        let mut pairs: Vec<(usize, Entity, usize)> = self
            .entities
            .iter()
            .zip(&self.rows)
            .map(|(&e, &row)| (position.get(&e).copied().unwrap_or(usize::MAX), e, row))
            .collect();
        pairs.sort_by_key(|&(at, _, _)| at);
        self.entities = pairs.iter().map(|&(_, e, _)| e).collect();
        self.rows = pairs.iter().map(|&(_, _, row)| row).collect();
    }
}

impl World {
    /// Opts the component `T` into snapshots: [`World::snapshot`] clones its
    /// values and [`World::restore`] puts them back. It does not take part
    /// in [`World::checksum`] (see [`World::register_snapshot_hashed`]).
    /// Registers `T` if needed and returns its id. `#[component(snapshot)]`
    /// on the type opts it into every world without this call.
    ///
    /// ```
    /// # use ecs::prelude::*;
    /// #[derive(Component, Clone, PartialEq, Debug)]
    /// struct Health(u32);
    ///
    /// let mut world = World::new();
    /// world.register_snapshot::<Health>();
    /// let e = world.spawn(Health(10)).id();
    /// let snapshot = world.snapshot();
    /// world.get_mut::<Health>(e).unwrap().0 = 0;
    /// world.restore(&snapshot).unwrap();
    /// assert_eq!(world.get::<Health>(e), Some(&Health(10)));
    /// ```
    pub fn register_snapshot<T: Component + Clone>(&mut self) -> ComponentId {
        let id = self.register_component::<T>();
        self.snapshot_fns.set(id, SnapshotBehavior::cloned::<T>());
        id
    }

    /// [`World::register_snapshot`] for a `Copy` component: its values are
    /// copied bitwise, a whole column at a time, and a restore writes them
    /// straight into the world (no `Clone` runs, so none can panic half
    /// way). `#[component(snapshot)]` on a `Copy` type that is not generic
    /// picks this path by itself.
    ///
    /// ```
    /// # use ecs::prelude::*;
    /// #[derive(Component, Clone, Copy, PartialEq, Debug)]
    /// struct Position(f32, f32);
    ///
    /// let mut world = World::new();
    /// world.register_snapshot_copy::<Position>();
    /// let e = world.spawn(Position(1.0, 2.0)).id();
    /// let snapshot = world.snapshot();
    /// world.get_mut::<Position>(e).unwrap().0 = 9.0;
    /// world.restore(&snapshot).unwrap();
    /// assert_eq!(world.get::<Position>(e), Some(&Position(1.0, 2.0)));
    /// ```
    pub fn register_snapshot_copy<T: Component + Copy>(&mut self) -> ComponentId {
        let id = self.register_component::<T>();
        self.snapshot_fns.set(id, SnapshotBehavior::copied::<T>());
        id
    }

    /// [`World::register_snapshot_copy`], and `T`'s values take part in
    /// [`World::checksum`] through their `Hash`.
    ///
    /// ```
    /// # use ecs::prelude::*;
    /// #[derive(Component, Clone, Copy, Hash)]
    /// struct Cell(i32, i32);
    ///
    /// let mut world = World::new();
    /// world.register_snapshot_copy_hashed::<Cell>();
    /// let e = world.spawn(Cell(0, 0)).id();
    /// let before = world.checksum();
    /// world.get_mut::<Cell>(e).unwrap().1 = 5;
    /// assert_ne!(world.checksum(), before);
    /// ```
    pub fn register_snapshot_copy_hashed<T: Component + Copy + Hash>(&mut self) -> ComponentId {
        let id = self.register_component::<T>();
        self.snapshot_fns
            .set(id, SnapshotBehavior::copied_hashed::<T>());
        id
    }

    /// [`World::register_snapshot`], and `T`'s values take part in
    /// [`World::checksum`] through their `Hash`.
    pub fn register_snapshot_hashed<T: Component + Clone + Hash>(&mut self) -> ComponentId {
        let id = self.register_component::<T>();
        self.snapshot_fns.set(id, SnapshotBehavior::hashed::<T>());
        id
    }

    /// Opts the resource `R` into snapshots: [`World::restore`] puts back
    /// its value (or its absence) as it was. Returns its id.
    pub fn register_resource_snapshot<R: Resource + Clone>(&mut self) -> ComponentId {
        let id = self.components.register_resource::<R>();
        self.snapshot_fns.set(id, SnapshotBehavior::cloned::<R>());
        id
    }

    /// [`World::register_resource_snapshot`], and `R`'s value takes part in
    /// [`World::checksum`] through its `Hash`.
    pub fn register_resource_snapshot_hashed<R: Resource + Clone + Hash>(&mut self) -> ComponentId {
        let id = self.components.register_resource::<R>();
        self.snapshot_fns.set(id, SnapshotBehavior::hashed::<R>());
        id
    }

    /// Copies the world's opted-in state (see [`WorldSnapshot`]), after
    /// flushing reserved entities and queued commands.
    ///
    /// # Panics
    /// If a `Clone` of an opted-in value panics; the world is unchanged and
    /// the clones made so far are dropped.
    pub fn snapshot(&mut self) -> WorldSnapshot {
        let mut snapshot = WorldSnapshot {
            world: self.id,
            change_tick: Tick::new(0),
            last_change_tick: Tick::new(0),
            entities: Entities::new(),
            tables: Vec::new(),
            sparse_sets: Vec::new(),
            sparse_orders: Vec::new(),
            archetypes: Vec::new(),
            resources: Vec::new(),
            schedules: Vec::new(),
        };
        self.snapshot_into(&mut snapshot);
        snapshot
    }

    /// [`World::snapshot`] into an existing snapshot (of this world or any
    /// other), reusing its memory: the columns of `Copy` components
    /// ([`World::register_snapshot_copy`]), the entity lists and the
    /// allocator copy are overwritten in place where they have room. A
    /// rollback that snapshots every frame into a ring of snapshots then
    /// allocates nothing once the ring is warm.
    ///
    /// ```
    /// # use ecs::prelude::*;
    /// #[derive(Component, Clone, Copy, PartialEq, Debug)]
    /// struct Pos(i32);
    ///
    /// let mut world = World::new();
    /// world.register_snapshot_copy::<Pos>();
    /// let e = world.spawn(Pos(1)).id();
    /// let mut ring: Vec<_> = (0..4).map(|_| world.snapshot()).collect();
    /// for frame in 0..12 {
    ///     world.get_mut::<Pos>(e).unwrap().0 = frame;
    ///     world.snapshot_into(&mut ring[frame as usize % 4]);
    /// }
    /// world.restore(&ring[9 % 4]).unwrap();
    /// assert_eq!(world.get::<Pos>(e), Some(&Pos(9)));
    /// ```
    ///
    /// # Panics
    /// If a `Clone` of an opted-in value panics; the world and `snapshot`
    /// are unchanged (every `Clone` runs before `snapshot` is touched) and
    /// the clones made so far are dropped.
    pub fn snapshot_into(&mut self, snapshot: &mut WorldSnapshot) {
        self.flush();
        // Every `Clone` first, into columns of their own: a panic leaves
        // `snapshot` as it was. `Copy` values are copied below, where
        // nothing can fail. Both lists stay unallocated when every
        // opted-in component is `Copy`.
        let mut cloned: Vec<((usize, usize), Column)> = Vec::new();
        for (index, table) in self.storages.tables.iter().enumerate() {
            let columns = table.component_ids().iter().zip(table.columns());
            for (position, (&id, column)) in columns.enumerate() {
                if let Some(fns) = self.snapshot_fns_of(id).filter(|fns| !fns.bitwise) {
                    // SAFETY: the functions were registered for this
                    // component's type.
                    let values = unsafe { column.clone_column(fns.clone_values) };
                    cloned.push(((index, position), values));
                }
            }
        }
        let mut sparse_cloned: Vec<(ComponentId, Column)> = Vec::new();
        for (id, set) in self.storages.sparse_sets.iter() {
            if let Some(fns) = self.snapshot_fns_of(id).filter(|fns| !fns.bitwise) {
                // SAFETY: as above.
                sparse_cloned.push((id, unsafe { set.column().clone_column(fns.clone_values) }));
            }
        }
        let resources = self.snapshot_resources();

        // From here on nothing can panic.
        if snapshot.world != self.id {
            // Another world's tables: nothing to reuse by position.
            snapshot.tables.clear();
            snapshot.sparse_sets.clear();
            snapshot.archetypes.clear();
        }
        snapshot.world = self.id;
        snapshot.change_tick = self.change_tick();
        snapshot.last_change_tick = self.last_change_tick;
        match self.get_resource::<Schedules>() {
            Some(schedules) => schedules.last_runs_into(&mut snapshot.schedules),
            None => snapshot.schedules.clear(),
        }
        snapshot.entities.restore_from(&self.entities, 0);
        snapshot.resources = resources;
        let mut cloned = cloned.into_iter().peekable();
        let tables = self.storages.tables.iter();
        snapshot.tables.truncate(tables.len());
        for (index, table) in tables.enumerate() {
            let saved = slot_at(&mut snapshot.tables, index, || TableSnapshot {
                entities: Vec::new(),
                columns: Vec::new(),
            });
            saved.entities.clear();
            saved.entities.extend_from_slice(table.entities());
            saved.columns.resize_with(table.columns().len(), || None);
            let columns = table.component_ids().iter().zip(table.columns());
            for (position, (slot, (&id, column))) in
                saved.columns.iter_mut().zip(columns).enumerate()
            {
                let Some(fns) = self.snapshot_fns_of(id) else {
                    *slot = None;
                    continue;
                };
                let clone = cloned
                    .next_if(|(at, _)| *at == (index, position))
                    .map(|(_, c)| c);
                // The slot's values, if any, are of this component: the
                // snapshot is of this world (cleared above otherwise),
                // whose tables keep their index and their columns for good.
                match slot {
                    // SAFETY: `saved` is of this component (above); `clone`
                    // was made exactly for a non-`Copy` one, of `column`.
                    Some(saved) => unsafe { refill(saved, clone, column, fns) },
                    // SAFETY: `clone` as above.
                    None => *slot = Some(unsafe { fresh(clone, column, fns) }),
                }
            }
        }
        let mut sparse_cloned = sparse_cloned.into_iter().peekable();
        let mut kept = 0;
        for (id, set) in self.storages.sparse_sets.iter() {
            let Some(fns) = self.snapshot_fns_of(id) else {
                continue;
            };
            let clone = sparse_cloned.next_if(|(at, _)| *at == id).map(|(_, c)| c);
            if kept == snapshot.sparse_sets.len() {
                snapshot.sparse_sets.push(SparseSnapshot {
                    id,
                    entities: set.entities().to_vec(),
                    // SAFETY: `clone` was made exactly for a non-`Copy`
                    // component, of this set's values.
                    values: unsafe { fresh(clone, set.column(), fns) },
                });
            } else {
                let saved = &mut snapshot.sparse_sets[kept];
                saved.entities.clear();
                saved.entities.extend_from_slice(set.entities());
                if saved.id == id {
                    // SAFETY: the entry's values are of this component
                    // (same id, same world); `clone` as above.
                    unsafe { refill(&mut saved.values, clone, set.column(), fns) };
                } else {
                    saved.id = id;
                    // SAFETY: as above.
                    saved.values = unsafe { fresh(clone, set.column(), fns) };
                }
            }
            kept += 1;
        }
        snapshot.sparse_sets.truncate(kept);
        let mut kept = 0;
        for (id, set) in self.storages.sparse_sets.iter() {
            if self.snapshot_fns_of(id).is_some() {
                continue;
            }
            let (saved_id, order) = slot_at(&mut snapshot.sparse_orders, kept, || (id, Vec::new()));
            *saved_id = id;
            order.clear();
            order.extend_from_slice(set.entities());
            kept += 1;
        }
        snapshot.sparse_orders.truncate(kept);
        let archetypes = self.archetypes.iter();
        snapshot.archetypes.truncate(archetypes.len());
        for (index, archetype) in archetypes.enumerate() {
            let saved = slot_at(&mut snapshot.archetypes, index, || ArchetypeSnapshot {
                len: 0,
                entities: None,
            });
            saved.len = archetype.len() as u32;
            archetype.entities_for_snapshot_into(&mut saved.entities);
        }
    }

    /// Clones of every opted-in resource's value (`None` when absent).
    fn snapshot_resources(&self) -> Vec<(ComponentId, Option<Cloned>)> {
        let mut resources = Vec::new();
        for index in 0..self.components.len() {
            let id = ComponentId::new(index);
            let Some(fns) = self.snapshot_fns_of(id) else {
                continue;
            };
            if !self.components.is_resource(id) {
                continue;
            }
            let value = self.storages.resources.get(id).and_then(|data| {
                let (ptr, ticks) = (data.get_data()?, data.get_ticks()?);
                let info = self.components.get_info(id)?;
                Some(Cloned {
                    // SAFETY: `ptr` is a valid value of the resource, and the
                    // functions were registered for its type.
                    values: unsafe {
                        Column::clone_one(
                            info.layout(),
                            info.drop_fn(),
                            ptr,
                            ticks,
                            fns.clone_values,
                        )
                    },
                    clone: fns.clone_values,
                    bitwise: fns.bitwise,
                })
            });
            resources.push((id, value));
        }
        resources
    }

    /// Puts back the state `snapshot` copied: the same entities with the
    /// same ids and archetypes, the opted-in values and resources with their
    /// ticks, and the stored schedules' system last runs (every tick moved
    /// on by the time since the snapshot). No hook, observer or command
    /// runs. Components that are not opted in are left as they are: a
    /// restored entity keeps its current value of them. Reserved entities and queued commands are
    /// flushed first.
    ///
    /// # Errors
    /// The world is unchanged if the snapshot is of another world, if a
    /// component that is not opted in stands in the way, or if only one
    /// end of a relationship is opted in (see [`RestoreError`]).
    ///
    /// # Panics
    /// If a `Clone` of a snapshot value panics (the world is unchanged), or
    /// if a `Drop` of a replaced value panics (the restore is complete; the
    /// first such panic is re-raised at the end).
    pub fn restore(&mut self, snapshot: &WorldSnapshot) -> Result<(), RestoreError> {
        if snapshot.world != self.id {
            return Err(RestoreError::WrongWorld {
                snapshot: snapshot.world,
                world: self.id,
            });
        }
        self.flush();
        self.check_relationship_ends()?;
        let (table_plans, sparse_plans) = self.plan_restore(snapshot)?;
        let keep = self.keep_masks(&table_plans, &sparse_plans);
        self.check_hooked_drops(&keep)?;

        // The clock never runs back: every restored tick moves on by the
        // time since the snapshot, so each comparison answers as it did.
        let delta = self
            .change_tick()
            .get()
            .wrapping_sub(snapshot.change_tick.get());
        // Clones first: a panic here leaves the world as it was.
        let mut staged: Vec<Vec<Option<FillValues<'_>>>> = snapshot
            .tables
            .iter()
            .map(|table| {
                table
                    .columns
                    .iter()
                    .map(|column| column.as_ref().map(|c| c.stage(delta)))
                    .collect()
            })
            .collect();
        let staged_sparse: Vec<FillValues<'_>> = snapshot
            .sparse_sets
            .iter()
            .map(|set| set.values.stage(delta))
            .collect();
        let mut staged_resources: Vec<(ComponentId, Option<Column>)> = snapshot
            .resources
            .iter()
            .map(|(id, value)| (*id, value.as_ref().map(|c| c.clone_again(delta))))
            .collect();

        // From here on only `Drop` of replaced values runs user code, and
        // its panics wait until the world is whole.
        let mut panics = DropPanics::default();
        for plan in &table_plans {
            let from = &self.storages.tables[TableId::new(plan.table)];
            let mut column = from.columns()[plan.position].empty_like(plan.sources.len());
            for source in &plan.sources {
                let table = &self.storages.tables[source.table];
                let current = &table.columns()[source.position];
                // SAFETY: the source row is below the column's length (it is
                // a live entity's row, checked in `plan_restore`); the value
                // is moved bitwise and its old slot is kept, not dropped,
                // when the table is emptied below (`keep`).
                unsafe {
                    let ticks = current.get_ticks_unchecked(source.row);
                    column.push(current.get_data_unchecked(source.row), ticks);
                }
            }
            staged[plan.table][plan.position] = Some(FillValues::Moved(column));
        }
        let mut moved_sparse = Vec::with_capacity(sparse_plans.len());
        for plan in &sparse_plans {
            let set = self
                .storages
                .sparse_sets
                .get(plan.id)
                .expect("planned sparse sets exist");
            let current = set.column();
            let mut column = current.empty_like(plan.rows.len());
            for &row in &plan.rows {
                // SAFETY: as for the tables above: a live dense row, kept
                // when the set is emptied.
                unsafe {
                    let ticks = current.get_ticks_unchecked(row);
                    column.push(current.get_data_unchecked(row), ticks);
                }
            }
            moved_sparse.push(FillValues::Moved(column));
        }

        for (index, table) in self.storages.tables.iter_mut().enumerate() {
            table.clear_keeping(
                |position| keep.tables.get(&(index, position)).map(Vec::as_slice),
                &mut panics,
            );
        }
        for (id, set) in self.storages.sparse_sets.iter_mut() {
            set.clear_keeping(keep.sparse.get(&id).map(Vec::as_slice), &mut panics);
        }

        for (index, (table, columns)) in snapshot.tables.iter().zip(staged).enumerate() {
            let columns: Vec<FillValues<'_>> = columns
                .into_iter()
                .map(|c| c.expect("every column is staged: cloned, copied or moved"))
                .collect();
            // SAFETY: the table was emptied above; each staged column holds
            // one value of its position's component per snapshot entity,
            // and copies only values of `Copy` types (`Cloned::stage`).
            unsafe { self.storages.tables[TableId::new(index)].fill(&table.entities, columns) };
        }
        for (set, values) in snapshot.sparse_sets.iter().zip(staged_sparse) {
            let target = self
                .storages
                .sparse_sets
                .get_mut(set.id)
                .expect("a sparse set, once made, stays");
            // SAFETY: emptied above; one cloned value per distinct entity,
            // copied only for `Copy` types.
            unsafe { target.fill(&set.entities, values) };
        }
        for (plan, values) in sparse_plans.iter().zip(moved_sparse) {
            let target = self
                .storages
                .sparse_sets
                .get_mut(plan.id)
                .expect("planned sparse sets exist");
            // SAFETY: emptied above; one moved value per distinct entity.
            unsafe { target.fill(&plan.entities, values) };
        }

        for index in 0..self.archetypes.len() {
            let id = ArchetypeId::new(index);
            let table_id = self.archetypes[id].table_id();
            let table = &self.storages.tables[table_id];
            match snapshot.archetypes.get(index) {
                Some(recorded) => self.archetypes[id].restore_entities(
                    recorded.len,
                    recorded.entities.as_deref(),
                    table,
                ),
                None => self.archetypes[id].restore_entities(0, Some(&[]), table),
            }
        }
        self.entities.restore_from(&snapshot.entities, delta);

        for (id, staged) in &mut staged_resources {
            let Some(info) = self.components.get_info(*id) else {
                continue;
            };
            let drop = info.drop_fn();
            let data = self.storages.resources.get_or_insert(info);
            if let Some((old, _)) = data.remove() {
                if let Some(drop) = drop {
                    // SAFETY: the removed value is owned here and dropped once.
                    unsafe { panics.drop_value(drop, old) };
                }
            }
            if let Some(column) = staged {
                // SAFETY: the staged column holds one cloned value of this
                // resource; it is moved out (forgotten there) into the
                // resource, which is absent after the removal above.
                unsafe {
                    let (value, ticks) = column.swap_remove_and_forget(0);
                    data.insert_with_ticks(value, ticks);
                }
            }
        }

        // Refusals waiting for their removal were flushed above; any left
        // (their removal lost) name links of the world replaced here.
        self.refused_links.clear();
        self.last_change_tick = Tick::new(snapshot.last_change_tick.get().wrapping_add(delta));
        if let Some(mut schedules) = self.get_resource_mut::<Schedules>() {
            schedules
                .bypass_change_detection()
                .set_last_runs(&snapshot.schedules, delta);
        }
        panics.finish();
        Ok(())
    }

    /// Refuses a restore of one end of a relationship without the other.
    fn check_relationship_ends(&self) -> Result<(), RestoreError> {
        for info in self.components.iter() {
            let Some(partner) = info.snapshot_partner() else {
                continue;
            };
            let Some(partner) = self.components.get_id(partner) else {
                continue;
            };
            let opted_in = |id| self.snapshot_fns_of(id).is_some();
            if opted_in(info.id()) && !opted_in(partner) {
                return Err(RestoreError::HalfARelationship {
                    opted_in: info.name().to_owned(),
                    other: self.component_name(partner),
                });
            }
        }
        Ok(())
    }

    /// Finds, for every restored value of a component that is not opted
    /// in, where it is now; refuses if it is gone.
    fn plan_restore(
        &self,
        snapshot: &WorldSnapshot,
    ) -> Result<(Vec<TablePlan>, Vec<SparsePlan>), RestoreError> {
        let missing = |entity: Entity, id: ComponentId| RestoreError::MissingComponent {
            entity,
            component: self.component_name(id),
        };
        let mut table_plans = Vec::new();
        // Empty tables too: each of their columns must be staged, empty.
        for (index, recorded) in snapshot.tables.iter().enumerate() {
            let table = &self.storages.tables[TableId::new(index)];
            for (position, column) in recorded.columns.iter().enumerate() {
                if column.is_some() {
                    continue;
                }
                let id = table.component_ids()[position];
                let mut sources = Vec::with_capacity(recorded.entities.len());
                for &entity in &recorded.entities {
                    let location = self
                        .entities
                        .get(entity)
                        .ok_or_else(|| missing(entity, id))?;
                    let now = &self.storages.tables[location.table_id];
                    let position = now.column_index(id).ok_or_else(|| missing(entity, id))?;
                    sources.push(Source {
                        table: location.table_id,
                        position,
                        row: location.table_row.index(),
                    });
                }
                table_plans.push(TablePlan {
                    table: index,
                    position,
                    sources,
                });
            }
        }

        let mut sparse: HashMap<ComponentId, SparsePlan> = HashMap::new();
        for (index, recorded) in snapshot.archetypes.iter().enumerate() {
            if recorded.len == 0 {
                continue;
            }
            let archetype = &self.archetypes[ArchetypeId::new(index)];
            let unmanaged: Vec<ComponentId> = archetype
                .sparse_set_components()
                .iter()
                .copied()
                .filter(|&id| !snapshot.sparse_sets.iter().any(|s| s.id == id))
                .collect();
            if unmanaged.is_empty() {
                continue;
            }
            let entities: Vec<Entity> = match &recorded.entities {
                Some(list) => list.iter().map(ArchetypeEntity::id).collect(),
                None => snapshot.tables[archetype.table_id().index()]
                    .entities
                    .clone(),
            };
            for id in unmanaged {
                let set = self.storages.sparse_sets.get(id);
                let plan = sparse.entry(id).or_insert_with(|| SparsePlan {
                    id,
                    entities: Vec::new(),
                    rows: Vec::new(),
                });
                for &entity in &entities {
                    let row = set
                        .filter(|_| self.entities.get(entity).is_some())
                        .and_then(|set| set.dense_row_of(entity))
                        .ok_or_else(|| missing(entity, id))?;
                    plan.entities.push(entity);
                    plan.rows.push(row);
                }
            }
        }
        let mut sparse: Vec<SparsePlan> = sparse.into_values().collect();
        sparse.sort_by_key(|plan| plan.id);
        for plan in &mut sparse {
            if let Some((_, order)) = snapshot.sparse_orders.iter().find(|(id, _)| *id == plan.id) {
                plan.follow(order);
            }
        }
        Ok((table_plans, sparse))
    }

    /// Which values now in the world are moved to a restored entity (and
    /// so not dropped when the storage is emptied).
    fn keep_masks(&self, tables: &[TablePlan], sparse: &[SparsePlan]) -> KeepMasks {
        let mut keep = KeepMasks::default();
        for plan in tables {
            for source in &plan.sources {
                let len = self.storages.tables[source.table].entity_count();
                keep.tables
                    .entry((source.table.index(), source.position))
                    .or_insert_with(|| vec![false; len])[source.row] = true;
            }
        }
        for plan in sparse {
            let len = self
                .storages
                .sparse_sets
                .get(plan.id)
                .map_or(0, |set| set.len());
            let mask = keep
                .sparse
                .entry(plan.id)
                .or_insert_with(|| vec![false; len]);
            for &row in &plan.rows {
                mask[row] = true;
            }
        }
        keep
    }

    /// Refuses a restore that would drop a value of a component that is
    /// not opted in and has lifecycle hooks.
    fn check_hooked_drops(&self, keep: &KeepMasks) -> Result<(), RestoreError> {
        let hooked = |id: ComponentId| {
            self.components.get_info(id).is_some_and(|info| {
                let hooks = info.hooks();
                hooks.on_remove.is_some()
                    || hooks.on_discard.is_some()
                    || hooks.on_despawn.is_some()
            })
        };
        // An opted-in component's values are the restore's to replace, in
        // tables and sparse sets made after the snapshot too.
        let managed = |id: ComponentId| self.snapshot_fns_of(id).is_some();
        let refuse = |entity: Entity, id: ComponentId| RestoreError::WouldDropHooked {
            entity,
            component: self.component_name(id),
        };
        for (index, table) in self.storages.tables.iter().enumerate() {
            for (position, &id) in table.component_ids().iter().enumerate() {
                if managed(id) || !hooked(id) {
                    continue;
                }
                let mask = keep.tables.get(&(index, position));
                for (row, &entity) in table.entities().iter().enumerate() {
                    if !mask.is_some_and(|m| m[row]) {
                        return Err(refuse(entity, id));
                    }
                }
            }
        }
        for (id, set) in self.storages.sparse_sets.iter() {
            if managed(id) || !hooked(id) {
                continue;
            }
            let mask = keep.sparse.get(&id);
            for (row, &entity) in set.entities().iter().enumerate() {
                if !mask.is_some_and(|m| m[row]) {
                    return Err(refuse(entity, id));
                }
            }
        }
        Ok(())
    }

    /// How the component or resource `id` is snapshotted, if it is: as the
    /// world opted it in, or else as its type declares.
    fn snapshot_fns_of(&self, id: ComponentId) -> Option<SnapshotFns> {
        self.snapshot_fns.get(id).or_else(|| {
            self.components
                .get_info(id)
                .and_then(|info| info.snapshot_behavior().fns())
        })
    }

    fn component_name(&self, id: ComponentId) -> String {
        self.components
            .get_info(id)
            .map_or_else(|| format!("{id:?}"), |info| info.name().to_owned())
    }

    /// A 64-bit hash of the opted-in state that components and resources
    /// registered with a hash contribute to, plus the set of live entities.
    ///
    /// Equal worlds give equal checksums whatever order their archetypes
    /// and tables were made in: each (entity, component, value) is hashed
    /// on its own and the hashes are summed. Components are told apart by
    /// type name, so two worlds that registered them in another order
    /// agree. The hash is `std`'s `DefaultHasher` with its fixed keys: the
    /// same program gives the same checksum on every run and machine of
    /// the same pointer width and endianness.
    pub fn checksum(&self) -> u64 {
        let mut sum = 0u64;
        let name_key = |id: ComponentId| {
            let mut state = DefaultHasher::new();
            self.component_name(id).hash(&mut state);
            state.finish()
        };
        let mut add =
            |key: u64, entity: Option<Entity>, value: Option<(HashValueFn, *const u8)>| {
                let mut state = DefaultHasher::new();
                key.hash(&mut state);
                entity.map(Entity::to_bits).hash(&mut state);
                if let Some((hash, ptr)) = value {
                    // SAFETY: `ptr` is a valid value of the component the
                    // function was registered for.
                    unsafe { hash(ptr, &mut state) };
                }
                sum = sum.wrapping_add(mix(state.finish()));
            };
        for table in self.storages.tables.iter() {
            for &entity in table.entities() {
                add(0, Some(entity), None);
            }
            for (&id, column) in table.component_ids().iter().zip(table.columns()) {
                let Some(hash) = self.snapshot_fns_of(id).and_then(|f| f.hash) else {
                    continue;
                };
                let key = name_key(id);
                for (row, &entity) in table.entities().iter().enumerate() {
                    // SAFETY: `row` is below the column's length.
                    let ptr = unsafe { column.get_data_unchecked(row) };
                    add(key, Some(entity), Some((hash, ptr)));
                }
            }
        }
        for (id, set) in self.storages.sparse_sets.iter() {
            let Some(hash) = self.snapshot_fns_of(id).and_then(|f| f.hash) else {
                continue;
            };
            let key = name_key(id);
            for (row, &entity) in set.entities().iter().enumerate() {
                // SAFETY: `row` is below the column's length.
                let ptr = unsafe { set.column().get_data_unchecked(row) };
                add(key, Some(entity), Some((hash, ptr)));
            }
        }
        for index in 0..self.components.len() {
            let id = ComponentId::new(index);
            if !self.components.is_resource(id) {
                continue;
            }
            let Some(hash) = self.snapshot_fns_of(id).and_then(|f| f.hash) else {
                continue;
            };
            if let Some(ptr) = self.storages.resources.get(id).and_then(|d| d.get_data()) {
                add(name_key(id), None, Some((hash, ptr)));
            }
        }
        sum
    }
}

/// One component's values for a snapshot: the `clone` made of a `Clone`
/// type, or a copy of `column`'s values.
///
/// # Safety
/// `fns` are `column`'s component's; `clone` is `Some` exactly when the
/// type is not `Copy` (`fns.bitwise` is false), and holds `column`'s
/// values.
unsafe fn fresh(clone: Option<Column>, column: &Column, fns: SnapshotFns) -> Cloned {
    Cloned {
        values: match clone {
            Some(clone) => clone,
            // SAFETY: the functions are the component's (caller); a `Copy`
            // type's clone is a copy, which cannot panic.
            None => unsafe { column.clone_column(fns.clone_values) },
        },
        clone: fns.clone_values,
        bitwise: fns.bitwise,
    }
}

/// [`fresh`] over `saved`, the values a snapshot held of the same
/// component: a `Copy` type's are copied over its column, reusing its
/// memory when it has room.
///
/// # Safety
/// As for [`fresh`], and `saved` holds values of `column`'s component.
unsafe fn refill(saved: &mut Cloned, clone: Option<Column>, column: &Column, fns: SnapshotFns) {
    if clone.is_none() && saved.bitwise && fns.bitwise {
        // SAFETY: the same `Copy` component (caller).
        unsafe { column.copy_over(&mut saved.values) };
    } else {
        // SAFETY: forwarded.
        *saved = unsafe { fresh(clone, column, fns) };
    }
}

/// The rows of values moved out of each table column and sparse set.
#[derive(Default)]
struct KeepMasks {
    tables: HashMap<(usize, usize), Vec<bool>>,
    sparse: HashMap<ComponentId, Vec<bool>>,
}

/// A finalising mix (splitmix64's), so that the sum of hashes spreads.
fn mix(mut x: u64) -> u64 {
    x ^= x >> 30;
    x = x.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x ^= x >> 27;
    x = x.wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}
