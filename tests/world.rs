//! Behaviour of the `World` entity API: structural changes across table and
//! sparse-set storage, stale handles, batches, many archetypes, odd layouts,
//! resources, bundle validation, dynamic components and change ticks.
//!
//! Every test checks values read back after each step, and the storage
//! invariants through [`check_invariants`]: every live entity has exactly
//! one location, which points back to its archetype, archetype row, table
//! and table row; every column is as long as its table; every sparse set
//! holds exactly the entities whose archetype has its component.

mod common;

use std::alloc::Layout;
use std::collections::{HashMap, HashSet};
use std::fmt::Debug;
use std::panic::catch_unwind;

use common::integrity::check_invariants;
use common::panics::expect_panic;
use ecs::component::ComponentDescriptor;
use ecs::prelude::*;
use ecs::ptr::OwningPtr;
use ecs::world::error::EntityMutableFetchError;

// ---- components --------------------------------------------------------------

/// A component type a generic test can build from a number.
trait Val: Component<Mutability = ecs::component::Mutable> + Clone + PartialEq + Debug {
    fn new(v: u32) -> Self;
}

#[derive(Component, Debug, Clone, PartialEq)]
struct TA(u32);
#[derive(Component, Debug, Clone, PartialEq)]
struct TB(String);
#[derive(Component, Debug, Clone, PartialEq)]
struct TC(Vec<u64>);

#[derive(Component, Debug, Clone, PartialEq)]
#[component(storage = "SparseSet")]
struct SA(u32);
#[derive(Component, Debug, Clone, PartialEq)]
#[component(storage = "SparseSet")]
struct SB(String);
#[derive(Component, Debug, Clone, PartialEq)]
#[component(storage = "SparseSet")]
struct SC(Vec<u64>);

impl Val for TA {
    fn new(v: u32) -> Self {
        TA(v)
    }
}
impl Val for TB {
    fn new(v: u32) -> Self {
        TB(format!("table string {v}"))
    }
}
impl Val for TC {
    fn new(v: u32) -> Self {
        TC((0..u64::from(v % 7 + 1))
            .map(|i| i * 1000 + u64::from(v))
            .collect())
    }
}
impl Val for SA {
    fn new(v: u32) -> Self {
        SA(v)
    }
}
impl Val for SB {
    fn new(v: u32) -> Self {
        SB(format!("sparse string {v}"))
    }
}
impl Val for SC {
    fn new(v: u32) -> Self {
        SC((0..u64::from(v % 5 + 1))
            .map(|i| i * 77 + u64::from(v))
            .collect())
    }
}

/// Never inserted anywhere: a table component an entity always lacks.
#[derive(Component, Debug, Clone, PartialEq)]
struct NeverTable(u32);
/// Never inserted anywhere: a sparse component an entity always lacks.
#[derive(Component, Debug, Clone, PartialEq)]
#[component(storage = "SparseSet")]
struct NeverSparse(u32);

/// Asserts `e` has exactly these values of P, Q and R (`None`: absent).
#[track_caller]
fn expect_pqr<P: Val, Q: Val, R: Val>(
    world: &World,
    e: Entity,
    p: Option<u32>,
    q: Option<u32>,
    r: Option<u32>,
) {
    assert_eq!(world.get::<P>(e), p.map(P::new).as_ref(), "P of {e:?}");
    assert_eq!(world.get::<Q>(e), q.map(Q::new).as_ref(), "Q of {e:?}");
    assert_eq!(world.get::<R>(e), r.map(R::new).as_ref(), "R of {e:?}");
    let entity = world.entity(e);
    assert_eq!(entity.contains::<P>(), p.is_some());
    assert_eq!(entity.contains::<Q>(), q.is_some());
    assert_eq!(entity.contains::<R>(), r.is_some());
    assert_eq!(entity.get::<P>(), p.map(P::new).as_ref());
    assert_eq!(
        entity.archetype().component_count(),
        [p, q, r].iter().flatten().count()
    );
}

/// Spawn, insert, remove (also of missing components), take (all or
/// nothing) and despawn one entity among neighbours of the same archetypes,
/// so that every swap-remove moves another entity whose values must
/// survive.
fn structural_round_trip<P: Val, Q: Val, R: Val>() {
    let mut world = World::new();
    // Neighbours before and after the subject in each archetype it visits.
    let before: Vec<Entity> = (0..3)
        .map(|i| world.spawn((P::new(100 + i), Q::new(200 + i))).id())
        .collect();
    let e = world.spawn((P::new(1), Q::new(2))).id();
    let after: Vec<Entity> = (0..3)
        .map(|i| world.spawn((P::new(300 + i), Q::new(400 + i))).id())
        .collect();
    let lone_p: Vec<Entity> = (0..2).map(|i| world.spawn(P::new(500 + i)).id()).collect();
    let pqr: Vec<Entity> = (0..2)
        .map(|i| {
            world
                .spawn((P::new(600 + i), Q::new(700 + i), R::new(800 + i)))
                .id()
        })
        .collect();
    let neighbours_intact = |world: &World| {
        for (i, &n) in before.iter().enumerate() {
            expect_pqr::<P, Q, R>(world, n, Some(100 + i as u32), Some(200 + i as u32), None);
        }
        for (i, &n) in after.iter().enumerate() {
            expect_pqr::<P, Q, R>(world, n, Some(300 + i as u32), Some(400 + i as u32), None);
        }
        for (i, &n) in lone_p.iter().enumerate() {
            expect_pqr::<P, Q, R>(world, n, Some(500 + i as u32), None, None);
        }
        for (i, &n) in pqr.iter().enumerate() {
            let i = i as u32;
            expect_pqr::<P, Q, R>(world, n, Some(600 + i), Some(700 + i), Some(800 + i));
        }
        check_invariants(world);
    };
    expect_pqr::<P, Q, R>(&world, e, Some(1), Some(2), None);
    neighbours_intact(&world);
    assert_eq!(world.entity_count(), 11);

    // Insert a new component.
    world.entity_mut(e).insert(R::new(3));
    expect_pqr::<P, Q, R>(&world, e, Some(1), Some(2), Some(3));
    neighbours_intact(&world);

    // Remove one.
    let mut entity = world.entity_mut(e);
    entity.remove::<Q>();
    assert!(!entity.contains::<Q>());
    assert_eq!(entity.get::<P>(), Some(&P::new(1)));
    expect_pqr::<P, Q, R>(&world, e, Some(1), None, Some(3));
    neighbours_intact(&world);

    // Removing what is not there changes nothing, not even the archetype.
    let archetype = world.entity(e).archetype().id();
    world.entity_mut(e).remove::<Q>();
    world.entity_mut(e).remove::<(NeverTable, NeverSparse)>();
    assert_eq!(world.entity(e).archetype().id(), archetype);
    expect_pqr::<P, Q, R>(&world, e, Some(1), None, Some(3));
    neighbours_intact(&world);

    // A remove of a bundle removes what is present and ignores the rest.
    world.entity_mut(e).remove::<(Q, R, NeverTable)>();
    expect_pqr::<P, Q, R>(&world, e, Some(1), None, None);
    neighbours_intact(&world);

    // Insert two at once (chained), then replace one in place.
    world
        .entity_mut(e)
        .insert((Q::new(4), R::new(5)))
        .insert(P::new(6));
    expect_pqr::<P, Q, R>(&world, e, Some(6), Some(4), Some(5));
    neighbours_intact(&world);

    // Take is all or nothing: one missing component means None and no
    // change at all.
    let archetype = world.entity(e).archetype().id();
    assert_eq!(world.entity_mut(e).take::<(Q, NeverTable)>(), None);
    assert_eq!(world.entity_mut(e).take::<(R, NeverSparse)>(), None);
    assert_eq!(world.entity_mut(e).take::<(NeverSparse, Q, R)>(), None);
    assert_eq!(world.entity(e).archetype().id(), archetype);
    expect_pqr::<P, Q, R>(&world, e, Some(6), Some(4), Some(5));
    neighbours_intact(&world);

    // A full take returns exactly the values and removes them.
    assert_eq!(
        world.entity_mut(e).take::<(R, Q)>(),
        Some((R::new(5), Q::new(4)))
    );
    expect_pqr::<P, Q, R>(&world, e, Some(6), None, None);
    neighbours_intact(&world);
    assert_eq!(world.entity_mut(e).take::<Q>(), None);
    assert_eq!(world.entity_mut(e).take::<P>(), Some(P::new(6)));
    expect_pqr::<P, Q, R>(&world, e, None, None, None);
    assert_eq!(world.entity(e).archetype().component_count(), 0);
    neighbours_intact(&world);

    // Back from the empty archetype.
    world.entity_mut(e).insert((R::new(7), P::new(8)));
    expect_pqr::<P, Q, R>(&world, e, Some(8), None, Some(7));
    neighbours_intact(&world);

    // Despawn through the handle.
    world.entity_mut(e).despawn();
    assert!(!world.contains_entity(e));
    assert_eq!(world.get::<P>(e), None);
    assert_eq!(world.get::<R>(e), None);
    assert_eq!(world.entity_count(), 10);
    neighbours_intact(&world);

    // Despawn the neighbours one by one, first and last rows included.
    let mut rest: Vec<Entity> = before
        .iter()
        .chain(&after)
        .chain(&lone_p)
        .chain(&pqr)
        .copied()
        .collect();
    rest.swap(0, 4);
    for (i, &n) in rest.iter().enumerate() {
        assert!(world.despawn(n));
        assert!(!world.despawn(n), "second despawn of {n:?} is refused");
        assert_eq!(world.entity_count(), rest.len() - i - 1);
        for &m in &rest[i + 1..] {
            assert!(
                world.get::<P>(m).is_some(),
                "{m:?} survives the despawn of {n:?}"
            );
        }
        check_invariants(&world);
    }
    assert_eq!(world.entity_count(), 0);
}

