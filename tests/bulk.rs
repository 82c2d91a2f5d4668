//! Query-level bulk changes: `QueryState::{insert_all, insert_all_with,
//! insert_all_if_new, remove_all, despawn_all}` and
//! `World::{insert_for, remove_for, despawn_for}`: results equal to the
//! one-by-one operations, hooks and observers in the documented order,
//! removal detection, sparse components, shared tables, non-archetypal
//! filters, and a panic in any callback leaving a consistent world whose
//! every value is dropped exactly once.

mod common;

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};

use common::integrity::{check_invariants, integrity};
use ecs::lifecycle::HookContext;
use ecs::prelude::*;
use ecs::world::DeferredWorld;

#[derive(Component, Clone, Debug, PartialEq)]
struct A(u32);

#[derive(Component, Clone, Debug, PartialEq)]
struct B(u32);

#[derive(Component, Clone, Debug, PartialEq)]
#[component(storage = "SparseSet")]
struct S(u32);

#[derive(Component, Clone, Debug, PartialEq)]
struct Marker;

/// Asserts both the world's own check and the test-side invariants.
#[track_caller]
fn consistent(world: &World) {
    integrity(world);
    check_invariants(world);
}

fn sorted<T: Ord>(mut v: Vec<T>) -> Vec<T> {
    v.sort();
    v
}

// ---- results ----------------------------------------------------------------------------

#[test]
fn insert_all_adds_to_every_matched_entity_and_nothing_else() {
    let mut world = World::new();
    let with_a: Vec<Entity> = (0..50).map(|i| world.spawn(A(i)).id()).collect();
    let with_ab: Vec<Entity> = (0..7).map(|i| world.spawn((A(i), B(i))).id()).collect();
    let with_as: Vec<Entity> = (0..5).map(|i| world.spawn((A(i), S(i))).id()).collect();
    let other = world.spawn(B(99)).id();
    let n = world
        .query_filtered::<Entity, With<A>>()
        .insert_all(&mut world, B(7));
    assert_eq!(n, 62);
    consistent(&world);
    for (i, &e) in with_a.iter().chain(&with_ab).chain(&with_as).enumerate() {
        assert_eq!(world.get::<B>(e), Some(&B(7)), "entity {i}");
        assert!(world.get::<A>(e).is_some());
    }
    for (i, &e) in with_as.iter().enumerate() {
        assert_eq!(world.get::<S>(e), Some(&S(i as u32)));
    }
    assert_eq!(world.get::<B>(other), Some(&B(99)));
    // The moved values kept their contents.
    for (i, &e) in with_a.iter().enumerate() {
        assert_eq!(world.get::<A>(e), Some(&A(i as u32)));
    }
}

#[test]
fn insert_all_of_a_sparse_component_and_of_a_mixed_bundle() {
    let mut world = World::new();
    let es: Vec<Entity> = (0..20).map(|i| world.spawn(A(i)).id()).collect();
    world.insert_for::<With<A>, _>(S(3));
    consistent(&world);
    world.insert_for::<With<A>, _>((B(1), S(4)));
    consistent(&world);
    for &e in &es {
        assert_eq!(world.get::<S>(e), Some(&S(4)));
        assert_eq!(world.get::<B>(e), Some(&B(1)));
    }
}

#[test]
fn insert_all_if_new_keeps_existing_values() {
    let mut world = World::new();
    let old = world.spawn((A(1), B(1))).id();
    let new = world.spawn(A(2)).id();
    world
        .query_filtered::<(), With<A>>()
        .insert_all_if_new(&mut world, B(9));
    consistent(&world);
    assert_eq!(world.get::<B>(old), Some(&B(1)));
    assert_eq!(world.get::<B>(new), Some(&B(9)));
}

