//! One-shot systems: registered in the world, run by id, keeping their
//! state between runs; bad ids are errors naming the system, and a panic
//! leaves the system registered.

mod common;

use std::cell::Cell;

use common::drop_log::{DropLog, Payload};
use common::panics::expect_panic;
use ecs::prelude::*;
use ecs::system::{command, CommandQueue, RegisteredSystem, RegisteredSystemError, SystemId};

#[derive(Resource, Default, Debug, PartialEq)]
struct Counter(u32);

#[derive(Component)]
struct Marker;

#[derive(Component)]
struct A;

/// Applies commands made by `f` to `world`.
fn with_commands(world: &mut World, f: impl FnOnce(&mut Commands)) {
    let mut queue = CommandQueue::default();
    f(&mut Commands::new(&mut queue, world));
    queue.apply(world);
}

#[test]
fn locals_persist_between_runs() {
    fn count(mut n: Local<u32>) -> u32 {
        *n += 1;
        *n
    }
    let mut world = World::new();
    let a = world.register_system(count);
    let b = world.register_system(count);
    assert_eq!(world.run_system(a).unwrap(), 1);
    assert_eq!(world.run_system(a).unwrap(), 2);
    assert_eq!(world.run_system(a).unwrap(), 3);
    assert_eq!(
        world.run_system(b).unwrap(),
        1,
        "each registration has its own state"
    );
}

#[test]
fn added_is_seen_once() {
    let mut world = World::new();
    let added = world.register_system(|q: Query<(), Added<Marker>>| q.iter().count());
    world.spawn(Marker);
    assert_eq!(world.run_system(added).unwrap(), 1);
    assert_eq!(world.run_system(added).unwrap(), 0);
    world.spawn(Marker);
    world.spawn(Marker);
    assert_eq!(world.run_system(added).unwrap(), 2);
    assert_eq!(world.run_system(added).unwrap(), 0);
}

#[test]
fn resource_change_detection_between_runs() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    let changed = world.register_system(|c: Res<Counter>| c.is_changed());
    assert!(world.run_system(changed).unwrap());
    assert!(!world.run_system(changed).unwrap());
    world.resource_mut::<Counter>().0 += 1;
    assert!(world.run_system(changed).unwrap());
    assert!(!world.run_system(changed).unwrap());
}

#[test]
fn inputs_and_outputs() {
    struct NonCopy(u32);
    let mut world = World::new();
    let by_value = world.register_system(|In(NonCopy(n)): In<NonCopy>| NonCopy(n + 1));
    assert_eq!(world.run_system_with(by_value, NonCopy(1)).unwrap().0, 2);

    let by_ref = world.register_system(|InRef(n): InRef<u32>| *n * 2);
    assert_eq!(world.run_system_with(by_ref, &21).unwrap(), 42);

    let by_mut = world.register_system(|InMut(n): InMut<u32>| *n += 1);
    let mut value = 1;
    world.run_system_with(by_mut, &mut value).unwrap();
    world.run_system_with(by_mut, &mut value).unwrap();
    assert_eq!(value, 3);
}

#[test]
fn commands_of_a_run_are_applied() {
    let mut world = World::new();
    let spawn = world.register_system(|mut commands: Commands| {
        commands.spawn(Marker);
    });
    world.run_system(spawn).unwrap();
    world.run_system(spawn).unwrap();
    let mut markers = world.query::<&Marker>();
    assert_eq!(markers.iter(&world).count(), 2);
}

#[test]
fn exclusive_systems_run() {
    let mut world = World::new();
    let id = world.register_system(|world: &mut World| {
        world.spawn(Marker);
        world.entities().len()
    });
    let before = world.entities().len();
    // The system's own entity is one of them.
    assert_eq!(world.run_system(id).unwrap() as usize, before as usize + 1);
}

#[test]
fn systems_run_other_systems_through_commands() {
    #[derive(Resource)]
    struct Ids(Vec<SystemId>);

    let mut world = World::new();
    world.init_resource::<Counter>();
    let add_one = world.register_system(|mut c: ResMut<Counter>| c.0 += 1);
    let add_ten = world.register_system(|mut c: ResMut<Counter>| c.0 += 10);
    world.insert_resource(Ids(vec![add_one, add_ten, add_one]));
    let runner = world.register_system(|ids: Res<Ids>, mut commands: Commands| {
        for &id in &ids.0 {
            commands.run_system(id);
        }
    });
    world.run_system(runner).unwrap();
    assert_eq!(world.resource::<Counter>().0, 12);
}