#[test]
fn structural_changes_table_storage() {
    structural_round_trip::<TA, TB, TC>();
}

#[test]
fn structural_changes_sparse_storage() {
    structural_round_trip::<SA, SB, SC>();
}

#[test]
fn structural_changes_mixed_storage() {
    structural_round_trip::<TA, SB, TC>();
    structural_round_trip::<SA, TB, SC>();
    structural_round_trip::<SC, SA, TB>();
}

// ---- insert replacing / keeping ------------------------------------------------

fn insert_replaces_and_insert_if_new_keeps<P: Val, Q: Val>() {
    let mut world = World::new();
    let other = world.spawn((P::new(50), Q::new(51))).id();
    let e = world.spawn(P::new(1)).id();

    world.entity_mut(e).insert(P::new(2));
    assert_eq!(world.get::<P>(e), Some(&P::new(2)));

    world.entity_mut(e).insert_if_new(P::new(3));
    assert_eq!(
        world.get::<P>(e),
        Some(&P::new(2)),
        "insert_if_new keeps the old value"
    );

    // A bundle with one existing and one new component: the new one is
    // added, the existing one kept.
    world.entity_mut(e).insert_if_new((P::new(4), Q::new(5)));
    assert_eq!(world.get::<P>(e), Some(&P::new(2)));
    assert_eq!(world.get::<Q>(e), Some(&Q::new(5)));

    // The same with `insert` replaces both.
    world.entity_mut(e).insert((Q::new(6), P::new(7)));
    assert_eq!(world.get::<P>(e), Some(&P::new(7)));
    assert_eq!(world.get::<Q>(e), Some(&Q::new(6)));

    assert_eq!(world.get::<P>(other), Some(&P::new(50)));
    assert_eq!(world.get::<Q>(other), Some(&Q::new(51)));
    assert_eq!(world.entity_count(), 2);
    check_invariants(&world);
}

#[test]
fn insert_over_existing_replaces_and_insert_if_new_keeps() {
    insert_replaces_and_insert_if_new_keeps::<TA, TB>();
    insert_replaces_and_insert_if_new_keeps::<SA, SB>();
    insert_replaces_and_insert_if_new_keeps::<TC, SC>();
    insert_replaces_and_insert_if_new_keeps::<SB, TA>();
}

// ---- stale handles ----------------------------------------------------------------

#[test]
fn despawned_index_is_reused_and_stale_handle_refused_everywhere() {
    let mut world = World::new();
    let keep = world.spawn((TA(0), SA(0))).id();
    let stale = world.spawn((TA(1), SA(1), TB("old".into()))).id();
    assert!(world.despawn(stale));

    let fresh = world.spawn((TA(2), SA(2), TB("new".into()))).id();
    assert_eq!(fresh.index(), stale.index(), "the freed index is reused");
    assert!(
        fresh.generation() > stale.generation(),
        "with a higher generation"
    );
    assert_ne!(fresh, stale);

    // The stale handle never reaches the new entity's data, in table or
    // sparse storage.
    assert!(!world.contains_entity(stale));
    assert_eq!(world.get::<TA>(stale), None);
    assert_eq!(world.get::<SA>(stale), None);
    assert_eq!(world.get::<TB>(stale), None);
    assert!(world.get_mut::<TA>(stale).is_none());
    assert!(world.get_mut::<SA>(stale).is_none());
    assert!(world.get_ref::<SA>(stale).is_none());
    let error = world.get_entity(stale).map(|e| e.id()).unwrap_err();
    assert_eq!(error.entity(), stale);
    assert!(error.to_string().contains(&format!("{stale:?}")), "{error}");
    assert!(matches!(
        world.get_entity_mut(stale).map(|e| e.id()),
        Err(EntityMutableFetchError::NotSpawned(error)) if error.entity() == stale
    ));
    assert!(
        !world.despawn(stale),
        "despawning a stale handle does nothing"
    );

    // Neither the stale despawn nor lookups touched the new entity.
    assert!(world.contains_entity(fresh));
    assert_eq!(world.get::<TA>(fresh), Some(&TA(2)));
    assert_eq!(world.get::<SA>(fresh), Some(&SA(2)));
    assert_eq!(world.get::<TB>(fresh), Some(&TB("new".into())));
    assert_eq!(world.get::<SA>(keep), Some(&SA(0)));
    assert_eq!(world.entity_count(), 2);

    // `entity` and `entity_mut` panic naming the entity.
    let message = expect_panic(|| world.entity(stale).id());
    assert!(
        message.contains(&format!("{stale:?}")),
        "message: {message}"
    );
    let message = expect_panic(|| world.entity_mut(stale).id());
    assert!(
        message.contains(&format!("{stale:?}")),
        "message: {message}"
    );
    // A never-spawned entity too.
    let never = Entity::from_raw(1000);
    let message = expect_panic(|| world.entity(never).id());
    assert!(message.contains("1000v1"), "message: {message}");
    assert!(!world.contains_entity(Entity::PLACEHOLDER));
    assert_eq!(world.get::<TA>(Entity::PLACEHOLDER), None);

    // Reuse several times: each generation is refused once replaced.
    let mut handles = vec![stale, fresh];
    for round in 0..5u32 {
        let last = *handles.last().unwrap();
        assert!(world.despawn(last));
        let next = world.spawn(SA(10 + round)).id();
        assert_eq!(next.index(), stale.index());
        assert!(next.generation() > last.generation());
        for &old in &handles {
            assert!(!world.contains_entity(old));
            assert_eq!(world.get::<SA>(old), None);
            assert!(!world.despawn(old));
        }
        assert_eq!(world.get::<SA>(next), Some(&SA(10 + round)));
        handles.push(next);
    }
    check_invariants(&world);
}