#[test]
fn insert_all_with_makes_a_bundle_per_entity() {
    let mut world = World::new();
    let es: Vec<Entity> = (0..30).map(|i| world.spawn(A(i)).id()).collect();
    world
        .query::<&A>()
        .insert_all_with(&mut world, |e| B(e.index()));
    consistent(&world);
    for &e in &es {
        assert_eq!(world.get::<B>(e), Some(&B(e.index())));
    }
}

#[test]
fn changed_filter_moves_only_the_matched_rows() {
    let mut world = World::new();
    let es: Vec<Entity> = (0..10).map(|i| world.spawn(A(i)).id()).collect();
    world.clear_trackers();
    for &e in es.iter().step_by(3) {
        world.get_mut::<A>(e).unwrap().0 += 100;
    }
    let n = world
        .query_filtered::<Entity, Changed<A>>()
        .insert_all(&mut world, B(0));
    assert_eq!(n, 4);
    consistent(&world);
    for (i, &e) in es.iter().enumerate() {
        assert_eq!(world.get::<B>(e).is_some(), i % 3 == 0, "entity {i}");
        let expected = if i % 3 == 0 { i as u32 + 100 } else { i as u32 };
        assert_eq!(world.get::<A>(e), Some(&A(expected)));
    }
}

#[test]
fn shared_tables_move_row_by_row() {
    let mut world = World::new();
    // `A` and `(A, S)` share a table: a change matching only one of them
    // cannot move the table whole.
    let plain: Vec<Entity> = (0..6).map(|i| world.spawn(A(i)).id()).collect();
    let sparse: Vec<Entity> = (0..6).map(|i| world.spawn((A(i), S(i))).id()).collect();
    world.insert_for::<With<S>, _>(B(5));
    consistent(&world);
    for &e in &plain {
        assert!(world.get::<B>(e).is_none());
    }
    for &e in &sparse {
        assert_eq!(world.get::<B>(e), Some(&B(5)));
    }
    world.remove_for::<Without<S>, A>();
    consistent(&world);
    for &e in &plain {
        assert!(world.get::<A>(e).is_none());
    }
    world.despawn_for::<With<S>>();
    consistent(&world);
    assert!(sparse.iter().all(|&e| !world.contains_entity(e)));
    assert!(plain.iter().all(|&e| world.contains_entity(e)));
}

#[test]
fn remove_all_of_table_and_sparse_components() {
    let mut world = World::new();
    world.track_removals::<B>();
    world.track_removals::<S>();
    let es: Vec<Entity> = (0..40)
        .map(|i| world.spawn((A(i), B(i), S(i))).id())
        .collect();
    let keep = world.spawn(B(1)).id();
    let n = world
        .query_filtered::<(), With<A>>()
        .remove_all::<(B, S)>(&mut world);
    assert_eq!(n, 40);
    consistent(&world);
    for (i, &e) in es.iter().enumerate() {
        assert_eq!(world.get::<A>(e), Some(&A(i as u32)));
        assert!(world.get::<B>(e).is_none());
        assert!(world.get::<S>(e).is_none());
    }
    assert_eq!(world.get::<B>(keep), Some(&B(1)));
    assert_eq!(sorted(world.removed::<B>().collect()), sorted(es.clone()));
    assert_eq!(sorted(world.removed::<S>().collect()), sorted(es));
}

#[test]
fn remove_all_of_a_component_some_entities_lack_changes_only_those_that_have_it() {
    let mut world = World::new();
    world.track_removals::<B>();
    let has: Vec<Entity> = (0..4).map(|i| world.spawn((A(i), B(i))).id()).collect();
    let lacks: Vec<Entity> = (0..4).map(|i| world.spawn(A(i)).id()).collect();
    world.remove_for::<With<A>, B>();
    consistent(&world);
    assert_eq!(sorted(world.removed::<B>().collect()), sorted(has.clone()));
    assert!(has
        .iter()
        .chain(&lacks)
        .all(|&e| world.get::<A>(e).is_some()));
}

