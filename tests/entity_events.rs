//! Entity events and observers as values: `#[derive(EntityEvent)]`, which
//! observers a trigger reaches, propagation along a `Traversal`, and
//! `Observer` built, spawned and added from the world and from commands,
//! and observers' run conditions.

mod common;

use std::panic::{catch_unwind, AssertUnwindSafe};

use common::integrity::integrity;
use common::panics::expect_panic;
use ecs::error::{BevyError, ErrorContext};
use ecs::observer::{ObservedBy, ObserverState};
use ecs::prelude::*;
use ecs::system::CommandQueue;
use ecs::traversal::Traversal;

#[derive(Resource, Default)]
struct Log(Vec<String>);

fn take_log(world: &mut World) -> Vec<String> {
    std::mem::take(&mut world.resource_mut::<Log>().0)
}

fn world_with_log() -> World {
    let mut world = World::new();
    world.init_resource::<Log>();
    world
}

/// Target in the field named `entity`.
#[derive(EntityEvent)]
struct Hit {
    damage: u32,
    entity: Entity,
}

/// Target in a marked field, next to another entity.
#[derive(EntityEvent)]
struct Heal {
    healer: Entity,
    #[event_target]
    patient: Entity,
}

/// Target as the only field of a tuple struct.
#[derive(EntityEvent)]
struct Poke(Entity);

/// A parent link of our own, for propagation.
#[derive(Component)]
struct Parent(Entity);

impl<D> Traversal<D> for &Parent {
    fn traverse(parent: &Parent, _: &D) -> Option<Entity> {
        Some(parent.0)
    }
}

#[derive(EntityEvent)]
#[entity_event(propagate = &'static Parent)]
struct Click {
    entity: Entity,
}

#[derive(EntityEvent)]
#[entity_event(propagate = &'static Parent, auto_propagate)]
struct Bubble {
    entity: Entity,
}

#[derive(Component)]
struct Marker;

#[test]
fn the_derive_finds_the_target_in_each_form() {
    let a = Entity::from_raw(1);
    let b = Entity::from_raw(2);
    assert_eq!(
        Hit {
            damage: 1,
            entity: a
        }
        .event_target(),
        a
    );
    let heal = Heal {
        healer: a,
        patient: b,
    };
    assert_eq!((heal.event_target(), heal.healer), (b, a));
    assert_eq!(Poke(b).event_target(), b);
}

#[test]
fn a_trigger_runs_the_global_observers_and_those_of_its_target_only() {
    let mut world = world_with_log();
    let knight = world.spawn_empty().id();
    let troll = world.spawn_empty().id();
    world.add_observer(|hit: On<Hit>, mut log: ResMut<Log>| {
        log.0.push(format!("global {}", hit.damage));
    });
    world
        .entity_mut(knight)
        .observe(|hit: On<Hit>, mut log: ResMut<Log>| {
            log.0.push(format!("knight {}", hit.damage));
        });
    world
        .entity_mut(troll)
        .observe(|hit: On<Hit>, mut log: ResMut<Log>| {
            log.0.push(format!("troll {}", hit.damage));
        });
    world.trigger(Hit {
        damage: 3,
        entity: knight,
    });
    assert_eq!(take_log(&mut world), ["global 3", "knight 3"]);
    world.trigger(Heal {
        healer: knight,
        patient: troll,
    });
    assert!(take_log(&mut world).is_empty(), "no observer of `Heal`");
    world.trigger(Hit {
        damage: 5,
        entity: troll,
    });
    assert_eq!(take_log(&mut world), ["global 5", "troll 5"]);
    integrity(&world);
}

#[test]
fn commands_trigger_entity_events_once_applied() {
    let mut world = world_with_log();
    let target = world.spawn_empty().id();
    world
        .entity_mut(target)
        .observe(|poke: On<Poke>, mut log: ResMut<Log>| {
            log.0.push(format!("poked {}", poke.0 == poke.observer()));
        });
    let mut queue = CommandQueue::default();
    Commands::new(&mut queue, &world).trigger(Poke(target));
    assert!(take_log(&mut world).is_empty(), "queued, not run");
    queue.apply(&mut world);
    assert_eq!(take_log(&mut world), ["poked false"]);
}

