//! Queries: typed views over every entity with a given set of components.
//!
//! A query is `QueryState<D, F>`: `D` is the data fetched per entity
//! ([`QueryData`]: `&T`, `&mut T`, `Ref<T>`, `Option<D>`, `Entity`,
//! `Has<T>`, `AnyOf<(..)>`, tuples, `#[derive(QueryData)]` structs), `F`
//! selects entities ([`QueryFilter`]: `With<T>`, `Without<T>`,
//! `Or<(..)>`, `Added<T>`, `Changed<T>`, tuples, `#[derive(QueryFilter)]`).
//!
//! Two cursors walk the matches:
//!
//! ```text
//! dense (only table components involved):
//!     for table in matched tables:        set column pointers once
//!         for row in 0..table.len():      plain slice loop
//! archetype (a sparse-set component involved):
//!     for archetype in matched archetypes: set column pointers once
//!         for (entity, table row) in archetype.entities()
//!         (an archetype that fills its table walks table rows instead)
//! ```
//!
//! Which one is used is a constant ([`QueryState::IS_DENSE`]), so the
//! branch disappears after inlining.

mod access;
mod error;
mod fetch;
mod filter;
mod iter;
mod par_iter;
mod state;
mod world_query;

pub use access::{Access, AccessFilters, FilteredAccess, FilteredAccessSet};
pub use ecs_macros::{QueryData, QueryFilter};
pub use error::{QueryEntityError, QuerySingleError};
pub use fetch::{AnyOf, Has, OptionFetch, ReadFetch, TickedFetch};
pub use filter::{Added, Changed, Or, TickFilterFetch, With, Without};
pub use iter::QueryIter;
pub use par_iter::QueryParIter;
pub(crate) use state::single_of;
pub use state::QueryState;
pub use world_query::{QueryData, QueryFilter, ReadOnlyQueryData, WorldQuery};

#[cfg(test)]
mod tests;
