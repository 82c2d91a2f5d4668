//! Entity disabling: entities with a disabling component (such as
//! [`Disabled`]) stay in the world but are left out of every query that
//! does not mention that component.
//!
//! ```text
//! query                                   sees a disabled entity?
//! Query<&A>                               no
//! Query<&A, With<Disabled>>               yes (only disabled ones)
//! Query<(&A, Has<Disabled>)>              yes (both)
//! Query<&A, Allow<Disabled>>              yes (both)
//! Query<(&A, Option<&Disabled>)>          no: a read is not a mention
//! ```
//!
//! How it works: every world starts with a [`DefaultQueryFilters`]
//! resource listing the disabling components. Building a
//! [`QueryState`](crate::query::QueryState) adds `Without<C>` for each one
//! the query does not mention (by `With`/`Without`, a data term that
//! requires it, `Has` or [`Allow`](crate::query::Allow)). The check is
//! part of archetype matching, made once per archetype, so iteration pays
//! nothing per entity; a query state built before a disabling component
//! was registered keeps its old filters.
//!
//! ```
//! use ecs::prelude::*;
//! use ecs::entity_disabling::Disabled;
//!
//! #[derive(Component)]
//! struct Prefab;
//! #[derive(Component)]
//! struct A;
//!
//! let mut world = World::new();
//! world.register_disabling_component::<Prefab>();
//! world.spawn((A, Prefab));
//! world.spawn((A, Disabled));
//! world.spawn(A);
//!
//! assert_eq!(world.query::<&A>().iter(&world).count(), 1);
//! assert_eq!(world.query_filtered::<&A, With<Prefab>>().iter(&world).count(), 1);
//! assert_eq!(world.query::<(&A, Has<Disabled>)>().iter(&world).count(), 2);
//! ```
//!
//! Entities stay reachable directly (`World::get`, `World::entity`,
//! commands), and [`World::resource_scope`] of [`DefaultQueryFilters`]
//! runs code that sees every entity.

use crate::{
    component::{Component, ComponentId, StorageType},
    query::FilteredAccess,
    resource::Resource,
    world::{FromWorld, World},
};

/// The built-in disabling component: an entity with it is skipped by every
/// query that does not mention `Disabled`.
///
/// It disables the entity only, not its children or the entities it
/// relates to.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Disabled;

impl Component for Disabled {
    const STORAGE_TYPE: StorageType = StorageType::Table;
    type Mutability = crate::component::Mutable;
}

/// The disabling components of a world: a query that mentions none of
/// them gets `Without<C>` for each.
///
/// Every world starts with one holding [`Disabled`]. Replace or remove it
/// (or use [`World::resource_scope`]) to see every entity; changes affect
/// only query states built afterwards.
///
/// Unlike bevy, a disabling component must be stored in tables: a dense
/// query walks whole tables, and a sparse-set component does not split
/// them, so honouring it would cost every such query its table walk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DefaultQueryFilters {
    disabling: Vec<ComponentId>,
}

impl Resource for DefaultQueryFilters {}

impl FromWorld for DefaultQueryFilters {
    fn from_world(world: &mut World) -> Self {
        let mut filters = DefaultQueryFilters::empty();
        filters.register_disabling_component(world.register_component::<Disabled>());
        filters
    }
}

impl DefaultQueryFilters {
    /// No disabling component at all (not even [`Disabled`]).
    #[must_use]
    pub fn empty() -> Self {
        DefaultQueryFilters {
            disabling: Vec::new(),
        }
    }

    /// Makes `component_id` a disabling component; registering one twice
    /// does nothing. Query states built before keep their filters.
    pub fn register_disabling_component(&mut self, component_id: ComponentId) {
        if !self.disabling.contains(&component_id) {
            self.disabling.push(component_id);
        }
    }

    /// The disabling components.
    pub fn disabling_ids(&self) -> impl Iterator<Item = ComponentId> + '_ {
        self.disabling.iter().copied()
    }

    /// Adds `Without<C>` to `access` for each disabling component `C` it
    /// does not mention, and returns those components.
    pub(crate) fn modify_access(&self, access: &mut FilteredAccess) -> Vec<ComponentId> {
        let excluded: Vec<ComponentId> = self
            .disabling_ids()
            .filter(|&id| !access.contains(id))
            .collect();
        for &id in &excluded {
            access.and_without(id);
        }
        excluded
    }
}

impl World {
    /// Makes `C` a disabling component: entities with it are left out of
    /// queries that do not mention `C` (see [`DefaultQueryFilters`]).
    /// Query states built before keep their filters.
    ///
    /// # Panics
    /// If `C` is stored in sparse sets (disabling components must be table
    /// components, see [`DefaultQueryFilters`]).
    #[track_caller]
    pub fn register_disabling_component<C: Component>(&mut self) {
        assert!(
            C::STORAGE_TYPE == StorageType::Table,
            "disabling component `{}` is stored in sparse sets: a disabling component must be a \
             table component (remove `#[component(storage = \"SparseSet\")]`)",
            std::any::type_name::<C>()
        );
        let id = self.register_component::<C>();
        self.get_resource_or_init::<DefaultQueryFilters>()
            .register_disabling_component(id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modify_access_skips_mentioned_components() {
        let (a, b, c) = (
            ComponentId::new(0),
            ComponentId::new(1),
            ComponentId::new(2),
        );
        let mut filters = DefaultQueryFilters::empty();
        filters.register_disabling_component(a);
        filters.register_disabling_component(a);
        assert_eq!(filters.disabling_ids().collect::<Vec<_>>(), [a]);

        let mut read_only = FilteredAccess::default();
        read_only.access_mut().add_read(a);
        assert_eq!(filters.modify_access(&mut read_only), [a]);
        assert!(read_only.contains(a));

        let mut with = FilteredAccess::default();
        with.and_with(a);
        assert!(filters.modify_access(&mut with).is_empty());

        let mut has = FilteredAccess::default();
        has.access_mut().add_archetypal(a);
        assert!(filters.modify_access(&mut has).is_empty());

        let mut unrelated = FilteredAccess::default();
        unrelated.add_read(b);
        unrelated.and_without(c);
        assert_eq!(filters.modify_access(&mut unrelated), [a]);
    }
}
