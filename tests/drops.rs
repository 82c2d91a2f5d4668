//! Drop accounting: every component and resource value is dropped exactly
//! once — on replace, remove, despawn, `clear_entities`, world drop,
//! rejected `insert_if_new` — never when it is taken out, and the world
//! stays consistent when a `Drop` panics.
//!
//! Each test owns its own [`DropLog`], so tests run in parallel without
//! sharing a counter. Values carry ids, and the log records which ids were
//! dropped, so the assertions check the exact multiset: no id twice, none
//! missing, none early.

mod common;

use std::alloc::Layout;
use std::any::Any;
use std::fmt::Debug;
use std::panic::{catch_unwind, AssertUnwindSafe};

use common::drop_log::{DropLog, Payload};
use common::integrity::check_invariants;
use common::panics::panic_message;
use ecs::component::ComponentDescriptor;
use ecs::prelude::*;
use ecs::ptr::OwningPtr;

// ---- tracked components -------------------------------------------------------------

/// The drop-counting payload of every component here.
struct Tracked {
    id: u32,
    log: DropLog,
}

impl Tracked {
    fn new(id: u32, log: &DropLog) -> Self {
        Tracked {
            id,
            log: log.clone(),
        }
    }
}

impl Drop for Tracked {
    fn drop(&mut self) {
        self.log.record(self.id);
    }
}

impl Debug for Tracked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Tracked({})", self.id)
    }
}

impl PartialEq for Tracked {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
    }
}

/// A tracked component type, so one scenario runs over both storages.
trait TrackedComponent: Component<Mutability = ecs::component::Mutable> + Debug + PartialEq {
    fn new(id: u32, log: &DropLog) -> Self;
    fn id(&self) -> u32;
}

#[derive(Component, Debug, PartialEq)]
struct TableTracked(Tracked);

#[derive(Component, Debug, PartialEq)]
#[component(storage = "SparseSet")]
struct SparseTracked(Tracked);

/// A second table type, for entities with several tracked values.
#[derive(Component, Debug, PartialEq)]
struct TableTracked2(Tracked);

/// A second sparse type.
#[derive(Component, Debug, PartialEq)]
#[component(storage = "SparseSet")]
struct SparseTracked2(Tracked);

macro_rules! tracked_component {
    ($($ty:ident),*) => {$(
        impl TrackedComponent for $ty {
            fn new(id: u32, log: &DropLog) -> Self {
                $ty(Tracked::new(id, log))
            }
            fn id(&self) -> u32 {
                self.0.id
            }
        }
    )*};
}
/// Over-aligned tracked values, in a table.
#[derive(Component, Debug, PartialEq)]
#[repr(align(64))]
struct AlignedTableTracked(Tracked);

/// Over-aligned tracked values, in a sparse set.
#[derive(Component, Debug, PartialEq)]
#[component(storage = "SparseSet")]
#[repr(align(64))]
struct AlignedSparseTracked(Tracked);

tracked_component!(
    TableTracked,
    SparseTracked,
    TableTracked2,
    SparseTracked2,
    AlignedTableTracked,
    AlignedSparseTracked
);

#[derive(Resource, Debug, PartialEq)]
struct TrackedResource(Tracked);

#[derive(Resource, Debug, PartialEq)]
struct OtherTrackedResource(Tracked);

/// An untracked component, to move entities between archetypes.
#[derive(Component, Debug, PartialEq)]
struct Plain(u32);

#[derive(Component, Debug, PartialEq)]
#[component(storage = "SparseSet")]
struct SparsePlain(u32);

fn id_of<T: TrackedComponent>(world: &World, e: Entity) -> Option<u32> {
    world.get::<T>(e).map(T::id)
}

// ---- scenarios, generic over the storage ----------------------------------------------

