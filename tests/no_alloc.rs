//! After warm-up, inserting and removing a bundle allocates nothing: the
//! archetype edges are cached and rows move by memcpy into columns that
//! already have room. Nor do a single-threaded schedule run and a snapshot
//! of `Copy` components into a warm snapshot. A counting global allocator checks it (this test
//! binary has no other tests, so nothing else allocates meanwhile).

use std::{
    alloc::{GlobalAlloc, Layout, System},
    sync::atomic::{AtomicBool, AtomicUsize, Ordering},
};

use ecs::prelude::*;

struct Counting;

static COUNTING: AtomicBool = AtomicBool::new(false);
static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards to the system allocator; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: forwarded.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: forwarded.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[derive(Component, Clone, Copy)]
struct A(f32);
#[derive(Component, Clone, Copy)]
struct B([f32; 4]);
#[derive(Component, Clone, Copy)]
#[component(storage = "SparseSet")]
struct S(#[allow(dead_code)] u64);
#[derive(Bundle, Clone, Copy)]
struct Pair {
    b: B,
    s: S,
}

#[test]
fn insert_and_remove_allocate_nothing_after_warm_up() {
    let mut world = World::new();
    let entities: Vec<Entity> = world.spawn_batch((0..1_000).map(|i| A(i as f32))).collect();
    let cycle = |world: &mut World| {
        for &e in &entities {
            world.entity_mut(e).insert(B([1.0; 4]));
            world.entity_mut(e).insert(S(1));
            world.entity_mut(e).insert(Pair {
                b: B([2.0; 4]),
                s: S(2),
            });
        }
        for &e in &entities {
            world.entity_mut(e).remove::<Pair>();
            world.entity_mut(e).insert(Pair {
                b: B([3.0; 4]),
                s: S(3),
            });
            let taken = world.entity_mut(e).take::<B>();
            assert!(taken.is_some());
            world.entity_mut(e).remove::<S>();
        }
    };
    // Warm-up: archetypes, tables, edges and column capacity get built.
    cycle(&mut world);
    cycle(&mut world);
    // The counter sees allocations (control).
    COUNTING.store(true, Ordering::SeqCst);
    std::hint::black_box(Vec::<u8>::with_capacity(16));
    assert!(
        ALLOCATIONS.swap(0, Ordering::SeqCst) > 0,
        "the counter must see allocations"
    );
    for _ in 0..5 {
        cycle(&mut world);
    }
    COUNTING.store(false, Ordering::SeqCst);
    assert_eq!(
        ALLOCATIONS.load(Ordering::SeqCst),
        0,
        "insert/remove allocated after warm-up"
    );
    world.check_integrity().unwrap();

    // A single-threaded schedule run allocates nothing either (checked in
    // the same test: the counter is global to this binary).
    #[derive(Resource, Default)]
    struct Total(f32);
    fn integrate(mut q: Query<(&A, &mut B)>) {
        for (a, mut b) in &mut q {
            b.0[0] += a.0;
        }
    }
    fn sum(q: Query<&B>, mut total: ResMut<Total>) {
        total.0 = q.iter().map(|b| b.0[0]).sum();
    }
    fn count(q: Query<(), With<S>>, mut counter: Local<usize>) {
        *counter += q.iter().count();
    }
    for &e in &entities {
        world.entity_mut(e).insert(B([0.0; 4]));
    }
    world.init_resource::<Total>();
    let mut schedule = Schedule::single_threaded();
    schedule.add_systems((integrate, sum.after(integrate), count));
    schedule.run(&mut world);
    schedule.run(&mut world);
    ALLOCATIONS.store(0, Ordering::SeqCst);
    COUNTING.store(true, Ordering::SeqCst);
    for _ in 0..10 {
        schedule.run(&mut world);
    }
    COUNTING.store(false, Ordering::SeqCst);
    assert_eq!(
        ALLOCATIONS.load(Ordering::SeqCst),
        0,
        "a schedule run allocated"
    );
    assert!(world.resource::<Total>().0 > 0.0);

    // Snapshotting `Copy` components into a warm snapshot allocates
    // nothing: tables, sparse sets, entity lists and the allocator copy
    // are overwritten in place.
    world.register_snapshot_copy::<A>();
    world.register_snapshot_copy::<B>();
    world.register_snapshot_copy::<S>();
    for &e in entities.iter().step_by(3) {
        world.entity_mut(e).insert(S(7));
    }
    // A stored schedule: its systems' last runs are recorded too.
    world.add_schedule(schedule);
    let mut snapshot = world.snapshot();
    world.snapshot_into(&mut snapshot);
    ALLOCATIONS.store(0, Ordering::SeqCst);
    COUNTING.store(true, Ordering::SeqCst);
    for round in 0..5 {
        for &e in entities.iter().step_by(5) {
            world.get_mut::<B>(e).unwrap().0[1] = round as f32;
        }
        world.snapshot_into(&mut snapshot);
    }
    COUNTING.store(false, Ordering::SeqCst);
    assert_eq!(
        ALLOCATIONS.load(Ordering::SeqCst),
        0,
        "snapshot_into a warm snapshot allocated"
    );
    world.get_mut::<B>(entities[0]).unwrap().0[1] = -1.0;
    world.restore(&snapshot).unwrap();
    assert_eq!(world.get::<B>(entities[0]).unwrap().0[1], 4.0);
    world.check_integrity().unwrap();
}