#[test]
fn a_despawned_target_reaches_only_the_global_observers() {
    let mut world = world_with_log();
    let target = world.spawn_empty().id();
    world.add_observer(
        |poke: On<Poke>, world_entities: Query<Entity>, mut log: ResMut<Log>| {
            log.0.push(format!(
                "global, target alive: {}",
                world_entities.get(poke.0).is_ok()
            ));
        },
    );
    let watcher = Observer::new(|_: On<Poke>, mut log: ResMut<Log>| log.0.push("entity".into()))
        .with_entity(target);
    let watcher = world.spawn(watcher).id();
    assert!(world.despawn(target));
    assert!(
        !world.contains_entity(watcher),
        "despawned with its only target"
    );
    world.trigger(Poke(target));
    assert_eq!(take_log(&mut world), ["global, target alive: false"]);
    // An entity reusing the slot is a different target.
    let reused = world.spawn_empty().id();
    world.trigger(Poke(reused));
    assert_eq!(take_log(&mut world), ["global, target alive: true"]);
    integrity(&world);
}

/// `window ← panel ← button`, each with an observer logging its name.
fn ui_tree(world: &mut World) -> [Entity; 3] {
    let window = world.spawn_empty().id();
    let panel = world.spawn(Parent(window)).id();
    let button = world.spawn(Parent(panel)).id();
    for (entity, name) in [(window, "window"), (panel, "panel"), (button, "button")] {
        world
            .entity_mut(entity)
            .observe(move |mut click: On<Click>, mut log: ResMut<Log>| {
                log.0.push(format!(
                    "{name}: at {:?} from {:?}",
                    click.entity,
                    click.original_event_target()
                ));
                // The panel handles it: the window never hears of it.
                click.propagate(name != "panel");
            });
    }
    [window, panel, button]
}

#[test]
fn propagation_follows_the_traversal_until_an_observer_stops_it() {
    let mut world = world_with_log();
    let [window, panel, button] = ui_tree(&mut world);
    world.trigger(Click { entity: button });
    assert_eq!(
        take_log(&mut world),
        [
            format!("button: at {button:?} from {button:?}"),
            format!("panel: at {panel:?} from {button:?}"),
        ]
    );
    // From the window, nothing is above: the traversal ends.
    world.trigger(Click { entity: window });
    assert_eq!(
        take_log(&mut world),
        [format!("window: at {window:?} from {window:?}")]
    );
}

#[test]
fn propagation_is_off_unless_asked_or_automatic() {
    let mut world = world_with_log();
    let root = world.spawn_empty().id();
    let leaf = world.spawn(Parent(root)).id();
    world.add_observer(|click: On<Click>, mut log: ResMut<Log>| {
        log.0.push(format!("click {}", click.get_propagate()));
    });
    world.add_observer(|bubble: On<Bubble>, mut log: ResMut<Log>| {
        let at = if bubble.entity == bubble.original_event_target() {
            "leaf"
        } else {
            "root"
        };
        log.0
            .push(format!("bubble {at} {}", bubble.get_propagate()));
    });
    world.trigger(Click { entity: leaf });
    assert_eq!(
        take_log(&mut world),
        ["click false"],
        "global observers run at each step"
    );
    world.trigger(Bubble { entity: leaf });
    assert_eq!(
        take_log(&mut world),
        ["bubble leaf true", "bubble root true"]
    );
}