fn insert_over_existing<T: TrackedComponent>() {
    let log = DropLog::default();
    let mut world = World::new();
    let other = world.spawn(T::new(100, &log)).id();
    let e = world.spawn(T::new(1, &log)).id();
    log.assert_dropped(&[]);

    world.entity_mut(e).insert(T::new(2, &log));
    log.assert_dropped(&[1]);
    assert_eq!(id_of::<T>(&world, e), Some(2));

    // Replacing inside a bundle that also moves the entity.
    world
        .entity_mut(e)
        .insert((Plain(0), T::new(3, &log), SparsePlain(0)));
    log.assert_dropped(&[1, 2]);
    assert_eq!(id_of::<T>(&world, e), Some(3));

    // Through `get_mut`: assignment drops the old value once.
    *world.get_mut::<T>(e).unwrap() = T::new(4, &log);
    log.assert_dropped(&[1, 2, 3]);

    assert_eq!(id_of::<T>(&world, other), Some(100));
    drop(world);
    log.assert_dropped(&[1, 2, 3, 4, 100]);
}

fn remove_drops_once<T: TrackedComponent>() {
    let log = DropLog::default();
    let mut world = World::new();
    let es: Vec<Entity> = (0..4)
        .map(|i| world.spawn((T::new(i, &log), Plain(i))).id())
        .collect();
    world.entity_mut(es[1]).remove::<T>();
    log.assert_dropped(&[1]);
    assert_eq!(id_of::<T>(&world, es[1]), None);
    // Removing again, or with a bundle naming it, drops nothing more.
    world.entity_mut(es[1]).remove::<T>();
    world.entity_mut(es[1]).remove::<(T, Plain)>();
    log.assert_dropped(&[1]);
    // A bundle remove drops the present tracked value once.
    world.entity_mut(es[0]).remove::<(Plain, T, SparsePlain)>();
    log.assert_dropped(&[0, 1]);
    assert_eq!(id_of::<T>(&world, es[2]), Some(2));
    assert_eq!(id_of::<T>(&world, es[3]), Some(3));
    check_invariants(&world);
    drop(world);
    log.assert_dropped(&[0, 1, 2, 3]);
}

fn take_does_not_drop<T: TrackedComponent>() {
    let log = DropLog::default();
    let mut world = World::new();
    let e = world.spawn((T::new(1, &log), Plain(1))).id();
    let f = world.spawn((T::new(2, &log), SparsePlain(2))).id();
    let taken = world.entity_mut(e).take::<T>().expect("present");
    assert_eq!(taken.id(), 1);
    log.assert_dropped(&[]);
    assert_eq!(id_of::<T>(&world, e), None);
    // A failed take moves and drops nothing.
    assert!(world.entity_mut(e).take::<T>().is_none());
    assert!(world.entity_mut(f).take::<(T, Plain)>().is_none());
    log.assert_dropped(&[]);
    assert_eq!(id_of::<T>(&world, f), Some(2));
    // The taken value is dropped when its owner drops it, once.
    drop(taken);
    log.assert_dropped(&[1]);
    // Taking and re-inserting keeps the value alive throughout.
    let taken = world
        .entity_mut(f)
        .take::<(SparsePlain, T)>()
        .expect("present");
    log.assert_dropped(&[1]);
    world.entity_mut(e).insert(taken);
    log.assert_dropped(&[1]);
    assert_eq!(id_of::<T>(&world, e), Some(2));
    drop(world);
    log.assert_dropped(&[1, 2]);
}

fn despawn_drops_once<T: TrackedComponent>() {
    let log = DropLog::default();
    let mut world = World::new();
    let es: Vec<Entity> = (0..5).map(|i| world.spawn(T::new(i, &log)).id()).collect();
    assert!(world.despawn(es[0]));
    log.assert_dropped(&[0]);
    world.entity_mut(es[3]).despawn();
    log.assert_dropped(&[0, 3]);
    assert!(!world.despawn(es[0]));
    log.assert_dropped(&[0, 3]);
    // The index is reused; the new value is independent.
    let reused = world.spawn(T::new(10, &log)).id();
    assert!(!world.despawn(es[3]));
    assert!(!world.despawn(es[0]));
    log.assert_dropped(&[0, 3]);
    for i in [1, 2, 4] {
        assert_eq!(id_of::<T>(&world, es[i as usize]), Some(i));
    }
    assert_eq!(id_of::<T>(&world, reused), Some(10));
    check_invariants(&world);
    drop(world);
    log.assert_dropped(&[0, 1, 2, 3, 4, 10]);
}

