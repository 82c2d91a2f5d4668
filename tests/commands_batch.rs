//! `Commands::spawn` applied in runs: consecutive spawns of one bundle
//! type apply together, and the world ends exactly as if each spawn had
//! applied on its own, in order. Most tests compare the batched path with
//! a reference that queues each spawn as its own command (`spawn_empty`,
//! then a queued insert): the same ids, archetypes, row order, values,
//! ticks, hook and observer logs, drops and panics.

mod common;

use common::drop_log::{DropLog, Payload};
use common::integrity::{check_invariants, integrity};
use common::panics::panic_message;
use ecs::lifecycle::HookContext;
use ecs::prelude::*;
use ecs::system::CommandQueue;
use ecs::world::DeferredWorld;
use proptest::prelude::*;
use std::panic::{catch_unwind, AssertUnwindSafe};

#[derive(Component, Debug, Clone, PartialEq)]
struct A(u32);

#[derive(Component, Debug, Clone, PartialEq)]
struct B(u32);

#[derive(Component, Debug, Clone, PartialEq)]
#[component(storage = "SparseSet")]
struct S(u32);

/// Hooked: its hooks log what they see and queue commands.
#[derive(Component, Debug, Clone, PartialEq)]
#[component(on_add = on_add_h, on_insert = on_insert_h)]
struct H(u32);

/// Watched by an observer (added by [`world`]).
#[derive(Component, Debug, Clone, PartialEq)]
struct O(u32);

#[derive(Component, Debug, Clone, PartialEq)]
#[require(Req = Req(7))]
struct R(u32);

#[derive(Component, Debug, Clone, PartialEq)]
struct Req(u32);

#[derive(Component, Debug, Clone, PartialEq)]
struct Tag(u32);

/// Spawned by `H`'s hook, with the hooked entity.
#[derive(Component, Debug, Clone, PartialEq)]
struct Child(Entity);

/// Requires a component whose constructor panics.
#[derive(Component, Debug, Clone, PartialEq)]
#[require(Fragile = fragile())]
struct F(u32);

#[derive(Component, Debug, Clone, PartialEq)]
struct Fragile;

fn fragile() -> Fragile {
    panic!("the Fragile constructor failed")
}

/// A drop-logged value, maybe armed to panic in its `Drop`.
#[derive(Component)]
struct D(Payload);

#[derive(Resource, Default)]
struct Log(Vec<String>);

/// What a hook or observer sees of the world: the entity's value, how many
/// entities are live, and how many have `A`.
fn seen(world: &World, what: &str, entity: Entity, value: u32) -> String {
    let with_a = world
        .archetypes()
        .iter()
        .filter(|archetype| {
            world
                .component_id::<A>()
                .is_some_and(|id| archetype.contains(id))
        })
        .map(|archetype| archetype.len())
        .sum::<usize>();
    format!(
        "{what} {entity:?}={value} live={} with_a={with_a}",
        world.entity_count()
    )
}

fn on_add_h(mut world: DeferredWorld, context: HookContext) {
    let value = world.get::<H>(context.entity).unwrap().0;
    let line = seen(world.world(), "add H", context.entity, value);
    world.resource_mut::<Log>().0.push(line);
    world.commands().spawn(Child(context.entity));
    world.commands().spawn(Child(context.entity));
}

fn on_insert_h(mut world: DeferredWorld, context: HookContext) {
    let value = world.get::<H>(context.entity).unwrap().0;
    let line = seen(world.world(), "insert H", context.entity, value);
    world.resource_mut::<Log>().0.push(line);
    world.commands().entity(context.entity).insert(Tag(value));
}

/// A world with the log and an observer of `Add<O>` that logs what it
/// sees and queues a spawn.
fn world() -> World {
    let mut world = World::new();
    world.init_resource::<Log>();
    world.add_observer(
        |on: On<Add<O>>, all: Query<&O>, mut log: ResMut<Log>, mut commands: Commands| {
            let value = all.get(on.entity).unwrap().0;
            log.0.push(format!(
                "observe O {:?}={value} with_o={}",
                on.entity,
                all.iter().count()
            ));
            commands.spawn(A(1000 + value));
        },
    );
    world
}