#[test]
fn observer_values_watch_entities_and_components() {
    let mut world = world_with_log();
    let a = world.spawn_empty().id();
    let b = world.spawn_empty().id();
    let c = world.spawn_empty().id();
    let mut both = Observer::new(|poke: On<Poke>, mut log: ResMut<Log>| {
        log.0.push(format!("{:?}", poke.0));
    });
    both.watch_entity(a);
    both.watch_entities([b]);
    assert_eq!(both.descriptor().entities(), [a, b]);
    let both = world.spawn(both).id();
    assert!(
        world.get::<ObserverState>(both).is_some(),
        "registered on spawn"
    );
    assert!(
        world.get::<Observer>(both).is_none(),
        "the world keeps the system"
    );
    assert_eq!(world.get::<ObservedBy>(a).unwrap().get(), [both]);
    for target in [a, b, c] {
        world.trigger(Poke(target));
    }
    assert_eq!(take_log(&mut world), [format!("{a:?}"), format!("{b:?}")]);

    let marker = world.register_component::<Marker>();
    let added = Observer::new(|add: On<ecs::lifecycle::AddEvent>, mut log: ResMut<Log>| {
        log.0.push(format!("added to {:?}", add.entity));
    })
    .with_component(marker);
    world.add_observer(added);
    let marked = world.spawn(Marker).id();
    world.spawn_empty();
    assert_eq!(take_log(&mut world), [format!("added to {marked:?}")]);
    integrity(&world);
}

#[test]
fn an_observer_of_no_entity_for_an_untargeted_component_is_refused() {
    let mut world = world_with_log();
    let marker = world.register_component::<Marker>();
    #[derive(Event)]
    struct Plain;
    let message = expect_panic(|| {
        world.add_observer(Observer::new(|_: On<Plain>| {}).with_component(marker));
    });
    assert!(message.contains("with_component"), "{message}");
    let gone = world.spawn_empty().id();
    world.despawn(gone);
    let message = expect_panic(|| {
        world.add_observer(Observer::new(|_: On<Poke>| {}).with_entity(gone));
    });
    assert!(
        message.contains(&format!("{gone}")) && message.contains("does not exist"),
        "{message}"
    );
    assert_eq!(
        world.query::<&ObserverState>().iter(&world).count(),
        0,
        "nothing registered"
    );
    integrity(&world);
}

#[test]
fn commands_add_observers_and_entity_observers() {
    let mut world = world_with_log();
    let target = world.spawn_empty().id();
    let mut queue = CommandQueue::default();
    let mut commands = Commands::new(&mut queue, &world);
    let global = commands
        .add_observer(|hit: On<Hit>, mut log: ResMut<Log>| {
            log.0.push(format!("global {}", hit.damage))
        })
        .id();
    commands
        .entity(target)
        .observe(|hit: On<Hit>, mut log: ResMut<Log>| log.0.push(format!("target {}", hit.damage)));
    queue.apply(&mut world);
    assert!(world.get::<ObserverState>(global).is_some());
    world.trigger(Hit {
        damage: 2,
        entity: target,
    });
    assert_eq!(take_log(&mut world), ["global 2", "target 2"]);
}

static HANDLED: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

fn record_error(error: BevyError, context: ErrorContext) {
    HANDLED
        .lock()
        .unwrap()
        .push(format!("{error} in {}", context.name()));
}

#[test]
fn fallible_observers_go_to_their_error_handler() {
    let mut world = world_with_log();
    let target = world.spawn_empty().id();
    fn refuse(poke: On<Poke>) -> Result {
        Err(format!("refused {}", poke.0.index()).into())
    }
    world.spawn(
        Observer::new(refuse)
            .with_entity(target)
            .with_error_handler(record_error),
    );
    world.trigger(Poke(target));
    let handled = std::mem::take(&mut *HANDLED.lock().unwrap());
    assert_eq!(handled.len(), 1, "{handled:?}");
    assert!(
        handled[0].starts_with(&format!("refused {}", target.index()))
            && handled[0].contains("refuse"),
        "{handled:?}"
    );
    // Without a handler of its own, the world's default panics, naming it.
    world.add_observer(refuse);
    let message = expect_panic(|| world.trigger(Poke(target)));
    assert!(message.contains("refused"), "{message}");
    integrity(&world);
}

