//! Load test: 1,000,000 entities over 4,096 archetypes (twelve marker
//! components, six in tables and six in sparse sets: every one of the
//! 2^12 combinations), then query, insert/remove churn for several
//! cycles, despawn everything, and spawn the whole population again.
//!
//! After each phase it prints the heap's live bytes and their peak (a
//! counting global allocator tracks them), and the resident set (`VmRSS`)
//! and its peak (`VmHWM`) from `/proc/self/status`. It asserts on the
//! heap, whose figures do not depend on how much of its memory glibc
//! hands back to the kernel: repeated churn cycles do not grow it (freed
//! rows and entity indices are reused), every cycle after the first and a
//! second and third world staying within 2% (+ 8 MiB) of what the first
//! cycle left; the second population on the same world stays within 10%
//! (a batch reserve may double a list's capacity, as `Vec::reserve`
//! does); and dropping the second and the third world frees every byte
//! they took.
//!
//! ```text
//! cargo run --release --example load
//! /usr/bin/time -v target/release/examples/load
//! ```

use std::{
    alloc::{GlobalAlloc, Layout, System},
    sync::atomic::{AtomicUsize, Ordering},
    time::Instant,
};

use ecs::prelude::*;

/// The system allocator, counting the bytes live.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(by: usize) {
    let live = LIVE.fetch_add(by, Ordering::Relaxed) + by;
    PEAK.fetch_max(live, Ordering::Relaxed);
}