#[test]
fn commands_run_systems_with_input() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    let add = world.register_system(|In(n): In<u32>, mut c: ResMut<Counter>| c.0 += n);
    with_commands(&mut world, |commands| {
        commands.run_system_with(add, 5);
        commands.run_system_with(add, 7);
    });
    assert_eq!(world.resource::<Counter>().0, 12);
}

#[test]
fn a_system_runs_itself_through_its_commands() {
    thread_local! {
        static LEFT: Cell<u32> = const { Cell::new(3) };
        static ID: Cell<Option<SystemId>> = const { Cell::new(None) };
    }
    fn again(mut commands: Commands) {
        let left = LEFT.get() - 1;
        LEFT.set(left);
        if left > 0 {
            commands.run_system(ID.get().unwrap());
        }
    }
    let mut world = World::new();
    let id = world.register_system(again);
    ID.set(Some(id));
    world.run_system(id).unwrap();
    assert_eq!(LEFT.get(), 0, "ran three times, then stopped");
}

#[test]
fn running_itself_directly_is_an_error_not_a_deadlock() {
    #[derive(Resource)]
    struct Own(SystemId<(), u32>);
    #[derive(Resource, Default)]
    struct Inner(Option<RegisteredSystemError<(), u32>>);

    let mut world = World::new();
    world.init_resource::<Inner>();
    let id = world.register_system(|world: &mut World| {
        let own = world.resource::<Own>().0;
        let inner = world.run_system(own).err();
        world.resource_mut::<Inner>().0 = inner;
        7
    });
    world.insert_resource(Own(id));
    assert_eq!(world.run_system(id).unwrap(), 7);
    let error = world
        .resource_mut::<Inner>()
        .0
        .take()
        .expect("inner run failed");
    assert!(matches!(error, RegisteredSystemError::SystemMissing(x) if x == id));
    assert!(error.to_string().contains(&format!("{:?}", id.entity())));
    // And it still runs afterwards.
    assert_eq!(world.run_system(id).unwrap(), 7);
}

#[test]
fn unregistering_itself_directly_despawns_and_errors() {
    #[derive(Resource)]
    struct Own(SystemId);
    #[derive(Resource, Default)]
    struct Outcome(Option<bool>);

    let log = DropLog::default();
    let payload = Payload::new(1, &log);
    let mut world = World::new();
    world.init_resource::<Outcome>();
    let id = world.register_system(move |world: &mut World| {
        let _keep = &payload;
        let own = world.resource::<Own>().0;
        let self_remove = matches!(
            world.unregister_system(own),
            Err(RegisteredSystemError::SelfRemove(x)) if x == own
        );
        world.resource_mut::<Outcome>().0 = Some(self_remove);
    });
    world.insert_resource(Own(id));
    world.run_system(id).unwrap();
    assert_eq!(world.resource::<Outcome>().0, Some(true));
    assert!(world.get_entity(id.entity()).is_err(), "its entity is gone");
    log.assert_dropped_once(&[1]);
    assert!(matches!(
        world.run_system(id),
        Err(RegisteredSystemError::SystemIdNotRegistered(_))
    ));
}

#[test]
fn unregistering_itself_through_commands_succeeds() {
    thread_local! {
        static ID: Cell<Option<SystemId>> = const { Cell::new(None) };
    }
    let log = DropLog::default();
    let payload = Payload::new(2, &log);
    let mut world = World::new();
    world.init_resource::<Counter>();
    let id = world.register_system(move |mut c: ResMut<Counter>, mut commands: Commands| {
        let _keep = &payload;
        c.0 += 1;
        commands.unregister_system(ID.get().unwrap());
    });
    ID.set(Some(id));
    world.run_system(id).unwrap();
    assert_eq!(world.resource::<Counter>().0, 1);
    assert!(world.get_entity(id.entity()).is_err());
    log.assert_dropped_once(&[2]);
}

#[test]
fn despawning_the_entity_unregisters() {
    let log = DropLog::default();
    let payload = Payload::new(3, &log);
    let mut world = World::new();
    let id = world.register_system(move || {
        let payload = &payload;
        payload.id
    });
    assert_eq!(world.run_system(id).unwrap(), 3);
    world.despawn(id.entity());
    log.assert_dropped_once(&[3]);
    let error = world.run_system(id).unwrap_err();
    assert!(matches!(error, RegisteredSystemError::SystemIdNotRegistered(x) if x == id));
    assert!(error.to_string().contains(&format!("{:?}", id.entity())));
}