#[test]
#[should_panic(expected = "0v1 does not exist")]
fn entity_of_despawned_panics_naming_it() {
    let mut world = World::new();
    let e = world.spawn(TA(1)).id();
    assert_eq!(format!("{e:?}"), "0v1");
    world.despawn(e);
    world.entity(e);
}

#[test]
fn clear_entities_refuses_old_handles_and_world_stays_usable() {
    let mut world = World::new();
    let old: Vec<Entity> = (0..20u32)
        .map(|i| match i % 3 {
            0 => world.spawn(TA(i)).id(),
            1 => world.spawn((TA(i), SA(i))).id(),
            _ => world.spawn(SB(i.to_string())).id(),
        })
        .collect();
    world.clear_entities();
    assert_eq!(world.entity_count(), 0);
    check_invariants(&world);
    for &e in &old {
        assert!(!world.contains_entity(e));
        assert_eq!(world.get::<TA>(e), None);
        assert_eq!(world.get::<SA>(e), None);
        assert!(!world.despawn(e));
    }
    let new: Vec<Entity> = (0..20u32)
        .map(|i| world.spawn((TA(i + 100), SA(i + 200))).id())
        .collect();
    for (i, &e) in new.iter().enumerate() {
        assert!(!old.contains(&e));
        assert_eq!(world.get::<TA>(e), Some(&TA(i as u32 + 100)));
        assert_eq!(world.get::<SA>(e), Some(&SA(i as u32 + 200)));
    }
    for &e in &old {
        assert_eq!(
            world.get::<SA>(e),
            None,
            "old handle {e:?} reaches no new value"
        );
    }
    check_invariants(&world);
}

// ---- spawn_batch ----------------------------------------------------------------

const BATCH: u32 = if cfg!(miri) { 300 } else { 100_000 };

#[test]
fn spawn_batch_spawns_every_value() {
    let mut world = World::new();
    let before = world.spawn(TA(u32::MAX)).id();
    let ids: Vec<Entity> = world
        .spawn_batch((0..BATCH).map(|i| (TA(i), TB(format!("b{i}")), SA(i.wrapping_mul(3)))))
        .collect();
    assert_eq!(ids.len(), BATCH as usize);
    assert_eq!(world.entity_count(), BATCH as usize + 1);
    let distinct: HashSet<Entity> = ids.iter().copied().collect();
    assert_eq!(distinct.len(), ids.len(), "every spawned id is distinct");
    assert!(!distinct.contains(&before));
    for (i, &e) in ids.iter().enumerate() {
        let i = i as u32;
        assert_eq!(world.get::<TA>(e), Some(&TA(i)));
        assert_eq!(world.get::<SA>(e), Some(&SA(i.wrapping_mul(3))));
        assert_eq!(
            world.get::<TB>(e).map(|b| b.0.as_str()),
            Some(format!("b{i}").as_str())
        );
    }
    assert_eq!(world.get::<TA>(before), Some(&TA(u32::MAX)));
    // All in one archetype.
    let archetype = world.entity(ids[0]).archetype();
    assert_eq!(archetype.len(), BATCH as usize);
    check_invariants(&world);

    // A second batch reuses despawned indices.
    for &e in ids.iter().step_by(2) {
        assert!(world.despawn(e));
    }
    let reused: Vec<Entity> = world
        .spawn_batch((0..10u32).map(|i| (TA(i + 7), SA(i))))
        .collect();
    for (i, &e) in reused.iter().enumerate() {
        assert_eq!(world.get::<TA>(e), Some(&TA(i as u32 + 7)));
        assert_eq!(world.get::<SA>(e), Some(&SA(i as u32)));
        assert!(!ids.contains(&e), "a reused index carries a new generation");
    }
    check_invariants(&world);
}

#[test]
fn spawn_batch_dropped_unread_still_spawns_everything() {
    let n = BATCH / 10;
    let mut world = World::new();
    drop(world.spawn_batch((0..n).map(|i| (TA(i), SA(i + 1)))));
    assert_eq!(world.entity_count(), n as usize);
    let id = world.component_id::<TA>().expect("registered by the batch");
    let archetype = world
        .archetypes()
        .iter()
        .find(|a| a.contains(id))
        .expect("the batch's archetype exists");
    assert_eq!(archetype.len(), n as usize);
    let mut values: Vec<(u32, u32)> = world
        .archetype_entities(archetype.id())
        .expect("the archetype exists")
        .map(|ae| {
            let e = ae.id();
            (world.get::<TA>(e).unwrap().0, world.get::<SA>(e).unwrap().0)
        })
        .collect();
    values.sort_unstable();
    let expected: Vec<(u32, u32)> = (0..n).map(|i| (i, i + 1)).collect();
    assert_eq!(values, expected);

    // Partly read: the rest is spawned on drop.
    let mut iter = world.spawn_batch((0..10u32).map(|i| SB(format!("s{i}"))));
    let first = iter.next().unwrap();
    let second = iter.next().unwrap();
    drop(iter);
    assert_eq!(world.entity_count(), n as usize + 10);
    assert_eq!(world.get::<SB>(first), Some(&SB("s0".into())));
    assert_eq!(world.get::<SB>(second), Some(&SB("s1".into())));
    assert_eq!(
        world
            .storages()
            .sparse_sets
            .get(world.component_id::<SB>().unwrap())
            .unwrap()
            .len(),
        10
    );
    check_invariants(&world);
}

// ---- many archetypes ---------------------------------------------------------------

#[derive(Component, Debug, Clone, Copy, PartialEq)]
struct M0(u32);
#[derive(Component, Debug, Clone, Copy, PartialEq)]
struct M1(u32);
#[derive(Component, Debug, Clone, Copy, PartialEq)]
struct M2(u32);
#[derive(Component, Debug, Clone, Copy, PartialEq)]
#[component(storage = "SparseSet")]
struct M3(u32);
#[derive(Component, Debug, Clone, Copy, PartialEq)]
#[component(storage = "SparseSet")]
struct M4(u32);
#[derive(Component, Debug, Clone, Copy, PartialEq)]
#[component(storage = "SparseSet")]
struct M5(u32);

type Markers = [Option<u32>; 6];

fn insert_marker(world: &mut World, e: Entity, k: usize, v: u32) {
    let mut entity = world.entity_mut(e);
    match k {
        0 => entity.insert(M0(v)),
        1 => entity.insert(M1(v)),
        2 => entity.insert(M2(v)),
        3 => entity.insert(M3(v)),
        4 => entity.insert(M4(v)),
        _ => entity.insert(M5(v)),
    };
}

fn insert_marker_if_new(world: &mut World, e: Entity, k: usize, v: u32) {
    let mut entity = world.entity_mut(e);
    match k {
        0 => entity.insert_if_new(M0(v)),
        1 => entity.insert_if_new(M1(v)),
        2 => entity.insert_if_new(M2(v)),
        3 => entity.insert_if_new(M3(v)),
        4 => entity.insert_if_new(M4(v)),
        _ => entity.insert_if_new(M5(v)),
    };
}

fn remove_marker(world: &mut World, e: Entity, k: usize) {
    let mut entity = world.entity_mut(e);
    match k {
        0 => entity.remove::<M0>(),
        1 => entity.remove::<M1>(),
        2 => entity.remove::<M2>(),
        3 => entity.remove::<M3>(),
        4 => entity.remove::<M4>(),
        _ => entity.remove::<M5>(),
    };
}