fn clear_entities_drops_once<T: TrackedComponent>() {
    let log = DropLog::default();
    let mut world = World::new();
    for i in 0..6 {
        match i % 3 {
            0 => world.spawn(T::new(i, &log)),
            1 => world.spawn((T::new(i, &log), Plain(i))),
            _ => world.spawn((SparsePlain(i), T::new(i, &log))),
        };
    }
    world.clear_entities();
    log.assert_dropped(&[0, 1, 2, 3, 4, 5]);
    assert_eq!(world.entity_count(), 0);
    let e = world.spawn(T::new(6, &log)).id();
    world.clear_entities();
    log.assert_dropped(&[0, 1, 2, 3, 4, 5, 6]);
    assert!(!world.contains_entity(e));
    world.spawn((Plain(7), T::new(7, &log)));
    drop(world);
    log.assert_dropped(&[0, 1, 2, 3, 4, 5, 6, 7]);
}

fn world_drop_drops_once<T: TrackedComponent>() {
    let log = DropLog::default();
    let mut world = World::new();
    let n = if cfg!(miri) { 20 } else { 1000 };
    let mut moved = 0;
    for i in 0..n {
        let e = world.spawn(T::new(i, &log)).id();
        // Scatter the values over several archetypes.
        if i % 3 == 0 {
            world.entity_mut(e).insert(Plain(i));
            moved += 1;
        }
        if i % 5 == 0 {
            world.entity_mut(e).insert(SparsePlain(i));
        }
    }
    assert!(moved > 0);
    assert_eq!(log.count(), 0);
    drop(world);
    log.assert_dropped(&(0..n).collect::<Vec<_>>());
}

fn insert_if_new_drops_rejected<T: TrackedComponent>() {
    let log = DropLog::default();
    let mut world = World::new();
    let e = world.spawn(T::new(1, &log)).id();
    world.entity_mut(e).insert_if_new(T::new(2, &log));
    log.assert_dropped(&[2]);
    assert_eq!(id_of::<T>(&world, e), Some(1));
    // In a bundle with a new component: the new one is kept.
    world
        .entity_mut(e)
        .insert_if_new((T::new(3, &log), Plain(0)));
    log.assert_dropped(&[2, 3]);
    assert_eq!(id_of::<T>(&world, e), Some(1));
    assert_eq!(world.get::<Plain>(e), Some(&Plain(0)));
    // On an entity without it, the value is inserted, not dropped.
    let f = world.spawn(Plain(1)).id();
    world.entity_mut(f).insert_if_new(T::new(4, &log));
    log.assert_dropped(&[2, 3]);
    assert_eq!(id_of::<T>(&world, f), Some(4));
    drop(world);
    log.assert_dropped(&[1, 2, 3, 4]);
}

macro_rules! for_both_storages {
    ($($name:ident => $scenario:ident),* $(,)?) => {$(
        #[test]
        fn $name() {
            $scenario::<TableTracked>();
            $scenario::<SparseTracked>();
            $scenario::<AlignedTableTracked>();
            $scenario::<AlignedSparseTracked>();
        }
    )*};
}

for_both_storages! {
    insert_over_existing_drops_old_once => insert_over_existing,
    remove_drops_value_once => remove_drops_once,
    take_returns_value_without_dropping => take_does_not_drop,
    despawn_drops_values_once => despawn_drops_once,
    clear_entities_drops_values_once => clear_entities_drops_once,
    world_drop_drops_values_once => world_drop_drops_once,
    insert_if_new_drops_rejected_value_once => insert_if_new_drops_rejected,
}

// ---- mixed storages in one entity -------------------------------------------------------

