//! Archetypes: the sets of components entities have, and the graph of
//! moves between them.
//!
//! # What an archetype is
//!
//! Every entity belongs to exactly one [`Archetype`]: the set of its
//! component types. Entities with the same set share the archetype, in
//! whatever order their components were given or inserted; an archetype
//! holds the list of its entities and the ids of its components, not the
//! values.
//!
//! ```
//! use ecs::prelude::*;
//!
//! #[derive(Component)]
//! struct Position(f32);
//! #[derive(Component)]
//! struct Velocity(f32);
//!
//! let mut world = World::new();
//! let a = world.spawn((Position(0.0), Velocity(1.0))).id();
//! let b = world.spawn((Velocity(2.0), Position(5.0))).id();
//! let c = world.spawn(Position(0.0)).id();
//!
//! let archetype = |e: Entity| world.entity(e).archetype().id();
//! assert_eq!(archetype(a), archetype(b)); // same set, same archetype
//! assert_ne!(archetype(a), archetype(c));
//! assert_eq!(world.entity(a).archetype().len(), 2);
//! ```
//!
//! Archetypes are created on first need (by a spawn, insert or remove that
//! leads to a new set) and never removed, so an [`ArchetypeId`] stays valid
//! for the life of the world and ids only grow. [`ArchetypeId::EMPTY`], the
//! archetype of entities with no components, always exists.
//!
//! # Archetypes and tables
//!
//! The values live in storage (see [`storage`](crate::storage)), chosen per
//! component type by its [`StorageType`]: table components in a
//! [`Table`], one column per component, sparse-set
//! components in one [`ComponentSparseSet`](crate::storage::ComponentSparseSet)
//! per component. An archetype maps to the one table whose columns are its
//! table components, so archetypes that differ only in sparse-set
//! components share that table:
//!
//! ```text
//!  Archetype 1 {Position, Velocity}           \
//!  Archetype 2 {Position, Velocity, Stunned*}  >--> Table 1 {Position, Velocity}
//!  Archetype 3 {Position}                     ---> Table 2 {Position}
//!  Archetype 0 {} (the empty archetype)       \
//!  Archetype 4 {Stunned*}                      >--> Table 0 {} (the empty table)
//!                                    (* sparse-set component)
//! ```
//!
//! An archetype that shares its table keeps a list of its entities, each
//! with its row in the table ([`ArchetypeEntity`]). The two row orders are
//! independent: an entity's [`EntityLocation`](crate::entity::EntityLocation)
//! holds its archetype row *and* its table row.
//!
//! ```text
//!  Table 1                                Archetype 1 {Position, Velocity}
//!  row | entity | Position | Velocity      row | entity | table row
//!   0  |  0v1   |  (0, 0)  |  (1, 0)        0  |  0v1   |  0
//!   1  |  1v1   |  (3, 1)  |  (0, 1)        1  |  2v1   |  2
//!   2  |  2v1   |  (5, 5)  |  (1, 1)
//!                                         Archetype 2 {Position, Velocity, Stunned*}
//!                                          row | entity | table row
//!                                           0  |  1v1   |  1
//!
//!  location of 1v1: archetype 2, archetype row 0, table 1, table row 1
//! ```
//!
//! Most archetypes are alone on their table (Archetype 3 above): such an
//! archetype [owns its table](Archetype::owns_table) and keeps no list at
//! all. Its rows are the table's rows, an entity's archetype row is its
//! table row, and spawning, moving or despawning its entities updates one
//! row order, not two. An archetype stops owning its table when another
//! archetype comes to map to the same table (the first sparse-set
//! component inserted on one of its entities, say): its list is then built
//! from the table's, and from that moment both archetypes keep a list.
//! [`World::archetype_entities`](crate::world::World::archetype_entities)
//! lists an archetype's entities with their table rows either way.
//!
//! ```
//! use ecs::prelude::*;
//!
//! #[derive(Component)]
//! struct Position(f32);
//! #[derive(Component)]
//! #[component(storage = "SparseSet")]
//! struct Stunned;
//!
//! let mut world = World::new();
//! let a = world.spawn(Position(0.0)).id();
//! let b = world.spawn((Position(1.0), Stunned)).id();
//! let (la, lb) = (world.entity(a).location(), world.entity(b).location());
//! assert_ne!(la.archetype_id, lb.archetype_id);
//! assert_eq!(la.table_id, lb.table_id); // Stunned lives outside the table
//! assert!(!world.archetypes()[la.archetype_id].owns_table()); // shared
//!
//! let c = world.spawn(Stunned).id(); // {Stunned*} maps to the empty table
//! let lc = world.entity(c).location();
//! assert!(!world.archetypes()[lc.archetype_id].owns_table());
//!
//! #[derive(Component)]
//! struct Velocity(f32);
//! let d = world.spawn(Velocity(1.0)).id(); // alone on table {Velocity}
//! let ld = world.entity(d).location();
//! assert!(world.archetypes()[ld.archetype_id].owns_table());
//! assert_eq!(ld.archetype_row.index(), ld.table_row.index());
//! ```
//!
//! # The archetype graph and its cached edges
//!
//! Inserting or removing components moves an entity from one archetype to
//! another. Each archetype caches, in its [`Edges`], where each bundle
//! (each [`BundleId`](crate::bundle::BundleId), a dense integer: a single
//! component is a bundle too) leads from there. The edges form a graph over
//! the archetypes, built lazily as the program runs:
//!
//! ```text
//!                insert Velocity                    insert Stunned
//!  {Position} ──────────────────▶ {Position, Velocity} ──────────────▶ {Position, Velocity, Stunned*}
//!             ◀──────────────────                      ◀──────────────              ▲
//!                remove Velocity                    remove Stunned                  │
//!       │                                                                           │
//!       └────── insert (Velocity, Stunned): one bundle, one edge, straight there ───┘
//! ```
//!
//! An edge is stored on the archetype it starts from, in a
//! [`SparseArray`](crate::storage::SparseArray) indexed by the bundle id:
//!
//! - an insert edge ([`ArchetypeAfterBundleInsert`]) holds the target
//!   archetype, whether each of the bundle's components is
//!   [`Added`](ComponentStatus::Added) or replaces an
//!   [`Existing`](ComponentStatus::Existing) value, and the required
//!   components (`#[require(..)]`) the move must also add. Inserting only
//!   components the archetype already has is an edge back to itself;
//! - a remove edge holds the archetype left after removing whatever part of
//!   the bundle is present;
//! - a take edge holds the archetype left after moving the whole bundle
//!   out, or `None` when the archetype lacks part of it;
//! - each edge that changes table also holds, per column of the source
//!   table, the position of that component's column in the target's
//!   table (or none, for a column a remove or take drops): a move copies
//!   each value to its column by position, with no lookup by id. Tables
//!   never gain or lose columns, so the positions hold for good, and
//!   `World::check_integrity` verifies them.
//!
//! The first time a bundle is inserted into (or removed from) an archetype
//! the target is computed: every bundle component is checked against the
//! archetype, the new sorted component lists are built and looked up in
//! the map of all archetypes (creating the archetype, its table and its
//! sparse sets if new). The result is stored in the edge. Every later
//! insert or remove of that bundle from that archetype reads the edge, one
//! bounds check and one `Option` test, with no hashing and no allocation.
//! What the move then costs depends on the target: the same archetype
//! (values replaced in place), the same table (only sparse-set components
//! differ: the table row stays, only the archetype row moves), or another
//! table (the row's values move column by column, to the positions the
//! edge cached).
//! A spawn follows the insert edge of its bundle from
//! [`ArchetypeId::EMPTY`].
//!
//! ```
//! use std::any::TypeId;
//! use ecs::prelude::*;
//! use ecs::archetype::ComponentStatus;
//!
//! #[derive(Component)]
//! struct Position(f32);
//! #[derive(Component)]
//! #[component(storage = "SparseSet")]
//! struct Stunned;
//!
//! let mut world = World::new();
//! let e = world.spawn(Position(0.0)).id();
//! let from = world.entity(e).archetype().id();
//! world.entity_mut(e).insert(Stunned); // computes the edge and caches it
//! let to = world.entity(e).archetype().id();
//!
//! let stunned = world.bundles().get_id(TypeId::of::<Stunned>()).unwrap();
//! let edge = world.archetypes()[from]
//!     .edges()
//!     .get_archetype_after_bundle_insert(stunned)
//!     .unwrap();
//! assert_eq!(edge.archetype_id, to);
//! assert_eq!(edge.bundle_status[..], [ComponentStatus::Added]);
//!
//! // The way back is an edge of `to`.
//! world.entity_mut(e).remove::<Stunned>();
//! let back = world.archetypes()[to].edges().get_archetype_after_bundle_remove(stunned);
//! assert_eq!(back, Some(from));
//!
//! // Later moves along the same edges create nothing new.
//! let archetypes = world.archetypes().len();
//! let f = world.spawn(Position(1.0)).id();
//! world.entity_mut(f).insert(Stunned).remove::<Stunned>();
//! assert_eq!(world.archetypes().len(), archetypes);
//! ```
//!
//! # Finding archetypes: the component index and generations
//!
//! [`Archetypes`] also keeps a component index: for each component, the
//! archetypes that contain it in increasing id order, with the component's
//! column in the archetype's table ([`Archetypes::containing`],
//! [`ArchetypeRecord`]). Because archetypes are only ever appended, an
//! [`ArchetypeGeneration`] (the archetype count at some moment) splits
//! them into those a [`QueryState`](crate::query::QueryState) has already
//! seen and the new ones. A query brings its cache up to date by reading
//! only the new tail of the index entry of its rarest required component
//! (a query that requires none, such as `Query<Entity>`, checks each new
//! archetype), never by rescanning the archetypes it has already seen.
//!
//! Each archetype also carries [`ArchetypeFlags`], set when it is created
//! and when hooks or observers are added: an operation on an archetype
//! whose components have no hooks and no observers pays one flag test for
//! all the lifecycle machinery.