#[test]
fn a_panicking_entity_observer_leaves_the_world_consistent_and_registered() {
    let mut world = world_with_log();
    let target = world.spawn_empty().id();
    world.entity_mut(target).observe(
        |hit: On<Hit>, mut commands: Commands, mut log: ResMut<Log>| {
            commands.spawn(Marker);
            log.0.push(format!("hit {}", hit.damage));
            assert!(hit.damage < 10, "too much damage");
        },
    );
    let result = catch_unwind(AssertUnwindSafe(|| {
        world.trigger(Hit {
            damage: 20,
            entity: target,
        })
    }));
    assert!(result.is_err());
    assert_eq!(take_log(&mut world), ["hit 20"]);
    assert_eq!(
        world.query::<&Marker>().iter(&world).count(),
        0,
        "the panicking run's commands are dropped"
    );
    integrity(&world);
    world.trigger(Hit {
        damage: 1,
        entity: target,
    });
    assert_eq!(take_log(&mut world), ["hit 1"], "still registered");
    assert_eq!(world.query::<&Marker>().iter(&world).count(), 1);
    integrity(&world);
}

#[test]
fn an_observer_spawned_on_an_observer_entity_is_refused_naming_it() {
    let mut world = world_with_log();
    let existing = world.add_observer(|_: On<Poke>| {}).id();
    let message = expect_panic(|| {
        world
            .entity_mut(existing)
            .insert(Observer::new(|_: On<Hit>| {}));
    });
    assert!(
        message.contains(&format!("{existing}")) && message.contains("an observer already"),
        "{message}"
    );
    integrity(&world);
}

#[derive(Component)]
struct Score;

/// An observer's captured values are dropped once on every path: never
/// spawned, spawned then despawned with its target, and refused at
/// registration (its parameters conflict).
#[test]
fn observer_values_drop_their_captures_once() {
    use common::drop_log::{DropLog, Payload};
    let log = DropLog::default();
    let mut world = world_with_log();
    let target = world.spawn_empty().id();

    let held = Payload::new(1, &log);
    drop(Observer::new(move |_: On<Poke>| {
        let _ = &held;
    }));
    log.assert_dropped_once(&[1]);

    let held = Payload::new(2, &log);
    world.spawn(
        Observer::new(move |_: On<Poke>| {
            let _ = &held;
        })
        .with_entity(target),
    );
    world.trigger(Poke(target));
    log.assert_not_dropped(&[2]);
    world.despawn(target);
    log.assert_dropped_once(&[2]);

    let held = Payload::new(3, &log);
    let conflicting = Observer::new(
        move |_: On<Poke>, _: Query<&mut Score>, _: Query<&mut Score>| {
            let _ = &held;
        },
    );
    let spawned = world.spawn_empty().id();
    let message = expect_panic(|| {
        world.entity_mut(spawned).insert(conflicting);
    });
    assert!(message.contains("Score"), "{message}");
    log.assert_dropped_once(&[3]);
    assert!(world.get::<ObserverState>(spawned).is_none());
    assert!(world.get::<Observer>(spawned).is_none());
    integrity(&world);
    log.assert_no_double_drop();
}

#[derive(EntityEvent)]
#[entity_event(propagate)]
struct BubbleClick {
    entity: Entity,
}
#[derive(Resource, Default)]
struct BubbleSeen(Vec<Entity>);
/// `#[entity_event(propagate)]` follows `ChildOf` from a child to its
/// ancestors.
#[test]
fn propagation_bubbles_up_child_of_by_default() {
    let mut world = World::new();
    world.init_resource::<BubbleSeen>();
    let root = world.spawn_empty().id();
    let mid = world.spawn(ChildOf(root)).id();
    let leaf = world.spawn(ChildOf(mid)).id();
    world.add_observer(|mut click: On<BubbleClick>, mut seen: ResMut<BubbleSeen>| {
        seen.0.push(click.entity);
        click.propagate(true);
    });
    world.trigger(BubbleClick { entity: leaf });
    assert_eq!(world.resource::<BubbleSeen>().0, [leaf, mid, root]);
}

/// Despawning the observers watching an entity takes them off its
/// `ObservedBy`, which goes once the last one is gone.
#[test]
fn despawned_observers_leave_no_observed_by_behind() {
    #[derive(EntityEvent)]
    struct Poke {
        entity: Entity,
    }
    let mut world = World::new();
    let target = world.spawn_empty().id();
    let first = world
        .spawn(Observer::new(|_: On<Poke>| {}).with_entity(target))
        .id();
    let second = world
        .spawn(Observer::new(|_: On<Poke>| {}).with_entity(target))
        .id();
    world.entity_mut(first).despawn();
    assert!(world.entity(target).contains::<ecs::observer::ObservedBy>());
    world.entity_mut(second).despawn();
    assert!(!world.entity(target).contains::<ecs::observer::ObservedBy>());
    // The target itself is untouched, and can be watched again.
    world.entity_mut(target).observe(|_: On<Poke>| {});
    assert!(world.entity(target).contains::<ecs::observer::ObservedBy>());
}

