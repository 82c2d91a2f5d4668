//! Query filters: `With<T>`, `Without<T>`, `Or<(..)>`, `Added<T>`,
//! `Changed<T>` and tuples (all must hold).

use std::{cell::UnsafeCell, marker::PhantomData};

use super::{world_query::cached_column, FilteredAccess, QueryFilter, WorldQuery};
use crate::{
    archetype::Archetype,
    change_detection::Tick,
    component::{Component, ComponentId, StorageType},
    entity::Entity,
    storage::{column_slot, ComponentSparseSet, Table, TableRow},
    utils::DebugCheckedUnwrap,
    world::{UnsafeWorldCell, World},
};

/// Keeps entities that have component `T` (without reading it).
pub struct With<T>(PhantomData<T>);

/// Keeps entities that do not have component `T`.
pub struct Without<T>(PhantomData<T>);

macro_rules! archetype_filter {
    ($name:ident, $matches:expr, $record:ident) => {
        // SAFETY: reads nothing; the filter is decided by archetype, and by
        // table when `T` is a table component.
        unsafe impl<T: Component> WorldQuery for $name<T> {
            type Fetch<'w> = ();
            type State = ComponentId;
            const IS_DENSE: bool = matches!(T::STORAGE_TYPE, StorageType::Table);

            #[inline]
            unsafe fn init_fetch<'w>(_: UnsafeWorldCell<'w>, _: &ComponentId, _: Tick, _: Tick) {}
            #[inline]
            unsafe fn set_archetype<'w>(
                _: &mut (),
                _: &ComponentId,
                _: &'w Archetype,
                _: &'w Table,
            ) {
            }
            #[inline]
            unsafe fn set_table<'w>(_: &mut Self::Fetch<'w>, _: &ComponentId, _: &'w Table) {}

            fn update_component_access(&id: &ComponentId, access: &mut FilteredAccess) {
                $record(access, id);
            }

            #[inline]
            fn can_sparse_walk(_: &ComponentId, _: ComponentId) -> bool {
                true
            }

            crate::query::fetch::component_id_state!($matches);
        }

        // SAFETY: every row of a matched archetype passes.
        unsafe impl<T: Component> QueryFilter for $name<T> {
            const IS_ARCHETYPAL: bool = true;

            #[inline(always)]
            unsafe fn filter_fetch(_: &mut (), _: Entity, _: TableRow) -> bool {
                true
            }
        }
    };
}

fn record_with(access: &mut FilteredAccess, id: ComponentId) {
    access.and_with(id);
    access.add_required(id);
}

fn record_without(access: &mut FilteredAccess, id: ComponentId) {
    access.and_without(id);
}

archetype_filter!(With, |has: bool| has, record_with);
archetype_filter!(Without, |has: bool| !has, record_without);

/// The fetch of `Added<T>` and `Changed<T>`: the tick column of `T` in the
/// current table, or its sparse set.
pub struct TickFilterFetch<'w> {
    ticks: *const UnsafeCell<Tick>,
    sparse_set: Option<&'w ComponentSparseSet>,
    last_run: Tick,
    this_run: Tick,
}

impl Clone for TickFilterFetch<'_> {
    fn clone(&self) -> Self {
        TickFilterFetch { ..*self }
    }
}

/// Keeps entities whose `T` was added since the query's last run (for a
/// standalone query state: since the last `World::clear_trackers`).
///
/// # Panics
/// When its query is built, if `T` keeps no change ticks
/// ([`Component::CHANGE_TICKS`] `= false`).
pub struct Added<T>(PhantomData<T>);

/// Keeps entities whose `T` was added or changed since the query's last
/// run (for a standalone query state: since the last
/// `World::clear_trackers`).
///
/// # Panics
/// When its query is built, if `T` keeps no change ticks
/// ([`Component::CHANGE_TICKS`] `= false`).
pub struct Changed<T>(PhantomData<T>);