mod edges;

pub use edges::{ArchetypeAfterBundleInsert, ComponentStatus, Edges};
pub(crate) use edges::{ArchetypeAfterBundleRemove, EdgeKind, TableMoves};

use std::{fmt, ops::Index};

use hashbrown::HashMap;

use crate::{
    component::{ComponentId, Components, StorageType},
    entity::Entity,
    storage::{SparseSet, SparseSets, Table, TableId, TableRow, Tables},
};

/// The id of an [`Archetype`].
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ArchetypeId(u32);

impl ArchetypeId {
    /// The archetype of entities with no components.
    pub const EMPTY: ArchetypeId = ArchetypeId(0);
    pub(crate) const INVALID: ArchetypeId = ArchetypeId(u32::MAX);

    /// Makes an id from an index.
    #[inline]
    pub const fn new(index: usize) -> Self {
        ArchetypeId(index as u32)
    }

    /// The index of this id.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Debug for ArchetypeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ArchetypeId({})", self.0)
    }
}

/// A row in an archetype's entity list.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ArchetypeRow(u32);

impl ArchetypeRow {
    pub(crate) const INVALID: ArchetypeRow = ArchetypeRow(u32::MAX);

    /// Makes a row from an index.
    #[inline]
    pub const fn new(index: usize) -> Self {
        ArchetypeRow(index as u32)
    }