fn read_markers(world: &World, e: Entity) -> Markers {
    [
        world.get::<M0>(e).map(|m| m.0),
        world.get::<M1>(e).map(|m| m.0),
        world.get::<M2>(e).map(|m| m.0),
        world.get::<M3>(e).map(|m| m.0),
        world.get::<M4>(e).map(|m| m.0),
        world.get::<M5>(e).map(|m| m.0),
    ]
}

/// A small deterministic generator (Knuth's MMIX LCG), high bits out.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) as u32
    }

    fn below(&mut self, n: usize) -> usize {
        self.next() as usize % n
    }
}

fn spawn_with_mask(
    world: &mut World,
    mask: usize,
    value: u32,
    model: &mut HashMap<Entity, Markers>,
) -> Entity {
    // Half the entities start from a two-component bundle, the rest from
    // nothing, so spawn and insert paths both build the archetypes.
    let e = if mask & 0b1001 == 0b1001 {
        world.spawn((M0(value), M3(value + 3))).id()
    } else {
        world.spawn_empty().id()
    };
    let mut markers = [None; 6];
    for (k, marker) in markers.iter_mut().enumerate() {
        if mask & (1 << k) != 0 {
            let v = value + k as u32;
            if !(mask & 0b1001 == 0b1001 && (k == 0 || k == 3)) {
                insert_marker(world, e, k, v);
            }
            *marker = Some(v);
        }
    }
    model.insert(e, markers);
    e
}

fn check_against_model(world: &World, model: &HashMap<Entity, Markers>, ids: &[ComponentId; 6]) {
    assert_eq!(world.entity_count(), model.len());
    for (&e, markers) in model {
        assert_eq!(&read_markers(world, e), markers, "components of {e:?}");
        let mut expected: Vec<ComponentId> = (0..6)
            .filter(|&k| markers[k].is_some())
            .map(|k| ids[k])
            .collect();
        expected.sort();
        let mut actual: Vec<ComponentId> = world.entity(e).archetype().components().collect();
        actual.sort();
        assert_eq!(actual, expected, "archetype of {e:?}");
    }
    check_invariants(world);
}

#[test]
fn many_archetypes_stay_consistent_under_random_changes() {
    let (per_archetype, ops) = if cfg!(miri) { (2, 300) } else { (10, 20_000) };
    let mut world = World::new();
    let ids = [
        world.register_component::<M0>(),
        world.register_component::<M1>(),
        world.register_component::<M2>(),
        world.register_component::<M3>(),
        world.register_component::<M4>(),
        world.register_component::<M5>(),
    ];
    let mut model: HashMap<Entity, Markers> = HashMap::new();
    let mut alive: Vec<Entity> = Vec::new();
    let mut dead: Vec<Entity> = Vec::new();
    let mut next_value = 0u32;
    for i in 0..64 * per_archetype {
        next_value += 10;
        alive.push(spawn_with_mask(&mut world, i % 64, next_value, &mut model));
    }
    check_against_model(&world, &model, &ids);
    let populated = world.archetypes().iter().filter(|a| !a.is_empty()).count();
    assert_eq!(
        populated, 64,
        "one populated archetype per subset of 6 markers"
    );
    let tables_used: HashSet<_> = world
        .archetypes()
        .iter()
        .filter(|a| !a.is_empty())
        .map(|a| a.table_id())
        .collect();
    assert_eq!(tables_used.len(), 8, "sparse markers do not split tables");

    let mut rng = Lcg(0x5eed);
    for op in 0..ops {
        let slot = rng.below(alive.len());
        let e = alive[slot];
        next_value += 10;
        let v = next_value;
        let markers = model.get_mut(&e).unwrap();
        match rng.below(10) {
            0..=2 => {
                let k = rng.below(6);
                insert_marker(&mut world, e, k, v);
                markers[k] = Some(v);
            }
            3..=5 => {
                let k = rng.below(6);
                remove_marker(&mut world, e, k);
                markers[k] = None;
            }
            6 => {
                let k = rng.below(6);
                insert_marker_if_new(&mut world, e, k, v);
                markers[k].get_or_insert(v);
            }
            7 => {
                // Bundles mixing storages, with or without the components.
                if rng.below(2) == 0 {
                    world.entity_mut(e).insert((M1(v), M4(v + 1), M5(v + 2)));
                    markers[1] = Some(v);
                    markers[4] = Some(v + 1);
                    markers[5] = Some(v + 2);
                } else {
                    world.entity_mut(e).remove::<(M2, M3, M5)>();
                    markers[2] = None;
                    markers[3] = None;
                    markers[5] = None;
                }
            }
            8 => {
                let taken = world.entity_mut(e).take::<(M0, M4)>();
                match (markers[0], markers[4]) {
                    (Some(a), Some(b)) => {
                        assert_eq!(taken, Some((M0(a), M4(b))));
                        markers[0] = None;
                        markers[4] = None;
                    }
                    _ => assert_eq!(taken, None, "take of a partial bundle"),
                }
            }
            _ => {
                assert!(world.despawn(e));
                model.remove(&e);
                alive.swap_remove(slot);
                dead.push(e);
                let mask = rng.below(64);
                alive.push(spawn_with_mask(&mut world, mask, v, &mut model));
            }
        }
        if op % 1000 == 999 {
            check_against_model(&world, &model, &ids);
        }
    }
    check_against_model(&world, &model, &ids);
    for &e in &dead {
        assert!(!world.contains_entity(e));
        assert_eq!(
            read_markers(&world, e),
            [None; 6],
            "stale {e:?} reaches nothing"
        );
    }
    assert!(!dead.is_empty());
    let populated = world.archetypes().iter().filter(|a| !a.is_empty()).count();
    assert!(
        populated >= 50,
        "entities still spread over {populated} archetypes"
    );
    assert_eq!(
        world.archetypes().len(),
        64,
        "no archetype beyond the 64 subsets"
    );
    let sum: usize = world.archetypes().iter().map(|a| a.len()).sum();
    assert_eq!(sum, world.entity_count());
}

// ---- layouts: ZST, over-aligned, heap-owning --------------------------------------

#[derive(Component, Debug, Clone, Copy, PartialEq)]
struct TableZst;
#[derive(Component, Debug, Clone, Copy, PartialEq)]
#[component(storage = "SparseSet")]
struct SparseZst;

#[derive(Component, Debug, Clone, Copy, PartialEq)]
#[repr(align(64))]
struct Aligned(u32, u8);

#[derive(Component, Debug, Clone, Copy, PartialEq)]
#[component(storage = "SparseSet")]
#[repr(align(64))]
struct SparseAligned(u64);

#[derive(Component, Debug, Clone, PartialEq)]
struct Text(String);
#[derive(Component, Debug, Clone, PartialEq)]
#[component(storage = "SparseSet")]
struct List(Vec<String>);

fn text(i: u32) -> Text {
    Text(format!("text #{i} {}", "x".repeat(i as usize % 40)))
}

fn list(i: u32) -> List {
    List((0..i % 6).map(|j| format!("{i}/{j}")).collect())
}

#[track_caller]
fn check_layouts(world: &World, e: Entity, i: u32) {
    let aligned = world.get::<Aligned>(e).expect("Aligned");
    assert_eq!(aligned, &Aligned(i, i as u8));
    assert_eq!(
        aligned as *const Aligned as usize % 64,
        0,
        "table value is 64-aligned"
    );
    let sparse_aligned = world.get::<SparseAligned>(e).expect("SparseAligned");
    assert_eq!(sparse_aligned, &SparseAligned(u64::from(i) << 20));
    assert_eq!(
        sparse_aligned as *const SparseAligned as usize % 64,
        0,
        "sparse value is 64-aligned"
    );
    assert_eq!(world.get::<Text>(e), Some(&text(i)));
    assert_eq!(world.get::<List>(e), Some(&list(i)));
}