#[test]
fn mixed_storage_entities_drop_each_value_once() {
    let log = DropLog::default();
    let mut world = World::new();
    let n = if cfg!(miri) { 8 } else { 100 };
    let es: Vec<Entity> = (0..n)
        .map(|i| {
            world
                .spawn((
                    TableTracked::new(4 * i, &log),
                    SparseTracked::new(4 * i + 1, &log),
                    TableTracked2::new(4 * i + 2, &log),
                    SparseTracked2::new(4 * i + 3, &log),
                ))
                .id()
        })
        .collect();
    let mut expected = Vec::new();
    let mut kept = Vec::new();
    for (i, &e) in es.iter().enumerate() {
        let i = i as u32;
        match i % 5 {
            0 => {
                world
                    .entity_mut(e)
                    .remove::<(TableTracked, SparseTracked2)>();
                expected.extend([4 * i, 4 * i + 3]);
            }
            1 => {
                let (a, b) = world
                    .entity_mut(e)
                    .take::<(SparseTracked, TableTracked2)>()
                    .unwrap();
                assert_eq!((a.id(), b.id()), (4 * i + 1, 4 * i + 2));
                kept.push((a, b));
            }
            2 => {
                world.despawn(e);
                expected.extend([4 * i, 4 * i + 1, 4 * i + 2, 4 * i + 3]);
            }
            3 => {
                world.entity_mut(e).insert((
                    SparseTracked::new(1000 + i, &log),
                    TableTracked::new(2000 + i, &log),
                ));
                expected.extend([4 * i, 4 * i + 1]);
            }
            _ => {
                world.entity_mut(e).insert_if_new((
                    SparseTracked2::new(3000 + i, &log),
                    TableTracked2::new(4000 + i, &log),
                ));
                expected.extend([3000 + i, 4000 + i]);
            }
        }
        log.assert_dropped(&expected);
    }
    check_invariants(&world);
    let mut all: Vec<u32> = (0..4 * n).collect();
    all.extend(
        (0..n)
            .filter(|i| i % 5 == 3)
            .flat_map(|i| [1000 + i, 2000 + i]),
    );
    all.extend(
        (0..n)
            .filter(|i| i % 5 == 4)
            .flat_map(|i| [3000 + i, 4000 + i]),
    );
    drop(world);
    // Everything but the taken values is dropped now.
    let taken: Vec<u32> = kept.iter().flat_map(|(a, b)| [a.id(), b.id()]).collect();
    let mut without_taken = all.clone();
    without_taken.retain(|id| !taken.contains(id));
    log.assert_dropped(&without_taken);
    drop(kept);
    log.assert_dropped(&all);
}

// ---- resources ------------------------------------------------------------------------

#[test]
fn resources_dropped_once_when_replaced_removed_or_with_the_world() {
    let log = DropLog::default();
    let mut world = World::new();
    world.insert_resource(TrackedResource(Tracked::new(1, &log)));
    log.assert_dropped(&[]);
    world.insert_resource(TrackedResource(Tracked::new(2, &log)));
    log.assert_dropped(&[1]);
    assert_eq!(world.resource::<TrackedResource>().0.id, 2);

    let removed = world.remove_resource::<TrackedResource>().expect("present");
    log.assert_dropped(&[1]);
    assert_eq!(removed.0.id, 2);
    assert!(world.remove_resource::<TrackedResource>().is_none());
    drop(removed);
    log.assert_dropped(&[1, 2]);

    world.insert_resource(TrackedResource(Tracked::new(3, &log)));
    world.insert_resource(OtherTrackedResource(Tracked::new(4, &log)));
    // Replacing through `resource_mut`.
    *world.resource_mut::<OtherTrackedResource>() = OtherTrackedResource(Tracked::new(5, &log));
    log.assert_dropped(&[1, 2, 4]);

    // A scope moves the value out and back: nothing is dropped.
    world.resource_scope(|world: &mut World, mut r: Mut<TrackedResource>| {
        assert!(!world.contains_resource::<TrackedResource>());
        assert_eq!(r.0.id, 3);
        r.set_changed();
    });
    log.assert_dropped(&[1, 2, 4]);
    // A panicking scope puts the value back without dropping it.
    let result = catch_unwind(AssertUnwindSafe(|| {
        world.resource_scope(|_: &mut World, _: Mut<TrackedResource>| panic!("scope panics"))
    }));
    assert!(result.is_err());
    log.assert_dropped(&[1, 2, 4]);
    assert_eq!(world.resource::<TrackedResource>().0.id, 3);
    // A scope whose closure inserts another value of the same resource:
    // the scoped value is kept and the inserted one dropped, once.
    let result = catch_unwind(AssertUnwindSafe(|| {
        world.resource_scope(|world: &mut World, _: Mut<TrackedResource>| {
            world.insert_resource(TrackedResource(Tracked::new(6, &log)));
        })
    }));
    assert!(
        result.is_err(),
        "inserting the scoped resource inside its scope panics"
    );
    log.assert_dropped(&[1, 2, 4, 6]);
    assert_eq!(world.resource::<TrackedResource>().0.id, 3);

    drop(world);
    log.assert_dropped(&[1, 2, 3, 4, 5, 6]);
}