// ---- triggering from an entity handle, its commands and a deferred world -----------------

#[test]
fn entity_handles_commands_and_hooks_trigger_entity_events() {
    #[derive(Component)]
    #[component(on_add = poke_on_add)]
    struct PokedOnAdd;
    fn poke_on_add(mut world: ecs::world::DeferredWorld, context: ecs::lifecycle::HookContext) {
        let before = world.resource::<Log>().0.len();
        world.trigger(Poke(context.entity));
        // Queued: the observer runs once the spawn's commands apply.
        assert_eq!(world.resource::<Log>().0.len(), before);
    }
    let mut world = world_with_log();
    world.add_observer(|poke: On<Poke>, mut log: ResMut<Log>| {
        log.0.push(format!("poke {}", poke.0));
    });
    let e = world.spawn_empty().id();
    let mut entity = world.entity_mut(e);
    entity.trigger(Poke);
    let mut queue = CommandQueue::default();
    let mut commands = Commands::new(&mut queue, &world);
    commands.entity(e).trigger(Poke);
    commands.trigger_with(Poke(e), Default::default());
    queue.apply(&mut world);
    let hooked = world.spawn(PokedOnAdd).id();
    assert_eq!(
        take_log(&mut world),
        [
            format!("poke {e}"),
            format!("poke {e}"),
            format!("poke {e}"),
            format!("poke {hooked}")
        ]
    );

    // An observer that despawns its target: the handle reports it.
    world.add_observer(|hit: On<Hit>, mut commands: Commands| {
        commands.entity(hit.entity).despawn();
    });
    let mut target = world.spawn_empty();
    target.trigger(|entity| Hit { damage: 1, entity });
    assert!(target.is_despawned());
    integrity(&world);
}

// ---- run conditions ----------------------------------------------------------

#[derive(Event)]
struct Ping;

#[derive(Resource)]
struct Gate(bool);

#[derive(Resource)]
struct SecondGate(bool);

fn log_ping(_: On<Ping>, mut log: ResMut<Log>) {
    log.0.push("ping".into());
}

#[test]
fn a_run_condition_is_evaluated_on_every_trigger() {
    let mut world = world_with_log();
    world.insert_resource(Gate(false));
    world.add_observer(log_ping.run_if(|gate: Res<Gate>| gate.0));
    world.trigger(Ping);
    assert!(take_log(&mut world).is_empty());
    world.resource_mut::<Gate>().0 = true;
    world.trigger(Ping);
    world.trigger(Ping);
    assert_eq!(take_log(&mut world), ["ping", "ping"]);
    world.resource_mut::<Gate>().0 = false;
    world.trigger(Ping);
    assert!(take_log(&mut world).is_empty());
}

#[test]
fn chained_conditions_all_run_and_all_must_hold() {
    #[derive(Resource, Default)]
    struct Evaluations(std::sync::Arc<std::sync::atomic::AtomicU32>);
    let mut world = world_with_log();
    world.insert_resource(Gate(false));
    world.insert_resource(SecondGate(true));
    let second_runs = std::sync::Arc::new(std::sync::atomic::AtomicU32::new(0));
    world.insert_resource(Evaluations(second_runs.clone()));
    world.add_observer(
        Observer::new(log_ping)
            .run_if(|gate: Res<Gate>| gate.0)
            .run_if(|gate: Res<SecondGate>, runs: Res<Evaluations>| {
                runs.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                gate.0
            }),
    );
    world.trigger(Ping);
    // No short-circuit: the second ran although the first was false.
    assert_eq!(second_runs.load(std::sync::atomic::Ordering::Relaxed), 1);
    assert!(take_log(&mut world).is_empty());
    world.resource_mut::<Gate>().0 = true;
    world.trigger(Ping);
    assert_eq!(take_log(&mut world), ["ping"]);
    world.resource_mut::<SecondGate>().0 = false;
    world.trigger(Ping);
    assert!(take_log(&mut world).is_empty());
    assert_eq!(second_runs.load(std::sync::atomic::Ordering::Relaxed), 3);
}