#[test]
fn zst_over_aligned_and_heap_components_move_intact() {
    assert_eq!(std::mem::align_of::<Aligned>(), 64);
    let n = if cfg!(miri) { 12 } else { 200 };
    let mut world = World::new();
    let es: Vec<Entity> = (0..n)
        .map(|i| {
            world
                .spawn((
                    Aligned(i, i as u8),
                    SparseAligned(u64::from(i) << 20),
                    text(i),
                    list(i),
                ))
                .id()
        })
        .collect();
    for (i, &e) in es.iter().enumerate() {
        check_layouts(&world, e, i as u32);
    }

    // Move every third entity through several archetypes, with ZSTs and
    // with other components coming and going; everything else must stay.
    for (i, &e) in es.iter().enumerate().filter(|(i, _)| i % 3 == 0) {
        let i = i as u32;
        world.entity_mut(e).insert((TableZst, SparseZst));
        assert_eq!(world.get::<TableZst>(e), Some(&TableZst));
        assert_eq!(world.get::<SparseZst>(e), Some(&SparseZst));
        check_layouts(&world, e, i);
        world.entity_mut(e).insert(TA(i));
        check_layouts(&world, e, i);
        world.entity_mut(e).remove::<TableZst>();
        assert_eq!(world.get::<TableZst>(e), None);
        assert_eq!(world.get::<SparseZst>(e), Some(&SparseZst));
        check_layouts(&world, e, i);
        assert_eq!(
            world.entity_mut(e).take::<(Text, List)>(),
            Some((text(i), list(i)))
        );
        assert_eq!(world.get::<Text>(e), None);
        world.entity_mut(e).insert((list(i), text(i)));
        check_layouts(&world, e, i);
        assert_eq!(world.get::<TA>(e), Some(&TA(i)));
    }
    for (i, &e) in es.iter().enumerate() {
        check_layouts(&world, e, i as u32);
    }
    // Removing the over-aligned values and putting them back.
    for (i, &e) in es.iter().enumerate().filter(|(i, _)| i % 2 == 1) {
        let i = i as u32;
        assert_eq!(
            world.entity_mut(e).take::<(Aligned, SparseAligned)>(),
            Some((Aligned(i, i as u8), SparseAligned(u64::from(i) << 20)))
        );
        world
            .entity_mut(e)
            .insert((SparseAligned(u64::from(i) << 20), Aligned(i, i as u8)));
    }
    for (i, &e) in es.iter().enumerate() {
        check_layouts(&world, e, i as u32);
    }
    // Many ZST-only entities.
    let zsts: Vec<Entity> = (0..n)
        .map(|_| world.spawn((TableZst, SparseZst)).id())
        .collect();
    for &z in &zsts {
        assert_eq!(world.get::<TableZst>(z), Some(&TableZst));
        assert_eq!(world.get::<SparseZst>(z), Some(&SparseZst));
    }
    for &z in zsts.iter().step_by(2) {
        assert!(world.despawn(z));
    }
    for &z in zsts.iter().skip(1).step_by(2) {
        assert_eq!(world.get::<TableZst>(z), Some(&TableZst));
    }
    check_invariants(&world);
}

// ---- shared tables ---------------------------------------------------------------

#[test]
fn archetypes_differing_only_in_sparse_components_share_a_table() {
    let mut world = World::new();
    let plain = world.spawn((TA(1), TB("b".into()))).id();
    let with_sa = world.spawn((TA(2), TB("c".into()), SA(3))).id();
    let with_both = world
        .spawn((TA(4), SB("d".into()), TB("e".into()), SA(5)))
        .id();
    let a0 = world.entity(plain).archetype();
    let a1 = world.entity(with_sa).archetype();
    let a2 = world.entity(with_both).archetype();
    assert_ne!(a0.id(), a1.id());
    assert_ne!(a1.id(), a2.id());
    assert_eq!(a0.table_id(), a1.table_id());
    assert_eq!(a1.table_id(), a2.table_id());
    let shared_table = a0.table_id();
    let table = &world.storages().tables[shared_table];
    assert_eq!(table.entity_count(), 3);
    assert_eq!(
        table.columns().len(),
        2,
        "only table components get columns"
    );

    // A sparse-only entity lives in the empty table.
    let sparse_only = world.spawn(SA(9)).id();
    let empty = world.spawn_empty().id();
    assert_eq!(
        world.entity(sparse_only).archetype().table_id(),
        world.entity(empty).archetype().table_id()
    );
    assert_ne!(
        world.entity(sparse_only).archetype().id(),
        world.entity(empty).archetype().id()
    );

    // Moving between archetypes of the same table keeps the table row.
    let row = world.entity(plain).location().table_row;
    world.entity_mut(plain).insert(SB("f".into()));
    let location = world.entity(plain).location();
    assert_eq!(location.table_row, row);
    assert_eq!(location.table_id, shared_table);
    assert_eq!(world.get::<TB>(plain), Some(&TB("b".into())));
    assert_eq!(world.get::<SB>(plain), Some(&SB("f".into())));
    check_invariants(&world);
}

// ---- resources ----------------------------------------------------------------------

#[derive(Resource, Debug, Default, PartialEq)]
struct Score(u32);

#[derive(Resource, Debug, PartialEq)]
struct Settings {
    name: String,
    volume: u8,
}

#[derive(Resource, Debug, Default, PartialEq)]
struct NeverInsertedResource(u8);

#[test]
fn resources_insert_replace_remove_init() {
    let mut world = World::new();
    assert!(!world.contains_resource::<Score>());
    assert_eq!(world.get_resource::<Score>(), None);
    assert!(world.get_resource_mut::<Score>().is_none());
    assert_eq!(world.remove_resource::<Score>(), None);

    world.insert_resource(Score(1));
    assert!(world.contains_resource::<Score>());
    assert_eq!(world.resource::<Score>(), &Score(1));

    world.insert_resource(Score(2));
    assert_eq!(world.resource::<Score>(), &Score(2), "insert replaces");

    world.resource_mut::<Score>().0 += 5;
    assert_eq!(world.get_resource::<Score>(), Some(&Score(7)));
    world.get_resource_mut::<Score>().unwrap().0 *= 2;
    assert_eq!(world.resource::<Score>(), &Score(14));

    // init does not overwrite.
    world.init_resource::<Score>();
    assert_eq!(world.resource::<Score>(), &Score(14));

    assert_eq!(world.remove_resource::<Score>(), Some(Score(14)));
    assert!(!world.contains_resource::<Score>());
    assert_eq!(world.remove_resource::<Score>(), None);

    // init inserts the default when absent.
    world.init_resource::<Score>();
    assert_eq!(world.resource::<Score>(), &Score(0));

    world.insert_resource(Settings {
        name: "a".repeat(100),
        volume: 3,
    });
    assert_eq!(world.resource::<Settings>().name.len(), 100);
    world.insert_resource(Settings {
        name: "quiet".into(),
        volume: 0,
    });
    assert_eq!(
        world.resource::<Settings>(),
        &Settings {
            name: "quiet".into(),
            volume: 0
        }
    );
    assert_eq!(
        world.resource::<Score>(),
        &Score(0),
        "resources are independent"
    );

    // Resources are not entities.
    assert_eq!(world.entity_count(), 0);
}

