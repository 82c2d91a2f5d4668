//! Panic safety: a `Drop` that panics during remove, despawn,
//! insert-over-existing (and a rejected `insert_if_new`), `clear_entities`
//! and the world's own drop; an input iterator that panics half way
//! through `spawn_batch`; a system that panics in the multi-threaded
//! schedule; a closure that panics inside `par_iter_mut`; a command that
//! panics while a queue applies, or when it is dropped unapplied.
//!
//! After each caught panic: `check_integrity()` is Ok, every entity holds
//! exactly the values expected, every value was dropped at most once (and
//! exactly once by the time the world is gone), and the world stays
//! usable (spawn, insert, remove, query after the panic).
//!
//! Tests that start rayon threads are named `parallel_*`, so a Miri pass
//! under Stacked Borrows can `--skip parallel_` (crossbeam-epoch, which
//! rayon uses, does not pass Stacked Borrows); the rest run under both
//! Stacked and Tree Borrows.

mod common;

use std::panic::{catch_unwind, AssertUnwindSafe};

use common::drop_log::{DropLog, Payload};
use common::integrity::integrity;
use common::panics::expect_panic;
use ecs::prelude::*;
use ecs::system::CommandQueue;

// ---- components -------------------------------------------------------------------------

/// Table component that may panic on drop.
#[derive(Component)]
struct Bomb(Payload);

/// Sparse-set component that may panic on drop.
#[derive(Component)]
#[component(storage = "SparseSet")]
struct SBomb(Payload);

/// Table component, drop-counted, never armed here.
#[derive(Component)]
struct Keep(Payload);

/// Sparse-set component, drop-counted, never armed here.
#[derive(Component)]
#[component(storage = "SparseSet")]
struct SKeep(Payload);

#[derive(Component, Debug, Clone, Copy, PartialEq)]
struct Pos(u32);

#[derive(Component, Debug, Clone, Copy, PartialEq)]
#[component(storage = "SparseSet")]
struct Tag(u32);

