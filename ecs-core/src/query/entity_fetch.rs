//! Whole-entity handles as query data: [`EntityRef`] and [`EntityMut`]
//! (every component of the entity) and [`FilteredEntityRef`] and
//! [`FilteredEntityMut`] (the components a
//! [`QueryBuilder`](super::QueryBuilder) gave them access to).
//!
//! They match every archetype. `EntityRef` and `EntityMut` read no column
//! when the fetch is pointed at a table: the item looks the entity's
//! location up when it is fetched. The filtered handles carry their
//! access and their archetype's table (a [`FilteredView`], copied into
//! each item), so that reading by id finds the column in the table, with
//! no lookup of the entity; they walk archetypes rather than tables, as a
//! builder's filter may name sparse-set components, which split a table's
//! rows between archetypes.

use std::any::type_name;

use super::{Access, FilteredAccess, QueryData, ReadOnlyQueryData, WorldQuery};
use crate::{
    archetype::Archetype,
    bundle::Bundle,
    change_detection::Tick,
    component::ComponentId,
    entity::Entity,
    storage::{Table, TableRow},
    world::{
        intern_access, EntityMut, EntityMutExcept, EntityRef, EntityRefExcept, FilteredEntityMut,
        FilteredEntityRef, FilteredView, UnsafeWorldCell, World,
    },
};

/// The entity's handle parts, from the world the fetch was built for.
///
/// # Safety
/// `entity` is live in `world` (it is the entity of a matched row).
#[inline]
unsafe fn located(world: UnsafeWorldCell<'_>, entity: Entity) -> crate::entity::EntityLocation {
    let location = world.entities().get(entity);
    debug_assert!(location.is_some(), "queried entity {entity:?} is not live");
    // SAFETY: the entity of a matched row is live (caller).
    unsafe { location.unwrap_unchecked() }
}

macro_rules! whole_entity_world_query {
    ($ty:ty, $state:ty, $init:expr, |$s:ident, $access:ident| $update:block) => {
        whole_entity_world_query!($ty, true, $state, UnsafeWorldCell<'w>, |world, _st| world, $init, |$s, $access| $update);
    };
    ($ty:ty, $dense:expr, $state:ty, $fetch:ty, |$w:ident, $fs:ident| $make:expr, $init:expr, |$s:ident, $access:ident| $update:block) => {
        // SAFETY: the fetch reaches the entity's components only through
        // the item, within what `update_component_access` records; it
        // matches every archetype and reads no column, so it is dense.
        unsafe impl WorldQuery for $ty {
            type Fetch<'w> = $fetch;
            type State = $state;
            const IS_DENSE: bool = $dense;

            #[inline]
            #[allow(clippy::unused_unit)]
            unsafe fn init_fetch<'w>(
                $w: UnsafeWorldCell<'w>,
                $fs: &$state,
                _: Tick,
                _: Tick,
            ) -> $fetch {
                $make
            }

            #[inline]
            unsafe fn set_archetype<'w>(
                _: &mut $fetch,
                _: &$state,
                _: &'w Archetype,
                _: &'w Table,
            ) {
            }

            #[inline]
            unsafe fn set_table<'w>(_: &mut $fetch, _: &$state, _: &'w Table) {}

            #[track_caller]
            fn update_component_access($s: &$state, $access: &mut FilteredAccess) $update

            fn init_state(_: &mut World) -> $state {
                $init
            }

            fn get_state(_: &crate::component::Components) -> Option<$state> {
                Some($init)
            }

            fn matches_component_set(_: &$state, _: &impl Fn(ComponentId) -> bool) -> bool {
                true
            }
        }
    };
}

whole_entity_world_query!(EntityRef<'_>, (), (), |_state, access| {
    assert!(
        access.access().is_read_only(),
        "query term `EntityRef` reads every component, but another term of the same query writes one: \
         use `EntityMut`, or split the query"
    );
    access.access_mut().read_all();
});

// SAFETY: reads only, and only the entity's components.
unsafe impl QueryData for EntityRef<'_> {
    const IS_READ_ONLY: bool = true;
    type ReadOnly = Self;
    type Item<'w> = EntityRef<'w>;

    #[inline]
    unsafe fn fetch<'w>(
        world: &mut Self::Fetch<'w>,
        entity: Entity,
        _: TableRow,
    ) -> Self::Item<'w> {
        // SAFETY: the entity of a matched row is live.
        let location = unsafe { located(*world, entity) };
        EntityRef::new(world.meta(), entity, location)
    }
}

// SAFETY: reads only.
unsafe impl ReadOnlyQueryData for EntityRef<'_> {}

whole_entity_world_query!(EntityMut<'_>, (), (), |_state, access| {
    let any = access.access().has_any_read();
    assert!(
        !any,
        "query term `EntityMut` writes every component, but another term of the same query also accesses one: \
         use only `EntityMut`, or split the query"
    );
    access.access_mut().write_all();
});

// SAFETY: writes only the entity's components, recorded as writing all;
// `EntityRef` reads a subset of that.
unsafe impl<'a> QueryData for EntityMut<'a> {
    const IS_READ_ONLY: bool = false;
    type ReadOnly = EntityRef<'a>;
    type Item<'w> = EntityMut<'w>;