#[test]
fn resource_scope_gives_world_and_value_and_puts_it_back() {
    let mut world = World::new();
    world.insert_resource(Score(10));
    world.insert_resource(Settings {
        name: "s".into(),
        volume: 1,
    });
    let spawned = world.resource_scope(|world: &mut World, mut score: Mut<Score>| {
        assert!(
            !world.contains_resource::<Score>(),
            "the scoped resource is out"
        );
        assert_eq!(world.resource::<Settings>().volume, 1);
        world.resource_mut::<Settings>().volume = 9;
        score.0 += 1;
        world.spawn(TA(score.0)).id()
    });
    assert_eq!(world.resource::<Score>(), &Score(11));
    assert_eq!(world.resource::<Settings>().volume, 9);
    assert_eq!(world.get::<TA>(spawned), Some(&TA(11)));

    // A panicking closure: the value (with the change made before the
    // panic) is put back, and the panic goes on.
    let message = expect_panic(|| {
        world.resource_scope(|_world: &mut World, mut score: Mut<Score>| {
            score.0 = 99;
            panic!("inside the scope");
        })
    });
    assert!(message.contains("inside the scope"), "{message}");
    assert!(world.contains_resource::<Score>());
    assert_eq!(world.resource::<Score>(), &Score(99));

    // Scoping a missing resource panics naming it.
    let message =
        expect_panic(|| world.resource_scope(|_: &mut World, _: Mut<NeverInsertedResource>| ()));
    assert!(message.contains("NeverInsertedResource"), "{message}");
    assert_eq!(world.resource::<Score>(), &Score(99));
}

#[test]
fn missing_resource_panics_naming_it() {
    let mut world = World::new();
    world.insert_resource(Score(1));
    let message = expect_panic(|| world.resource::<NeverInsertedResource>().0);
    assert!(message.contains("NeverInsertedResource"), "{message}");
    let message = expect_panic(|| world.resource_mut::<NeverInsertedResource>().0);
    assert!(message.contains("NeverInsertedResource"), "{message}");
    world.remove_resource::<Score>();
    let message = expect_panic(|| world.resource::<Score>().0);
    assert!(message.contains("Score"), "{message}");
}

// ---- duplicate components in a bundle ------------------------------------------------

#[derive(Component, Debug, Clone, PartialEq)]
struct Twice(u32);

#[derive(Component, Debug, Clone, PartialEq)]
#[component(storage = "SparseSet")]
struct SparseTwice(u32);

#[derive(Bundle)]
struct TwiceBundle {
    first: Twice,
    rest: (TA, Twice),
}

#[derive(Bundle)]
struct SparseTwiceBundle(SparseTwice, TB, SparseTwice);

#[test]
fn bundle_naming_a_component_twice_panics_naming_it() {
    let mut world = World::new();
    let keep = world.spawn((TA(1), SA(2))).id();

    let message = expect_panic(|| world.spawn((Twice(1), Twice(2))).id());
    assert!(message.contains("Twice"), "{message}");
    let message = expect_panic(|| {
        world
            .spawn(TwiceBundle {
                first: Twice(1),
                rest: (TA(2), Twice(3)),
            })
            .id()
    });
    assert!(message.contains("Twice"), "{message}");
    let message = expect_panic(|| {
        world
            .spawn(SparseTwiceBundle(
                SparseTwice(1),
                TB("x".into()),
                SparseTwice(2),
            ))
            .id()
    });
    assert!(message.contains("SparseTwice"), "{message}");
    // Every use panics, not only the first.
    let message = expect_panic(|| world.spawn((Twice(1), Twice(2))).id());
    assert!(message.contains("Twice"), "{message}");
    let message = expect_panic(|| {
        world
            .spawn_batch(vec![(SparseTwice(1), SparseTwice(2))])
            .count()
    });
    assert!(message.contains("SparseTwice"), "{message}");

    // Insert, remove and take of such a bundle panic too, and leave the
    // entity as it was.
    let message = expect_panic(|| {
        world
            .entity_mut(keep)
            .insert((Twice(1), TB("y".into()), Twice(2)));
    });
    assert!(message.contains("Twice"), "{message}");
    let message = expect_panic(|| {
        world.entity_mut(keep).remove::<(TA, TA)>();
    });
    assert!(message.contains("TA"), "{message}");
    let message = expect_panic(|| world.entity_mut(keep).take::<(SA, SA)>());
    assert!(message.contains("SA"), "{message}");

    // The world is still usable, and nothing half-spawned is left behind.
    assert_eq!(world.entity_count(), 1);
    assert_eq!(world.get::<TA>(keep), Some(&TA(1)));
    assert_eq!(world.get::<SA>(keep), Some(&SA(2)));
    assert!(!world.entity(keep).contains::<Twice>());
    assert!(!world.entity(keep).contains::<TB>());
    check_invariants(&world);
    let e = world.spawn((Twice(5), SparseTwice(6), TA(7))).id();
    assert_eq!(world.get::<Twice>(e), Some(&Twice(5)));
    assert_eq!(world.get::<SparseTwice>(e), Some(&SparseTwice(6)));
    world.entity_mut(keep).insert(Twice(8)).remove::<TA>();
    assert_eq!(world.get::<Twice>(keep), Some(&Twice(8)));
    assert_eq!(world.get::<TA>(keep), None);
    assert_eq!(world.entity_count(), 2);
    check_invariants(&world);
}

// ---- Entity ----------------------------------------------------------------------------

#[test]
fn entity_layout_bits_and_debug() {
    assert_eq!(std::mem::size_of::<Entity>(), 8);
    assert_eq!(std::mem::size_of::<Option<Entity>>(), 8);

    let mut world = World::new();
    let a = world.spawn_empty().id();
    let b = world.spawn(TA(1)).id();
    assert_eq!((a.index(), a.generation()), (0, 1));
    assert_eq!((b.index(), b.generation()), (1, 1));
    assert_eq!(format!("{a:?}"), "0v1");
    assert_eq!(format!("{b:?}"), "1v1");
    world.despawn(a);
    world.despawn(b);
    let c = world.spawn_empty().id();
    let d = world.spawn_empty().id();
    for e in [c, d] {
        assert_eq!(e.generation(), 2);
        assert_eq!(format!("{e:?}"), format!("{}v2", e.index()));
    }

    for e in [a, b, c, d, Entity::PLACEHOLDER, Entity::from_raw(12)] {
        let bits = e.to_bits();
        assert_eq!(
            bits,
            (u64::from(e.generation()) << 32) | u64::from(e.index())
        );
        assert_eq!(Entity::from_bits(bits), e);
        assert_eq!(Entity::try_from_bits(bits), Some(e));
        assert_eq!(Entity::from_bits(bits).index(), e.index());
        assert_eq!(Entity::from_bits(bits).generation(), e.generation());
    }
    let e = Entity::from_bits((3 << 32) | 12);
    assert_eq!((e.index(), e.generation()), (12, 3));
    assert_eq!(format!("{e:?}"), "12v3");
    assert_eq!(Entity::try_from_bits(12), None, "generation 0 is invalid");
    assert!(catch_unwind(|| Entity::from_bits(12)).is_err());
    assert_ne!(
        Entity::from_bits((1 << 32) | 5),
        Entity::from_bits((2 << 32) | 5)
    );
    assert!(world.get_entity(e).is_err());
}

// ---- dynamic components --------------------------------------------------------------

#[derive(Component, Default, Debug, PartialEq)]
struct DescribedRequired(u8);

#[derive(Component, Debug)]
#[require(DescribedRequired)]
struct Described;

/// A Rust component registered through its descriptor is registered as
/// `register_component` would: same id either way, required components
/// included.
#[test]
fn a_typed_descriptor_registers_the_type_with_its_required_components() {
    let mut world = World::new();
    let id = world.register_component_with_descriptor(ComponentDescriptor::new::<Described>());
    assert_eq!(world.register_component::<Described>(), id);
    assert_eq!(
        world.register_component_with_descriptor(ComponentDescriptor::new::<Described>()),
        id
    );
    let e = world.spawn(Described).id();
    assert_eq!(
        world.get::<DescribedRequired>(e),
        Some(&DescribedRequired(0))
    );
}