    /// The index of this row.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Debug for ArchetypeRow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ArchetypeRow({})", self.0)
    }
}

/// An entity of an archetype and its row in the archetype's table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArchetypeEntity {
    entity: Entity,
    table_row: TableRow,
}

impl ArchetypeEntity {
    /// The entity.
    #[inline]
    pub fn id(&self) -> Entity {
        self.entity
    }

    /// Its row in the table.
    #[inline]
    pub fn table_row(&self) -> TableRow {
        self.table_row
    }
}

bitflags::bitflags! {
    /// Which lifecycle work an archetype's components need, so that an
    /// operation on an archetype with none of it pays one flag test.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
    pub struct ArchetypeFlags: u32 {
        /// A component has an `on_add` hook.
        const ON_ADD_HOOK = 1 << 0;
        /// A component has an `on_insert` hook.
        const ON_INSERT_HOOK = 1 << 1;
        /// A component has an `on_discard` hook.
        const ON_DISCARD_HOOK = 1 << 2;
        /// A component has an `on_remove` hook.
        const ON_REMOVE_HOOK = 1 << 3;
        /// A component has an `on_despawn` hook.
        const ON_DESPAWN_HOOK = 1 << 4;
        /// A component is watched by an `Add` observer.
        const ON_ADD_OBSERVER = 1 << 5;
        /// A component is watched by an `Insert` observer.
        const ON_INSERT_OBSERVER = 1 << 6;
        /// A component is watched by a `Discard` observer.
        const ON_DISCARD_OBSERVER = 1 << 7;
        /// A component is watched by a `Remove` observer.
        const ON_REMOVE_OBSERVER = 1 << 8;
        /// A component is watched by a `Despawn` observer.
        const ON_DESPAWN_OBSERVER = 1 << 9;
        /// A component's removals are recorded
        /// ([`World::track_removals`](crate::world::World::track_removals)).
        const REMOVAL_TRACKED = 1 << 10;
    }
}

/// What removing a row from an archetype did.
#[derive(Debug)]
pub(crate) struct ArchetypeSwapRemoveResult {
    /// The entity that moved into the vacated row, if any.
    pub swapped_entity: Option<Entity>,
}