    #[inline]
    unsafe fn fetch<'w>(
        world: &mut Self::Fetch<'w>,
        entity: Entity,
        _: TableRow,
    ) -> Self::Item<'w> {
        // SAFETY: the entity of a matched row is live.
        let location = unsafe { located(*world, entity) };
        // SAFETY: the location is current; queries make no structural
        // change; the caller's access (write all) makes the values of this
        // entity, whose row no other live item of this query shares,
        // exclusively this handle's.
        unsafe { EntityMut::new(*world, entity, location) }
    }
}

/// Records the builder's access as the filtered handle's, checking it
/// against the query's other terms.
#[track_caller]
fn record_filtered(state: &Access, access: &mut FilteredAccess, term: &str) {
    let conflicts = access.access().get_conflicts(state);
    if !conflicts.is_empty() {
        filtered_conflict(term, &conflicts);
    }
    access.access_mut().extend(state);
}

#[cold]
#[track_caller]
fn filtered_conflict(term: &str, conflicts: &[Option<ComponentId>]) -> ! {
    let on: Vec<String> = conflicts
        .iter()
        .map(|c| match c {
            Some(id) => format!("component id {}", id.index()),
            None => "every component".to_owned(),
        })
        .collect();
    panic!(
        "query term `{term}` conflicts with another term of the same query on {} (a term that \
         reads or writes every component, or all but some, leaves no room for a term writing one \
         it keeps): leave the component out, or split the query",
        on.join(", ")
    )
}

/// The fetch of the filtered handles: the world, and the view their items
/// of the current archetype share.
pub(crate) type FilteredFetch<'w> = (UnsafeWorldCell<'w>, FilteredView<'w>);

/// The `WorldQuery` of a handle over a [`FilteredView`] whose state is
/// its interned access: the filtered handles (access from a builder) and
/// the `Except` handles (every component but a bundle's). `term` names the
/// handle in conflict panics; `init` and `get` build the state.
macro_rules! filtered_world_query {
    (
        [$($generics:tt)*] $ty:ty,
        term: $term:expr,
        init: |$world:pat_param| $init:expr,
        get: |$components:pat_param| $get:expr $(,)?
    ) => {
        // SAFETY: the fetch reaches the entity's components only through
        // the item, within the state's access, which
        // `update_component_access` records; it matches every archetype.
        // Dense: it matches every archetype of a table alike (a builder's
        // filter naming a sparse-set component makes its state walk
        // archetypes instead, as bevy's does).
        unsafe impl<$($generics)*> WorldQuery for $ty {
            type Fetch<'w> = FilteredFetch<'w>;
            type State = &'static Access;
            const IS_DENSE: bool = true;

            #[inline]
            unsafe fn init_fetch<'w>(
                world: UnsafeWorldCell<'w>,
                state: &&'static Access,
                last_run: Tick,
                this_run: Tick,
            ) -> FilteredFetch<'w> {
                (world, FilteredView::new(state, last_run, this_run))
            }

            #[inline]
            unsafe fn set_archetype<'w>(
                fetch: &mut FilteredFetch<'w>,
                _: &&'static Access,
                _: &'w Archetype,
                table: &'w Table,
            ) {
                fetch.1.point_at(table);
            }

            #[inline]
            unsafe fn set_table<'w>(
                fetch: &mut FilteredFetch<'w>,
                _: &&'static Access,
                table: &'w Table,
            ) {
                fetch.1.point_at(table);
            }

            #[track_caller]
            fn update_component_access(state: &&'static Access, access: &mut FilteredAccess) {
                record_filtered(state, access, &$term);
            }

            fn init_state($world: &mut World) -> &'static Access {
                $init
            }

            fn get_state($components: &crate::component::Components) -> Option<&'static Access> {
                $get
            }

            fn matches_component_set(
                _: &&'static Access,
                _: &impl Fn(ComponentId) -> bool,
            ) -> bool {
                true
            }
        }
    };
}

filtered_world_query!(
    [] FilteredEntityRef<'_, '_>,
    term: "FilteredEntityRef",
    init: |_| intern_access(Access::default()),
    get: |_| Some(intern_access(Access::default())),
);

// SAFETY: reads only what the state's access lists, which holds reads
// only (`provide_extra_access` keeps no write).
unsafe impl QueryData for FilteredEntityRef<'_, '_> {
    const IS_READ_ONLY: bool = true;
    type ReadOnly = Self;
    type Item<'w> = FilteredEntityRef<'w, 'w>;

    #[inline(always)]
    unsafe fn fetch<'w>(
        fetch: &mut Self::Fetch<'w>,
        entity: Entity,
        table_row: TableRow,
    ) -> Self::Item<'w> {
        // SAFETY: the entity of a matched row is live at `table_row` of the
        // table the view was pointed at; the query's recorded access
        // includes these reads, so nothing writes those components
        // meanwhile, and queries make no structural change.
        unsafe { FilteredEntityRef::new(fetch.0.meta(), entity, table_row, fetch.1) }
    }

    fn provide_extra_access(state: &mut &'static Access, access: &mut Access, available: &Access) {
        // Not what the item's other terms (or earlier handles) write.
        let mut available = available.clone();
        available.remove_conflicting_access(access);
        let reads = available.reads_only();
        access.extend(&reads);
        *state = intern_access(reads);
    }
}