#[test]
fn unregister_hands_the_system_back() {
    let mut world = World::new();
    let id = world.register_system(|mut n: Local<u32>| {
        *n += 1;
        *n
    });
    assert_eq!(world.run_system(id).unwrap(), 1);
    let removed = world.unregister_system(id).unwrap();
    assert!(removed.initialized());
    let mut system = removed.system();
    assert_eq!(
        system.run((), &mut world).unwrap(),
        2,
        "the state came along"
    );
    assert!(matches!(
        world.unregister_system(id),
        Err(RegisteredSystemError::SystemIdNotRegistered(_))
    ));
}

#[test]
fn an_id_of_another_world_is_an_error_naming_both() {
    let mut home = World::new();
    let mut other = World::new();
    let _filler = other.register_system(|| 0u32);
    let id = home.register_system(|| 1u32);
    let error = other.run_system(id).unwrap_err();
    assert!(
        matches!(error, RegisteredSystemError::IncorrectWorld(x, w) if x == id && w == other.id())
    );
    let text = error.to_string();
    assert!(text.contains(&format!("{:?}", id.entity())), "{text}");
    assert!(text.contains(&format!("{:?}", home.id())), "{text}");
    assert!(text.contains(&format!("{:?}", other.id())), "{text}");
    assert!(other.unregister_system(id).is_err());
    assert_eq!(other.run_system(_filler).unwrap(), 0, "untouched");
    assert_eq!(home.run_system(id).unwrap(), 1);
}

#[test]
fn an_id_registered_by_commands_knows_its_world() {
    let mut home = World::new();
    let mut other = World::new();
    let mut id = None;
    with_commands(&mut home, |commands| {
        id = Some(commands.register_system(|| 5u8));
    });
    let id = id.unwrap();
    assert_eq!(home.run_system(id).unwrap(), 5);
    assert!(matches!(
        other.run_system(id),
        Err(RegisteredSystemError::IncorrectWorld(..))
    ));
}

#[test]
fn a_wrongly_typed_id_names_both_types_and_the_system() {
    fn answer() -> u32 {
        42
    }
    let mut world = World::new();
    let entity = world.register_system(answer).entity();
    let error = world
        .run_system(SystemId::<(), u8>::from_entity(entity))
        .unwrap_err();
    assert!(matches!(error, RegisteredSystemError::IncorrectType(..)));
    let text = error.to_string();
    assert!(text.contains("answer"), "{text}");
    assert!(text.contains("u32") && text.contains("u8"), "{text}");
    assert_eq!(
        world
            .run_system(SystemId::<(), u32>::from_entity(entity))
            .unwrap(),
        42
    );
}

#[test]
fn a_removed_component_is_reported() {
    let mut world = World::new();
    let id = world.register_system(|| {});
    world
        .entity_mut(id.entity())
        .remove::<RegisteredSystem<(), ()>>();
    assert!(matches!(
        world.run_system(id),
        Err(RegisteredSystemError::MissingRegisteredSystemComponent(x)) if x == id
    ));
    let plain = world.spawn(A).id();
    assert!(matches!(
        world.run_system(SystemId::<(), ()>::from_entity(plain)),
        Err(RegisteredSystemError::SystemIdNotRegistered(_))
    ));
}

#[test]
fn cached_systems_share_one_registration() {
    fn count(mut n: Local<u32>) -> u32 {
        *n += 1;
        *n
    }
    let mut world = World::new();
    let first = world.register_system_cached(count);
    assert_eq!(world.register_system_cached(count), first);
    assert_eq!(world.run_system_cached(count).unwrap(), 1);
    assert_eq!(world.run_system_cached(count).unwrap(), 2);
    assert_eq!(world.run_system(first).unwrap(), 3);

    world.unregister_system_cached(count).unwrap();
    assert!(matches!(
        world.unregister_system_cached(count),
        Err(RegisteredSystemError::SystemNotCached)
    ));
    assert!(matches!(
        world.run_system(first),
        Err(RegisteredSystemError::SystemIdNotRegistered(x)) if x == first
    ));
    let second = world.register_system_cached(count);
    assert_ne!(second, first);
    assert_eq!(world.run_system_cached(count).unwrap(), 1, "fresh state");

    // A despawned cached system is registered again.
    world.despawn(second.entity());
    let third = world.register_system_cached(count);
    assert_ne!(third, second);
    assert_eq!(world.run_system(third).unwrap(), 1);
}