/// A set of component types and the entities that have exactly that set.
#[derive(Debug)]
pub struct Archetype {
    id: ArchetypeId,
    table_id: TableId,
    edges: Edges,
    /// The number of entities.
    len: u32,
    /// Whether no other archetype maps to this one's table. Then the
    /// archetype's rows are its table's rows and `entities` stays empty:
    /// an entity's archetype row is its table row.
    owns_table: bool,
    /// The entities by archetype row, kept only when the table is shared.
    entities: Vec<ArchetypeEntity>,
    components: SparseSet<ComponentId, StorageType>,
    table_components: Box<[ComponentId]>,
    sparse_set_components: Box<[ComponentId]>,
    flags: ArchetypeFlags,
}

impl Archetype {
    /// The archetype's id.
    #[inline]
    pub fn id(&self) -> ArchetypeId {
        self.id
    }

    /// The table holding the archetype's table components.
    #[inline]
    pub fn table_id(&self) -> TableId {
        self.table_id
    }

    /// Whether the archetype is the only one whose entities live in its
    /// table. Then its rows are the table's rows (an entity's archetype
    /// row equals its table row) and it keeps no entity list of its own.
    /// This holds until an archetype differing from it only in sparse-set
    /// components is created, and never again after that.
    #[inline]
    pub fn owns_table(&self) -> bool {
        self.owns_table
    }

    /// The entities with their table rows, by archetype row. `table` must
    /// be the archetype's table (see [`World::archetype_entities`] for a
    /// checked way in).
    ///
    /// [`World::archetype_entities`]: crate::world::World::archetype_entities
    #[inline]
    pub(crate) fn entities_in<'a>(&'a self, table: &'a Table) -> ArchetypeEntities<'a> {
        if self.owns_table {
            debug_assert_eq!(table.entity_count(), self.len());
            ArchetypeEntities(EntityRows::Table(table.entities().iter().enumerate()))
        } else {
            ArchetypeEntities(EntityRows::List(self.entities.iter()))
        }
    }

    /// The entity list of an archetype that shares its table.
    #[inline]
    pub(crate) fn shared_entities(&self) -> &[ArchetypeEntity] {
        debug_assert!(!self.owns_table);
        &self.entities
    }

    /// The number of entities.
    #[inline]
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether the archetype has no entities.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Every component of the archetype (table ones first, each group
    /// sorted by id).
    pub fn components(&self) -> impl Iterator<Item = ComponentId> + '_ {
        self.table_components
            .iter()
            .chain(self.sparse_set_components.iter())
            .copied()
    }

    /// The table components, sorted.
    #[inline]
    pub fn table_components(&self) -> &[ComponentId] {
        &self.table_components
    }

    /// The sparse-set components, sorted.
    #[inline]
    pub fn sparse_set_components(&self) -> &[ComponentId] {
        &self.sparse_set_components
    }

    /// The number of components.
    #[inline]
    pub fn component_count(&self) -> usize {
        self.components.len()
    }

    /// Whether the archetype has the component.
    #[inline]
    pub fn contains(&self, id: ComponentId) -> bool {
        self.components.contains(id)
    }

    /// The storage type of one of the archetype's components.
    #[inline]
    pub fn get_storage_type(&self, id: ComponentId) -> Option<StorageType> {
        self.components.get(id).copied()
    }

    /// The cached bundle edges.
    #[inline]
    pub fn edges(&self) -> &Edges {
        &self.edges
    }

    #[inline]
    pub(crate) fn edges_mut(&mut self) -> &mut Edges {
        &mut self.edges
    }

    /// The lifecycle flags.
    #[inline]
    pub fn flags(&self) -> ArchetypeFlags {
        self.flags
    }