/// Everything observable about the world: each archetype's components and
/// entities in row order, each table's entities in row order, each entity's
/// values with their added and changed ticks, and the log.
fn dump(world: &World) -> Vec<String> {
    fn value<T: Component + std::fmt::Debug>(world: &World, e: Entity) -> String {
        match world.get_ref::<T>(e) {
            Some(r) => format!(" {:?}@{:?}/{:?}", *r, r.added(), r.last_changed()),
            None => String::new(),
        }
    }
    let mut out = Vec::new();
    for archetype in world.archetypes().iter() {
        let entities: Vec<Entity> = world
            .archetype_entities(archetype.id())
            .unwrap()
            .map(|e| e.id())
            .collect();
        out.push(format!(
            "archetype {:?} table {:?} components {:?} entities {entities:?}",
            archetype.id(),
            archetype.table_id(),
            archetype.components().collect::<Vec<_>>(),
        ));
        for e in entities {
            // Paths may number their values apart by hundreds.
            let d = world.get::<D>(e).map(|d| format!(" D{}", d.0.id % 100));
            out.push(format!(
                "  {e:?}{}{}{}{}{}{}{}{}{}{}{}",
                value::<A>(world, e),
                value::<B>(world, e),
                value::<S>(world, e),
                value::<H>(world, e),
                value::<O>(world, e),
                value::<R>(world, e),
                value::<Req>(world, e),
                value::<Tag>(world, e),
                value::<Child>(world, e),
                value::<F>(world, e),
                d.unwrap_or_default(),
            ));
        }
    }
    for (index, table) in world.storages().tables.iter().enumerate() {
        out.push(format!("table {index} entities {:?}", table.entities()));
    }
    out.push(format!("live {}", world.entity_count()));
    out.extend(world.resource::<Log>().0.iter().cloned());
    out
}

/// The ids the world hands out next (spawning them).
fn next_ids(world: &mut World) -> Vec<Entity> {
    (0..4).map(|_| world.spawn_empty().id()).collect()
}

/// Each spawn as a command of its own: what batching must match.
fn spawn_alone<Bn: Bundle>(commands: &mut Commands, bundle: Bn) -> Entity {
    let e = commands.spawn_empty().id();
    commands.queue(move |world: &mut World| {
        if let Ok(mut entity) = world.get_entity_mut(e) {
            entity.insert(bundle);
        }
    });
    e
}

/// Runs `build` once batched and once with each spawn alone, on fresh
/// worlds prepared by `setup`, applying through an external queue; checks
/// that both give the same ids, world and outcome, and returns the
/// batched world.
fn compare(
    setup: impl Fn(&mut World),
    build: impl Fn(&mut Commands, bool) -> Vec<Entity>,
) -> (World, Vec<Entity>) {
    let run = |alone: bool| {
        let mut world = world();
        setup(&mut world);
        let mut queue = CommandQueue::default();
        let ids = build(&mut Commands::new(&mut queue, &world), alone);
        let outcome =
            catch_unwind(AssertUnwindSafe(|| queue.apply(&mut world))).map_err(panic_message);
        integrity(&world);
        check_invariants(&world);
        (world, ids, outcome)
    };
    let (mut batched, ids, outcome) = run(false);
    let (mut alone, alone_ids, alone_outcome) = run(true);
    assert_eq!(ids, alone_ids, "ids handed out");
    assert_eq!(outcome, alone_outcome, "outcome");
    assert_eq!(dump(&batched), dump(&alone), "world after applying");
    assert_eq!(next_ids(&mut batched), next_ids(&mut alone), "next ids");
    (batched, ids)
}

/// `spawn`, or the reference.
fn spawn<Bn: Bundle>(commands: &mut Commands, alone: bool, bundle: Bn) -> Entity {
    if alone {
        spawn_alone(commands, bundle)
    } else {
        commands.spawn(bundle).id()
    }
}