// ---- bundles and batches that fail half way ----------------------------------------------

#[derive(Bundle)]
struct DuplicateBundle {
    a: TableTracked,
    b: (SparseTracked, TableTracked),
}

#[test]
fn values_of_a_rejected_duplicate_bundle_are_dropped_once() {
    let log = DropLog::default();
    let mut world = World::new();
    let e = world.spawn(Plain(0)).id();
    let result = catch_unwind(AssertUnwindSafe(|| {
        world.spawn((TableTracked::new(1, &log), TableTracked::new(2, &log)));
    }));
    assert!(result.is_err());
    log.assert_dropped(&[1, 2]);
    let result = catch_unwind(AssertUnwindSafe(|| {
        world.spawn(DuplicateBundle {
            a: TableTracked::new(3, &log),
            b: (SparseTracked::new(4, &log), TableTracked::new(5, &log)),
        });
    }));
    assert!(result.is_err());
    log.assert_dropped(&[1, 2, 3, 4, 5]);
    let result = catch_unwind(AssertUnwindSafe(|| {
        world
            .entity_mut(e)
            .insert((SparseTracked::new(6, &log), SparseTracked::new(7, &log)));
    }));
    assert!(result.is_err());
    log.assert_dropped(&[1, 2, 3, 4, 5, 6, 7]);
    assert_eq!(world.entity_count(), 1);
    check_invariants(&world);
    drop(world);
    log.assert_dropped(&[1, 2, 3, 4, 5, 6, 7]);
}

#[test]
fn spawn_batch_drops_each_value_once_also_when_the_input_panics() {
    let log = DropLog::default();
    let mut world = World::new();
    // Dropped unread: spawned, not dropped.
    drop(world.spawn_batch((0..10).map(|i| {
        (
            TableTracked::new(i, &log),
            SparseTracked::new(100 + i, &log),
        )
    })));
    assert_eq!(world.entity_count(), 10);
    assert_eq!(log.count(), 0);

    // An input iterator that panics after five bundles: five entities are
    // complete, nothing is dropped twice or leaked.
    let log2 = log.clone();
    let result = catch_unwind(AssertUnwindSafe(|| {
        let input = (200..210).map(move |i| {
            if i == 205 {
                panic!("input fails");
            }
            (
                TableTracked::new(i, &log2),
                SparseTracked::new(i + 100, &log2),
            )
        });
        world.spawn_batch(input).count()
    }));
    assert!(result.is_err());
    assert_eq!(log.count(), 0, "spawned values stay alive");
    assert_eq!(world.entity_count(), 15);
    check_invariants(&world);
    world.spawn(TableTracked::new(999, &log));
    drop(world);
    let mut expected: Vec<u32> = (0..10)
        .chain(100..110)
        .chain(200..205)
        .chain(300..305)
        .collect();
    expected.push(999);
    log.assert_dropped(&expected);
}

// ---- dynamic components with a drop function --------------------------------------------

/// # Safety
/// `ptr` points to a valid `Tracked` that is not used afterwards.
unsafe fn drop_tracked(ptr: OwningPtr<'_>) {
    // SAFETY: guaranteed by the caller.
    unsafe { ptr.drop_as::<Tracked>() }
}