    /// Its components' ids (bevy's name for [`Archetype::components`]).
    #[inline]
    pub fn iter_components(&self) -> impl Iterator<Item = ComponentId> + '_ {
        self.components()
    }

    /// Whether a component of the archetype has an `on_add` hook.
    #[inline]
    pub fn has_add_hook(&self) -> bool {
        self.flags().contains(ArchetypeFlags::ON_ADD_HOOK)
    }

    /// Whether an observer watches `Add` of a component of the archetype.
    #[inline]
    pub fn has_add_observer(&self) -> bool {
        self.flags().contains(ArchetypeFlags::ON_ADD_OBSERVER)
    }

    /// Whether a component of the archetype has an `on_insert` hook.
    #[inline]
    pub fn has_insert_hook(&self) -> bool {
        self.flags().contains(ArchetypeFlags::ON_INSERT_HOOK)
    }

    /// Whether an observer watches `Insert` of a component of the archetype.
    #[inline]
    pub fn has_insert_observer(&self) -> bool {
        self.flags().contains(ArchetypeFlags::ON_INSERT_OBSERVER)
    }

    /// Whether a component of the archetype has an `on_discard` hook.
    #[inline]
    pub fn has_discard_hook(&self) -> bool {
        self.flags().contains(ArchetypeFlags::ON_DISCARD_HOOK)
    }

    /// Whether an observer watches `Discard` of a component of the archetype.
    #[inline]
    pub fn has_discard_observer(&self) -> bool {
        self.flags().contains(ArchetypeFlags::ON_DISCARD_OBSERVER)
    }

    /// Whether a component of the archetype has an `on_remove` hook.
    #[inline]
    pub fn has_remove_hook(&self) -> bool {
        self.flags().contains(ArchetypeFlags::ON_REMOVE_HOOK)
    }

    /// Whether an observer watches `Remove` of a component of the archetype.
    #[inline]
    pub fn has_remove_observer(&self) -> bool {
        self.flags().contains(ArchetypeFlags::ON_REMOVE_OBSERVER)
    }

    /// Whether a component of the archetype has an `on_despawn` hook.
    #[inline]
    pub fn has_despawn_hook(&self) -> bool {
        self.flags().contains(ArchetypeFlags::ON_DESPAWN_HOOK)
    }

    /// Whether an observer watches `Despawn` of a component of the archetype.
    #[inline]
    pub fn has_despawn_observer(&self) -> bool {
        self.flags().contains(ArchetypeFlags::ON_DESPAWN_OBSERVER)
    }

    /// Adds `entity`, whose table row is `table_row`, and returns its
    /// archetype row (the table row itself when the archetype owns its
    /// table).
    #[inline]
    pub(crate) fn allocate(&mut self, entity: Entity, table_row: TableRow) -> ArchetypeRow {
        let row = if self.owns_table {
            // The pushed row, or, for a move from the archetype to itself
            // (a take of an empty bundle), the entity's own row.
            debug_assert!(
                table_row.index() <= self.len(),
                "an owner's rows are its table's"
            );
            ArchetypeRow::new(table_row.index())
        } else {
            let row = ArchetypeRow::new(self.entities.len());
            self.entities.push(ArchetypeEntity { entity, table_row });
            row
        };
        self.len += 1;
        row
    }

    /// [`Archetype::allocate`] for entities moved, in order, to the table
    /// rows from `first_table_row` on; returns the archetype row of the
    /// first.
    pub(crate) fn allocate_moved(&mut self, moved: &[Entity], first_table_row: usize) -> usize {
        let first = if self.owns_table {
            debug_assert_eq!(
                first_table_row,
                self.len(),
                "an owner's rows are its table's"
            );
            first_table_row
        } else {
            let first = self.entities.len();
            self.entities.extend(
                moved
                    .iter()
                    .enumerate()
                    .map(|(i, &entity)| ArchetypeEntity {
                        entity,
                        table_row: TableRow::new(first_table_row + i),
                    }),
            );
            first
        };
        self.len += u32::try_from(moved.len()).expect("archetype length fits in u32");
        first
    }

    #[inline]
    pub(crate) fn reserve(&mut self, additional: usize) {
        if !self.owns_table {
            self.entities.reserve(additional);
        }
    }

    /// Records that the entity at `row` now sits at `table_row` of the
    /// table. An archetype that owns its table has its rows move with the
    /// table's, so the new archetype row is returned for the entity's
    /// location; otherwise the row stays.
    #[inline]
    pub(crate) fn set_entity_table_row(
        &mut self,
        row: ArchetypeRow,
        table_row: TableRow,
    ) -> ArchetypeRow {
        if self.owns_table {
            ArchetypeRow::new(table_row.index())
        } else {
            self.entities[row.index()].table_row = table_row;
            row
        }
    }

    /// Removes the entity at `row`. An archetype that owns its table
    /// reports no swapped entity: its rows are the table's, so the table's
    /// swap-remove (which the caller makes too) reports the entity that
    /// moved, and [`Archetype::set_entity_table_row`] gives its new row.
    #[inline]
    pub(crate) fn swap_remove(&mut self, row: ArchetypeRow) -> ArchetypeSwapRemoveResult {
        self.len -= 1;
        if self.owns_table {
            return ArchetypeSwapRemoveResult {
                swapped_entity: None,
            };
        }
        let is_last = row.index() == self.entities.len() - 1;
        self.entities.swap_remove(row.index());
        ArchetypeSwapRemoveResult {
            swapped_entity: (!is_last).then(|| self.entities[row.index()].entity),
        }
    }

    /// Stops owning the table: from now on another archetype shares it.
    /// The entity list is built from the table's, whose rows were the
    /// archetype's.
    fn share_table(&mut self, table: &Table) {
        debug_assert!(self.owns_table);
        debug_assert_eq!(table.entity_count(), self.len());
        self.entities = table
            .entities()
            .iter()
            .enumerate()
            .map(|(row, &entity)| ArchetypeEntity {
                entity,
                table_row: TableRow::new(row),
            })
            .collect();
        self.owns_table = false;
    }

    pub(crate) fn clear_entities(&mut self) {
        self.entities.clear();
        self.len = 0;
    }
}