#[test]
fn a_run_keeps_the_reserved_ids_values_row_order_and_ticks() {
    let (mut world, ids) = compare(
        |world| {
            // Freed indices are reused first, and the world's tick moves.
            let old: Vec<Entity> = (0..5).map(|_| world.spawn(B(0)).id()).collect();
            for e in old {
                world.despawn(e);
            }
            world.increment_change_tick();
        },
        |commands, alone| {
            let before: Vec<Entity> = (0..12)
                .map(|i| spawn(commands, alone, (A(i), B(2 * i))))
                .collect();
            before
        },
    );
    let mut query = world.query::<(Entity, &A, &B)>();
    let rows: Vec<(Entity, u32, u32)> = query.iter(&world).map(|(e, a, b)| (e, a.0, b.0)).collect();
    let expected: Vec<(Entity, u32, u32)> =
        ids.iter().zip(0..).map(|(&e, i)| (e, i, 2 * i)).collect();
    assert_eq!(rows, expected, "one archetype, rows in spawn order");
}

#[test]
fn ids_are_the_ones_reserved_at_spawn() {
    let mut world = World::new();
    let old: Vec<Entity> = (0..4).map(|_| world.spawn_empty().id()).collect();
    world.despawn(old[1]);
    world.despawn(old[2]);
    let mut queue = CommandQueue::default();
    let mut commands = Commands::new(&mut queue, &world);
    let ids: Vec<Entity> = (0..5).map(|i| commands.spawn(A(i)).id()).collect();
    for &e in &ids {
        assert!(!world.contains_entity(e), "{e:?} is only reserved");
    }
    // The freed indices first (newest free first), then new ones.
    let indices: Vec<u32> = ids.iter().map(|e| e.index()).collect();
    assert_eq!(indices, [2, 1, 4, 5, 6]);
    queue.apply(&mut world);
    for (i, &e) in ids.iter().enumerate() {
        assert_eq!(world.get::<A>(e), Some(&A(i as u32)), "{e:?}");
    }
    integrity(&world);
}

#[test]
fn a_system_sees_batched_spawns_as_added() {
    #[derive(Resource, Default)]
    struct Seen(Vec<Entity>);
    let mut world = World::new();
    world.init_resource::<Seen>();
    let mut schedule = Schedule::default();
    let spawner = |mut commands: Commands| {
        for i in 0..5 {
            commands.spawn((A(i), B(i)));
        }
    };
    let watcher = |query: Query<Entity, Added<A>>, mut seen: ResMut<Seen>| {
        seen.0.extend(query.iter());
    };
    schedule.add_systems((spawner, watcher).chain());
    schedule.run(&mut world);
    assert_eq!(world.resource::<Seen>().0.len(), 5);
    schedule.run(&mut world);
    // The second run's spawns only: the first five are no longer added.
    assert_eq!(world.resource::<Seen>().0.len(), 10);
    let mut all = world.resource::<Seen>().0.clone();
    all.sort();
    all.dedup();
    assert_eq!(all.len(), 10);
}

#[test]
fn hooked_spawns_fire_in_order_seeing_what_one_by_one_shows() {
    let (world, ids) = compare(
        |_| {},
        |commands, alone| {
            let mut ids: Vec<Entity> = (0..4)
                .map(|i| spawn(commands, alone, (A(i), H(i))))
                .collect();
            ids.extend((0..3).map(|i| spawn(commands, alone, (A(10 + i), O(i)))));
            ids
        },
    );
    let log = &world.resource::<Log>().0;
    assert_eq!(log.len(), 4 * 2 + 3, "{log:?}");
    // Each hook ran before the next spawn: it saw only the spawns before
    // it, not the ones after.
    for (i, line) in log[..8].iter().enumerate() {
        assert!(line.contains(&format!("with_a={}", i / 2 + 1)), "{log:?}");
    }
    for &e in &ids[..4] {
        assert!(world.get::<Tag>(e).is_some(), "{e:?} has its hook's Tag");
    }
}

