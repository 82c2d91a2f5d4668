//! Snapshots of `Copy` components, whose values are copied bitwise a whole
//! column at a time and restored straight into the world.

mod common;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use common::integrity::integrity;
use ecs::change_detection::Tick;
use ecs::component::SnapshotBehavior;
use ecs::prelude::*;

#[derive(Component, Clone, Copy, Debug, PartialEq, Hash)]
struct Pos(i64, i64);

#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(storage = "SparseSet")]
struct Stunned(u32);

#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[repr(align(64))]
struct Wide([u8; 3]);

/// A value with its added and changed ticks.
type Ticked<T> = Option<(T, Tick, Tick)>;

/// A live entity: id, archetype index, and each value with its ticks.
type Row = (Entity, usize, Ticked<Pos>, Ticked<Stunned>, Ticked<Wide>);

fn ticked<T: Component + Copy>(world: &World, entity: Entity) -> Ticked<T> {
    world
        .get_ref::<T>(entity)
        .map(|r| (*r, r.added(), r.last_changed()))
}

fn contents(world: &mut World) -> Vec<Row> {
    let mut ids: Vec<Entity> = world.query::<Entity>().iter(world).collect();
    ids.sort();
    ids.into_iter()
        .map(|e| {
            let archetype = world.entity(e).location().archetype_id.index();
            (
                e,
                archetype,
                ticked::<Pos>(world, e),
                ticked::<Stunned>(world, e),
                ticked::<Wide>(world, e),
            )
        })
        .collect()
}

/// Moves each tick of `rows` on by `delta`, as a restore does.
fn shifted(rows: &[Row], delta: u32) -> Vec<Row> {
    fn shift<T: Copy>(v: Ticked<T>, delta: u32) -> Ticked<T> {
        v.map(|(v, a, c)| {
            let by = |t: Tick| Tick::new(t.get().wrapping_add(delta));
            (v, by(a), by(c))
        })
    }
    rows.iter()
        .map(|&(e, a, p, s, w)| (e, a, shift(p, delta), shift(s, delta), shift(w, delta)))
        .collect()
}

/// Builds a world of several archetypes, snapshots it, changes everything
/// and restores; returns the world's contents then and after the restore,
/// and the ticks elapsed.
fn round_trip(copied: bool) -> (Vec<Row>, Vec<Row>, u32) {
    let mut world = World::new();
    if copied {
        world.register_snapshot_copy_hashed::<Pos>();
        world.register_snapshot_copy::<Stunned>();
        world.register_snapshot_copy::<Wide>();
    } else {
        world.register_snapshot_hashed::<Pos>();
        world.register_snapshot::<Stunned>();
        world.register_snapshot::<Wide>();
    }
    let n = if cfg!(miri) { 12 } else { 60 };
    let mut entities = Vec::new();
    for i in 0..n {
        world.increment_change_tick();
        let mut e = world.spawn(Pos(i, -i));
        if i % 2 == 0 {
            e.insert(Stunned(i as u32));
        }
        if i % 3 == 0 {
            e.insert(Wide([i as u8; 3]));
        }
        entities.push(e.id());
    }
    world.despawn(entities[5]);
    world.increment_change_tick();
    world.get_mut::<Pos>(entities[1]).unwrap().0 = 77;
    let before = contents(&mut world);
    let checksum = world.checksum();
    let snapshot = world.snapshot();
    let at = world.change_tick().get();

    for _ in 0..10 {
        world.increment_change_tick();
    }
    world.get_mut::<Pos>(entities[0]).unwrap().1 = 999;
    world.get_mut::<Stunned>(entities[2]).unwrap().0 = 999;
    world.despawn(entities[3]);
    world
        .entity_mut(entities[4])
        .insert(Wide([1; 3]))
        .remove::<Pos>();
    for i in 0..5 {
        world.spawn((Pos(i, i), Stunned(9), Wide([9; 3])));
    }
    let delta = world.change_tick().get() - at;
    world.restore(&snapshot).unwrap();
    integrity(&world);
    assert_eq!(world.checksum(), checksum);
    let after = contents(&mut world);
    (before, after, delta)
}

#[test]
fn copied_columns_restore_ids_archetypes_values_and_ticks_exactly() {
    let (before, after, delta) = round_trip(true);
    assert!(delta >= 10);
    assert_eq!(after, shifted(&before, delta));
    // The bitwise path restores exactly what the cloning path restores.
    let (cloned_before, cloned_after, cloned_delta) = round_trip(false);
    assert_eq!((cloned_before, cloned_after), (before, after));
    assert_eq!(cloned_delta, delta);
}

#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(snapshot)]
struct DerivedCopy(u8);

#[derive(Component, Clone, Copy, Debug, PartialEq, Hash)]
#[component(snapshot = hash)]
struct DerivedCopyHashed(u8);

#[derive(Component, Clone, Debug, PartialEq)]
#[component(snapshot)]
struct DerivedClone(Vec<u8>);

#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(snapshot)]
struct Generic<T: Clone + Send + Sync + 'static>(T);

#[derive(Resource, Clone, Copy, Debug, PartialEq)]
#[resource(snapshot)]
struct DerivedResource(u8);

