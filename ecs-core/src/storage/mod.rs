//! Type-erased storage of component and resource values.
//!
//! ```text
//!  Table (struct of arrays), one per set of table components
//!  row | entities | Position col | Velocity col      each Column: values
//!  0   | 3v1      | (1, 2)       | (0, 1)            + added ticks
//!  1   | 7v2      | (5, 5)       | (1, 0)            + changed ticks
//!
//!  ComponentSparseSet, one per sparse-set component
//!  sparse: entity index -> dense row   [_, _, _, 0, _, _, _, 1]
//!  dense:  entities [3v1, 7v2]  values [Stunned, Stunned]
//! ```
//!
//! Archetypes that differ only in sparse-set components share a table.

mod blob_vec;
mod column;
mod resource;
mod sparse_set;
mod table;

pub use column::Column;
pub use resource::{ResourceData, Resources};
pub use sparse_set::{ComponentSparseSet, SparseArray, SparseSet, SparseSetIndex, SparseSets};
pub use table::{Table, TableId, TableRow, Tables};

/// All the storage of a world.
#[derive(Debug, Default)]
pub struct Storages {
    /// The tables.
    pub tables: Tables,
    /// The sparse sets.
    pub sparse_sets: SparseSets,
    /// The resources.
    pub resources: Resources,
}