#[test]
fn despawn_all_despawns_matched_entities_and_records_removals() {
    let mut world = World::new();
    world.track_removals::<A>();
    world.track_removals::<S>();
    let dead: Vec<Entity> = (0..25).map(|i| world.spawn((A(i), S(i))).id()).collect();
    let alive = world.spawn(B(0)).id();
    let n = world.query::<&A>().despawn_all(&mut world);
    assert_eq!(n, 25);
    consistent(&world);
    assert_eq!(world.entity_count(), 1);
    assert!(world.contains_entity(alive));
    for &e in &dead {
        assert!(!world.contains_entity(e));
        assert!(world.get_entity(e).is_err());
    }
    assert_eq!(sorted(world.removed::<A>().collect()), sorted(dead.clone()));
    assert_eq!(sorted(world.removed::<S>().collect()), sorted(dead));
    // The tables are reused.
    let again = world.spawn((A(1), S(1))).id();
    consistent(&world);
    assert_eq!(world.get::<A>(again), Some(&A(1)));
}

#[test]
fn an_empty_match_changes_nothing() {
    let mut world = World::new();
    let e = world.spawn(B(1)).id();
    assert_eq!(world.insert_for::<With<A>, _>(S(1)), 0);
    assert_eq!(world.remove_for::<With<A>, B>(), 0);
    assert_eq!(world.despawn_for::<With<A>>(), 0);
    consistent(&world);
    assert_eq!(world.get::<B>(e), Some(&B(1)));
}

#[test]
fn bulk_changes_equal_one_by_one_changes() {
    // A small deterministic generator: the same script on two worlds, one
    // with bulk changes and one with per-entity loops.
    let mut seed = 0x2545_f491_u64;
    let mut next = move |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    };
    let mut bulk = World::new();
    let mut single = World::new();
    let mut script = Vec::new();
    for step in 0..if cfg!(miri) { 30 } else { 200 } {
        let op = next(7);
        script.push(op);
        let v = step as u32;
        match op {
            0 | 1 => {
                let kind = next(4);
                for world in [&mut bulk, &mut single] {
                    match kind {
                        0 => world.spawn(A(v)),
                        1 => world.spawn((A(v), B(v))),
                        2 => world.spawn((B(v), S(v))),
                        _ => world.spawn((A(v), S(v), Marker)),
                    };
                }
            }
            2 => {
                bulk.insert_for::<With<A>, _>(B(v));
                let es: Vec<Entity> = single
                    .query_filtered::<Entity, With<A>>()
                    .iter(&single)
                    .collect();
                for e in es {
                    single.entity_mut(e).insert(B(v));
                }
            }
            3 => {
                bulk.insert_for::<Without<S>, _>(S(v));
                let es: Vec<Entity> = single
                    .query_filtered::<Entity, Without<S>>()
                    .iter(&single)
                    .collect();
                for e in es {
                    single.entity_mut(e).insert(S(v));
                }
            }
            4 => {
                bulk.remove_for::<With<B>, (A, Marker)>();
                let es: Vec<Entity> = single
                    .query_filtered::<Entity, With<B>>()
                    .iter(&single)
                    .collect();
                for e in es {
                    single.entity_mut(e).remove::<(A, Marker)>();
                }
            }
            5 => {
                bulk.remove_for::<With<Marker>, S>();
                let es: Vec<Entity> = single
                    .query_filtered::<Entity, With<Marker>>()
                    .iter(&single)
                    .collect();
                for e in es {
                    single.entity_mut(e).remove::<S>();
                }
            }
            _ => {
                if next(3) == 0 {
                    bulk.despawn_for::<(With<A>, With<B>)>();
                    let es: Vec<Entity> = single
                        .query_filtered::<Entity, (With<A>, With<B>)>()
                        .iter(&single)
                        .collect();
                    for e in es {
                        single.despawn(e);
                    }
                }
            }
        }
        consistent(&bulk);
        assert_eq!(
            snapshot(&mut bulk),
            snapshot(&mut single),
            "step {step}, ops {script:?}"
        );
    }
}

