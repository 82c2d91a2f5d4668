//! Type-erased storage of component and resource values.
//!
//! A world's [`Storages`] hold every value: table components in
//! [`Tables`], sparse-set components in [`SparseSets`], resources in
//! [`Resources`]. Storage knows component ids, layouts and drop functions,
//! not Rust types; the typed layers above (bundles, queries, `World::get`)
//! cast the pointers it hands out. Which storage a component uses is fixed
//! by its type ([`StorageType`](crate::component::StorageType)).
//!
//! # Tables: struct of arrays
//!
//! A [`Table`] holds the table components of every entity whose archetype
//! has exactly that set of table components (several archetypes may share
//! it: see [`archetype`](crate::archetype)). It is a struct of arrays: one
//! [`Column`] per component and one entity list, all the same length, so
//! row `r` of every column belongs to `entities[r]`.
//!
//! ```text
//!  Table {Position, Velocity}
//!          entities │ Position column           │ Velocity column
//!                   │ value    added  changed   │ value    added  changed
//!  row 0   3v1      │ (1, 2)   t4     t9        │ (0, 1)   t4     t4
//!  row 1   7v2      │ (5, 5)   t6     t6        │ (1, 0)   t6     t8
//!  row 2   9v1      │ (0, 0)   t7     t7        │ (2, 2)   t7     t7
//!                   │ ▲ one contiguous, aligned array of Position
//! ```
//!
//! A column keeps its values in one type-erased, aligned array (`BlobVec`:
//! values move in and out with `memcpy`, or a typed write when the type is
//! known, and each is dropped exactly once through the component's drop
//! function) and, beside it, the tick each value was added at and the tick
//! it last changed at (see [`change_detection`](crate::change_detection)).
//! A table allocates all its columns' arrays as one block and grows them
//! together, doubling, when a row does not fit: one allocation per table,
//! and the capacity check of a new row is made once for all its columns.
//!
//! ```text
//!  table block: [ Position values | added | changed | Velocity values | added | changed ]
//! ```
//! A query over table
//! components reads a column as a plain slice: the pointer to the first
//! value is set once per table and the loop indexes it by row.
//!
//! # Sparse sets: a sparse array into a packed array
//!
//! A [`ComponentSparseSet`] holds every value of one sparse-set component,
//! whatever the entity's archetype. Its values are packed in a dense
//! [`Column`] (with ticks), beside the entity owning each; a sparse array
//! indexed by [`Entity::index`](crate::entity::Entity::index) gives each
//! entity's dense row:
//!
//! ```text
//!  ComponentSparseSet of Stunned
//!   sparse, by entity index:   0   1   2   3   4   5   6   7
//!                              -   -   -   0   -   -   -   1
//!                                          │               │
//!              ┌───────────────────────────┘               │
//!              │          ┌────────────────────────────────┘
//!              ▼          ▼
//!   dense row  0          1
//!   entities   3v1        7v2
//!   column     Stunned    Stunned    (each with its added and changed tick)
//! ```
//!
//! A lookup reads `sparse[entity.index()]` and checks that the entity
//! stored at that row is the same entity (generation included), so a stale
//! handle whose index was reused misses instead of reaching another
//! entity's value. [`SparseSet`] and [`SparseArray`] are the same idea for
//! any dense integer key: a table finds its columns by component id, and
//! archetype [`Edges`](crate::archetype::Edges) find bundles by bundle id,
//! without hashing.
//!
//! # Choosing a storage
//!
//! Components are table components unless they say otherwise:
//!
//! ```
//! use ecs::prelude::*;
//!
//! #[derive(Component)]
//! struct Position(f32); // StorageType::Table, the default
//!
//! /// Added and removed every few frames.
//! #[derive(Component)]
//! #[component(storage = "SparseSet")]
//! struct Stunned;
//!
//! let mut world = World::new();
//! let a = world.spawn(Position(0.0)).id();
//! let b = world.spawn((Position(1.0), Stunned)).id();
//! assert_eq!(Stunned::STORAGE_TYPE, StorageType::SparseSet);
//!
//! let stunned = world.component_id::<Stunned>().unwrap();
//! assert_eq!(world.storages().sparse_sets.get(stunned).unwrap().entities(), &[b]);
//! // Both entities' positions sit in one table.
//! assert_eq!(world.entity(a).location().table_id, world.entity(b).location().table_id);
//! ```
//!
//! ```text
//!                     Table (default)                   SparseSet
//!  iteration          a slice loop over each column     a sparse lookup and a generation
//!                                                       check per entity
//!  insert / remove    moves the entity's whole row      pushes or swap-removes one value;
//!                     (every column) to another table   the entity keeps its table row
//!  archetypes         each set of table components      no new table: archetypes that
//!                     has its own table                 differ in it share one
//!  queries naming it  walk tables (dense)               walk archetypes
//! ```
//!
//! Pick a table for data that most entities of a kind have and that
//! systems iterate every frame; pick a sparse set for markers and states
//! that come and go often (`Stunned`, `Selected`), or that few entities
//! have.
//!
//! # Swap-remove, and what it means for entity locations
//!
//! Removing a row never shifts the rows after it: the last row moves into
//! the hole, in every column at once, so removal costs one move per column.
//!
//! ```text
//!  before              after removing row 1 (7v2)
//!  row 0   3v1         row 0   3v1
//!  row 1   7v2  ◀──┐   row 1   5v1   moved: its location's table row 3 -> 1
//!  row 2   9v1     │   row 2   9v1
//!  row 3   5v1  ───┘
//! ```
//!
//! The moved entity's data is now somewhere else, so whoever removes the
//! row fixes the moved entity's [`EntityLocation`](crate::entity::EntityLocation)
//! (and the table row recorded in its archetype, or, when the archetype
//! owns the table and so shares its rows, the archetype row too).
//! Archetype entity lists of archetypes that share a table are
//! swap-removed the same way, which moves another entity's archetype
//! row. A sparse set swap-removes its dense arrays and fixes the moved
//! entity's sparse entry; no location refers to sparse rows. For a user
//! this means:
//!
//! - an [`EntityLocation`](crate::entity::EntityLocation), a
//!   [`TableRow`] or an archetype row is valid only until the next
//!   structural change (spawn, insert, remove, despawn); keep the
//!   [`Entity`](crate::entity::Entity) and look the location up again;
//! - iteration order follows rows, so it is not spawn order once entities
//!   have been removed or moved.
//!
//! ```
//! use ecs::prelude::*;
//!
//! #[derive(Component)]
//! struct Position(f32);
//!
//! let mut world = World::new();
//! let a = world.spawn(Position(0.0)).id();
//! let b = world.spawn(Position(1.0)).id();
//! let c = world.spawn(Position(2.0)).id();
//! assert_eq!(world.entity(c).location().table_row.index(), 2);
//!
//! world.despawn(a); // the last row (c) moves into row 0
//! assert_eq!(world.entity(c).location().table_row.index(), 0);
//! let table = &world.storages().tables[world.entity(c).location().table_id];
//! assert_eq!(table.entities(), &[c, b]);
//! ```
//!
//! # Resources
//!
//! Each resource type has a [`ResourceData`]: room for one value, with its
//! added and changed ticks, found by the resource's component id in
//! [`Resources`].

mod blob_vec;
mod column;
mod non_send;
mod resource;
mod sparse_set;
mod table;

pub use column::Column;
pub(crate) use column::{CloneValuesFn, ColumnTail, FillValues};
pub use non_send::{NonSendData, NonSends};
pub use resource::{ResourceData, Resources};
pub(crate) use sparse_set::SparsePointers;
pub use sparse_set::{ComponentSparseSet, SparseArray, SparseSet, SparseSetIndex, SparseSets};
pub use table::{column_slot, Table, TableId, TableRow, Tables, NO_COLUMN};

/// All the storage of a world.
#[derive(Debug, Default)]
pub struct Storages {
    /// The tables.
    pub tables: Tables,
    /// The sparse sets.
    pub sparse_sets: SparseSets,
    /// The resources.
    pub resources: Resources,
    /// The non-send resources.
    pub non_sends: NonSends,
}
