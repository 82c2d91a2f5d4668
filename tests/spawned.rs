//! Spawn ticks: the `Spawned` filter, `SpawnDetails`, and `spawn_tick` on
//! entity handles, across every way an entity becomes live, tick
//! wrap-around, and snapshots.

mod common;

use common::integrity::integrity;
use ecs::change_detection::Tick;
use ecs::prelude::*;
use ecs::query::{SpawnDetails, Spawned};
use ecs::system::CommandQueue;

#[derive(Component, Clone, Debug, PartialEq, Hash)]
struct Unit(u32);

#[derive(Component)]
#[component(storage = "SparseSet")]
struct Flying;

#[derive(Resource, Default)]
struct Seen(Vec<u32>);

fn record_new(units: Query<&Unit, Spawned>, mut seen: ResMut<Seen>) {
    let mut new: Vec<u32> = units.iter().map(|u| u.0).collect();
    new.sort_unstable();
    seen.0 = new;
}

fn seen(world: &World) -> Vec<u32> {
    world.resource::<Seen>().0.clone()
}

#[test]
fn a_system_sees_each_entity_spawned_since_its_last_run_once() {
    let mut world = World::new();
    world.init_resource::<Seen>();
    let mut schedule = Schedule::default();
    schedule.add_systems(record_new);
    world.spawn(Unit(0));
    world.spawn_batch([Unit(1), Unit(2)]);
    schedule.run(&mut world);
    assert_eq!(seen(&world), [0, 1, 2]);
    schedule.run(&mut world);
    assert!(seen(&world).is_empty());

    // Commands (reserved, then flushed), an empty spawn filled later, a
    // spawn with a sparse-set component, and a reused index.
    let old = world.spawn(Unit(99)).id();
    schedule.run(&mut world);
    world.despawn(old);
    let mut queue = CommandQueue::default();
    Commands::new(&mut queue, &world).spawn(Unit(3));
    queue.apply(&mut world);
    let empty = world.spawn_empty().id();
    world.entity_mut(empty).insert(Unit(4));
    world.spawn((Unit(5), Flying));
    schedule.run(&mut world);
    assert_eq!(seen(&world), [3, 4, 5]);
    // Changing a value or archetype is no spawn.
    world.entity_mut(empty).insert(Flying);
    for mut unit in world.query::<&mut Unit>().iter_mut(&mut world) {
        unit.0 += 10;
    }
    schedule.run(&mut world);
    assert!(seen(&world).is_empty());
    integrity(&world);
}

#[test]
fn spawn_details_and_handles_agree_on_the_tick() {
    let mut world = World::new();
    let first = world.spawn(Unit(1)).id();
    let spawned_at = world.entity(first).spawn_tick();
    assert_eq!(spawned_at, world.change_tick());
    assert_eq!(
        world.entities().entity_get_spawn_tick(first),
        Some(spawned_at)
    );
    world.clear_trackers();
    let second = world.spawn((Unit(2), Flying)).id();
    let later = world.entity(second).spawn_tick();
    assert!(later.is_newer_than(spawned_at, world.change_tick()));

    let mut details = world.query::<(Entity, SpawnDetails)>();
    for (entity, details) in details.iter(&world) {
        assert_eq!(details.spawn_tick(), world.entity(entity).spawn_tick());
        assert_eq!(details.is_spawned(), entity == second, "{entity}");
        assert!(details.is_spawned_after(Tick::new(0)));
    }
    // The same through every handle.
    assert_eq!(world.entity_mut(second).spawn_tick(), later);
    assert_eq!(world.entity_mut(second).as_mutable().spawn_tick(), later);
    assert_eq!(world.entity(second).into_filtered().spawn_tick(), later);
    // A despawned entity has none.
    world.despawn(first);
    assert_eq!(world.entities().entity_get_spawn_tick(first), None);
}

#[test]
fn spawned_filters_dense_sparse_and_single_lookups_alike() {
    let mut world = World::new();
    let old: Vec<Entity> = (0..6)
        .map(|i| {
            let mut e = world.spawn(Unit(i));
            if i % 2 == 0 {
                e.insert(Flying);
            }
            e.id()
        })
        .collect();
    world.clear_trackers();
    let new = world.spawn((Unit(10), Flying)).id();
    let new_dense = world.spawn(Unit(11)).id();

    let mut dense = world.query_filtered::<Entity, (With<Unit>, Spawned)>();
    let mut got: Vec<Entity> = dense.iter(&world).collect();
    got.sort();
    let mut want = vec![new, new_dense];
    want.sort();
    assert_eq!(got, want);
    let mut sparse = world.query_filtered::<Entity, (With<Flying>, Spawned)>();
    assert_eq!(sparse.iter(&world).collect::<Vec<_>>(), [new]);
    let mut count = 0;
    sparse.iter(&world).for_each(|_| count += 1);
    assert_eq!(count, 1);
    assert!(dense.get(&world, new).is_ok());
    assert!(dense.get(&world, old[0]).is_err());
    assert!(dense.contains(new, &world, world.last_change_tick(), world.change_tick()));
}

#[test]
fn spawn_ticks_survive_tick_wrap_around() {
    let mut world = World::new();
    let old = world.spawn(Unit(0)).id();
    // Run the clock most of the way round; without the check, the old
    // spawn tick would look new again.
    let far = Tick::new(world.change_tick().get().wrapping_add(u32::MAX - 100));
    world.set_change_tick_for_test(far);
    world.check_change_ticks_now();
    world.clear_trackers();
    let new = world.spawn(Unit(1)).id();
    let mut spawned = world.query_filtered::<Entity, Spawned>();
    assert_eq!(spawned.iter(&world).collect::<Vec<_>>(), [new]);
    let details = world.query::<SpawnDetails>().get(&world, old).unwrap();
    assert!(!details.is_spawned());
}

#[test]
fn a_restored_snapshot_answers_spawned_as_it_did() {
    let mut world = World::new();
    world.register_snapshot_hashed::<Unit>();
    let old = world.spawn(Unit(0)).id();
    world.clear_trackers();
    let new = world.spawn(Unit(1)).id();
    let spawned = |world: &mut World| {
        let mut query = world.query_filtered::<Entity, Spawned>();
        let mut found: Vec<Entity> = query.iter(world).collect();
        found.sort();
        found
    };
    let details = |world: &mut World, e: Entity| {
        world
            .query::<SpawnDetails>()
            .get(world, e)
            .unwrap()
            .is_spawned()
    };
    assert_eq!(spawned(&mut world), [new]);
    let snapshot = world.snapshot();
    // Time passes, the entity is replaced at its index; then the restore.
    for _ in 0..5 {
        world.clear_trackers();
    }
    world.despawn(new);
    let replacement = world.spawn(Unit(7)).id();
    assert_eq!(replacement.index(), new.index());
    world.restore(&snapshot).unwrap();
    assert_eq!(spawned(&mut world), [new]);
    assert!(details(&mut world, new));
    assert!(!details(&mut world, old));
    integrity(&world);
}