fn dynamic_drops(storage: StorageType) {
    let log = DropLog::default();
    let mut world = World::new();
    // SAFETY: `drop_tracked` drops the `Tracked` values written below;
    // `Tracked` is Send + Sync.
    let descriptor = unsafe {
        ComponentDescriptor::new_with_layout(
            "dynamic tracked",
            storage,
            Layout::new::<Tracked>(),
            Some(drop_tracked),
        )
    };
    let id = world.register_component_with_descriptor(descriptor);
    let insert = |world: &mut World, e: Entity, value: u32| {
        OwningPtr::make(Tracked::new(value, &log), |value| {
            // SAFETY: an owned `Tracked` (the component's type) moves in.
            unsafe {
                world.entity_mut(e).insert_by_id(id, value);
            }
        });
    };
    let es: Vec<Entity> = (0..4).map(|i| world.spawn(Plain(i)).id()).collect();
    for (i, &e) in es.iter().enumerate() {
        insert(&mut world, e, i as u32);
    }
    log.assert_dropped(&[]);
    insert(&mut world, es[0], 10);
    log.assert_dropped(&[0]);
    world.entity_mut(es[1]).remove_by_id(id);
    log.assert_dropped(&[0, 1]);
    world.entity_mut(es[1]).remove_by_id(id);
    log.assert_dropped(&[0, 1]);
    world.despawn(es[2]);
    log.assert_dropped(&[0, 1, 2]);
    let ptr = world.entity(es[3]).get_by_id(id).unwrap();
    // SAFETY: the component's values are `Tracked`.
    assert_eq!(unsafe { ptr.deref::<Tracked>() }.id, 3);
    check_invariants(&world);
    drop(world);
    log.assert_dropped(&[0, 1, 2, 3, 10]);
}

#[test]
fn dynamic_component_values_dropped_once() {
    dynamic_drops(StorageType::Table);
    dynamic_drops(StorageType::SparseSet);
}

// ---- zero-sized values with a Drop ----------------------------------------------------

