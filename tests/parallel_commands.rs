//! `ParallelCommands`: commands queued from `par_iter` on many threads,
//! applied at the system's sync point.

use std::collections::HashSet;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};

use ecs::prelude::*;

#[derive(Component)]
struct Value(u32);

/// The entities spawned from parallel commands in one test.
const SOURCES: u32 = if cfg!(miri) { 150 } else { 3000 };

#[derive(Component, Debug, PartialEq)]
struct Doubled(u32);

#[derive(Component)]
struct SpawnedFrom(Entity);

#[test]
fn commands_from_par_iter_are_applied_at_the_sync_point() {
    fn double(query: Query<(Entity, &Value)>, par_commands: ParallelCommands) {
        query.par_iter().for_each(|(entity, value)| {
            par_commands.command_scope(|mut commands| {
                commands.entity(entity).insert(Doubled(value.0 * 2));
            });
        });
    }
    fn check(
        query: Query<(&Value, &Doubled)>,
        missing: Query<(), (With<Value>, Without<Doubled>)>,
    ) {
        assert_eq!(missing.iter().count(), 0);
        for (value, doubled) in &query {
            assert_eq!(doubled.0, value.0 * 2);
        }
    }
    let mut world = World::new();
    let n = if cfg!(miri) { 200 } else { 5000 };
    world.spawn_batch((0..n).map(Value));
    let mut schedule = Schedule::default();
    schedule.add_systems((double, check.after(double)));
    schedule.run(&mut world);
    assert_eq!(world.query::<&Doubled>().iter(&world).count(), n as usize);
}

#[test]
fn spawns_from_many_threads_get_distinct_entities() {
    fn spawn(mut query: Query<(Entity, &mut Value)>, par_commands: ParallelCommands) {
        query.par_iter_mut().for_each(|(entity, mut value)| {
            value.0 += 1;
            par_commands.command_scope(|mut commands| {
                commands.spawn(SpawnedFrom(entity));
            });
        });
    }
    let mut world = World::new();
    let sources: HashSet<Entity> = world.spawn_batch((0..SOURCES).map(Value)).collect();
    world.run_system_once(spawn).unwrap();
    let mut spawned = world.query::<(Entity, &SpawnedFrom)>();
    let (ids, from): (HashSet<Entity>, HashSet<Entity>) =
        spawned.iter(&world).map(|(e, s)| (e, s.0)).unzip();
    assert_eq!(ids.len(), SOURCES as usize);
    assert_eq!(from, sources);
    assert!(ids.is_disjoint(&sources));
    assert!(world.query::<&Value>().iter(&world).all(|v| v.0 >= 1));
}

#[test]
fn works_beside_commands_and_applies_once() {
    fn both(
        query: Query<Entity, With<Value>>,
        mut commands: Commands,
        par_commands: ParallelCommands,
    ) {
        commands.spawn(Value(100));
        query.par_iter().for_each(|entity| {
            par_commands.command_scope(|mut commands| {
                commands.entity(entity).insert(Doubled(0));
            });
        });
    }
    let mut world = World::new();
    world.spawn_batch((0..10).map(Value));
    let mut schedule = Schedule::default();
    schedule.add_systems(both);
    schedule.run(&mut world);
    assert_eq!(world.query::<&Value>().iter(&world).count(), 11);
    assert_eq!(world.query::<&Doubled>().iter(&world).count(), 10);
    // The queues were emptied: a second run queues afresh.
    schedule.run(&mut world);
    assert_eq!(world.query::<&Value>().iter(&world).count(), 12);
    assert_eq!(world.query::<&Doubled>().iter(&world).count(), 11);
}

#[test]
fn a_panic_inside_a_scope_keeps_every_value_dropped_once() {
    static CREATED: AtomicUsize = AtomicUsize::new(0);
    static DROPPED: AtomicUsize = AtomicUsize::new(0);
    #[derive(Component)]
    struct Counted;
    impl Counted {
        fn new() -> Self {
            CREATED.fetch_add(1, Ordering::SeqCst);
            Counted
        }
    }
    impl Drop for Counted {
        fn drop(&mut self) {
            DROPPED.fetch_add(1, Ordering::SeqCst);
        }
    }
    fn explode(query: Query<(Entity, &Value)>, par_commands: ParallelCommands) {
        query.par_iter().for_each(|(entity, value)| {
            par_commands.command_scope(|mut commands| {
                commands.entity(entity).insert(Counted::new());
                if value.0 == 7 {
                    panic!("value 7");
                }
            });
        });
    }
    {
        let mut world = World::new();
        world.spawn_batch((0..200).map(Value));
        let mut schedule = Schedule::default();
        schedule.add_systems(explode);
        assert!(catch_unwind(AssertUnwindSafe(|| schedule.run(&mut world))).is_err());
        // The world is still usable.
        assert_eq!(world.query::<&Value>().iter(&world).count(), 200);
        world.spawn(Value(1000));
        drop(schedule);
        drop(world);
    }
    assert!(CREATED.load(Ordering::SeqCst) >= 1);
    assert_eq!(
        CREATED.load(Ordering::SeqCst),
        DROPPED.load(Ordering::SeqCst)
    );
}