#[test]
fn conditions_on_entity_lifecycle_and_spawned_observers() {
    #[derive(Component)]
    struct Armor;
    let mut world = world_with_log();
    world.insert_resource(Gate(true));
    let target = world.spawn_empty().id();
    let other = world.spawn_empty().id();
    world.entity_mut(target).observe(
        (|_: On<Poke>, mut log: ResMut<Log>| log.0.push("target poke".into()))
            .run_if(|gate: Res<Gate>| gate.0),
    );
    world.add_observer(
        (|_: On<Add<Armor>>, mut log: ResMut<Log>| log.0.push("armor".into()))
            .run_if(|gate: Res<Gate>| !gate.0),
    );
    world.spawn(
        Observer::new(|_: On<Poke>, mut log: ResMut<Log>| log.0.push("any poke".into()))
            .run_if(|gate: Res<Gate>| gate.0),
    );
    world.flush();
    world.trigger(Poke(target));
    world.trigger(Poke(other));
    world.entity_mut(other).insert(Armor);
    // Observers of every target run before those of the entity.
    assert_eq!(
        take_log(&mut world),
        ["any poke", "target poke", "any poke"]
    );
    world.resource_mut::<Gate>().0 = false;
    world.trigger(Poke(target));
    world.entity_mut(target).insert(Armor);
    assert_eq!(take_log(&mut world), ["armor"]);
}

#[test]
fn a_skipped_condition_counts_as_false() {
    #[derive(Component)]
    struct Player;
    let mut world = world_with_log();
    world.add_observer(log_ping.run_if(|_: Single<&Player>| true));
    world.trigger(Ping);
    assert!(take_log(&mut world).is_empty());
    world.spawn(Player);
    world.trigger(Ping);
    assert_eq!(take_log(&mut world), ["ping"]);
}

#[test]
fn a_panicking_condition_names_itself_and_keeps_the_observer() {
    let mut world = world_with_log();
    world.insert_resource(Gate(false));
    world.add_observer(log_ping.run_if(|gate: Res<Gate>| {
        assert!(gate.0, "the gate is shut");
        true
    }));
    let message = expect_panic(|| world.trigger(Ping));
    assert!(message.contains("the gate is shut"), "{message}");
    assert!(message.contains("run condition"), "{message}");
    integrity(&world);
    assert!(take_log(&mut world).is_empty());
    world.resource_mut::<Gate>().0 = true;
    world.trigger(Ping);
    assert_eq!(take_log(&mut world), ["ping"]);
}

#[test]
fn a_failing_condition_counts_as_false_and_goes_to_the_observers_handler() {
    use std::sync::atomic::{AtomicU32, Ordering};
    static HANDLED: AtomicU32 = AtomicU32::new(0);
    fn count(error: BevyError, context: ErrorContext) {
        assert!(error.to_string().contains("gate broken"), "{error}");
        assert_eq!(context.kind(), "run condition");
        HANDLED.fetch_add(1, Ordering::Relaxed);
    }
    let mut world = world_with_log();
    world.insert_resource(Gate(false));
    world.add_observer(
        Observer::new(log_ping)
            .run_if(|gate: Res<Gate>| -> Result<bool> {
                if gate.0 {
                    Ok(true)
                } else {
                    Err("gate broken".into())
                }
            })
            .with_error_handler(count),
    );
    world.trigger(Ping);
    assert!(take_log(&mut world).is_empty());
    assert_eq!(HANDLED.load(Ordering::Relaxed), 1);
    world.resource_mut::<Gate>().0 = true;
    world.trigger(Ping);
    assert_eq!(take_log(&mut world), ["ping"]);
    assert_eq!(HANDLED.load(Ordering::Relaxed), 1);
}