/// The entities of an archetype with their table rows, by archetype row:
/// see [`World::archetype_entities`](crate::world::World::archetype_entities).
#[derive(Debug, Clone)]
pub struct ArchetypeEntities<'a>(EntityRows<'a>);

#[derive(Debug, Clone)]
enum EntityRows<'a> {
    /// The archetype owns its table: the table's entities, row by row.
    Table(std::iter::Enumerate<std::slice::Iter<'a, Entity>>),
    /// The archetype shares its table: its own list.
    List(std::slice::Iter<'a, ArchetypeEntity>),
}

impl Iterator for ArchetypeEntities<'_> {
    type Item = ArchetypeEntity;

    #[inline]
    fn next(&mut self) -> Option<ArchetypeEntity> {
        match &mut self.0 {
            EntityRows::Table(rows) => rows.next().map(|(row, &entity)| ArchetypeEntity {
                entity,
                table_row: TableRow::new(row),
            }),
            EntityRows::List(list) => list.next().copied(),
        }
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        match &self.0 {
            EntityRows::Table(rows) => rows.size_hint(),
            EntityRows::List(list) => list.size_hint(),
        }
    }
}

impl ExactSizeIterator for ArchetypeEntities<'_> {}

/// A point in the growth of [`Archetypes`]: archetypes with an id at or
/// above it are newer. Queries keep one to update their caches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ArchetypeGeneration(pub(crate) ArchetypeId);

impl ArchetypeGeneration {
    /// The generation before any archetype.
    #[inline]
    pub const fn initial() -> Self {
        ArchetypeGeneration(ArchetypeId::EMPTY)
    }
}

/// An archetype that contains a component, and that component's column in
/// the archetype's table (`None` for a sparse-set component).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArchetypeRecord {
    /// The archetype.
    pub archetype_id: ArchetypeId,
    /// The column index in the archetype's table, for a table component.
    pub column: Option<usize>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct ArchetypeComponents {
    table: Box<[ComponentId]>,
    sparse: Box<[ComponentId]>,
}

/// Every archetype of a world.
#[derive(Debug)]
pub struct Archetypes {
    archetypes: Vec<Archetype>,
    by_components: HashMap<ArchetypeComponents, ArchetypeId>,
    /// The component index: for each component id, the archetypes that
    /// contain it, in increasing id order.
    by_component: Vec<Vec<ArchetypeRecord>>,
    /// For each table id, which archetypes map to the table.
    table_owners: Vec<TableOwner>,
}

/// Which archetypes map to a table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TableOwner {
    /// None yet.
    Unclaimed,
    /// This one alone: it owns the table.
    Alone(ArchetypeId),
    /// Several.
    Shared,
}

impl Default for Archetypes {
    fn default() -> Self {
        let mut archetypes = Archetypes {
            archetypes: Vec::new(),
            by_components: HashMap::new(),
            by_component: Vec::new(),
            table_owners: vec![TableOwner::Alone(ArchetypeId::EMPTY)],
        };
        let empty = archetypes.push(TableId::EMPTY, Box::default(), Box::default());
        debug_assert_eq!(empty, ArchetypeId::EMPTY);
        archetypes.by_components.insert(
            ArchetypeComponents {
                table: Box::default(),
                sparse: Box::default(),
            },
            empty,
        );
        archetypes
    }
}

impl Archetypes {
    /// The number of archetypes.
    #[inline]
    pub fn len(&self) -> usize {
        self.archetypes.len()
    }