macro_rules! tick_filter {
    ($name:ident, $column_ticks:ident, $field:ident) => {
        // SAFETY: reads the ticks of `T`, recorded as a read of `T`;
        // matches only archetypes with `T`.
        unsafe impl<T: Component> WorldQuery for $name<T> {
            type Fetch<'w> = TickFilterFetch<'w>;
            type State = ComponentId;
            const IS_DENSE: bool = matches!(T::STORAGE_TYPE, StorageType::Table);

            #[inline]
            unsafe fn init_fetch<'w>(
                world: UnsafeWorldCell<'w>,
                &id: &ComponentId,
                last_run: Tick,
                this_run: Tick,
            ) -> TickFilterFetch<'w> {
                TickFilterFetch {
                    ticks: std::ptr::null(),
                    sparse_set: match T::STORAGE_TYPE {
                        StorageType::Table => None,
                        // SAFETY: the fetch reads the ticks of `id`, which
                        // the query's access covers (caller of `init_fetch`).
                        StorageType::SparseSet => unsafe { world.storages() }.sparse_sets.get(id),
                    },
                    last_run,
                    this_run,
                }
            }

            #[inline]
            unsafe fn set_archetype<'w>(
                fetch: &mut TickFilterFetch<'w>,
                id: &ComponentId,
                _: &'w Archetype,
                table: &'w Table,
            ) {
                if Self::IS_DENSE {
                    // SAFETY: a matched archetype's table has `T`.
                    unsafe { Self::set_table(fetch, id, table) };
                }
            }

            #[inline]
            unsafe fn set_table<'w>(
                fetch: &mut TickFilterFetch<'w>,
                &id: &ComponentId,
                table: &'w Table,
            ) {
                // SAFETY: a matched table has `T`.
                fetch.ticks = unsafe { table.get_column(id).debug_checked_unwrap() }
                    .$column_ticks()
                    .as_ptr();
            }

            crate::query::fetch::one_column_slot!();

            #[inline(always)]
            unsafe fn set_table_cached<'w>(
                fetch: &mut TickFilterFetch<'w>,
                &id: &ComponentId,
                table: &'w Table,
                columns: &[u32],
            ) {
                // SAFETY: the slot exists and is the position of `T`'s
                // column, which a matched table has (caller).
                let column = unsafe { cached_column(table, id, columns) };
                fetch.ticks = column.$column_ticks().as_ptr();
            }

            fn update_component_access(&id: &ComponentId, access: &mut FilteredAccess) {
                if !T::CHANGE_TICKS {
                    crate::component::assert_change_ticks::<T>(&format!(
                        concat!("`", stringify!($name), "<{}>`"),
                        std::any::type_name::<T>()
                    ));
                }
                access.add_read(id);
            }

            crate::query::fetch::component_id_state!();
        }

        // SAFETY: not archetypal.
        unsafe impl<T: Component> QueryFilter for $name<T> {
            const IS_ARCHETYPAL: bool = false;

            #[inline(always)]
            unsafe fn filter_fetch(
                fetch: &mut TickFilterFetch<'_>,
                entity: Entity,
                table_row: TableRow,
            ) -> bool {
                // SAFETY: the fetch points at the entity's table or the
                // sparse set holding its `T`; no one writes these ticks
                // while the query holds read access to `T`.
                let tick = unsafe {
                    match T::STORAGE_TYPE {
                        StorageType::Table => *(*fetch.ticks.add(table_row.index())).get(),
                        StorageType::SparseSet => {
                            fetch
                                .sparse_set
                                .debug_checked_unwrap()
                                .get_ticks_unchecked(entity)
                                .$field
                        }
                    }
                };
                tick.is_newer_than(fetch.last_run, fetch.this_run)
            }
        }
    };
}

tick_filter!(Added, added_ticks, added);
tick_filter!(Changed, changed_ticks, changed);

/// Keeps entities that pass at least one of the tuple's filters.
///
/// `Query<&Position, Or<(With<Player>, Added<Position>)>>`
pub struct Or<T>(PhantomData<T>);

macro_rules! tuple_filter {
    ($(($name:ident, $s:ident)),*) => {
        // SAFETY: the tuple's WorldQuery impl (in fetch.rs) covers access;
        // archetypal exactly when every element is.
        #[allow(non_snake_case, unused_variables)]
        unsafe impl<$($name: QueryFilter),*> QueryFilter for ($($name,)*) {
            const IS_ARCHETYPAL: bool = true $(&& $name::IS_ARCHETYPAL)*;

            #[inline(always)]
            unsafe fn filter_fetch(fetch: &mut Self::Fetch<'_>, entity: Entity, table_row: TableRow) -> bool {
                let ($($name,)*) = fetch;
                // SAFETY: forwarded.
                true $(&& unsafe { $name::filter_fetch($name, entity, table_row) })*
            }
        }
    };
}

crate::utils::all_tuples!(tuple_filter; (F0, s0), (F1, s1), (F2, s2), (F3, s3), (F4, s4), (F5, s5), (F6, s6), (F7, s7), (F8, s8), (F9, s9), (F10, s10), (F11, s11), (F12, s12), (F13, s13), (F14, s14), (F15, s15));

macro_rules! or_filter {
    ($(($name:ident, $s:ident)),*) => {
        // SAFETY: each branch's access is recorded as an alternative; each
        // branch is set up and consulted only where it matches.
        #[allow(non_snake_case, unused_variables)]
        unsafe impl<$($name: QueryFilter),*> WorldQuery for Or<($($name,)*)> {
            crate::query::fetch::alternatives_world_query!($(($name, $s)),*);

            fn update_component_access(state: &Self::State, access: &mut FilteredAccess) {
                let ($($name,)*) = state;
                let mut branches: Option<FilteredAccess> = None;
                $(
                    let mut branch = FilteredAccess::default();
                    $name::update_component_access($name, &mut branch);
                    match &mut branches {
                        None => branches = Some(branch),
                        Some(all) => all.append_or(&branch),
                    }
                )*
                if let Some(all) = branches {
                    access.extend(&all);
                }
            }
        }

        // SAFETY: archetypal exactly when every branch is.
        #[allow(non_snake_case, unused_variables)]
        unsafe impl<$($name: QueryFilter),*> QueryFilter for Or<($($name,)*)> {
            const IS_ARCHETYPAL: bool = true $(&& $name::IS_ARCHETYPAL)*;

            #[inline(always)]
            unsafe fn filter_fetch(fetch: &mut Self::Fetch<'_>, entity: Entity, table_row: TableRow) -> bool {
                let ($($name,)*) = fetch;
                // SAFETY: forwarded, only to matching branches.
                false $(|| ($name.1 && unsafe { $name::filter_fetch(&mut $name.0, entity, table_row) }))*
            }
        }
    };
}

crate::utils::all_tuples_nonempty!(or_filter; (F0, s0), (F1, s1), (F2, s2), (F3, s3), (F4, s4), (F5, s5), (F6, s6), (F7, s7), (F8, s8), (F9, s9), (F10, s10), (F11, s11), (F12, s12), (F13, s13), (F14, s14), (F15, s15));