type Row = (Entity, Option<A>, Option<B>, Option<S>, bool);

fn snapshot(world: &mut World) -> Vec<Row> {
    let rows = world
        .query::<(Entity, Option<&A>, Option<&B>, Option<&S>, Has<Marker>)>()
        .iter(world)
        .map(|(e, a, b, s, m)| (e, a.cloned(), b.cloned(), s.cloned(), m))
        .collect::<Vec<_>>();
    let mut rows: Vec<(u64, Row)> = rows.into_iter().map(|r| (r.0.to_bits(), r)).collect();
    rows.sort_by_key(|r| r.0);
    rows.into_iter().map(|r| r.1).collect()
}

// ---- hooks and observers ------------------------------------------------------------

#[derive(Resource, Default)]
struct Log(Vec<String>);

#[derive(Component, Clone)]
#[component(on_add = log_add, on_insert = log_insert, on_discard = log_discard, on_remove = log_remove, on_despawn = log_despawn)]
struct Logged(u32);

fn log(mut world: DeferredWorld, what: &str, ctx: HookContext) {
    let n = world.get::<Logged>(ctx.entity).map(|l| l.0);
    // Every matched entity has its value (or lacks it) at once: the log
    // says how many entities hold a `Logged` when the hook runs.
    let holders = world
        .resource::<Holders>()
        .0
        .iter()
        .filter(|&&e| world.get::<Logged>(e).is_some())
        .count();
    world.resource_mut::<Log>().0.push(format!(
        "{what} {} {n:?} holders={holders}",
        ctx.entity.index()
    ));
}
fn log_add(w: DeferredWorld, c: HookContext) {
    log(w, "add", c)
}
fn log_insert(w: DeferredWorld, c: HookContext) {
    log(w, "insert", c)
}
fn log_discard(w: DeferredWorld, c: HookContext) {
    log(w, "discard", c)
}
fn log_remove(w: DeferredWorld, c: HookContext) {
    log(w, "remove", c)
}
fn log_despawn(w: DeferredWorld, c: HookContext) {
    log(w, "despawn", c)
}

#[derive(Resource, Default)]
struct Holders(Vec<Entity>);

fn hooked_world() -> (World, Vec<Entity>) {
    let mut world = World::new();
    world.init_resource::<Log>();
    let es: Vec<Entity> = (0..3).map(|i| world.spawn(A(i)).id()).collect();
    world.insert_resource(Holders(es.clone()));
    (world, es)
}

fn take_log(world: &mut World) -> Vec<String> {
    std::mem::take(&mut world.resource_mut::<Log>().0)
}

#[test]
fn insert_hooks_fire_per_entity_after_every_value_is_in_place() {
    let (mut world, es) = hooked_world();
    let [a, b, c] = [es[0].index(), es[1].index(), es[2].index()];
    world.insert_for::<With<A>, _>(Logged(1));
    assert_eq!(
        take_log(&mut world),
        [
            format!("add {a} Some(1) holders=3"),
            format!("insert {a} Some(1) holders=3"),
            format!("add {b} Some(1) holders=3"),
            format!("insert {b} Some(1) holders=3"),
            format!("add {c} Some(1) holders=3"),
            format!("insert {c} Some(1) holders=3"),
        ]
    );
    // A replace: every `on_discard` (old values in place) before any move
    // or `on_insert`.
    world.insert_for::<With<A>, _>((Logged(2), B(0)));
    assert_eq!(
        take_log(&mut world),
        [
            format!("discard {a} Some(1) holders=3"),
            format!("discard {b} Some(1) holders=3"),
            format!("discard {c} Some(1) holders=3"),
            format!("insert {a} Some(2) holders=3"),
            format!("insert {b} Some(2) holders=3"),
            format!("insert {c} Some(2) holders=3"),
        ]
    );
    consistent(&world);
}