#[test]
fn hooked_spawns_in_the_world_queue_interleave_their_commands() {
    let run = |alone: bool| {
        let mut world = world();
        let ids: Vec<Entity> = {
            let mut commands = world.commands();
            let mut ids: Vec<Entity> = (0..3)
                .map(|i| spawn(&mut commands, alone, (A(i), H(i))))
                .collect();
            ids.extend((0..3).map(|i| spawn(&mut commands, alone, (A(i), O(i)))));
            ids.extend((0..3).map(|i| spawn(&mut commands, alone, A(20 + i))));
            ids
        };
        world.flush();
        integrity(&world);
        (dump(&world), ids)
    };
    let (batched, ids) = run(false);
    let (alone, alone_ids) = run(true);
    assert_eq!(ids, alone_ids);
    assert_eq!(batched, alone);
}

#[test]
fn interleaved_commands_apply_in_queue_order() {
    compare(
        |_| {},
        |commands, alone| {
            let e0 = spawn(commands, alone, A(0));
            commands.entity(e0).insert(Tag(0));
            let e1 = spawn(commands, alone, A(1));
            let e2 = spawn(commands, alone, A(2));
            commands.entity(e2).remove::<A>();
            let e3 = spawn(commands, alone, A(3));
            commands.queue(move |world: &mut World| {
                // Sees e0..e2 done and e3 not yet.
                let a3 = world.get::<A>(e3).cloned();
                world.resource_mut::<Log>().0.push(format!("e3 has {a3:?}"));
            });
            let e4 = spawn(commands, alone, A(4));
            vec![e0, e1, e2, e3, e4]
        },
    );
}

#[test]
fn spawn_then_insert_on_the_same_entity_breaks_the_run() {
    let (world, ids) = compare(
        |_| {},
        |commands, alone| {
            let mut ids = Vec::new();
            for i in 0..3 {
                let e = spawn(commands, alone, A(i));
                commands.entity(e).insert(B(i));
                ids.push(e);
            }
            ids
        },
    );
    for (i, &e) in ids.iter().enumerate() {
        assert_eq!(world.get::<B>(e), Some(&B(i as u32)));
    }
}

#[test]
fn runs_of_three_types_alternating() {
    compare(
        |_| {},
        |commands, alone| {
            let mut ids = Vec::new();
            for i in 0..4 {
                ids.push(spawn(commands, alone, A(i)));
                ids.push(spawn(commands, alone, (A(i), B(i))));
                ids.push(spawn(commands, alone, S(i)));
            }
            for i in 0..3 {
                ids.push(spawn(commands, alone, S(10 + i)));
            }
            for i in 0..3 {
                ids.push(spawn(commands, alone, (R(i), A(i))));
            }
            ids
        },
    );
}

#[test]
fn spawn_empty_between_spawns_and_inserted_later() {
    let (world, ids) = compare(
        |_| {},
        |commands, alone| {
            let e0 = spawn(commands, alone, A(0));
            let empty = commands.spawn_empty().id();
            let e1 = spawn(commands, alone, A(1));
            let filled = commands.spawn_empty().id();
            let e2 = spawn(commands, alone, A(2));
            commands.entity(filled).insert(B(9));
            vec![e0, empty, e1, filled, e2]
        },
    );
    assert_eq!(world.entity(ids[1]).archetype().components().count(), 0);
    assert_eq!(world.get::<B>(ids[3]), Some(&B(9)));
}

#[test]
fn a_batched_entity_despawned_later_in_the_queue() {
    let log = DropLog::default();
    let (mut world, ids) = compare(
        |_| {},
        |commands, alone| {
            let base = if alone { 100 } else { 0 };
            let ids: Vec<Entity> = (0..5)
                .map(|i| spawn(commands, alone, (A(i), D(Payload::new(base + i, &log)))))
                .collect();
            commands.entity(ids[2]).despawn();
            commands.entity(ids[0]).despawn();
            ids
        },
    );
    assert!(!world.contains_entity(ids[2]) && !world.contains_entity(ids[0]));
    assert_eq!(world.query::<&A>().iter(&world).count(), 3);
    // Each path's despawns dropped their values; the batched world still
    // holds the others.
    for id in [0, 2, 100, 102] {
        assert_eq!(log.times_dropped(id), 1, "value {id}");
    }
    log.assert_not_dropped(&[1, 3, 4]);
    drop(world);
    log.assert_dropped_once(&[0, 1, 2, 3, 4, 100, 101, 102, 103, 104]);
}