    /// Whether there are no archetypes (never: the empty one always exists).
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.archetypes.is_empty()
    }

    /// The current generation: every archetype created from now on has an
    /// id at or above it.
    #[inline]
    pub fn generation(&self) -> ArchetypeGeneration {
        ArchetypeGeneration(ArchetypeId::new(self.archetypes.len()))
    }

    /// An archetype by id.
    #[inline]
    pub fn get(&self, id: ArchetypeId) -> Option<&Archetype> {
        self.archetypes.get(id.index())
    }

    /// Every archetype, by id.
    pub fn iter(&self) -> std::slice::Iter<'_, Archetype> {
        self.archetypes.iter()
    }

    /// The archetypes that contain a component (the component index), in
    /// increasing id order.
    #[inline]
    pub fn containing(&self, id: ComponentId) -> &[ArchetypeRecord] {
        self.by_component.get(id.index()).map_or(&[], Vec::as_slice)
    }

    /// The archetype with exactly these components, created (with its
    /// table and sparse sets) if new. Both slices must be sorted and
    /// unique.
    pub(crate) fn get_id_or_insert(
        &mut self,
        components: &Components,
        tables: &mut Tables,
        sparse_sets: &mut SparseSets,
        table_components: Vec<ComponentId>,
        sparse_set_components: Vec<ComponentId>,
    ) -> ArchetypeId {
        let key = ArchetypeComponents {
            table: table_components.into_boxed_slice(),
            sparse: sparse_set_components.into_boxed_slice(),
        };
        if let Some(&id) = self.by_components.get(&key) {
            return id;
        }
        let table_id = tables.get_id_or_insert(&key.table, components);
        for &id in key.sparse.iter() {
            let info = components
                .get_info(id)
                .expect("sparse component is registered");
            sparse_sets.get_or_insert(info);
        }
        let id = self.push(table_id, key.table.clone(), key.sparse.clone());
        self.claim_table(id, &tables[table_id]);
        let flags = key
            .table
            .iter()
            .chain(key.sparse.iter())
            .fold(ArchetypeFlags::empty(), |flags, &c| {
                flags | components.get_info(c).expect("registered").flags()
            });
        self.archetypes[id.index()].flags = flags;
        self.by_components.insert(key, id);
        id
    }

    fn push(
        &mut self,
        table_id: TableId,
        table: Box<[ComponentId]>,
        sparse: Box<[ComponentId]>,
    ) -> ArchetypeId {
        let id = ArchetypeId::new(self.archetypes.len());
        assert!(
            self.archetypes.len() < u32::MAX as usize,
            "too many archetypes"
        );
        let mut set = SparseSet::with_capacity(table.len() + sparse.len());
        for (column, &component) in table.iter().enumerate() {
            set.insert(component, StorageType::Table);
            self.record(
                component,
                ArchetypeRecord {
                    archetype_id: id,
                    column: Some(column),
                },
            );
        }
        for &component in sparse.iter() {
            set.insert(component, StorageType::SparseSet);
            self.record(
                component,
                ArchetypeRecord {
                    archetype_id: id,
                    column: None,
                },
            );
        }
        self.archetypes.push(Archetype {
            id,
            table_id,
            edges: Edges::default(),
            len: 0,
            owns_table: true,
            entities: Vec::new(),
            components: set,
            table_components: table,
            sparse_set_components: sparse,
            flags: ArchetypeFlags::empty(),
        });
        id
    }

    /// Records that the new archetype `id` maps to `table` (its table):
    /// it owns the table if no other archetype does; otherwise neither it
    /// nor the previous owner does any more.
    fn claim_table(&mut self, id: ArchetypeId, table: &Table) {
        let index = self.archetypes[id.index()].table_id.index();
        if index >= self.table_owners.len() {
            self.table_owners.resize(index + 1, TableOwner::Unclaimed);
        }
        match std::mem::replace(&mut self.table_owners[index], TableOwner::Shared) {
            TableOwner::Unclaimed => {
                debug_assert!(table.is_empty(), "a table no archetype maps to is empty");
                self.table_owners[index] = TableOwner::Alone(id);
            }
            TableOwner::Alone(owner) => {
                self.archetypes[owner.index()].share_table(table);
                self.archetypes[id.index()].owns_table = false;
            }
            TableOwner::Shared => self.archetypes[id.index()].owns_table = false,
        }
    }

    fn record(&mut self, component: ComponentId, record: ArchetypeRecord) {
        if component.index() >= self.by_component.len() {
            self.by_component
                .resize_with(component.index() + 1, Vec::new);
        }
        self.by_component[component.index()].push(record);
    }

    pub(crate) fn clear_entities(&mut self) {
        for archetype in &mut self.archetypes {
            archetype.clear_entities();
        }
    }

    /// Sets `flags` on every archetype containing the component.
    pub(crate) fn add_flags_for_component(&mut self, id: ComponentId, flags: ArchetypeFlags) {
        if let Some(records) = self.by_component.get(id.index()) {
            for record in records {
                self.archetypes[record.archetype_id.index()].flags |= flags;
            }
        }
    }
}

