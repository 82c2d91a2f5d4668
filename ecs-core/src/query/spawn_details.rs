//! When entities were spawned: the [`SpawnDetails`] query data and the
//! [`Spawned`] filter, read from the tick the allocator records for each
//! entity as it becomes live (a spawn, or the flush of a reserved entity).

use super::{FilteredAccess, QueryData, QueryFilter, ReadOnlyQueryData, WorldQuery};
use crate::{
    archetype::Archetype,
    change_detection::Tick,
    component::{ComponentId, Components},
    entity::{Entities, Entity},
    storage::{Table, TableRow},
    world::{UnsafeWorldCell, World},
};

/// Query data giving the tick each entity was spawned at, and whether that
/// was since the system last ran. To keep only such entities, filter with
/// [`Spawned`] instead.
///
/// ```
/// use ecs::prelude::*;
/// use ecs::query::SpawnDetails;
///
/// #[derive(Component)]
/// struct Enemy;
///
/// #[derive(Resource, Default)]
/// struct New(u32);
///
/// fn count_new(enemies: Query<SpawnDetails, With<Enemy>>, mut new: ResMut<New>) {
///     new.0 = enemies.iter().filter(|details| details.is_spawned()).count() as u32;
/// }
///
/// let mut world = World::new();
/// world.init_resource::<New>();
/// let mut schedule = Schedule::default();
/// schedule.add_systems(count_new);
/// world.spawn(Enemy);
/// schedule.run(&mut world);
/// assert_eq!(world.resource::<New>().0, 1);
/// world.spawn(Enemy);
/// world.spawn(Enemy);
/// schedule.run(&mut world);
/// assert_eq!(world.resource::<New>().0, 2);
/// ```
///
/// Bevy's also records where the spawn happened (`spawned_by`), from
/// caller tracking, which this crate does not keep.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpawnDetails {
    spawn_tick: Tick,
    last_run: Tick,
    this_run: Tick,
}

impl SpawnDetails {
    /// Whether the entity was spawned since the system (or query) last
    /// ran.
    #[inline]
    pub fn is_spawned(self) -> bool {
        self.is_spawned_after(self.last_run)
    }

    /// Whether the entity was spawned after the tick `other`.
    #[inline]
    pub fn is_spawned_after(self, other: Tick) -> bool {
        self.spawn_tick.is_newer_than(other, self.this_run)
    }

    /// The tick the entity was spawned at.
    #[inline]
    pub fn spawn_tick(self) -> Tick {
        self.spawn_tick
    }
}

/// The fetch of [`SpawnDetails`] and [`Spawned`]: the allocator, which
/// holds each entity's spawn tick, and the ticks to compare against.
#[doc(hidden)]
#[derive(Clone)]
pub struct SpawnTickFetch<'w> {
    entities: &'w Entities,
    last_run: Tick,
    this_run: Tick,
}

impl SpawnTickFetch<'_> {
    /// # Safety
    /// `entity` is live (the query yields it).
    #[inline(always)]
    unsafe fn spawn_tick(&self, entity: Entity) -> Tick {
        // SAFETY: forwarded.
        unsafe { self.entities.spawn_tick_unchecked(entity.index()) }
    }
}

macro_rules! spawn_tick_world_query {
    ($ty:ty) => {
        // SAFETY: reads no component, only the allocator's spawn ticks,
        // which change only through `&mut World` (never while a query
        // runs); matches every archetype.
        unsafe impl WorldQuery for $ty {
            type Fetch<'w> = SpawnTickFetch<'w>;
            type State = ();
            const IS_DENSE: bool = true;

            #[inline]
            unsafe fn init_fetch<'w>(
                world: UnsafeWorldCell<'w>,
                _: &(),
                last_run: Tick,
                this_run: Tick,
            ) -> SpawnTickFetch<'w> {
                SpawnTickFetch {
                    entities: world.entities(),
                    last_run,
                    this_run,
                }
            }

            #[inline]
            unsafe fn set_archetype<'w>(
                _: &mut SpawnTickFetch<'w>,
                _: &(),
                _: &'w Archetype,
                _: &'w Table,
            ) {
            }

            #[inline]
            unsafe fn set_table<'w>(_: &mut SpawnTickFetch<'w>, _: &(), _: &'w Table) {}

            fn update_component_access(_: &(), _: &mut FilteredAccess) {}

            fn init_state(_: &mut World) {}

            #[inline]
            fn can_sparse_walk(_: &(), _: ComponentId) -> bool {
                true
            }

            fn get_state(_: &Components) -> Option<()> {
                Some(())
            }

            fn matches_component_set(_: &(), _: &impl Fn(ComponentId) -> bool) -> bool {
                true
            }
        }
    };
}

spawn_tick_world_query!(SpawnDetails);
spawn_tick_world_query!(Spawned);

// SAFETY: reads only the allocator's spawn ticks.
unsafe impl QueryData for SpawnDetails {
    const IS_READ_ONLY: bool = true;
    type ReadOnly = Self;
    type Item<'w> = SpawnDetails;

    #[inline(always)]
    unsafe fn fetch<'w>(
        fetch: &mut Self::Fetch<'w>,
        entity: Entity,
        _: TableRow,
    ) -> Self::Item<'w> {
        SpawnDetails {
            // SAFETY: the query yields live entities.
            spawn_tick: unsafe { fetch.spawn_tick(entity) },
            last_run: fetch.last_run,
            this_run: fetch.this_run,
        }
    }
}

// SAFETY: writes nothing.
unsafe impl ReadOnlyQueryData for SpawnDetails {}

/// A filter keeping the entities spawned since the system (or query) last
/// ran, as `Added<T>` keeps those that gained `T`.
///
/// It is not archetypal: it looks at every entity the rest of the query
/// matches, spawned or not.
///
/// ```
/// use ecs::prelude::*;
/// use ecs::query::Spawned;
///
/// #[derive(Component)]
/// struct Name(&'static str);
///
/// let mut world = World::new();
/// world.spawn(Name("old"));
/// let mut new_names = world.query_filtered::<&Name, Spawned>();
/// assert_eq!(new_names.iter(&world).count(), 1);
/// world.clear_trackers();
/// world.spawn(Name("new"));
/// let names: Vec<_> = new_names.iter(&world).map(|n| n.0).collect();
/// assert_eq!(names, ["new"]);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Spawned;

// SAFETY: not archetypal; reads only the allocator's spawn ticks.
unsafe impl QueryFilter for Spawned {
    const IS_ARCHETYPAL: bool = false;

    #[inline(always)]
    unsafe fn filter_fetch(fetch: &mut Self::Fetch<'_>, entity: Entity, _: TableRow) -> bool {
        // SAFETY: the query yields live entities.
        unsafe { fetch.spawn_tick(entity) }.is_newer_than(fetch.last_run, fetch.this_run)
    }
}