#[test]
fn remove_and_despawn_hooks_fire_per_entity_before_anything_moves() {
    let (mut world, es) = hooked_world();
    let [a, b, c] = [es[0].index(), es[1].index(), es[2].index()];
    world.insert_for::<With<A>, _>(Logged(1));
    take_log(&mut world);
    world.remove_for::<With<A>, Logged>();
    assert_eq!(
        take_log(&mut world),
        [
            format!("discard {a} Some(1) holders=3"),
            format!("remove {a} Some(1) holders=3"),
            format!("discard {b} Some(1) holders=3"),
            format!("remove {b} Some(1) holders=3"),
            format!("discard {c} Some(1) holders=3"),
            format!("remove {c} Some(1) holders=3"),
        ]
    );
    world.insert_for::<With<A>, _>(Logged(2));
    take_log(&mut world);
    world.despawn_for::<With<Logged>>();
    let log = take_log(&mut world);
    assert_eq!(log.len(), 9);
    for (i, e) in [a, b, c].into_iter().enumerate() {
        assert_eq!(
            log[3 * i..3 * i + 3],
            [
                format!("despawn {e} Some(2) holders=3"),
                format!("discard {e} Some(2) holders=3"),
                format!("remove {e} Some(2) holders=3"),
            ]
        );
    }
    consistent(&world);
}

#[test]
fn observers_see_each_entity_and_commands_apply_once_at_the_end() {
    let mut world = World::new();
    world.init_resource::<Log>();
    world.add_observer(
        |on: On<Add<B>>, q: Query<&B>, mut log: ResMut<Log>, mut commands: Commands| {
            log.0.push(format!("add {}", q.get(on.entity).unwrap().0));
            commands.entity(on.entity).insert(Marker);
        },
    );
    world.add_observer(|on: On<Remove<A>>, q: Query<&A>, mut log: ResMut<Log>| {
        log.0
            .push(format!("remove {}", q.get(on.entity).unwrap().0));
    });
    let es: Vec<Entity> = (0..4).map(|i| world.spawn(A(i)).id()).collect();
    world.insert_for::<With<A>, _>(B(8));
    assert_eq!(take_log(&mut world), ["add 8"; 4]);
    assert!(es.iter().all(|&e| world.get::<Marker>(e).is_some()));
    world.remove_for::<With<A>, A>();
    assert_eq!(
        take_log(&mut world),
        ["remove 0", "remove 1", "remove 2", "remove 3"]
    );
    consistent(&world);
}

#[test]
fn required_components_are_added_by_bulk_inserts() {
    #[derive(Component, Default, Clone, Debug, PartialEq)]
    struct Needed(u8);
    #[derive(Component, Clone)]
    #[require(Needed)]
    struct Needs;
    let mut world = World::new();
    let es: Vec<Entity> = (0..5).map(|i| world.spawn(A(i)).id()).collect();
    world.insert_for::<With<A>, _>(Needs);
    consistent(&world);
    assert!(es
        .iter()
        .all(|&e| world.get::<Needed>(e) == Some(&Needed(0))));
}

// ---- panics -------------------------------------------------------------------------

thread_local! {
    /// Calls of instrumented callbacks so far, and the call that panics.
    static CALLS: Cell<u64> = const { Cell::new(0) };
    static PANIC_AT: Cell<u64> = const { Cell::new(u64::MAX) };
    /// Live values by id, and how often each was dropped.
    static LEDGER: RefCell<(u64, BTreeMap<u64, u32>)> = const { RefCell::new((0, BTreeMap::new())) };
}

/// Counts one callback call and panics if it is the chosen one.
fn tick() {
    let n = CALLS.with(|c| {
        c.set(c.get() + 1);
        c.get()
    });
    if n == PANIC_AT.with(Cell::get) {
        panic!("injected panic at call {n}");
    }
}