#[test]
fn the_derive_copies_bitwise_exactly_the_copy_types() {
    let copy = <DerivedCopy as Component>::snapshot_behavior();
    assert!(copy.is_copied() && !copy.is_hashed());
    let hashed = <DerivedCopyHashed as Component>::snapshot_behavior();
    assert!(hashed.is_copied() && hashed.is_hashed());
    let clone = <DerivedClone as Component>::snapshot_behavior();
    assert!(clone.is_snapshotted() && !clone.is_copied());
    // In an impl generic over a `T` not bound by `Copy`, the type's `Copy`
    // is not known there: it is cloned, whatever `T` is later.
    let generic = <Generic<u8> as Component>::snapshot_behavior();
    assert!(generic.is_snapshotted() && !generic.is_copied());
    assert!(<DerivedResource as Resource>::snapshot_behavior().is_copied());
    assert!(!SnapshotBehavior::cloned::<u8>().is_copied());

    let mut world = World::new();
    let e = world
        .spawn((DerivedCopy(1), DerivedCopyHashed(2), Generic(3u8)))
        .id();
    world.insert_resource(DerivedResource(4));
    let snapshot = world.snapshot();
    world
        .entity_mut(e)
        .insert((DerivedCopy(10), DerivedCopyHashed(20), Generic(30u8)));
    world.insert_resource(DerivedResource(40));
    world.restore(&snapshot).unwrap();
    integrity(&world);
    assert_eq!(world.get::<DerivedCopy>(e), Some(&DerivedCopy(1)));
    assert_eq!(
        world.get::<DerivedCopyHashed>(e),
        Some(&DerivedCopyHashed(2))
    );
    assert_eq!(world.get::<Generic<u8>>(e), Some(&Generic(3)));
    assert_eq!(world.resource::<DerivedResource>(), &DerivedResource(4));
}

/// `Copy`, with a `Clone` that always panics: the bitwise path never
/// calls it.
#[derive(Component, Copy, Debug, PartialEq)]
struct NeverCloned(u32);

// A deliberately non-canonical `Clone`, to show the bitwise path skips it.
#[allow(clippy::non_canonical_clone_impl)]
impl Clone for NeverCloned {
    fn clone(&self) -> Self {
        panic!("clone of NeverCloned({})", self.0)
    }
}

#[test]
fn a_copy_type_is_copied_without_its_clone() {
    let mut world = World::new();
    world.register_snapshot_copy::<NeverCloned>();
    let e = world.spawn(NeverCloned(1)).id();
    let snapshot = world.snapshot();
    world.get_mut::<NeverCloned>(e).unwrap().0 = 2;
    world.restore(&snapshot).unwrap();
    world.restore(&snapshot).unwrap();
    integrity(&world);
    assert_eq!(world.get::<NeverCloned>(e), Some(&NeverCloned(1)));
}

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PANIC_ON_CLONE: AtomicBool = AtomicBool::new(false);

/// Not `Copy`, counted, with a `Clone` that panics on request.
#[derive(Component, Debug, PartialEq)]
struct Counted(u32);

impl Counted {
    fn new(v: u32) -> Counted {
        LIVE.fetch_add(1, Ordering::SeqCst);
        Counted(v)
    }
}

impl Clone for Counted {
    fn clone(&self) -> Self {
        if PANIC_ON_CLONE.load(Ordering::SeqCst) && self.0 == 3 {
            panic!("clone of Counted(3)");
        }
        Counted::new(self.0)
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        LIVE.fetch_sub(1, Ordering::SeqCst);
    }
}

#[test]
fn a_panicking_clone_beside_copied_columns_changes_nothing() {
    {
        let mut world = World::new();
        world.register_snapshot_copy::<Pos>();
        world.register_snapshot_copy::<Stunned>();
        world.register_snapshot::<Counted>();
        let entities: Vec<Entity> = (0..6)
            .map(|i| {
                let mut e = world.spawn((Pos(i, i), Stunned(i as u32)));
                // Counted(3) sits in the second table.
                if i >= 2 {
                    e.insert(Counted::new(i as u32));
                }
                e.id()
            })
            .collect();
        let snapshot = world.snapshot();
        world.get_mut::<Pos>(entities[0]).unwrap().0 = 100;
        world.get_mut::<Stunned>(entities[4]).unwrap().0 = 100;
        world.despawn(entities[5]);
        let before = (
            world.get::<Pos>(entities[0]).copied(),
            world.get::<Stunned>(entities[4]).copied(),
            LIVE.load(Ordering::SeqCst),
        );

        PANIC_ON_CLONE.store(true, Ordering::SeqCst);
        let panicked = catch_unwind(AssertUnwindSafe(|| world.restore(&snapshot)));
        PANIC_ON_CLONE.store(false, Ordering::SeqCst);
        assert!(panicked.is_err());
        integrity(&world);
        assert!(world.get_entity(entities[5]).is_err());
        let after = (
            world.get::<Pos>(entities[0]).copied(),
            world.get::<Stunned>(entities[4]).copied(),
            LIVE.load(Ordering::SeqCst),
        );
        assert_eq!(after, before);

        world.restore(&snapshot).unwrap();
        integrity(&world);
        assert_eq!(world.get::<Pos>(entities[0]), Some(&Pos(0, 0)));
        assert_eq!(world.get::<Stunned>(entities[4]), Some(&Stunned(4)));
        assert_eq!(world.get::<Counted>(entities[5]).map(|c| c.0), Some(5));
    }
    assert_eq!(LIVE.load(Ordering::SeqCst), 0);
}