thread_local! {
    /// Drops of [`TableZstDrop`] and [`SparseZstDrop`] on this thread. Each
    /// test runs on its own thread, so the counter is the test's own.
    static ZST_DROPS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

fn zst_drops() -> usize {
    ZST_DROPS.with(|d| d.get())
}

#[derive(Component)]
struct TableZstDrop;

impl Drop for TableZstDrop {
    fn drop(&mut self) {
        ZST_DROPS.with(|d| d.set(d.get() + 1));
    }
}

#[derive(Component)]
#[component(storage = "SparseSet")]
struct SparseZstDrop;

impl Drop for SparseZstDrop {
    fn drop(&mut self) {
        ZST_DROPS.with(|d| d.set(d.get() + 1));
    }
}

#[test]
fn zero_sized_values_are_dropped_once() {
    assert_eq!(zst_drops(), 0);
    let mut world = World::new();
    let es: Vec<Entity> = (0..10)
        .map(|i| world.spawn((TableZstDrop, SparseZstDrop, Plain(i))).id())
        .collect();
    assert_eq!(zst_drops(), 0);
    world.entity_mut(es[0]).insert(TableZstDrop);
    world.entity_mut(es[0]).insert(SparseZstDrop);
    assert_eq!(zst_drops(), 2, "replaced");
    world
        .entity_mut(es[1])
        .insert_if_new((TableZstDrop, SparseZstDrop));
    assert_eq!(zst_drops(), 4, "rejected");
    world
        .entity_mut(es[2])
        .remove::<(TableZstDrop, SparseZstDrop)>();
    assert_eq!(zst_drops(), 6, "removed");
    let taken = world
        .entity_mut(es[3])
        .take::<(TableZstDrop, SparseZstDrop)>();
    assert!(taken.is_some());
    assert_eq!(zst_drops(), 6, "taken, not dropped");
    drop(taken);
    assert_eq!(zst_drops(), 8);
    world.despawn(es[4]);
    assert_eq!(zst_drops(), 10, "despawned");
    // es[2] and es[3] have none left; 7 entities hold two each.
    drop(world);
    assert_eq!(zst_drops(), 24);
}

// ---- a panicking Drop -------------------------------------------------------------------

#[derive(Component)]
struct TableBomb(Payload);

#[derive(Component)]
#[component(storage = "SparseSet")]
struct SparseBomb(Payload);

trait BombComponent: Component {
    fn new(id: u32, armed: bool, log: &DropLog) -> Self;
    fn id(&self) -> u32;
}

macro_rules! bomb_component {
    ($($ty:ident),*) => {$(
        impl BombComponent for $ty {
            fn new(id: u32, armed: bool, log: &DropLog) -> Self {
                $ty(Payload::with(id, armed, log))
            }
            fn id(&self) -> u32 {
                self.0.id
            }
        }
    )*};
}
bomb_component!(TableBomb, SparseBomb);

/// The entities of a bomb scenario: `target` holds an armed bomb `B` and
/// tracked values; the others hold disarmed bombs and tracked values.
struct BombWorld {
    world: World,
    log: DropLog,
    target: Entity,
    others: Vec<Entity>,
}

/// Ids: target's bomb 0, target's tracked values 1 (table) and 2 (sparse);
/// other `i` (from 1): bomb 10*i, table 10*i+1, sparse 10*i+2.
fn bomb_world<B: BombComponent>(others: u32) -> BombWorld {
    let log = DropLog::default();
    let mut world = World::new();
    let spawn_other = |world: &mut World, i: u32| {
        world
            .spawn((
                B::new(10 * i, false, &log),
                TableTracked::new(10 * i + 1, &log),
                SparseTracked::new(10 * i + 2, &log),
            ))
            .id()
    };
    // Neighbours before and after the target, so its removal swaps rows.
    let mut other_ids: Vec<Entity> = (1..=others / 2)
        .map(|i| spawn_other(&mut world, i))
        .collect();
    let target = world
        .spawn((
            B::new(0, true, &log),
            TableTracked::new(1, &log),
            SparseTracked::new(2, &log),
        ))
        .id();
    other_ids.extend((others / 2 + 1..=others).map(|i| spawn_other(&mut world, i)));
    BombWorld {
        world,
        log,
        target,
        others: other_ids,
    }
}

fn expect_bomb_panic(result: Result<(), Box<dyn Any + Send>>) {
    let message = panic_message(result.expect_err("the bomb's panic reaches the caller"));
    assert!(message.contains("bomb 0 exploded"), "{message}");
}

/// After the target's bomb went off: the world is consistent, the others
/// are intact, and dropping the world drops every remaining value once.
/// `extra`: ids the test itself dropped meanwhile.
fn check_after_bomb<B: BombComponent>(bw: BombWorld, target_alive: bool, extra: &[u32]) {
    let BombWorld {
        world,
        log,
        target,
        others,
    } = bw;
    check_invariants(&world);
    let mut expected = vec![0];
    expected.extend_from_slice(extra);
    if target_alive {
        assert!(world.contains_entity(target));
        assert!(!world.entity(target).contains::<B>(), "the bomb is gone");
        assert!(world.get::<B>(target).is_none());
        assert_eq!(id_of::<TableTracked>(&world, target), Some(1));
        assert_eq!(id_of::<SparseTracked>(&world, target), Some(2));
        assert_eq!(world.entity_count(), others.len() + 1);
    } else {
        assert!(!world.contains_entity(target));
        assert!(world.get::<TableTracked>(target).is_none());
        assert_eq!(world.entity_count(), others.len());
        expected.extend([1, 2]);
    }
    log.assert_dropped(&expected);
    for (i, &e) in others.iter().enumerate() {
        let i = i as u32 + 1;
        assert_eq!(world.get::<B>(e).map(B::id), Some(10 * i));
        assert_eq!(id_of::<TableTracked>(&world, e), Some(10 * i + 1));
        assert_eq!(id_of::<SparseTracked>(&world, e), Some(10 * i + 2));
    }
    let n = others.len() as u32;
    drop(world);
    for i in 1..=n {
        expected.extend([10 * i, 10 * i + 1, 10 * i + 2]);
    }
    if target_alive {
        expected.extend([1, 2]);
    }
    log.assert_dropped(&expected);
}

fn panicking_drop_on_remove<B: BombComponent>() {
    let mut bw = bomb_world::<B>(6);
    let target = bw.target;
    let world = &mut bw.world;
    expect_bomb_panic(catch_unwind(AssertUnwindSafe(|| {
        world.entity_mut(target).remove::<B>();
    })));
    // The world is usable: further changes work and drop correctly.
    let log = bw.log.clone();
    let extra = bw.world.spawn(TableTracked::new(500, &log)).id();
    bw.world.entity_mut(bw.target).insert(Plain(1));
    assert_eq!(bw.world.get::<Plain>(bw.target), Some(&Plain(1)));
    assert!(bw.world.despawn(extra));
    log.assert_dropped(&[0, 500]);
    check_after_bomb::<B>(bw, true, &[500]);
}

fn panicking_drop_on_remove_of_a_bundle<B: BombComponent>() {
    let mut bw = bomb_world::<B>(4);
    let target = bw.target;
    let world = &mut bw.world;
    // The bomb sits between other values: they are removed (and dropped)
    // too, despite the panic.
    expect_bomb_panic(catch_unwind(AssertUnwindSafe(|| {
        world
            .entity_mut(target)
            .remove::<(TableTracked, B, SparseTracked)>();
    })));
    check_invariants(&bw.world);
    assert!(bw.world.contains_entity(target));
    assert!(!bw.world.entity(target).contains::<B>());
    assert!(!bw.world.entity(target).contains::<TableTracked>());
    assert!(!bw.world.entity(target).contains::<SparseTracked>());
    bw.log.assert_dropped(&[0, 1, 2]);
    let log = bw.log.clone();
    let n = bw.others.len() as u32;
    drop(bw.world);
    let mut expected = vec![0, 1, 2];
    for i in 1..=n {
        expected.extend([10 * i, 10 * i + 1, 10 * i + 2]);
    }
    log.assert_dropped(&expected);
}

fn panicking_drop_on_despawn<B: BombComponent>() {
    let mut bw = bomb_world::<B>(4);
    let target = bw.target;
    let world = &mut bw.world;
    expect_bomb_panic(catch_unwind(AssertUnwindSafe(|| {
        world.despawn(target);
    })));
    check_after_bomb::<B>(bw, false, &[]);
}

fn panicking_drop_on_discard<B: BombComponent>() {
    let mut bw = bomb_world::<B>(4);
    let target = bw.target;
    let log = bw.log.clone();
    let world = &mut bw.world;
    expect_bomb_panic(catch_unwind(AssertUnwindSafe(|| {
        world.entity_mut(target).insert(B::new(99, false, &log));
    })));
    // The new value is in place; the old one was dropped once.
    check_invariants(&bw.world);
    assert_eq!(bw.world.get::<B>(target).map(B::id), Some(99));
    log.assert_dropped(&[0]);
    let n = bw.others.len() as u32;
    drop(bw.world);
    let mut expected = vec![0, 1, 2, 99];
    for i in 1..=n {
        expected.extend([10 * i, 10 * i + 1, 10 * i + 2]);
    }
    log.assert_dropped(&expected);
}

fn panicking_drop_on_clear_and_world_drop<B: BombComponent>() {
    // clear_entities: every value is still dropped once.
    let mut bw = bomb_world::<B>(4);
    let n = bw.others.len() as u32;
    let mut expected = vec![0, 1, 2];
    for i in 1..=n {
        expected.extend([10 * i, 10 * i + 1, 10 * i + 2]);
    }
    let world = &mut bw.world;
    expect_bomb_panic(catch_unwind(AssertUnwindSafe(|| world.clear_entities())));
    assert_eq!(bw.world.entity_count(), 0);
    check_invariants(&bw.world);
    bw.log.assert_dropped(&expected);
    drop(bw.world);
    bw.log.assert_dropped(&expected);

    // World drop: the panic comes out of `drop`, after every value was
    // dropped once.
    let bw = bomb_world::<B>(4);
    let world = bw.world;
    expect_bomb_panic(catch_unwind(AssertUnwindSafe(move || drop(world))));
    bw.log.assert_dropped(&expected);
}

macro_rules! for_both_bombs {
    ($($name:ident => $scenario:ident),* $(,)?) => {$(
        #[test]
        fn $name() {
            $scenario::<TableBomb>();
            $scenario::<SparseBomb>();
        }
    )*};
}

for_both_bombs! {
    panicking_drop_in_remove_leaves_world_consistent => panicking_drop_on_remove,
    panicking_drop_in_bundle_remove_still_removes_everything => panicking_drop_on_remove_of_a_bundle,
    panicking_drop_in_despawn_leaves_world_consistent => panicking_drop_on_despawn,
    panicking_drop_in_replace_still_inserts_new_value => panicking_drop_on_discard,
    panicking_drop_in_clear_or_world_drop_drops_the_rest => panicking_drop_on_clear_and_world_drop,
}