/// A value whose clone, hooks and drop are instrumented callbacks, and
/// whose drops are counted.
#[derive(Component)]
#[component(on_add = tick_hook, on_insert = tick_hook, on_discard = tick_hook, on_remove = tick_hook, on_despawn = tick_hook)]
struct Tracked(u64);

#[derive(Component)]
#[component(storage = "SparseSet", on_add = tick_hook, on_remove = tick_hook, on_despawn = tick_hook)]
struct SparseTracked(Tracked);

fn tick_hook(_: DeferredWorld, _: HookContext) {
    tick();
}

impl Tracked {
    fn new() -> Tracked {
        Tracked(LEDGER.with(|l| {
            let mut l = l.borrow_mut();
            l.0 += 1;
            l.0
        }))
    }
}

impl Clone for Tracked {
    fn clone(&self) -> Tracked {
        tick();
        Tracked::new()
    }
}

impl Clone for SparseTracked {
    fn clone(&self) -> SparseTracked {
        SparseTracked(self.0.clone())
    }
}

impl Drop for Tracked {
    fn drop(&mut self) {
        LEDGER.with(|l| *l.borrow_mut().1.entry(self.0).or_default() += 1);
        tick();
    }
}

/// The operations under test, each on a world holding table, sparse and
/// shared-table entities.
const OPS: [&str; 6] = [
    "insert table",
    "insert sparse",
    "replace",
    "remove",
    "despawn",
    "insert changed",
];

fn setup() -> World {
    let mut world = World::new();
    for _ in 0..3 {
        world.spawn((A(0), Tracked::new()));
        world.spawn((A(1), Tracked::new(), SparseTracked(Tracked::new())));
        world.spawn(B(2));
    }
    world.add_observer(|_: On<Add<Tracked>>| tick());
    world.add_observer(|_: On<Remove<Tracked>>| tick());
    world.clear_trackers();
    world
}

fn run(world: &mut World, op: &str) {
    match op {
        "insert table" => {
            world.insert_for::<With<A>, _>((Tracked::new(), B(1)));
        }
        "insert sparse" => {
            world.insert_for::<Without<SparseTracked>, _>(SparseTracked(Tracked::new()));
        }
        "replace" => {
            world.insert_for::<With<Tracked>, _>(Tracked::new());
        }
        "remove" => {
            world.remove_for::<With<A>, (Tracked, SparseTracked)>();
        }
        "despawn" => {
            world.despawn_for::<With<Tracked>>();
        }
        _ => {
            world
                .query_filtered::<Entity, Added<B>>()
                .insert_all(world, Tracked::new());
        }
    }
}

fn reset(panic_at: u64) {
    CALLS.with(|c| c.set(0));
    PANIC_AT.with(|p| p.set(panic_at));
    LEDGER.with(|l| *l.borrow_mut() = (0, BTreeMap::new()));
}

#[test]
fn a_panic_in_any_callback_leaves_a_consistent_world_and_drops_every_value_once() {
    let mut injected = 0;
    for op in OPS {
        // A clean run counts the callbacks the operation calls.
        reset(u64::MAX);
        let mut world = setup();
        let before = CALLS.with(Cell::get);
        run(&mut world, op);
        let total = CALLS.with(Cell::get);
        assert!(total > before, "{op}: the operation calls callbacks");
        drop(world);
        // Interpreted, every seventh call: each kind of callback still gets hit.
        for k in (before + 1..=total).step_by(if cfg!(miri) { 7 } else { 1 }) {
            reset(u64::MAX);
            let mut world = setup();
            PANIC_AT.with(|p| p.set(k));
            let result = catch_unwind(AssertUnwindSafe(|| run(&mut world, op)));
            PANIC_AT.with(|p| p.set(u64::MAX));
            assert!(result.is_err(), "{op}: call {k} panicked");
            injected += 1;
            world.flush();
            consistent(&world);
            // The world keeps working.
            world.spawn((A(9), Tracked::new()));
            world.insert_for::<With<A>, _>(B(3));
            consistent(&world);
            drop(world);
            LEDGER.with(|l| {
                let l = l.borrow();
                for id in 1..=l.0 {
                    assert_eq!(
                        l.1.get(&id).copied().unwrap_or(0),
                        1,
                        "{op}, panic at call {k}: value {id} dropped once"
                    );
                }
                assert!(
                    l.1.keys().all(|&id| id <= l.0),
                    "{op}: only created values dropped"
                );
            });
        }
    }
    assert!(
        injected > if cfg!(miri) { 3 } else { 20 },
        "{injected} panics injected"
    );
}