fn dynamic_component_round_trip(storage: StorageType) {
    let mut world = World::new();
    // SAFETY: a plain u64 needs no drop and is Send + Sync.
    let descriptor = unsafe {
        ComponentDescriptor::new_with_layout("dynamic u64", storage, Layout::new::<u64>(), None)
    };
    let id = world.register_component_with_descriptor(descriptor);
    assert_eq!(
        world.components().get_info(id).map(|i| i.name()),
        Some("dynamic u64")
    );
    assert_eq!(
        world.components().get_info(id).map(|i| i.storage_type()),
        Some(storage)
    );

    let others: Vec<Entity> = (0..4u32)
        .map(|i| world.spawn((TA(i), SA(i))).id())
        .collect();
    let e = world.spawn((TA(100), SA(100))).id();
    for (i, &target) in others.iter().enumerate().chain([(99, &e)]) {
        OwningPtr::make(0xDEAD_BEEF_0000_0000u64 | i as u64, |value| {
            // SAFETY: `value` is a valid u64, the component's layout.
            unsafe {
                world.entity_mut(target).insert_by_id(id, value);
            }
        });
    }
    let read = |world: &World, target: Entity| -> Option<u64> {
        let ptr = world.entity(target).get_by_id(id).ok()?;
        // SAFETY: the component's values are u64s.
        Some(unsafe { *ptr.deref::<u64>() })
    };
    assert_eq!(read(&world, e), Some(0xDEAD_BEEF_0000_0063));
    assert!(world.entity(e).contains_id(id));
    assert!(world.entity(e).archetype().contains(id));
    let ptr = world.entity_mut(e).get_by_id(id).unwrap().as_ptr();
    assert_eq!(ptr as usize % std::mem::align_of::<u64>(), 0);
    for (i, &other) in others.iter().enumerate() {
        assert_eq!(read(&world, other), Some(0xDEAD_BEEF_0000_0000 | i as u64));
        assert_eq!(world.get::<TA>(other), Some(&TA(i as u32)));
    }
    assert_eq!(world.get::<TA>(e), Some(&TA(100)));
    assert_eq!(world.get::<SA>(e), Some(&SA(100)));

    // Replace by id.
    OwningPtr::make(7u64, |value| {
        // SAFETY: as above.
        unsafe {
            world.entity_mut(e).insert_by_id(id, value);
        }
    });
    assert_eq!(read(&world, e), Some(7));

    // Remove by id (twice: the second does nothing).
    world.entity_mut(e).remove_by_id(id);
    assert_eq!(read(&world, e), None);
    assert!(!world.entity(e).contains_id(id));
    world.entity_mut(e).remove_by_id(id);
    assert_eq!(read(&world, e), None);
    assert_eq!(world.get::<TA>(e), Some(&TA(100)));
    assert_eq!(world.get::<SA>(e), Some(&SA(100)));
    world.entity_mut(others[0]).remove_by_id(id);
    for (i, &other) in others.iter().enumerate().skip(1) {
        assert_eq!(read(&world, other), Some(0xDEAD_BEEF_0000_0000 | i as u64));
    }
    check_invariants(&world);
}

/// A dynamic layout whose size (3) is not a multiple of its alignment (64):
/// the world must read exactly `layout.size()` bytes from the value it is
/// given (here an allocation of exactly that layout, so that reading past
/// it is caught by Miri), and keep each stored value 64-aligned.
#[test]
fn dynamic_component_with_padded_layout() {
    let mut world = World::new();
    let layout = Layout::from_size_align(3, 64).unwrap();
    for storage in [StorageType::Table, StorageType::SparseSet] {
        // SAFETY: plain bytes, no drop.
        let descriptor = unsafe {
            ComponentDescriptor::new_with_layout(
                format!("bytes {storage:?}"),
                storage,
                layout,
                None,
            )
        };
        let id = world.register_component_with_descriptor(descriptor);
        let n = if cfg!(miri) { 5 } else { 50 };
        let es: Vec<Entity> = (0..n)
            .map(|i: u8| {
                let e = world.spawn(TA(u32::from(i))).id();
                // SAFETY: `layout` has a non-zero size; the allocation is
                // checked for null, fully initialised (3 bytes) before the
                // world reads it, and freed with the same layout. The world
                // copies the value out, so freeing it afterwards is right
                // (it has no drop function).
                unsafe {
                    let value = std::alloc::alloc(layout);
                    assert!(!value.is_null());
                    value.copy_from_nonoverlapping(
                        [i, i.wrapping_add(1), i.wrapping_add(2)].as_ptr(),
                        3,
                    );
                    let owned = OwningPtr::new(std::ptr::NonNull::new(value).unwrap());
                    world.entity_mut(e).insert_by_id(id, owned);
                    std::alloc::dealloc(value, layout);
                }
                e
            })
            .collect();
        for (i, &e) in es.iter().enumerate() {
            let i = i as u8;
            let ptr = world.entity(e).get_by_id(id).unwrap().as_ptr();
            assert_eq!(ptr as usize % 64, 0, "value is 64-aligned");
            // SAFETY: the value is 3 initialised bytes.
            let bytes = unsafe { std::slice::from_raw_parts(ptr, 3) };
            assert_eq!(bytes, [i, i.wrapping_add(1), i.wrapping_add(2)]);
            assert_eq!(world.get::<TA>(e), Some(&TA(u32::from(i))));
        }
        check_invariants(&world);
    }
}

#[test]
fn dynamic_component_by_id_table() {
    dynamic_component_round_trip(StorageType::Table);
}

#[test]
fn dynamic_component_by_id_sparse() {
    dynamic_component_round_trip(StorageType::SparseSet);
}

// ---- change ticks ----------------------------------------------------------------------

fn change_ticks<P: Val>() {
    let mut world = World::new();
    let e = world.spawn(P::new(1)).id();
    let other = world.spawn(P::new(2)).id();
    {
        let r = world.get_ref::<P>(e).unwrap();
        assert!(r.is_added());
        assert!(r.is_changed());
    }

    let tick = world.change_tick();
    world.clear_trackers();
    assert!(
        world.change_tick().get() > tick.get(),
        "clear_trackers advances the tick"
    );
    {
        let r = world.get_ref::<P>(e).unwrap();
        assert!(!r.is_added());
        assert!(!r.is_changed());
    }

    // Reading through a `Mut` does not mark it changed.
    {
        let m = world.get_mut::<P>(e).unwrap();
        assert_eq!(*m, P::new(1));
        assert!(!m.is_changed());
    }
    assert!(!world.get_ref::<P>(e).unwrap().is_changed());

    // Writing does.
    *world.get_mut::<P>(e).unwrap() = P::new(3);
    {
        let r = world.get_ref::<P>(e).unwrap();
        assert_eq!(*r, P::new(3));
        assert!(r.is_changed());
        assert!(!r.is_added());
        assert_eq!(r.last_changed(), world.change_tick());
    }
    assert!(
        !world.get_ref::<P>(other).unwrap().is_changed(),
        "only the written value"
    );

    // bypass_change_detection writes without marking.
    world.clear_trackers();
    *world.get_mut::<P>(e).unwrap().bypass_change_detection() = P::new(4);
    {
        let r = world.get_ref::<P>(e).unwrap();
        assert_eq!(*r, P::new(4));
        assert!(!r.is_changed());
        assert!(!r.is_added());
    }

    // Through the entity handle, too.
    world.clear_trackers();
    *world.entity_mut(e).get_mut::<P>().unwrap() = P::new(5);
    assert!(world.entity(e).get_ref::<P>().unwrap().is_changed());
    assert!(!world.entity(e).get_ref::<P>().unwrap().is_added());

    // Inserting over an existing value changes it but does not re-add it;
    // a move to another archetype keeps the ticks.
    world.clear_trackers();
    world.entity_mut(e).insert(P::new(6));
    assert!(world.get_ref::<P>(e).unwrap().is_changed());
    assert!(!world.get_ref::<P>(e).unwrap().is_added());
    world.clear_trackers();
    world.entity_mut(e).insert((NeverTable(0), NeverSparse(0)));
    assert!(
        !world.get_ref::<P>(e).unwrap().is_changed(),
        "a row move is not a change"
    );
    assert!(world.get_ref::<NeverTable>(e).unwrap().is_added());
    assert!(world.get_ref::<NeverSparse>(e).unwrap().is_added());
    assert_eq!(world.get::<P>(e), Some(&P::new(6)));

    // insert_if_new on an existing value neither changes nor re-adds it.
    world.clear_trackers();
    world.entity_mut(e).insert_if_new(P::new(7));
    assert!(!world.get_ref::<P>(e).unwrap().is_changed());
    assert_eq!(world.get::<P>(e), Some(&P::new(6)));
}