// SAFETY: reads only.
unsafe impl ReadOnlyQueryData for FilteredEntityRef<'_, '_> {}

filtered_world_query!(
    [] FilteredEntityMut<'_, '_>,
    term: "FilteredEntityMut",
    init: |_| intern_access(Access::default()),
    get: |_| Some(intern_access(Access::default())),
);

// SAFETY: touches only what the state's access lists, recorded by
// `update_component_access`; its read-only twin reads a subset of it.
unsafe impl<'a, 'b> QueryData for FilteredEntityMut<'a, 'b> {
    const IS_READ_ONLY: bool = false;
    type ReadOnly = FilteredEntityRef<'a, 'b>;
    type Item<'w> = FilteredEntityMut<'w, 'w>;

    #[inline(always)]
    unsafe fn fetch<'w>(
        fetch: &mut Self::Fetch<'w>,
        entity: Entity,
        table_row: TableRow,
    ) -> Self::Item<'w> {
        // SAFETY: the entity of a matched row is live at `table_row` of the
        // table the view was pointed at; queries make no structural
        // change; the query's recorded access includes the view's, and no
        // other live item of the query shares this entity's row.
        unsafe { FilteredEntityMut::new(fetch.0, entity, table_row, fetch.1) }
    }

    fn provide_extra_access(state: &mut &'static Access, access: &mut Access, available: &Access) {
        // Not what the item's other terms (or earlier handles) touch.
        let mut available = available.clone();
        available.remove_conflicting_access(access);
        access.extend(&available);
        *state = intern_access(available);
    }
}

/// The state of the `Except` handles: every component (read, or read and
/// written) except the bundle's.
fn except_access(ids: impl FnOnce(&mut dyn FnMut(ComponentId)), write: bool) -> &'static Access {
    let mut access = Access::default();
    if write {
        access.write_all();
    } else {
        access.read_all();
    }
    ids(&mut |id| access.remove_read(id));
    intern_access(access)
}

/// The `WorldQuery` of an `Except` handle: its state is every component
/// (read, or read and written: `$write`) except the bundle's.
macro_rules! except_world_query {
    ($ty:ident, $write:expr) => {
        filtered_world_query!(
            [B: Bundle] $ty<'_, '_, B>,
            term: format!(concat!(stringify!($ty), "<{}>"), type_name::<B>()),
            init: |world| except_access(
                |add| B::component_ids(&mut world.components, &mut |id| add(id)),
                $write,
            ),
            get: |components| Some(except_access(
                |add| {
                    B::get_component_ids(components, &mut |id| {
                        if let Some(id) = id {
                            add(id)
                        }
                    })
                },
                $write,
            )),
        );
    };
}

except_world_query!(EntityRefExcept, false);

// SAFETY: reads only what the state's access lists (every component but
// `B`'s); the item's typed lookups also refuse `B`'s components.
unsafe impl<B: Bundle> QueryData for EntityRefExcept<'_, '_, B> {
    const IS_READ_ONLY: bool = true;
    type ReadOnly = Self;
    type Item<'w> = EntityRefExcept<'w, 'w, B>;

    #[inline(always)]
    unsafe fn fetch<'w>(
        fetch: &mut Self::Fetch<'w>,
        entity: Entity,
        table_row: TableRow,
    ) -> Self::Item<'w> {
        // SAFETY: as for `FilteredEntityRef`: the entity of a matched row
        // is live at `table_row` of the view's table; the query's recorded
        // access includes these reads; queries make no structural change.
        EntityRefExcept::new(unsafe {
            FilteredEntityRef::new(fetch.0.meta(), entity, table_row, fetch.1)
        })
    }
}

// SAFETY: reads only.
unsafe impl<B: Bundle> ReadOnlyQueryData for EntityRefExcept<'_, '_, B> {}

except_world_query!(EntityMutExcept, true);

// SAFETY: touches only what the state's access lists (every component but
// `B`'s), recorded by `update_component_access`; its read-only twin reads
// a subset of it.
unsafe impl<'a, 'b, B: Bundle> QueryData for EntityMutExcept<'a, 'b, B> {
    const IS_READ_ONLY: bool = false;
    type ReadOnly = EntityRefExcept<'a, 'b, B>;
    type Item<'w> = EntityMutExcept<'w, 'w, B>;

    #[inline(always)]
    unsafe fn fetch<'w>(
        fetch: &mut Self::Fetch<'w>,
        entity: Entity,
        table_row: TableRow,
    ) -> Self::Item<'w> {
        // SAFETY: as for `FilteredEntityMut`: the entity of a matched row is
        // live at `table_row` of the view's table; queries make no
        // structural change; the query's recorded access includes the
        // view's, and no other live item of the query shares this row.
        EntityMutExcept::new(unsafe { FilteredEntityMut::new(fetch.0, entity, table_row, fetch.1) })
    }
}