#[repr(align(64))]
#[derive(Component, Clone, Debug, PartialEq)]
struct Wide([u8; 3]);

/// A value that counts its drops.
#[derive(Component, Clone)]
struct Counted(#[allow(dead_code)] std::sync::Arc<()>);

#[derive(Bundle, Clone)]
struct Loadout {
    wide: Wide,
    name: Counted,
    marker: Marker,
    b: B,
    #[bundle(ignore)]
    #[allow(dead_code)]
    spare: Spare,
}

/// A field a bundle does not store: dropped by the insert.
#[derive(Clone, Default)]
struct Spare(#[allow(dead_code)] Option<std::sync::Arc<()>>);

#[test]
fn a_whole_table_insert_of_a_many_column_bundle_writes_every_value_and_tick() {
    let mut world = World::new();
    let entities: Vec<Entity> = (0..40).map(|i| world.spawn(A(i)).id()).collect();
    world.clear_trackers();
    let counter = std::sync::Arc::new(());
    let loadout = Loadout {
        wide: Wide([1, 2, 3]),
        name: Counted(counter.clone()),
        marker: Marker,
        b: B(5),
        spare: Spare(Some(counter.clone())),
    };
    let changed = world.insert_for::<With<A>, _>(loadout);
    assert_eq!(changed, 40);
    // The spare fields were dropped; one `Counted` per entity is kept (and
    // the original bundle, dropped after the call).
    assert_eq!(std::sync::Arc::strong_count(&counter), 40 + 1);
    let mut seen = 0;
    let mut query = world.query_filtered::<(Entity, &A, &Wide, &B, Has<Marker>), Added<B>>();
    for (e, a, wide, b, marker) in query.iter(&world) {
        assert_eq!(e, entities[a.0 as usize]);
        assert_eq!(wide, &Wide([1, 2, 3]));
        assert_eq!(std::ptr::from_ref(wide) as usize % 64, 0);
        assert_eq!(b, &B(5));
        assert!(marker);
        seen += 1;
    }
    assert_eq!(seen, 40, "every value is new to the query that ran before");
    check_invariants(&world);
    drop(world);
    assert_eq!(
        std::sync::Arc::strong_count(&counter),
        1,
        "every value dropped once"
    );
}

/// An ignored bundle field whose `Drop` panics when told to.
#[derive(Default)]
struct Grenade(bool);

impl Drop for Grenade {
    fn drop(&mut self) {
        if self.0 {
            panic!("grenade");
        }
    }
}

#[derive(Bundle)]
struct Armed {
    name: Counted,
    b: B,
    #[bundle(ignore)]
    #[allow(dead_code)]
    grenade: Grenade,
}

/// Two whole tables, no hooks or observers: the insert that makes every
/// value in place before moving anything.
fn two_tables() -> (World, Vec<Entity>) {
    let mut world = World::new();
    let mut entities = Vec::new();
    for i in 0..6 {
        entities.push(world.spawn((A(i), Wide([0; 3]))).id());
        entities.push(world.spawn((A(10 + i), Marker)).id());
    }
    world.clear_trackers();
    (world, entities)
}

#[test]
fn a_panic_while_making_whole_table_values_changes_nothing_and_drops_each_made_value_once() {
    let counter = std::sync::Arc::new(());
    for panic_at in 0..12 {
        let (mut world, entities) = two_tables();
        let before: Vec<_> = entities
            .iter()
            .map(|&e| world.entity(e).archetype().id())
            .collect();
        let mut calls = 0;
        let result = catch_unwind(AssertUnwindSafe(|| {
            world
                .query_filtered::<Entity, With<A>>()
                .insert_all_with(&mut world, |_| {
                    assert_ne!(calls, panic_at, "make panics");
                    calls += 1;
                    (Counted(counter.clone()), B(7))
                })
        }));
        assert!(result.is_err(), "make panicked at call {panic_at}");
        consistent(&world);
        let after: Vec<_> = entities
            .iter()
            .map(|&e| world.entity(e).archetype().id())
            .collect();
        assert_eq!(before, after, "no entity moved (panic at {panic_at})");
        assert_eq!(world.query::<&B>().iter(&world).count(), 0);
        assert_eq!(
            std::sync::Arc::strong_count(&counter),
            1,
            "each made value dropped (panic at {panic_at})"
        );
        // The world keeps working, through the same path.
        assert_eq!(world.insert_for::<With<A>, _>(B(1)), 12);
        consistent(&world);
    }
}

#[test]
fn a_panicking_drop_of_an_ignored_field_goes_on_once_every_table_has_moved() {
    let counter = std::sync::Arc::new(());
    let (mut world, entities) = two_tables();
    let mut made = 0;
    let result = catch_unwind(AssertUnwindSafe(|| {
        world
            .query_filtered::<Entity, With<A>>()
            .insert_all_with(&mut world, |_| {
                made += 1;
                Armed {
                    name: Counted(counter.clone()),
                    b: B(3),
                    grenade: Grenade(made == 2),
                }
            })
    }));
    assert!(result.is_err(), "the grenade's panic goes on");
    consistent(&world);
    for &e in &entities {
        assert_eq!(world.get::<B>(e), Some(&B(3)), "{e} got its value");
    }
    let mut added = world.query_filtered::<Entity, Added<B>>();
    assert_eq!(added.iter(&world).count(), 12);
    drop(world);
    assert_eq!(std::sync::Arc::strong_count(&counter), 1);
}

/// A hook that panics during `insert_batch` stops no other pair: with
/// required components (inserted entity by entity) and with an entity
/// named twice (inserted pair by pair), every pair is inserted, then the
/// first panic goes on.
#[test]
fn insert_batch_goes_past_a_panicking_hook() {
    fn explode(_: DeferredWorld, _: HookContext) {
        panic!("on_add exploded");
    }
    #[derive(Component, Default)]
    struct Needed;
    #[derive(Component)]
    #[require(Needed)]
    #[component(on_add = explode)]
    struct WithRequired;
    #[derive(Component)]
    #[component(on_add = explode)]
    struct Hooked(u32);

    let mut world = World::new();
    let entities: Vec<Entity> = (0..3).map(|_| world.spawn_empty().id()).collect();
    let result = catch_unwind(AssertUnwindSafe(|| {
        world.insert_batch(entities.iter().map(|&e| (e, WithRequired)));
    }));
    assert!(result.is_err());
    for &e in &entities {
        assert!(world.get::<WithRequired>(e).is_some() && world.get::<Needed>(e).is_some());
    }
    integrity(&world);

    let (a, b) = (world.spawn_empty().id(), world.spawn_empty().id());
    let result = catch_unwind(AssertUnwindSafe(|| {
        world.insert_batch([(a, Hooked(1)), (b, Hooked(2)), (a, Hooked(3))]);
    }));
    assert!(result.is_err());
    assert_eq!(world.get::<Hooked>(a).map(|h| h.0), Some(3));
    assert_eq!(world.get::<Hooked>(b).map(|h| h.0), Some(2));
    integrity(&world);
}