#[test]
fn change_ticks_table_and_sparse() {
    change_ticks::<TA>();
    change_ticks::<SB>();
}

#[test]
fn resource_change_ticks() {
    let mut world = World::new();
    world.insert_resource(Score(1));
    assert!(world.resource_ref::<Score>().is_added());
    world.clear_trackers();
    assert!(!world.resource_ref::<Score>().is_changed());
    world.resource_mut::<Score>().0 = 2;
    assert!(world.resource_ref::<Score>().is_changed());
    assert!(!world.resource_ref::<Score>().is_added());
    world.clear_trackers();
    world.resource_mut::<Score>().bypass_change_detection().0 = 3;
    assert!(!world.resource_ref::<Score>().is_changed());
    world.insert_resource(Score(4));
    assert!(
        world.resource_ref::<Score>().is_changed(),
        "replacing is a change"
    );
    assert!(!world.resource_ref::<Score>().is_added());
    assert_eq!(world.resource::<Score>(), &Score(4));
}

// ---- FromWorld ----------------------------------------------------------------------

/// A resource whose first value is read from another resource.
#[derive(Resource, Debug, PartialEq)]
struct Doubled(u32);

impl FromWorld for Doubled {
    fn from_world(world: &mut World) -> Self {
        world.resource_mut::<FromWorldCalls>().0 += 1;
        Doubled(world.resource::<Score>().0 * 2)
    }
}

/// How many times `Doubled::from_world` ran.
#[derive(Resource, Default)]
struct FromWorldCalls(u32);

#[test]
fn init_resource_builds_from_the_world_once() {
    let mut world = World::new();
    world.insert_resource(Score(21));
    world.init_resource::<FromWorldCalls>();
    let id = world.init_resource::<Doubled>();
    assert_eq!(world.resource::<Doubled>(), &Doubled(42));
    assert_eq!(world.resource::<FromWorldCalls>().0, 1);

    world.insert_resource(Score(1));
    assert_eq!(world.init_resource::<Doubled>(), id, "same id again");
    assert_eq!(world.resource::<Doubled>(), &Doubled(42), "kept as it was");
    assert_eq!(
        world.resource::<FromWorldCalls>().0,
        1,
        "from_world is not called when the resource exists"
    );

    world.remove_resource::<Doubled>();
    world.init_resource::<Doubled>();
    assert_eq!(world.resource::<Doubled>(), &Doubled(2));
    assert_eq!(world.resource::<FromWorldCalls>().0, 2);
}

#[test]
fn commands_init_resource_builds_from_the_world() {
    let mut world = World::new();
    world.insert_resource(Score(5));
    world.init_resource::<FromWorldCalls>();
    world
        .run_system_once(|mut commands: Commands| commands.init_resource::<Doubled>())
        .unwrap();
    assert_eq!(world.resource::<Doubled>(), &Doubled(10));
}

/// A `Local` whose first value is read from a resource when the system is
/// initialised.
struct Start(u32);

impl FromWorld for Start {
    fn from_world(world: &mut World) -> Self {
        Start(world.resource::<Score>().0)
    }
}

fn count_up(mut next: Local<Start>) -> u32 {
    next.0 += 1;
    next.0
}

#[test]
fn local_builds_from_the_world_at_initialisation() {
    let mut world = World::new();
    world.insert_resource(Score(10));
    let mut system = IntoSystem::into_system(count_up);
    system.initialize(&mut world);
    world.insert_resource(Score(100));
    assert_eq!(
        system.run((), &mut world).unwrap(),
        11,
        "read when initialised, not when run"
    );
    assert_eq!(system.run((), &mut world).unwrap(), 12, "kept between runs");
}

/// A resource whose construction panics.
#[derive(Resource)]
struct Exploding(u32);

impl FromWorld for Exploding {
    fn from_world(world: &mut World) -> Self {
        world.insert_resource(Score(3));
        panic!("exploding from_world")
    }
}

#[test]
fn a_panicking_from_world_inserts_nothing() {
    let mut world = World::new();
    world.spawn(TA(1));
    let message = expect_panic(|| world.init_resource::<Exploding>());
    assert!(message.contains("exploding from_world"), "{message}");
    assert!(!world.contains_resource::<Exploding>());
    assert!(world.get_resource::<Exploding>().is_none());
    assert_eq!(
        world.resource::<Score>(),
        &Score(3),
        "what from_world did before panicking stays"
    );
    // The world stays usable, and the resource can be inserted afterwards.
    let e = world.spawn(TA(2)).id();
    assert_eq!(world.get::<TA>(e), Some(&TA(2)));
    world.insert_resource(Exploding(7));
    assert_eq!(world.resource::<Exploding>().0, 7);
    check_invariants(&world);
}

// ---- Entity::from_raw_u32 -------------------------------------------------------------

#[test]
fn from_raw_u32_names_a_fresh_index_in_its_first_generation() {
    let mut world = World::new();
    let first = world.spawn(TA(1)).id();
    assert_eq!(Entity::from_raw_u32(first.index()), Some(first));
    world.despawn(first);
    let reused = world.spawn(TA(2)).id();
    if reused.index() == first.index() {
        assert_ne!(
            Entity::from_raw_u32(reused.index()),
            Some(reused),
            "a reused index has a later generation"
        );
    }
    assert_eq!(world.get::<TA>(first), None);
    assert_eq!(Entity::from_raw_u32(u32::MAX), None);
}

#[test]
fn resource_scope_keeps_the_resources_ticks_unless_it_changes_it() {
    #[derive(Resource)]
    struct Counter(u32);

    let mut world = World::new();
    world.insert_resource(Counter(0));
    let inserted = world.resource_ref::<Counter>().added();
    world.increment_change_tick();
    world.resource_scope(|_, _: Mut<Counter>| {});
    let counter = world.resource_ref::<Counter>();
    assert_eq!(counter.added(), inserted, "a scope is not an insert");
    assert_eq!(counter.last_changed(), inserted, "nor a change");

    world.increment_change_tick();
    let now = world.change_tick();
    world.resource_scope(|_, mut counter: Mut<Counter>| counter.0 += 1);
    let counter = world.resource_ref::<Counter>();
    assert_eq!(counter.added(), inserted);
    assert_eq!(
        counter.last_changed(),
        now,
        "a change through the Mut is kept"
    );
}
