//! [`Allow<T>`]: the filter that lets a query see entities a default query
//! filter would hide.

use std::marker::PhantomData;

use super::{FilteredAccess, QueryFilter, WorldQuery};
use crate::{
    archetype::Archetype,
    change_detection::Tick,
    component::{Component, ComponentId},
    entity::Entity,
    storage::{Table, TableRow},
    world::{UnsafeWorldCell, World},
};

/// Keeps entities with and without `T`: it only mentions `T`, so that a
/// [`DefaultQueryFilters`](crate::entity_disabling::DefaultQueryFilters)
/// entry for `T` (such as [`Disabled`](crate::entity_disabling::Disabled))
/// no longer hides entities that have it.
///
/// ```
/// use ecs::prelude::*;
/// use ecs::entity_disabling::Disabled;
/// use ecs::query::Allow;
///
/// #[derive(Component)]
/// struct Health(u32);
///
/// let mut world = World::new();
/// world.spawn(Health(1));
/// world.spawn((Health(2), Disabled));
/// assert_eq!(world.query::<&Health>().iter(&world).count(), 1);
/// assert_eq!(world.query_filtered::<&Health, Allow<Disabled>>().iter(&world).count(), 2);
/// ```
pub struct Allow<T>(PhantomData<T>);

// SAFETY: reads nothing (the access records only that `T` is mentioned);
// matches every archetype, so it is dense whatever `T`'s storage.
unsafe impl<T: Component> WorldQuery for Allow<T> {
    type Fetch<'w> = ();
    type State = ComponentId;
    const IS_DENSE: bool = true;

    #[inline]
    unsafe fn init_fetch<'w>(_: UnsafeWorldCell<'w>, _: &ComponentId, _: Tick, _: Tick) {}

    #[inline]
    unsafe fn set_archetype<'w>(_: &mut (), _: &ComponentId, _: &'w Archetype, _: &'w Table) {}

    #[inline]
    unsafe fn set_table<'w>(_: &mut Self::Fetch<'w>, _: &ComponentId, _: &'w Table) {}

    fn update_component_access(&id: &ComponentId, access: &mut FilteredAccess) {
        access.access_mut().add_archetypal(id);
    }

    fn init_state(world: &mut World) -> ComponentId {
        world.register_component::<T>()
    }

    fn matches_component_set(_: &ComponentId, _: &impl Fn(ComponentId) -> bool) -> bool {
        true
    }
}

// SAFETY: every row of every archetype passes.
unsafe impl<T: Component> QueryFilter for Allow<T> {
    const IS_ARCHETYPAL: bool = true;

    #[inline(always)]
    unsafe fn filter_fetch(_: &mut (), _: Entity, _: TableRow) -> bool {
        true
    }
}

impl<T: Component> super::ArchetypeFilter for Allow<T> {}
