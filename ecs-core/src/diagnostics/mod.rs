//! Diagnostics: looking at how a [`World`](crate::world::World) stores its entities, and
//! checking that the storage is consistent.
//!
//! - [`World::inspect`](crate::world::World::inspect) (and [`World::inspect_with`](crate::world::World::inspect_with)) summarise the
//!   archetypes, tables and sparse sets in a [`WorldInspection`]; print it
//!   for an aligned text report, or read its fields.
//! - [`FragmentationWarning`]s, part of every inspection, name storage
//!   patterns that cost iteration time or memory and say what to change;
//!   [`FragmentationThresholds`] decide when they fire.
//! - [`World::archetype_graph_dot`](crate::world::World::archetype_graph_dot) draws the archetype graph (archetypes
//!   and their cached insert and remove edges) in Graphviz DOT.
//! - [`World::check_integrity`](crate::world::World::check_integrity) checks the storage invariants (entity
//!   locations, table rows, cached edges, sparse sets) and reports the
//!   first violation.
//!
//! ```
//! use ecs::prelude::*;
//!
//! #[derive(Component)]
//! struct Position(f32, f32);
//!
//! let mut world = World::new();
//! world.spawn(Position(0.0, 0.0));
//! world.check_integrity().unwrap();
//! println!("{}", world.inspect());
//! assert!(world.archetype_graph_dot().starts_with("digraph archetypes {"));
//! ```
//!
//! Each walks the whole world without changing it: debugging and testing
//! aids, not something to call every frame. The types are also reachable
//! from [`world`](crate::world).

mod fragmentation;
mod graph;
mod inspect;
mod integrity;
mod text;

pub use fragmentation::{FragmentationThresholds, FragmentationWarning};
pub(crate) use inspect::short_type_name;
pub use inspect::{
    ArchetypeSummary, ColumnSummary, ComponentSummary, InspectionTotals, SparseSetSummary,
    TableSummary, WorldInspection,
};