#[test]
fn cached_systems_with_input_and_through_commands() {
    fn add(In(n): In<u32>, mut c: ResMut<Counter>) {
        c.0 += n;
    }
    fn bump(mut c: ResMut<Counter>) {
        c.0 += 100;
    }
    let mut world = World::new();
    world.init_resource::<Counter>();
    world.run_system_cached_with(add, 1).unwrap();
    with_commands(&mut world, |commands| {
        commands.run_system_cached_with(add, 2);
        commands.run_system_cached(bump);
        commands.unregister_system_cached(bump);
    });
    assert_eq!(world.resource::<Counter>().0, 103);
    assert!(
        world.unregister_system_cached(bump).is_err(),
        "already gone"
    );
    assert!(world.unregister_system_cached(add).is_ok());
}

#[test]
fn a_panicking_system_stays_registered() {
    let log = DropLog::default();
    let payload = Payload::new(4, &log);
    let mut world = World::new();
    world.insert_resource(Counter(0));
    let id = world.register_system(
        move |mut runs: Local<u32>, mut c: ResMut<Counter>, mut commands: Commands| {
            let _keep = &payload;
            *runs += 1;
            c.0 = *runs;
            commands.spawn(Marker);
            if *runs == 1 {
                panic!("first run fails");
            }
        },
    );
    let message = expect_panic(|| world.run_system(id));
    assert!(message.contains("first run fails"), "{message}");
    assert!(message.contains("one_shot"), "names the system: {message}");
    log.assert_not_dropped(&[4]);

    world.run_system(id).unwrap();
    assert_eq!(world.resource::<Counter>().0, 2, "the Local kept its count");
    let mut markers = world.query::<&Marker>();
    // As in a schedule, the commands the panicked run queued apply with the
    // next run's.
    assert_eq!(markers.iter(&world).count(), 2);

    world.unregister_system(id).unwrap();
    log.assert_dropped_once(&[4]);
}

#[test]
fn a_panicking_command_leaves_the_system_registered() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    let id = world.register_system(|mut c: ResMut<Counter>, mut commands: Commands| {
        c.0 += 1;
        if c.0 == 1 {
            commands.queue(|_: &mut World| panic!("bad command"));
        }
    });
    let message = expect_panic(|| world.run_system(id));
    assert!(message.contains("bad command"), "{message}");
    world.run_system(id).unwrap();
    assert_eq!(world.resource::<Counter>().0, 2);
}

#[test]
fn a_system_with_conflicting_parameters_panics_each_run_but_stays() {
    let mut world = World::new();
    let id = world.register_system(|_: Query<&mut A>, _: Query<&A>| {});
    let first = expect_panic(|| world.run_system(id));
    assert!(first.contains("A"), "{first}");
    let second = expect_panic(|| world.run_system(id));
    assert!(!second.contains("already running"), "{second}");
    assert!(world.unregister_system(id).is_ok());
}

#[test]
fn a_run_that_panics_after_initialising_counts_as_initialised() {
    let mut world = World::new();
    fn always_panics() {
        panic!("always")
    }
    let id = world.register_system(always_panics);
    expect_panic(|| world.run_system(id));
    assert!(world.unregister_system(id).unwrap().initialized());
}

#[test]
fn bare_commands_panic_on_a_bad_id_and_commands_methods_warn() {
    let mut world = World::new();
    let id = world.register_system(|| {});
    world.unregister_system(id).unwrap();
    // The `Commands` method logs and goes on.
    with_commands(&mut world, |commands| commands.run_system(id));
    let message = expect_panic(|| {
        with_commands(&mut world, |commands| {
            commands.queue(command::run_system(id))
        })
    });
    assert!(message.contains(&format!("{:?}", id.entity())), "{message}");
    assert!(message.contains("not registered"), "{message}");
}

#[test]
fn command_functions_run_and_unregister() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    let add = world.register_system(|In(n): In<u32>, mut c: ResMut<Counter>| c.0 += n);
    let one = world.register_system(|mut c: ResMut<Counter>| {
        c.0 += 1;
        c.0
    });
    with_commands(&mut world, |commands| {
        commands.queue(command::run_system(one));
        commands.queue(command::run_system_with(add, 10));
        commands.queue(command::unregister_system(one));
    });
    assert_eq!(world.resource::<Counter>().0, 11);
    assert!(world.run_system(one).is_err());
}

#[test]
fn run_system_once_returns_its_output() {
    let mut world = World::new();
    world.spawn(Marker);
    let count = world.run_system_once(|q: Query<&Marker>| q.iter().count());
    assert_eq!(count.unwrap(), 1);
}