#[derive(Resource)]
struct ResBomb(#[allow(dead_code)] Payload);

// ---- helpers ----------------------------------------------------------------------------

fn keep_id(world: &World, e: Entity) -> Option<u32> {
    world.get::<Keep>(e).map(|k| k.0.id)
}

fn skeep_id(world: &World, e: Entity) -> Option<u32> {
    world.get::<SKeep>(e).map(|k| k.0.id)
}

/// The world still works: structural changes, queries and the values of
/// untouched entities.
#[track_caller]
fn assert_usable(world: &mut World, log: &DropLog) {
    let e = world
        .spawn((Pos(1), Keep(Payload::new(9_000, log)), Tag(2)))
        .id();
    world.entity_mut(e).insert(SKeep(Payload::new(9_001, log)));
    world.entity_mut(e).remove::<Tag>();
    assert_eq!(world.get::<Pos>(e), Some(&Pos(1)));
    assert_eq!(keep_id(world, e), Some(9_000));
    assert_eq!(skeep_id(world, e), Some(9_001));
    let mut q = world.query::<(Entity, &Pos, &Keep)>();
    assert!(q
        .iter(world)
        .any(|(x, p, k)| x == e && *p == Pos(1) && k.0.id == 9_000));
    integrity(world);
    assert!(world.despawn(e));
    log.assert_dropped_once(&[9_000, 9_001]);
    integrity(world);
}

/// The world still works; once it is dropped, every value of `ids` has
/// been dropped exactly once.
#[track_caller]
fn assert_usable_then_drop(mut world: World, log: &DropLog, ids: &[u32]) {
    assert_usable(&mut world, log);
    drop(world);
    log.assert_dropped_once(ids);
}

/// Three bystanders around the victim, so that swap-removes move rows.
fn bystanders(world: &mut World, log: &DropLog, first_id: u32) -> Vec<Entity> {
    (0..3)
        .map(|i| {
            world
                .spawn((
                    Pos(first_id + i),
                    Keep(Payload::new(first_id + i, log)),
                    SKeep(Payload::new(first_id + 100 + i, log)),
                ))
                .id()
        })
        .collect()
}

/// Spawns `victim` between two groups of bystanders (ids from 10, then
/// from 20), so that taking it apart moves rows on both sides.
fn spawn_between_bystanders(
    world: &mut World,
    log: &DropLog,
    victim: impl Bundle,
) -> (Vec<Entity>, Entity, Vec<Entity>) {
    let before = bystanders(world, log, 10);
    let e = world.spawn(victim).id();
    let after = bystanders(world, log, 20);
    (before, e, after)
}

/// The bystanders of [`spawn_between_bystanders`] still hold their values.
#[track_caller]
fn assert_bystanders_around(world: &World, before: &[Entity], after: &[Entity]) {
    assert_bystanders(world, before, 10);
    assert_bystanders(world, after, 20);
}

#[track_caller]
fn assert_bystanders(world: &World, es: &[Entity], first_id: u32) {
    for (i, &e) in es.iter().enumerate() {
        let i = i as u32;
        assert_eq!(world.get::<Pos>(e), Some(&Pos(first_id + i)), "{e:?}");
        assert_eq!(keep_id(world, e), Some(first_id + i), "{e:?}");
        assert_eq!(skeep_id(world, e), Some(first_id + 100 + i), "{e:?}");
    }
}

// ---- remove --------------------------------------------------------------------------------

#[test]
fn panicking_drop_during_remove_of_a_table_component() {
    let log = DropLog::default();
    let mut world = World::new();
    let (before, e, after) = spawn_between_bystanders(
        &mut world,
        &log,
        (
            Pos(7),
            Bomb(Payload::armed(1, &log)),
            Keep(Payload::new(2, &log)),
            SKeep(Payload::new(3, &log)),
        ),
    );

    let msg = expect_panic(|| {
        world.entity_mut(e).remove::<Bomb>();
    });
    assert!(msg.contains("bomb 1 exploded"), "{msg}");
    integrity(&world);
    log.assert_dropped_once(&[1]);
    log.assert_not_dropped(&[2, 3]);
    // The removal completed before the panic propagated.
    assert!(!world.entity(e).contains::<Bomb>());
    assert_eq!(world.get::<Pos>(e), Some(&Pos(7)));
    assert_eq!(keep_id(&world, e), Some(2));
    assert_eq!(skeep_id(&world, e), Some(3));
    assert_bystanders_around(&world, &before, &after);
    assert_eq!(world.entity_count(), 7);
    assert_usable_then_drop(
        world,
        &log,
        &[
            1, 2, 3, 10, 11, 12, 110, 111, 112, 20, 21, 22, 120, 121, 122,
        ],
    );
}

#[test]
fn panicking_drops_during_remove_of_a_mixed_bundle() {
    let log = DropLog::default();
    let mut world = World::new();
    let before = bystanders(&mut world, &log, 10);
    let e = world
        .spawn((
            Pos(7),
            Bomb(Payload::armed(1, &log)),
            SBomb(Payload::armed(2, &log)),
            Keep(Payload::new(3, &log)),
        ))
        .id();
    let msg = expect_panic(|| {
        world.entity_mut(e).remove::<(Bomb, SBomb, Tag)>();
    });
    // Both values were dropped; one panic propagates.
    assert!(msg.contains("exploded"), "{msg}");
    integrity(&world);
    log.assert_dropped_once(&[1, 2]);
    log.assert_not_dropped(&[3]);
    let er = world.entity(e);
    assert!(!er.contains::<Bomb>() && !er.contains::<SBomb>());
    assert_eq!(world.get::<Pos>(e), Some(&Pos(7)));
    assert_eq!(keep_id(&world, e), Some(3));
    assert_bystanders(&world, &before, 10);
    assert_usable_then_drop(world, &log, &[1, 2, 3, 10, 11, 12, 110, 111, 112]);
}

// ---- despawn -------------------------------------------------------------------------------

#[test]
fn panicking_drops_during_despawn() {
    for through_handle in [false, true] {
        let log = DropLog::default();
        let mut world = World::new();
        let (before, e, after) = spawn_between_bystanders(
            &mut world,
            &log,
            (
                Pos(7),
                Bomb(Payload::armed(1, &log)),
                SBomb(Payload::armed(2, &log)),
                Keep(Payload::new(3, &log)),
                SKeep(Payload::new(4, &log)),
            ),
        );
        let msg = expect_panic(|| {
            if through_handle {
                world.entity_mut(e).despawn();
            } else {
                world.despawn(e);
            }
        });
        assert!(msg.contains("exploded"), "{msg}");
        integrity(&world);
        // Every value of the entity was dropped once, the armed ones
        // included; the entity is gone and its handle is stale.
        log.assert_dropped_once(&[1, 2, 3, 4]);
        assert!(!world.contains_entity(e));
        assert!(world.get_entity(e).is_err());
        assert!(!world.despawn(e), "a second despawn must be refused");
        assert_eq!(world.entity_count(), 6);
        assert_bystanders_around(&world, &before, &after);
        assert_usable_then_drop(world, &log, &[1, 2, 3, 4]);
        log.assert_dropped_once(&[10, 11, 12, 110, 111, 112, 20, 21, 22, 120, 121, 122]);
    }
}

// ---- insert over existing ----------------------------------------------------------------

#[test]
fn panicking_drop_of_a_replaced_value_during_insert() {
    let log = DropLog::default();
    let mut world = World::new();
    let before = bystanders(&mut world, &log, 10);
    let e = world
        .spawn((
            Pos(7),
            Bomb(Payload::armed(1, &log)),
            SBomb(Payload::armed(2, &log)),
        ))
        .id();
    // Replace both bombs and add two new components in one insert: the
    // entity moves to a new archetype while the old values' drops panic.
    let msg = expect_panic(|| {
        world.entity_mut(e).insert((
            Bomb(Payload::new(3, &log)),
            SBomb(Payload::new(4, &log)),
            Keep(Payload::new(5, &log)),
            Tag(6),
        ));
    });
    assert!(msg.contains("exploded"), "{msg}");
    integrity(&world);
    log.assert_dropped_once(&[1, 2]);
    log.assert_not_dropped(&[3, 4, 5]);
    assert_eq!(world.get::<Bomb>(e).map(|b| b.0.id), Some(3));
    assert_eq!(world.get::<SBomb>(e).map(|b| b.0.id), Some(4));
    assert_eq!(keep_id(&world, e), Some(5));
    assert_eq!(world.get::<Tag>(e), Some(&Tag(6)));
    assert_eq!(world.get::<Pos>(e), Some(&Pos(7)));
    assert_bystanders(&world, &before, 10);
    assert_usable_then_drop(world, &log, &[1, 2, 3, 4, 5, 10, 11, 12, 110, 111, 112]);
}

#[test]
fn panicking_drop_of_a_rejected_value_during_insert_if_new() {
    let log = DropLog::default();
    let mut world = World::new();
    let e = world
        .spawn((Bomb(Payload::new(1, &log)), SKeep(Payload::new(2, &log))))
        .id();
    let msg = expect_panic(|| {
        world.entity_mut(e).insert_if_new((
            Bomb(Payload::armed(3, &log)),
            SKeep(Payload::new(4, &log)),
            Keep(Payload::new(5, &log)),
        ));
    });
    assert!(msg.contains("bomb 3 exploded"), "{msg}");
    integrity(&world);
    // The old values stay, the rejected new ones were dropped once, the
    // new component was added.
    log.assert_dropped_once(&[3, 4]);
    log.assert_not_dropped(&[1, 2, 5]);
    assert_eq!(world.get::<Bomb>(e).map(|b| b.0.id), Some(1));
    assert_eq!(skeep_id(&world, e), Some(2));
    assert_eq!(keep_id(&world, e), Some(5));
    assert_usable_then_drop(world, &log, &[1, 2, 3, 4, 5]);
}

// ---- clear_entities and world drop ---------------------------------------------------------

#[test]
fn panicking_drops_during_clear_entities() {
    let log = DropLog::default();
    let mut world = World::new();
    let mut ids = Vec::new();
    let mut entities = Vec::new();
    for i in 0..20u32 {
        let id = 100 + 10 * i;
        let e = match i % 4 {
            0 => world.spawn((Bomb(Payload::armed(id, &log)), Pos(i))),
            1 => world.spawn((
                SBomb(Payload::armed(id, &log)),
                Keep(Payload::new(id + 1, &log)),
            )),
            2 => world.spawn((
                Keep(Payload::new(id, &log)),
                SKeep(Payload::new(id + 1, &log)),
            )),
            _ => world.spawn((Tag(i), SKeep(Payload::new(id, &log)))),
        };
        entities.push(e.id());
        ids.push(id);
        if i % 4 == 1 || i % 4 == 2 {
            ids.push(id + 1);
        }
    }
    let msg = expect_panic(|| world.clear_entities());
    assert!(msg.contains("exploded"), "{msg}");
    integrity(&world);
    log.assert_dropped_once(&ids);
    assert_eq!(world.entity_count(), 0);
    for &e in &entities {
        assert!(!world.contains_entity(e), "{e:?} survived clear_entities");
    }
    let mut q = world.query::<Entity>();
    assert_eq!(q.iter(&world).count(), 0);
    assert_usable(&mut world, &log);
    // The old archetypes are reused.
    let e = world.spawn((Bomb(Payload::new(1, &log)), Pos(3))).id();
    assert_eq!(world.get::<Pos>(e), Some(&Pos(3)));
    integrity(&world);
    drop(world);
    log.assert_dropped_once(&[1]);
    log.assert_dropped_once(&ids);
}

#[test]
fn panicking_drops_during_world_drop() {
    let log = DropLog::default();
    let mut world = World::new();
    let mut ids = Vec::new();
    for i in 0..12u32 {
        let id = 100 + 10 * i;
        match i % 3 {
            0 => world.spawn((
                Bomb(Payload::armed(id, &log)),
                SKeep(Payload::new(id + 1, &log)),
            )),
            1 => world.spawn((
                SBomb(Payload::armed(id, &log)),
                Keep(Payload::new(id + 1, &log)),
            )),
            _ => world.spawn((
                Keep(Payload::new(id, &log)),
                SKeep(Payload::new(id + 1, &log)),
            )),
        };
        ids.extend([id, id + 1]);
    }
    world.insert_resource(ResBomb(Payload::armed(7, &log)));
    ids.push(7);
    let msg = expect_panic(move || drop(world));
    assert!(msg.contains("exploded"), "{msg}");
    // Every component and the resource dropped exactly once, despite the
    // panics: nothing leaked, nothing dropped twice.
    log.assert_dropped_once(&ids);
    assert_eq!(log.count(), ids.len());
}

// ---- spawn_batch with a panicking iterator ---------------------------------------------------

/// Yields `(Pos, Keep, SKeep)` bundles and panics at item `panic_at`. Its
/// lower size bound claims `hint` items.
struct Faulty {
    next: u32,
    panic_at: u32,
    hint: usize,
    log: DropLog,
}

impl Iterator for Faulty {
    type Item = (Pos, Keep, SKeep);

    fn next(&mut self) -> Option<Self::Item> {
        let i = self.next;
        if i == self.panic_at {
            panic!("input iterator failed at item {i}");
        }
        self.next += 1;
        Some((
            Pos(i),
            Keep(Payload::new(1_000 + i, &self.log)),
            SKeep(Payload::new(2_000 + i, &self.log)),
        ))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.hint, None)
    }
}