#[test]
fn entities_changed_or_despawned_before_their_run_applies() {
    let log = DropLog::default();
    let run = |alone: bool| {
        let mut world = world();
        let mut main = CommandQueue::default();
        let mut side = CommandQueue::default();
        let ids: Vec<Entity> = {
            let mut commands = Commands::new(&mut main, &world);
            (0..6)
                .map(|i| {
                    spawn(
                        &mut commands,
                        alone,
                        (A(i), D(Payload::new(10 * i + 100 * u32::from(alone), &log))),
                    )
                })
                .collect()
        };
        {
            let mut commands = Commands::new(&mut side, &world);
            commands.entity(ids[1]).despawn();
            commands.entity(ids[3]).insert(H(3));
            commands.entity(ids[4]).insert(S(4));
        }
        side.apply(&mut world);
        main.apply(&mut world);
        integrity(&world);
        check_invariants(&world);
        (dump(&world), ids)
    };
    let (batched, ids) = run(false);
    let (alone, alone_ids) = run(true);
    assert_eq!(ids, alone_ids);
    assert_eq!(batched, alone);
    // The despawned entity's bundle was dropped when its spawn applied.
    assert_eq!(log.times_dropped(10), 1);
    assert_eq!(log.times_dropped(110), 1);
    log.assert_no_double_drop();
}

/// Its `on_discard` hook queues a command that logs how many entities have
/// `W`: a replaced `W` shows when that command runs.
#[derive(Component, Debug, Clone, PartialEq)]
#[component(on_discard = on_discard_w)]
struct W(u32);

fn on_discard_w(mut world: DeferredWorld, context: HookContext) {
    let entity = context.entity;
    world.commands().queue(move |world: &mut World| {
        let with_w = world.query::<&W>().iter(world).count();
        world
            .resource_mut::<Log>()
            .0
            .push(format!("discarded W of {entity:?}; with_w={with_w}"));
    });
}

#[test]
fn commands_of_a_changed_entity_apply_before_the_next_spawn_of_its_run() {
    // The run's third entity already has `W` when its spawn applies: the
    // insert replaces it, whose hook queues a command; the run must let it
    // apply where one spawn command would, before the next spawn.
    for world_queue in [false, true] {
        let run = |alone: bool| {
            let mut world = world();
            let mut side = CommandQueue::default();
            let mut main = CommandQueue::default();
            let ids: Vec<Entity> = {
                let mut commands = if world_queue {
                    world.commands()
                } else {
                    Commands::new(&mut main, &world)
                };
                (0..6)
                    .map(|i| spawn(&mut commands, alone, (W(i), B(i))))
                    .collect()
            };
            Commands::new(&mut side, &world)
                .entity(ids[2])
                .insert(W(100));
            side.apply(&mut world);
            main.apply(&mut world);
            world.flush();
            integrity(&world);
            (dump(&world), ids)
        };
        let (batched, ids) = run(false);
        let (alone, alone_ids) = run(true);
        assert_eq!(ids, alone_ids);
        assert_eq!(batched, alone, "world queue: {world_queue}");
        assert!(
            batched.iter().any(|line| line.starts_with("discarded W")),
            "{batched:?}"
        );
    }
}

#[test]
fn a_panicking_drop_inside_a_run_drops_everything_once() {
    let log = DropLog::default();
    let run = |alone: bool| {
        let mut world = world();
        let mut main = CommandQueue::default();
        let mut side = CommandQueue::default();
        let base = if alone { 100 } else { 0 };
        let ids: Vec<Entity> = {
            let mut commands = Commands::new(&mut main, &world);
            (0..5)
                .map(|i| {
                    let payload = Payload::with(base + i, i == 2, &log);
                    spawn(&mut commands, alone, (A(i), D(payload)))
                })
                .collect()
        };
        // The entity of the armed value is gone when its spawn applies, so
        // the spawn drops the value, which panics.
        Commands::new(&mut side, &world).entity(ids[2]).despawn();
        side.apply(&mut world);
        let message =
            catch_unwind(AssertUnwindSafe(|| main.apply(&mut world))).map_err(panic_message);
        assert!(main.is_empty());
        integrity(&world);
        check_invariants(&world);
        (dump(&world), message)
    };
    let (batched, message) = run(false);
    let (alone, alone_message) = run(true);
    assert_eq!(message, Err("bomb 2 exploded".to_owned()));
    assert_eq!(alone_message, Err("bomb 102 exploded".to_owned()));
    assert_eq!(batched, alone);
    // Entities 0 and 1 were spawned (and dropped with their world); 2's
    // value was dropped by its spawn; 3 and 4's unapplied.
    log.assert_dropped_once(&[0, 1, 2, 3, 4, 100, 101, 102, 103, 104]);
}