// SAFETY: forwards every call to the system allocator; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's layout.
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            grew(layout.size());
        }
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's layout.
        let ptr = unsafe { System.alloc_zeroed(layout) };
        if !ptr.is_null() {
            grew(layout.size());
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: forwarded; the caller allocated `ptr` with `layout` here.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded; the caller allocated `ptr` with `layout` here.
        let new = unsafe { System.realloc(ptr, layout, new_size) };
        if !new.is_null() {
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
            grew(new_size);
        }
        new
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Heap bytes live now.
fn live_bytes() -> usize {
    LIVE.load(Ordering::Relaxed)
}

const ENTITIES: u32 = 1_000_000;
const MARKERS: u32 = 12;
const COMBOS: u32 = 1 << MARKERS;
const CHURN_CYCLES: usize = 6;

#[derive(Component, Clone, Copy)]
struct Pos {
    x: f32,
    y: f32,
}

#[derive(Component, Clone, Copy)]
struct Vel {
    x: f32,
    y: f32,
}

/// An id to check values survive the moves.
#[derive(Component, Clone, Copy, PartialEq, Debug)]
#[component(storage = "SparseSet")]
struct Id(u32);

macro_rules! markers {
    ($($table:ident),* ; $($sparse:ident),*) => {
        $(
            #[derive(Component, Default)]
            struct $table;
        )*
        $(
            #[derive(Component, Default)]
            #[component(storage = "SparseSet")]
            struct $sparse;
        )*

        /// Inserts marker `bit` (0..12).
        fn insert_marker(e: &mut EntityWorldMut<'_>, bit: u32) {
            let mut i = 0;
            $( if bit == i { e.insert($table); return; } i += 1; )*
            $( if bit == i { e.insert($sparse); return; } i += 1; )*
            unreachable!("marker {bit} of {i}");
        }

        /// Removes marker `bit` (0..12).
        fn remove_marker(e: &mut EntityWorldMut<'_>, bit: u32) {
            let mut i = 0;
            $( if bit == i { e.remove::<$table>(); return; } i += 1; )*
            $( if bit == i { e.remove::<$sparse>(); return; } i += 1; )*
            unreachable!("marker {bit} of {i}");
        }

        /// Whether the entity has marker `bit`.
        fn has_marker(world: &World, e: Entity, bit: u32) -> bool {
            let r = world.entity(e);
            let mut i = 0;
            $( if bit == i { return r.contains::<$table>(); } i += 1; )*
            $( if bit == i { return r.contains::<$sparse>(); } i += 1; )*
            unreachable!("marker {bit} of {i}");
        }

        /// How many entities have each marker, through `With<M>` queries.
        fn count_markers(world: &mut World) -> Vec<usize> {
            vec![
                $( world.query_filtered::<(), With<$table>>().iter(world).count(), )*
                $( world.query_filtered::<(), With<$sparse>>().iter(world).count(), )*
            ]
        }
    };
}

markers!(T0, T1, T2, T3, T4, T5; S0, S1, S2, S3, S4, S5);

/// `(VmRSS, VmHWM)` in KiB.
fn memory() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

/// Prints the phase's memory; returns the heap's `(live, peak)` in KiB.
/// Prints the phase's memory; returns the heap's live bytes and their
/// peak since the last [`reset_peak`], in KiB.
fn report(phase: &str, world: &World, started: Instant) -> (u64, u64) {
    let (rss, hwm) = memory();
    let kib = |bytes: usize| bytes as u64 / 1024;
    let (live, peak) = (
        kib(LIVE.load(Ordering::Relaxed)),
        kib(PEAK.load(Ordering::Relaxed)),
    );
    let mib = |kib: u64| kib as f64 / 1024.0;
    println!(
        "{phase:<28} entities {:>9}  archetypes {:>5}  heap {:>6.1} MiB  peak {:>6.1} MiB  VmRSS {:>6.1} MiB  VmHWM {:>6.1} MiB  ({:.2?})",
        world.entity_count(),
        world.archetypes().len(),
        mib(live),
        mib(peak),
        mib(rss),
        mib(hwm),
        started.elapsed(),
    );
    (live, peak)
}

/// Starts a new heap peak from the bytes live now.
fn reset_peak() {
    PEAK.store(LIVE.load(Ordering::Relaxed), Ordering::Relaxed);
}

/// Spawns the population: entity `i` has the markers of the bits of
/// `i % 4096`.
fn populate(world: &mut World) -> Vec<Entity> {
    let entities: Vec<Entity> = world
        .spawn_batch((0..ENTITIES).map(|i| {
            (
                Pos {
                    x: i as f32,
                    y: 0.0,
                },
                Vel { x: 1.0, y: 2.0 },
                Id(i),
            )
        }))
        .collect();
    for (i, &e) in entities.iter().enumerate() {
        let combo = i as u32 % COMBOS;
        let mut em = world.entity_mut(e);
        for bit in 0..MARKERS {
            if combo & (1 << bit) != 0 {
                insert_marker(&mut em, bit);
            }
        }
    }
    entities
}

fn expected_marker_counts() -> Vec<usize> {
    (0..MARKERS)
        .map(|bit| {
            (0..ENTITIES)
                .filter(|i| (i % COMBOS) & (1 << bit) != 0)
                .count()
        })
        .collect()
}

fn check(world: &mut World, entities: &[Entity], expected: &[usize]) {
    assert_eq!(world.entity_count(), entities.len());
    assert_eq!(count_markers(world), expected, "marker counts");
    if let Err(msg) = world.check_integrity() {
        panic!("check_integrity: {msg}");
    }
    // Spot-check values and markers of every 997th entity.
    for (i, &e) in entities.iter().enumerate().step_by(997) {
        assert_eq!(world.get::<Id>(e), Some(&Id(i as u32)));
        let combo = i as u32 % COMBOS;
        for bit in 0..MARKERS {
            assert_eq!(has_marker(world, e, bit), combo & (1 << bit) != 0);
        }
    }
}

/// One churn cycle: every entity gains or loses one marker (so the whole
/// population moves to a neighbouring archetype), then moves back; 10% of
/// the entities are despawned and respawned (their rows and indices are
/// reused); then a query pass. Every cycle does the same work, so once
/// the first has grown each table to its peak, nothing may grow.
fn churn(world: &mut World, entities: &mut [Entity]) {
    let bit_of = |i: usize| (i / 7) as u32 % MARKERS;
    for (i, &e) in entities.iter().enumerate() {
        let bit = bit_of(i);
        let mut em = world.entity_mut(e);
        if (i as u32 % COMBOS) & (1 << bit) != 0 {
            remove_marker(&mut em, bit);
        } else {
            insert_marker(&mut em, bit);
        }
    }
    for (i, &e) in entities.iter().enumerate() {
        let bit = bit_of(i);
        let mut em = world.entity_mut(e);
        if (i as u32 % COMBOS) & (1 << bit) != 0 {
            insert_marker(&mut em, bit);
        } else {
            remove_marker(&mut em, bit);
        }
    }
    // Despawn and respawn every 10th entity, with the same markers.
    for i in (3..entities.len()).step_by(10) {
        assert!(world.despawn(entities[i]));
        let combo = i as u32 % COMBOS;
        let mut em = world.spawn((
            Pos {
                x: i as f32,
                y: 0.0,
            },
            Vel { x: 1.0, y: 2.0 },
            Id(i as u32),
        ));
        for bit in 0..MARKERS {
            if combo & (1 << bit) != 0 {
                insert_marker(&mut em, bit);
            }
        }
        entities[i] = em.id();
    }
    // A full query pass.
    let mut q = world.query::<(&mut Pos, &Vel)>();
    q.for_each_mut(world, |(mut p, v)| {
        p.x += v.x;
        p.y += v.y;
    });
}

/// Dropping a world gives back every heap byte it took: the bytes live
/// now are those live before it was made.
fn check_freed(name: &str, live_before: usize) {
    let live = live_bytes();
    println!(
        "{:<28} heap live {live} bytes, {live_before} before the world",
        format!("{name} world freed")
    );
    assert!(
        live <= live_before,
        "dropping the {name} world kept {} heap bytes",
        live - live_before
    );
}

fn within(now: u64, base: u64) -> bool {
    now <= base + base / 50 + 8 * 1024
}

fn main() {
    let started = Instant::now();
    let expected = expected_marker_counts();
    println!("load: {ENTITIES} entities over {COMBOS} archetypes");
    let live_before = live_bytes();
    let mut world = World::new();
    report("start", &world, started);

    let mut entities = populate(&mut world);
    check(&mut world, &entities, &expected);
    assert_eq!(
        world
            .archetypes()
            .iter()
            .filter(|a| !a.is_empty() && a.components().count() >= 3)
            .count(),
        COMBOS as usize,
        "every marker combination is a populated archetype"
    );
    report("spawned 1M / 4096 archetypes", &world, started);

    let mut q = world.query::<(&Pos, &Vel, &Id)>();
    let sum: f64 = q.iter(&world).map(|(p, v, _)| (p.x + v.x) as f64).sum();
    assert!(sum > 0.0);
    report("queried", &world, started);

    let mut after_first = None;
    for cycle in 0..CHURN_CYCLES {
        churn(&mut world, &mut entities);
        check(&mut world, &entities, &expected);
        let (live, peak) = report(&format!("churn cycle {}", cycle + 1), &world, started);
        match after_first {
            None => after_first = Some((live, peak)),
            Some((live1, peak1)) => {
                assert!(
                    within(live, live1),
                    "heap grew across churn cycles: {live} KiB after cycle {} vs {live1} KiB after cycle 1",
                    cycle + 1
                );
                assert!(
                    within(peak, peak1),
                    "heap peak grew across churn cycles: {peak} KiB after cycle {} vs {peak1} KiB after cycle 1",
                    cycle + 1
                );
            }
        }
    }

    for &e in &entities {
        assert!(world.despawn(e));
    }
    assert_eq!(world.entity_count(), 0);
    assert_eq!(count_markers(&mut world), vec![0; MARKERS as usize]);
    if let Err(msg) = world.check_integrity() {
        panic!("check_integrity: {msg}");
    }
    report("despawned all", &world, started);

    // The second population reuses the tables, sparse sets and indices.
    let archetypes_before = world.archetypes().len();
    drop(std::mem::take(&mut entities));
    entities = populate(&mut world);
    check(&mut world, &entities, &expected);
    assert_eq!(
        world.archetypes().len(),
        archetypes_before,
        "no new archetypes"
    );
    let (live, peak) = report("respawned 1M", &world, started);
    let (live1, peak1) = after_first.expect("at least one churn cycle");
    assert!(
        live <= live1 + live1 / 10,
        "heap grew on respawn by more than 10%: {live} vs {live1} KiB"
    );
    assert!(
        peak <= peak1 + peak1 / 10,
        "heap peak grew on respawn by more than 10%: {peak} vs {peak1} KiB"
    );

    world.clear_entities();
    report("clear_entities", &world, started);
    drop(world);
    drop(entities);
    // The first world also leaves what the process keeps for every world
    // (interned names and query accesses), so its drop is printed only.
    println!(
        "{:<28} heap live {} bytes, {live_before} before the world",
        "first world freed",
        live_bytes()
    );
    report("world dropped", &World::new(), started);

    // A second and a third world, each populated and dropped: each peaks
    // no higher than the first, and its drop frees every heap byte it took.
    let another_world = |name: &str| {
        let live_before = live_bytes();
        reset_peak();
        let mut world = World::new();
        let entities = populate(&mut world);
        check(&mut world, &entities, &expected);
        let (_, peak) = report(&format!("{name} world, 1M spawned"), &world, started);
        assert!(
            within(peak, peak1),
            "heap peak grew with a {name} world: {peak} vs {peak1} KiB"
        );
        drop(world);
        drop(entities);
        check_freed(name, live_before);
        report(&format!("{name} world dropped"), &World::new(), started);
    };
    another_world("second");
    another_world("third");
    println!("load OK");
}