#[test]
fn an_iterator_panicking_half_way_through_spawn_batch() {
    // read: the ids are collected; unread: the returned iterator is
    // dropped, which spawns the rest (and meets the panic in its `Drop`).
    for read in [true, false] {
        for hint in [0, 10, 1_000] {
            let log = DropLog::default();
            let mut world = World::new();
            let before = bystanders(&mut world, &log, 10);
            let msg = expect_panic(|| {
                let it = world.spawn_batch(Faulty {
                    next: 0,
                    panic_at: 5,
                    hint,
                    log: log.clone(),
                });
                if read {
                    let _ids: Vec<Entity> = it.collect();
                } else {
                    drop(it);
                }
            });
            assert!(msg.contains("input iterator failed at item 5"), "{msg}");
            integrity(&world);
            // The five bundles produced before the panic are complete
            // entities; nothing was dropped.
            assert_eq!(world.entity_count(), 3 + 5, "read={read} hint={hint}");
            let mut q = world.query::<(&Pos, &Keep, &SKeep)>();
            let mut seen: Vec<(u32, u32, u32)> = q
                .iter(&world)
                .map(|(p, k, s)| (p.0, k.0.id, s.0.id))
                .filter(|&(p, ..)| p < 10)
                .collect();
            seen.sort_unstable();
            let expected: Vec<(u32, u32, u32)> =
                (0..5).map(|i| (i, 1_000 + i, 2_000 + i)).collect();
            assert_eq!(seen, expected, "read={read} hint={hint}");
            log.assert_not_dropped(&[1_000, 1_001, 1_002, 1_003, 1_004, 2_000, 2_004]);
            assert_bystanders(&world, &before, 10);
            // A later batch into the same (partly reserved) table works.
            let more: Vec<Entity> = world
                .spawn_batch((10..13).map(|i| {
                    (
                        Pos(i),
                        Keep(Payload::new(1_000 + i, &log)),
                        SKeep(Payload::new(2_000 + i, &log)),
                    )
                }))
                .collect();
            assert_eq!(more.len(), 3);
            assert_eq!(q.iter(&world).count(), 3 + 5 + 3);
            integrity(&world);
            assert_usable(&mut world, &log);
            drop(world);
            let mut all: Vec<u32> = (0..5).flat_map(|i| [1_000 + i, 2_000 + i]).collect();
            all.extend((10..13).flat_map(|i| [1_000 + i, 2_000 + i]));
            all.extend([10, 11, 12, 110, 111, 112]);
            log.assert_dropped_once(&all);
        }
    }
}