impl Index<ArchetypeId> for Archetypes {
    type Output = Archetype;
    #[inline]
    #[track_caller]
    fn index(&self, id: ArchetypeId) -> &Archetype {
        if id.index() >= self.archetypes.len() {
            crate::utils::unknown_id(id, self.archetypes.len());
        }
        &self.archetypes[id.index()]
    }
}

impl std::ops::IndexMut<ArchetypeId> for Archetypes {
    #[inline]
    #[track_caller]
    fn index_mut(&mut self, id: ArchetypeId) -> &mut Archetype {
        if id.index() >= self.archetypes.len() {
            crate::utils::unknown_id(id, self.archetypes.len());
        }
        &mut self.archetypes[id.index()]
    }
}

impl Index<std::ops::RangeFrom<ArchetypeGeneration>> for Archetypes {
    type Output = [Archetype];
    #[inline]
    #[track_caller]
    fn index(&self, range: std::ops::RangeFrom<ArchetypeGeneration>) -> &[Archetype] {
        if range.start.0.index() > self.archetypes.len() {
            crate::utils::unknown_id(range.start, self.archetypes.len());
        }
        &self.archetypes[range.start.0.index()..]
    }
}

/// Snapshot support: an archetype's entity list recorded and put back.
impl Archetype {
    /// Records the entities by archetype row and their table rows into
    /// `saved`, reusing the list it holds: `None` when the archetype owns
    /// its table (its rows are the table's).
    pub(crate) fn entities_for_snapshot_into(&self, saved: &mut Option<Vec<ArchetypeEntity>>) {
        if self.owns_table {
            *saved = None;
        } else {
            saved
                .get_or_insert_with(Vec::new)
                .clone_from(&self.entities);
        }
    }

    /// Puts back the entity list recorded by
    /// [`Archetype::entities_for_snapshot_into`], `len` entities; `table` is the
    /// archetype's table, already restored.
    pub(crate) fn restore_entities(
        &mut self,
        len: u32,
        recorded: Option<&[ArchetypeEntity]>,
        table: &Table,
    ) {
        self.len = len;
        self.entities.clear();
        match (self.owns_table, recorded) {
            (true, _) => {}
            // Owned its table then, shares it now: its rows were the table's.
            (false, None) => self
                .entities
                .extend(table.entities().iter().enumerate().map(|(row, &entity)| {
                    ArchetypeEntity {
                        entity,
                        table_row: TableRow::new(row),
                    }
                })),
            (false, Some(recorded)) => self.entities.extend_from_slice(recorded),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::component::Component;

    struct A;
    impl Component for A {
        const STORAGE_TYPE: StorageType = StorageType::Table;
        type Mutability = crate::component::Mutable;
    }
    struct S;
    impl Component for S {
        const STORAGE_TYPE: StorageType = StorageType::SparseSet;
        type Mutability = crate::component::Mutable;
    }

    #[test]
    fn archetypes_differing_in_sparse_components_share_a_table() {
        let mut components = Components::default();
        let a = components.register_component::<A>();
        let s = components.register_component::<S>();
        let mut tables = Tables::default();
        let mut sparse = SparseSets::default();
        let mut archetypes = Archetypes::default();
        assert_eq!(archetypes.len(), 1);
        assert_eq!(archetypes[ArchetypeId::EMPTY].table_id(), TableId::EMPTY);
        let gen0 = archetypes.generation();
        let x = archetypes.get_id_or_insert(&components, &mut tables, &mut sparse, vec![a], vec![]);
        let y =
            archetypes.get_id_or_insert(&components, &mut tables, &mut sparse, vec![a], vec![s]);
        let z = archetypes.get_id_or_insert(&components, &mut tables, &mut sparse, vec![], vec![s]);
        assert_eq!(
            archetypes.get_id_or_insert(&components, &mut tables, &mut sparse, vec![a], vec![s]),
            y
        );
        assert_eq!(archetypes[x].table_id(), archetypes[y].table_id());
        assert_eq!(archetypes[z].table_id(), TableId::EMPTY);
        assert!(sparse.get(s).is_some());
        assert_eq!(archetypes[gen0..].len(), 3);
        let with_a: Vec<_> = archetypes
            .containing(a)
            .iter()
            .map(|r| (r.archetype_id, r.column))
            .collect();
        assert_eq!(with_a, vec![(x, Some(0)), (y, Some(0))]);
        let with_s: Vec<_> = archetypes
            .containing(s)
            .iter()
            .map(|r| (r.archetype_id, r.column))
            .collect();
        assert_eq!(with_s, vec![(y, None), (z, None)]);
        assert_eq!(
            archetypes[y].get_storage_type(s),
            Some(StorageType::SparseSet)
        );
    }
}