#[test]
fn a_panicking_required_constructor_stops_the_run_where_one_by_one_stops() {
    let log = DropLog::default();
    let (world, ids) = compare(
        |_| {},
        |commands, alone| {
            let base = if alone { 100 } else { 0 };
            let mut ids: Vec<Entity> = (0..2)
                .map(|i| spawn(commands, alone, (A(i), D(Payload::new(base + i, &log)))))
                .collect();
            ids.push(spawn(
                commands,
                alone,
                (A(2), F(2), D(Payload::new(base + 2, &log))),
            ));
            ids.push(spawn(
                commands,
                alone,
                (A(3), F(3), D(Payload::new(base + 3, &log))),
            ));
            ids.extend(
                (4..6).map(|i| spawn(commands, alone, (A(i), D(Payload::new(base + i, &log))))),
            );
            ids
        },
    );
    // Spawned up to the failing one, which stays empty, as do those after.
    assert!(world.get::<A>(ids[1]).is_some());
    for &e in &ids[2..] {
        assert_eq!(world.entity(e).archetype().components().count(), 0);
    }
    for id in [2, 3, 4, 5, 102, 103, 104, 105] {
        assert_eq!(log.times_dropped(id), 1, "value {id}");
    }
}

#[test]
fn a_command_panicking_after_a_run() {
    let log = DropLog::default();
    let (mut world, ids) = compare(
        |_| {},
        |commands, alone| {
            let base = if alone { 100 } else { 0 };
            let mut ids: Vec<Entity> = (0..3)
                .map(|i| spawn(commands, alone, (A(i), D(Payload::new(base + i, &log)))))
                .collect();
            commands.queue(|_: &mut World| panic!("the command failed"));
            ids.extend(
                (3..6).map(|i| spawn(commands, alone, (A(i), D(Payload::new(base + i, &log))))),
            );
            ids
        },
    );
    assert_eq!(world.query::<&A>().iter(&world).count(), 3);
    assert_eq!(world.entity(ids[4]).archetype().components().count(), 0);
    for id in [3, 4, 5, 103, 104, 105] {
        assert_eq!(log.times_dropped(id), 1, "value {id}");
    }
}

#[test]
fn an_unapplied_run_drops_each_value_once_even_if_two_drops_panic() {
    let log = DropLog::default();
    let world = World::new();
    let mut queue = CommandQueue::default();
    let mut commands = Commands::new(&mut queue, &world);
    for i in 0..5 {
        commands.spawn(D(Payload::with(i, i == 1 || i == 3, &log)));
    }
    let message = catch_unwind(AssertUnwindSafe(|| drop(queue))).map_err(panic_message);
    assert_eq!(message, Err("bomb 1 exploded".to_owned()));
    log.assert_dropped_once(&[0, 1, 2, 3, 4]);
}