// ---- systems, parallel iteration, commands ---------------------------------------------------

#[derive(Resource)]
struct Armed(bool);

#[derive(Resource, Clone)]
struct LogRes(DropLog);

#[derive(Resource, Default)]
struct Ran(Vec<&'static str>);

#[derive(Component)]
struct Other(u32);

fn writer(mut q: Query<&mut Pos>) {
    for mut p in &mut q {
        p.0 += 1000;
    }
}

/// Spawns one drop-counted value per run: 500, 501, ...
fn spawner(mut commands: Commands, log: Res<LogRes>, mut runs: Local<u32>) {
    commands.spawn((Pos(1), Keep(Payload::new(500 + *runs, &log.0))));
    *runs += 1;
}

fn boom(armed: Res<Armed>, q: Query<&Other>) {
    if armed.0 && q.iter().count() > 0 {
        panic!("system `boom` failed");
    }
}

fn bystander(mut q: Query<&mut Other>) {
    for mut o in &mut q {
        o.0 += 1;
    }
}

fn late(mut ran: ResMut<Ran>) {
    ran.0.push("late");
}

#[test]
fn parallel_a_panicking_system_in_the_multi_threaded_schedule() {
    let log = DropLog::default();
    let mut world = World::new();
    world.insert_resource(Armed(true));
    world.insert_resource(LogRes(log.clone()));
    world.init_resource::<Ran>();
    let es: Vec<Entity> = (0..8u32)
        .map(|i| {
            world
                .spawn((Pos(i), Other(i), Keep(Payload::new(i, &log))))
                .id()
        })
        .collect();

    let mut schedule = Schedule::default();
    schedule.add_systems((
        writer,
        spawner,
        boom.after(writer).after(spawner),
        bystander,
        late.after(boom),
    ));
    let msg = expect_panic(|| schedule.run(&mut world));
    assert!(msg.contains("system `boom` failed"), "{msg}");
    integrity(&world);
    // `writer` ran before `boom`; `late`, ordered after it, never ran.
    for (i, &e) in es.iter().enumerate() {
        assert_eq!(world.get::<Pos>(e), Some(&Pos(i as u32 + 1000)));
        assert_eq!(keep_id(&world, e), Some(i as u32));
    }
    assert!(
        world.resource::<Ran>().0.is_empty(),
        "a system after the panic ran"
    );
    // The spawner's command was either applied (a new entity holding value
    // 500) or dropped unapplied (value 500 dropped once); never both.
    let applied = world.entity_count() == 9;
    assert_eq!(log.times_dropped(500), usize::from(!applied));
    log.assert_no_double_drop();

    // Disarmed, the same schedule runs to completion on the same world.
    world.resource_mut::<Armed>().0 = false;
    schedule.run(&mut world);
    integrity(&world);
    assert_eq!(world.resource::<Ran>().0, ["late"]);
    for (i, &e) in es.iter().enumerate() {
        assert_eq!(world.get::<Pos>(e), Some(&Pos(i as u32 + 2000)));
    }
    assert_eq!(world.entity_count(), if applied { 10 } else { 9 });
    assert_usable_then_drop(world, &log, &[0, 1, 2, 3, 4, 5, 6, 7, 500, 501]);
}

#[test]
fn parallel_a_panic_inside_par_iter_mut() {
    // Enough rows for several batches; fewer under Miri.
    let (n, victim) = if cfg!(miri) {
        (200u32, 123u32)
    } else {
        (2_000, 1_234)
    };
    let log = DropLog::default();
    let mut world = World::new();
    let es: Vec<Entity> = (0..n)
        .map(|i| {
            let e = world.spawn((Pos(i), Keep(Payload::new(i, &log))));
            e.id()
        })
        .collect();
    let mut q = world.query::<(&mut Pos, &Keep)>();
    let msg = expect_panic(|| {
        q.par_iter_mut(&mut world).for_each(|(mut p, k)| {
            if k.0.id == victim {
                panic!("closure failed on {victim}");
            }
            p.0 += 1;
        })
    });
    assert!(
        msg.contains(&format!("closure failed on {victim}")),
        "{msg}"
    );
    integrity(&world);
    for (i, &e) in es.iter().enumerate() {
        let p = world.get::<Pos>(e).unwrap().0;
        assert!(p == i as u32 || p == i as u32 + 1, "{e:?} holds {p}");
        assert_eq!(keep_id(&world, e), Some(i as u32));
    }
    assert_eq!(world.get::<Pos>(es[victim as usize]), Some(&Pos(victim)));
    log.assert_no_double_drop();
    assert_usable_then_drop(world, &log, &(0..n).collect::<Vec<_>>());
}

#[test]
fn a_command_panicking_while_the_queue_applies() {
    let log = DropLog::default();
    let mut world = World::new();
    let target = world.spawn((Pos(1), Keep(Payload::new(1, &log)))).id();
    let mut queue = CommandQueue::default();
    let mut commands = Commands::new(&mut queue, &world);
    let spawned = commands.spawn((Pos(2), Keep(Payload::new(2, &log)))).id();
    commands.entity(target).insert(SKeep(Payload::new(3, &log)));
    commands.queue(|_: &mut World| panic!("command failed"));
    commands.entity(target).insert(Keep(Payload::new(4, &log)));
    let unspawned = commands.spawn((Pos(5), Keep(Payload::new(5, &log)))).id();
    let msg = expect_panic(|| queue.apply(&mut world));
    assert!(msg.contains("command failed"), "{msg}");
    integrity(&world);
    // Commands before the panic applied; those after were dropped
    // unapplied (their values dropped once).
    assert_eq!(world.get::<Pos>(spawned), Some(&Pos(2)));
    assert_eq!(skeep_id(&world, target), Some(3));
    assert_eq!(keep_id(&world, target), Some(1));
    log.assert_dropped_once(&[4, 5]);
    log.assert_not_dropped(&[1, 2, 3]);
    assert!(queue.is_empty());
    // The entity reserved by the unapplied spawn was made live (empty)
    // before the commands ran, as `CommandQueue::apply` documents.
    if let Ok(er) = world.get_entity(unspawned) {
        assert!(!er.contains::<Pos>() && !er.contains::<Keep>());
    }
    assert_usable_then_drop(world, &log, &[1, 2, 3, 4, 5]);
}

/// A command whose captured value panics when dropped unapplied: with the
/// queue itself, and after another command panicked. Every other command
/// is still dropped once (none leaked), and the panic that goes on is the
/// first one.
#[test]
fn a_command_panicking_when_dropped_unapplied() {
    let log = DropLog::default();
    let mut world = World::new();
    let mut queue = CommandQueue::default();
    for payload in [
        Payload::new(1, &log),
        Payload::armed(2, &log),
        Payload::new(3, &log),
    ] {
        queue.push(move |w: &mut World| {
            w.spawn(Keep(payload));
        });
    }
    let msg = expect_panic(|| drop(queue));
    assert!(msg.contains("bomb 2 exploded"), "{msg}");
    log.assert_dropped_once(&[1, 2, 3]);

    let mut queue = CommandQueue::default();
    queue.push(|w: &mut World| {
        w.spawn(Pos(4));
    });
    queue.push(|_: &mut World| panic!("command failed"));
    for payload in [Payload::armed(5, &log), Payload::new(6, &log)] {
        queue.push(move |w: &mut World| {
            w.spawn(Keep(payload));
        });
    }
    let msg = expect_panic(|| queue.apply(&mut world));
    assert!(msg.contains("command failed"), "{msg}");
    log.assert_dropped_once(&[1, 2, 3, 5, 6]);
    assert!(queue.is_empty());
    assert_eq!(world.entity_count(), 1);
    integrity(&world);
    assert_usable(&mut world, &log);
}

// ---- an `EntityWorldMut` after a caught panic -------------------------------------------

#[derive(Component, Debug, PartialEq)]
struct Hp(u32);
#[derive(Component)]
struct PanicsOnAdd;
#[derive(Component)]
struct QueuesAPanic;

/// A hook that panics after the insert moved the entity, and a command
/// (queued by a hook) that panics in the flush after it: either way, the
/// handle must not keep the old row, which another entity now fills. It
/// is left without a location: using it panics naming the entity, and a
/// new handle finds the entity where it is.
#[test]
fn an_entity_handle_keeps_no_row_after_a_caught_panic() {
    let mut world = World::new();
    world
        .register_component_hooks::<PanicsOnAdd>()
        .on_add(|_, _| panic!("hook boom"));
    world
        .register_component_hooks::<QueuesAPanic>()
        .on_add(|mut w, ctx| {
            let e = ctx.entity;
            w.commands()
                .queue(move |_: &mut World| panic!("command boom for {e:?}"));
        });
    for marker in 0..2 {
        let first = world.spawn(Hp(1)).id();
        let second = world.spawn(Hp(2)).id();
        let mut handle = world.entity_mut(first);
        let caught = catch_unwind(AssertUnwindSafe(|| {
            if marker == 0 {
                handle.insert(PanicsOnAdd);
            } else {
                handle.insert(QueuesAPanic);
            }
        }));
        assert!(caught.is_err());
        assert!(!handle.is_despawned());
        let stale = catch_unwind(AssertUnwindSafe(|| handle.get::<Hp>().map(|hp| hp.0)));
        let msg = stale.unwrap_err();
        let msg = msg.downcast_ref::<String>().unwrap();
        assert!(
            msg.contains(&format!("{first:?}")) && msg.contains("panicked"),
            "{msg}"
        );
        let stale = catch_unwind(AssertUnwindSafe(|| {
            if let Some(mut hp) = handle.get_mut::<Hp>() {
                hp.0 = 666;
            }
        }));
        assert!(stale.is_err());
        let mut handle = world.entity_mut(first);
        assert_eq!(handle.get::<Hp>(), Some(&Hp(1)));
        handle.get_mut::<Hp>().unwrap().0 = 10;
        assert_eq!(world.get::<Hp>(first), Some(&Hp(10)));
        assert_eq!(world.get::<Hp>(second), Some(&Hp(2)));
        world.check_integrity().unwrap();
        world.despawn(first);
        world.despawn(second);
    }
}

#[test]
fn world_scope_despawning_its_entity_leaves_the_handle_despawned() {
    let mut world = World::new();
    let first = world.spawn(Hp(1)).id();
    let second = world.spawn(Hp(2)).id();
    let mut handle = world.entity_mut(first);
    let caught = catch_unwind(AssertUnwindSafe(|| {
        handle.world_scope(|w| w.despawn(first));
    }));
    assert!(caught.is_err());
    assert!(handle.is_despawned());
    assert_eq!(world.get::<Hp>(second), Some(&Hp(2)));
    world.check_integrity().unwrap();
}

// ---- user code inside bundles, required components and resource scopes ----------------------

/// Makes a drop-counted value in `Default`; panics there while armed (a
/// thread-local switch, since `Default` takes no arguments).
struct Ignored(#[allow(dead_code)] Payload);

thread_local! {
    static IGNORED: std::cell::RefCell<Option<(DropLog, bool)>> = const { std::cell::RefCell::new(None) };
}

impl Default for Ignored {
    fn default() -> Self {
        IGNORED.with(|cell| {
            let (log, armed) = cell.borrow().clone().expect("a test set the log");
            if armed {
                panic!("Ignored::default exploded");
            }
            Ignored(Payload::new(7_777, &log))
        })
    }
}

fn set_ignored(log: &DropLog, armed: bool) {
    IGNORED.with(|cell| *cell.borrow_mut() = Some((log.clone(), armed)));
}

#[derive(Bundle)]
struct Taken {
    keep: Keep,
    skeep: SKeep,
    #[bundle(ignore)]
    _ignored: Ignored,
}

#[test]
fn a_take_whose_bundle_default_panics_drops_each_value_once() {
    let log = DropLog::default();
    let mut world = World::new();
    let others = bystanders(&mut world, &log, 100);
    let e = world
        .spawn((
            Pos(9),
            Keep(Payload::new(1, &log)),
            SKeep(Payload::new(2, &log)),
        ))
        .id();
    let others_after = bystanders(&mut world, &log, 1_000);
    set_ignored(&log, true);
    let message = expect_panic(|| world.entity_mut(e).take::<Taken>());
    assert!(message.contains("Ignored::default exploded"), "{message}");
    integrity(&world);
    // The take happened: the values are gone, each dropped once by the
    // unwind, and the entity keeps the rest.
    log.assert_dropped_once(&[1, 2]);
    assert_eq!(world.get::<Pos>(e), Some(&Pos(9)));
    assert!(world.get::<Keep>(e).is_none() && world.get::<SKeep>(e).is_none());
    assert_bystanders(&world, &others, 100);
    assert_bystanders(&world, &others_after, 1_000);
    set_ignored(&log, false);
    world
        .entity_mut(e)
        .insert((Keep(Payload::new(3, &log)), SKeep(Payload::new(4, &log))));
    let taken = world.entity_mut(e).take::<Taken>().expect("has the bundle");
    assert_eq!((taken.keep.0.id, taken.skeep.0.id), (3, 4));
    drop(taken);
    assert_usable_then_drop(
        world,
        &log,
        &[1, 2, 3, 4, 7_777, 100, 101, 102, 1_000, 1_001, 1_002],
    );
}

/// A value whose `Drop` may panic, in a bundle but not a component.
struct Loose(#[allow(dead_code)] Payload);

#[derive(Component)]
#[require(Req = Req(50))]
struct Needy(Payload);

#[derive(Component)]
struct Req(u32);

#[derive(Component)]
#[component(storage = "SparseSet")]
#[require(SReq = SReq(60))]
struct SNeedy(Payload);

#[derive(Component)]
#[component(storage = "SparseSet")]
struct SReq(u32);

#[derive(Bundle)]
struct WithLoose {
    needy: Needy,
    sneedy: SNeedy,
    #[bundle(ignore)]
    _loose: Loose,
}

impl Default for Loose {
    fn default() -> Self {
        unreachable!("only spawned and inserted here")
    }
}

#[test]
fn a_panicking_drop_of_an_ignored_field_leaves_spawn_and_insert_whole() {
    let log = DropLog::default();
    let mut world = World::new();
    let others = bystanders(&mut world, &log, 100);
    let message = expect_panic(|| {
        world.spawn(WithLoose {
            needy: Needy(Payload::new(1, &log)),
            sneedy: SNeedy(Payload::new(2, &log)),
            _loose: Loose(Payload::armed(3, &log)),
        })
    });
    assert!(message.contains("bomb 3 exploded"), "{message}");
    integrity(&world);
    log.assert_dropped_once(&[3]);
    let mut q = world.query::<(Entity, &Needy, &SNeedy, &Req, &SReq)>();
    let spawned: Vec<_> = q
        .iter(&world)
        .map(|(e, n, s, r, sr)| (e, n.0.id, s.0.id, r.0, sr.0))
        .collect();
    assert_eq!(spawned.len(), 1, "the spawned entity is whole");
    assert_eq!(
        (spawned[0].1, spawned[0].2, spawned[0].3, spawned[0].4),
        (1, 2, 50, 60)
    );

    let target = others[1];
    let message = expect_panic(|| {
        world.entity_mut(target).insert(WithLoose {
            needy: Needy(Payload::new(4, &log)),
            sneedy: SNeedy(Payload::new(5, &log)),
            _loose: Loose(Payload::armed(6, &log)),
        });
    });
    assert!(message.contains("bomb 6 exploded"), "{message}");
    integrity(&world);
    log.assert_dropped_once(&[6]);
    assert_eq!(world.get::<Needy>(target).map(|n| n.0.id), Some(4));
    assert_eq!(world.get::<SNeedy>(target).map(|n| n.0.id), Some(5));
    assert_eq!(world.get::<Req>(target).map(|n| n.0), Some(50));
    assert_eq!(world.get::<SReq>(target).map(|n| n.0), Some(60));
    assert_eq!(keep_id(&world, target), Some(101));
    assert_usable(&mut world, &log);
    let before = world.entity_count();
    drop(world);
    assert!(before > 0);
    log.assert_dropped_once(&[1, 2, 4, 5, 100, 101, 102]);
}

/// A required component whose constructor panics while armed.
#[derive(Component)]
#[require(Fragile = Fragile::make())]
struct NeedsFragile(#[allow(dead_code)] u32);

#[derive(Component)]
#[component(storage = "SparseSet")]
#[require(Fragile = Fragile::make())]
struct SNeedsFragile(#[allow(dead_code)] u32);

#[derive(Component)]
struct Fragile(u32);

thread_local! {
    static FRAGILE_ARMED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

impl Fragile {
    fn make() -> Self {
        if FRAGILE_ARMED.with(std::cell::Cell::get) {
            panic!("Fragile::make exploded");
        }
        Fragile(1)
    }
}

#[test]
fn a_panicking_required_constructor_spawns_no_phantom_entity() {
    let log = DropLog::default();
    let mut world = World::new();
    let others = bystanders(&mut world, &log, 100);
    FRAGILE_ARMED.with(|armed| armed.set(true));
    let message = expect_panic(|| world.spawn((NeedsFragile(1), Keep(Payload::new(1, &log)))));
    assert!(message.contains("Fragile::make exploded"), "{message}");
    let message = expect_panic(|| world.spawn(SNeedsFragile(2)));
    assert!(message.contains("Fragile::make exploded"), "{message}");
    let message = expect_panic(|| {
        world
            .spawn_batch((0..3).map(|i| (NeedsFragile(i), Keep(Payload::new(10 + i, &log)))))
            .count()
    });
    assert!(message.contains("Fragile::make exploded"), "{message}");
    integrity(&world);
    // The batch's iterator made only its first item.
    log.assert_dropped_once(&[1, 10]);
    assert_eq!(world.entity_count(), 3, "only the bystanders are live");
    let mut all = world.query::<Entity>();
    assert_eq!(all.iter(&world).count(), 3);
    assert_bystanders(&world, &others, 100);
    FRAGILE_ARMED.with(|armed| armed.set(false));
    let e = world.spawn(NeedsFragile(3)).id();
    assert_eq!(world.get::<Fragile>(e).map(|f| f.0), Some(1));
    assert_usable(&mut world, &log);
}

#[test]
fn resource_scope_keeps_its_value_when_an_inserted_one_panics_in_drop() {
    let log = DropLog::default();
    let mut world = World::new();
    world.insert_resource(ResBomb(Payload::new(1, &log)));
    let message = expect_panic(|| {
        world.resource_scope(|world, _: Mut<ResBomb>| {
            world.insert_resource(ResBomb(Payload::armed(2, &log)));
        })
    });
    assert!(message.contains("bomb 2 exploded"), "{message}");
    log.assert_dropped_once(&[2]);
    log.assert_not_dropped(&[1]);
    assert_eq!(
        world.resource::<ResBomb>().0.id,
        1,
        "the scoped value is back"
    );
    // And when the closure panics too, its panic goes on.
    let message = expect_panic(|| {
        world.resource_scope(|world, _: Mut<ResBomb>| {
            world.insert_resource(ResBomb(Payload::new(3, &log)));
            panic!("the closure exploded");
        })
    });
    assert!(message.contains("the closure exploded"), "{message}");
    log.assert_dropped_once(&[2, 3]);
    assert_eq!(world.resource::<ResBomb>().0.id, 1);
    drop(world);
    log.assert_dropped_once(&[1, 2, 3]);
}

/// Its `on_discard` hook panics.
#[derive(Component)]
#[component(on_discard = explode_on_discard)]
struct Touchy;

fn explode_on_discard(_: ecs::world::DeferredWorld, _: ecs::lifecycle::HookContext) {
    panic!("on_discard exploded");
}

/// Requires a drop-counted value, made by its constructor.
#[derive(Component)]
#[require(Required = Required(Payload::new(REQUIRED_ID, &REQUIRED_LOG.with(Clone::clone))))]
struct Requirer;

#[derive(Component)]
struct Required(Payload);

const REQUIRED_ID: u32 = 4_242;

thread_local! {
    static REQUIRED_LOG: DropLog = DropLog::default();
}

#[test]
fn a_panicking_on_discard_hook_still_completes_the_insert() {
    let log = REQUIRED_LOG.with(Clone::clone);
    let mut world = World::new();
    let e = world.spawn(Touchy).id();
    let message = expect_panic(|| {
        world.entity_mut(e).insert((Touchy, Requirer));
    });
    assert!(message.contains("on_discard exploded"), "{message}");
    integrity(&world);
    // The insert went on past the hook: the required value is in place.
    assert!(world.get::<Requirer>(e).is_some());
    assert_eq!(world.get::<Required>(e).map(|r| r.0.id), Some(REQUIRED_ID));
    // Nothing made for that insert is used by the next operations.
    let f = world.spawn(Keep(Payload::new(1, &log))).id();
    let taken = world.entity_mut(f).take::<Keep>().expect("has it");
    assert_eq!(taken.0.id, 1);
    drop(taken);
    let g = world
        .spawn((Requirer, Required(Payload::new(2, &log))))
        .id();
    assert_eq!(world.get::<Required>(g).map(|r| r.0.id), Some(2));
    integrity(&world);
    drop(world);
    log.assert_dropped_once(&[1, 2, REQUIRED_ID]);
}

#[derive(Event)]
struct Nudge;

#[test]
fn dropping_a_world_whose_component_and_observer_panic_in_drop() {
    let log = DropLog::default();
    let mut world = World::new();
    world.spawn(Bomb(Payload::armed(1, &log)));
    let captured = Reckless(Payload::new(2, &log));
    world.add_observer(move |_: On<Nudge>| {
        let _keep = &captured;
    });
    // The observer's value is dropped after the component's panic was
    // caught, not while it unwinds (which would abort).
    let message = expect_panic(move || drop(world));
    assert!(message.contains("bomb 1 exploded"), "{message}");
    log.assert_dropped_once(&[1, 2]);
}

/// Panics in `Drop` even while unwinding.
struct Reckless(Payload);

impl Drop for Reckless {
    fn drop(&mut self) {
        panic!("reckless {} exploded", self.0.id);
    }
}

#[derive(Component, Debug, PartialEq)]
struct Byte(u8);

#[derive(Component, Debug, PartialEq)]
#[repr(align(64))]
struct Wide(u64);

#[derive(Component, Debug, PartialEq)]
#[component(storage = "SparseSet")]
#[repr(align(128))]
struct SWide(u64);

#[derive(Component)]
#[require(Wide = Wide(11), SWide = SWide(12))]
struct NeedsWide;

#[test]
fn values_held_aside_keep_their_alignment() {
    let mut world = World::new();
    let e = world
        .spawn((
            Byte(1),
            Wide(2),
            SWide(3),
            Keep(Payload::new(1, &DropLog::default())),
        ))
        .id();
    // A take hands each value to `from_components` at an aligned address.
    let (byte, wide, swide) = world
        .entity_mut(e)
        .take::<(Byte, Wide, SWide)>()
        .expect("has them");
    assert_eq!((byte, wide, swide), (Byte(1), Wide(2), SWide(3)));
    // Required values made aside keep theirs too.
    let f = world.spawn((Byte(4), NeedsWide)).id();
    assert_eq!(world.get::<Wide>(f), Some(&Wide(11)));
    assert_eq!(world.get::<SWide>(f), Some(&SWide(12)));
    integrity(&world);
}