#[test]
fn appended_queues_keep_their_runs_apart_and_in_order() {
    let mut world = world();
    let mut first = CommandQueue::default();
    let mut second = CommandQueue::default();
    let mut ids: Vec<Entity> = {
        let mut commands = Commands::new(&mut first, &world);
        (0..3).map(|i| commands.spawn(A(i)).id()).collect()
    };
    {
        let mut commands = Commands::new(&mut second, &world);
        ids.extend((3..6).map(|i| commands.spawn(A(i)).id()));
    }
    first.append(&mut second);
    assert!(second.is_empty());
    // A spawn after the append joins no run of either queue.
    ids.push(Commands::new(&mut first, &world).spawn(A(6)).id());
    // The emptied queue starts runs of its own again.
    ids.push(Commands::new(&mut second, &world).spawn(A(7)).id());
    first.apply(&mut world);
    second.apply(&mut world);
    let values: Vec<(Entity, u32)> = world
        .query::<(Entity, &A)>()
        .iter(&world)
        .map(|(e, a)| (e, a.0))
        .collect();
    assert_eq!(values, ids.into_iter().zip(0..).collect::<Vec<_>>());
    integrity(&world);
}

#[test]
fn commands_queued_by_hooks_and_run_inside_a_flush_from_a_nested_queue() {
    // A command of the world queue applies an external queue holding runs
    // of hooked bundles: their hooks' commands wait for the outer command.
    let run = |alone: bool| {
        let mut world = world();
        let mut inner = CommandQueue::default();
        let ids: Vec<Entity> = {
            let mut commands = Commands::new(&mut inner, &world);
            let mut ids: Vec<Entity> = (0..3)
                .map(|i| spawn(&mut commands, alone, (A(i), H(i))))
                .collect();
            ids.extend((0..2).map(|i| spawn(&mut commands, alone, B(i))));
            ids
        };
        world
            .commands()
            .queue(move |world: &mut World| inner.apply(world));
        world.commands().spawn(A(99));
        world.flush();
        integrity(&world);
        (dump(&world), ids)
    };
    let (batched, ids) = run(false);
    let (alone, alone_ids) = run(true);
    assert_eq!(ids, alone_ids);
    assert_eq!(batched, alone);
}

/// One step of a random command sequence.
#[derive(Debug, Clone)]
enum Op {
    /// Spawn a bundle of one of several shapes.
    Spawn(u8, u32),
    SpawnEmpty,
    /// Insert `Tag` into a known entity (index into those seen so far).
    Insert(usize, u32),
    Despawn(usize),
    /// Despawn or change a known entity through a second queue, applied
    /// before the main one.
    SideDespawn(usize),
    SideInsert(usize),
    /// A command that panics.
    Panic,
    /// Apply what is queued (the side queue first).
    Apply,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        8 => (0u8..10, 0u32..1000).prop_map(|(shape, v)| Op::Spawn(shape, v)),
        1 => Just(Op::SpawnEmpty),
        2 => (0usize..64, 0u32..100).prop_map(|(i, v)| Op::Insert(i, v)),
        1 => (0usize..64).prop_map(Op::Despawn),
        1 => (0usize..64).prop_map(Op::SideDespawn),
        1 => (0usize..64).prop_map(Op::SideInsert),
        1 => Just(Op::Panic),
        2 => Just(Op::Apply),
    ]
}

/// Where the main commands go: an external queue, or the world's own.
#[derive(Debug, Clone, Copy)]
enum Target {
    External,
    WorldQueue,
}

/// What playing a sequence shows: a dump after each apply, the outcome of
/// each apply, and how often each value was dropped.
type Played = (Vec<Vec<String>>, Vec<Result<(), String>>, Vec<(u32, usize)>);

/// Applies `ops` (batched, or each spawn alone).
fn play(ops: &[Op], target: Target, alone: bool) -> Played {
    let log = DropLog::default();
    let mut world = world();
    let mut main = CommandQueue::default();
    let mut side = CommandQueue::default();
    let mut known: Vec<Entity> = Vec::new();
    let mut dumps = Vec::new();
    let mut outcomes = Vec::new();
    let mut next_drop = 0u32;
    for op in ops.iter().chain(std::iter::once(&Op::Apply)) {
        if let Op::Apply = op {
            // The world queue may apply inside it (a structural change
            // flushes it), panics included.
            let outcome = catch_unwind(AssertUnwindSafe(|| side.apply(&mut world)));
            outcomes.push(outcome.map_err(panic_message));
            match target {
                Target::External => {
                    let outcome = catch_unwind(AssertUnwindSafe(|| main.apply(&mut world)));
                    outcomes.push(outcome.map_err(panic_message));
                }
                // A panic in the world's flush keeps the commands after it
                // for the next flush: flush until one completes.
                Target::WorldQueue => loop {
                    let outcome = catch_unwind(AssertUnwindSafe(|| world.flush()));
                    let done = outcome.is_ok();
                    outcomes.push(outcome.map_err(panic_message));
                    if done {
                        break;
                    }
                },
            }
            integrity(&world);
            check_invariants(&world);
            dumps.push(dump(&world));
            continue;
        }
        if let &Op::SideDespawn(i) | &Op::SideInsert(i) = op {
            if let Some(&e) = known.get(i % known.len().max(1)) {
                let mut commands = Commands::new(&mut side, &world);
                match op {
                    Op::SideDespawn(_) => commands.entity(e).despawn(),
                    _ if i % 2 == 0 => {
                        commands.entity(e).insert(W(1));
                    }
                    _ => {
                        commands.entity(e).insert(S(1));
                    }
                }
            }
            continue;
        }
        let mut world_commands;
        let mut external;
        let commands: &mut Commands = match target {
            Target::External => {
                external = Commands::new(&mut main, &world);
                &mut external
            }
            Target::WorldQueue => {
                world_commands = world.commands();
                &mut world_commands
            }
        };
        match *op {
            Op::Spawn(shape, v) => {
                let e = match shape {
                    0 => spawn(commands, alone, A(v)),
                    1 => spawn(commands, alone, (A(v), B(v))),
                    2 => spawn(commands, alone, S(v)),
                    3 => spawn(commands, alone, (A(v), H(v))),
                    4 => spawn(commands, alone, O(v)),
                    5 => spawn(commands, alone, (R(v), B(v))),
                    6 => spawn(commands, alone, (A(v), F(v))),
                    7 => {
                        next_drop += 1;
                        let armed = v % 3 == 0;
                        spawn(
                            commands,
                            alone,
                            (A(v), D(Payload::with(next_drop, armed, &log))),
                        )
                    }
                    8 => spawn(commands, alone, (W(v), B(v))),
                    _ => spawn(commands, alone, (B(v), A(v))),
                };
                known.push(e);
            }
            Op::SpawnEmpty => known.push(commands.spawn_empty().id()),
            Op::Insert(i, v) => {
                if let Some(&e) = known.get(i % known.len().max(1)) {
                    commands.entity(e).insert(Tag(v));
                }
            }
            Op::Despawn(i) => {
                if let Some(&e) = known.get(i % known.len().max(1)) {
                    commands.entity(e).despawn();
                }
            }
            Op::Panic => commands.queue(|_: &mut World| panic!("a queued command failed")),
            Op::Apply | Op::SideDespawn(_) | Op::SideInsert(_) => unreachable!(),
        }
    }
    dumps.push(
        next_ids(&mut world)
            .iter()
            .map(|e| format!("{e:?}"))
            .collect(),
    );
    // An armed value still in the world panics as the world drops it.
    let _ = catch_unwind(AssertUnwindSafe(|| drop(world)));
    let mut counts: Vec<(u32, usize)> = log.counts().into_iter().collect();
    counts.sort_unstable();
    (dumps, outcomes, counts)
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: if cfg!(miri) { 2 } else { 96 },
        // Miri has no file system to keep failures in.
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Random command sequences give the same world, outcomes and drops
    /// batched and with each spawn applied alone.
    #[test]
    fn batched_spawns_match_spawns_applied_alone(
        ops in proptest::collection::vec(op(), 0..if cfg!(miri) { 12 } else { 48 }),
        world_queue in any::<bool>(),
    ) {
        let target = if world_queue { Target::WorldQueue } else { Target::External };
        let batched = play(&ops, target, false);
        let alone = play(&ops, target, true);
        prop_assert_eq!(&batched.0, &alone.0);
        prop_assert_eq!(&batched.1, &alone.1);
        prop_assert_eq!(&batched.2, &alone.2);
        // Every value dropped exactly once once the world is gone.
        for (id, n) in &batched.2 {
            prop_assert_eq!(*n, 1, "value {} dropped {} times", id, n);
        }
    }
}
