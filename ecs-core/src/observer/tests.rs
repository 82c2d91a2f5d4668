//! Hooks, observers and required components.

use std::sync::Mutex;

use crate::component::{ComponentHooks, HookContext, RequiredComponentsRegistrar};
use crate::prelude::*;
use crate::system::CommandQueue;
use crate::world::DeferredWorld;

/// A log shared by the hooks of one test (tests run in parallel, so each
/// test uses its own component types and log).
#[derive(Resource, Default)]
struct Log(Vec<String>);

fn log(world: &mut DeferredWorld<'_>, line: String) {
    world.resource_mut::<Log>().0.push(line);
}

macro_rules! logged_component {
    ($name:ident, $storage:ident) => {
        #[derive(Debug, Clone, PartialEq)]
        struct $name(u32);
        impl Component for $name {
            const STORAGE_TYPE: StorageType = StorageType::$storage;
            type Mutability = crate::component::Mutable;
            fn register_component_hooks(hooks: &mut ComponentHooks) {
                hooks
                    .on_add(|mut w, c| {
                        let v = w.get::<$name>(c.entity).expect("on_add: value in place").0;
                        log(&mut w, format!("add {}", v))
                    })
                    .on_insert(|mut w, c| {
                        let v = w
                            .get::<$name>(c.entity)
                            .expect("on_insert: value in place")
                            .0;
                        log(&mut w, format!("insert {}", v))
                    })
                    .on_discard(|mut w, c| {
                        let v = w
                            .get::<$name>(c.entity)
                            .expect("on_discard: old value still there")
                            .0;
                        log(&mut w, format!("discard {}", v))
                    })
                    .on_remove(|mut w, c| {
                        let v = w
                            .get::<$name>(c.entity)
                            .expect("on_remove: value still there")
                            .0;
                        log(&mut w, format!("remove {}", v))
                    })
                    .on_despawn(|mut w, c| {
                        let v = w
                            .get::<$name>(c.entity)
                            .expect("on_despawn: value still there")
                            .0;
                        log(&mut w, format!("despawn {}", v))
                    });
            }
        }
    };
}

logged_component!(TableHooked, Table);
logged_component!(SparseHooked, SparseSet);

#[derive(Component, Debug, Clone, Copy, PartialEq)]
struct Plain(u32);

fn take_log(world: &mut World) -> Vec<String> {
    std::mem::take(&mut world.resource_mut::<Log>().0)
}

fn hook_order_on_every_path<C: Component + Clone>(make: fn(u32) -> C) {
    let mut world = World::new();
    world.init_resource::<Log>();
    // spawn
    let e = world.spawn((make(1), Plain(0))).id();
    assert_eq!(take_log(&mut world), ["add 1", "insert 1"]);
    // insert over an existing value: discard + insert, no add/remove
    world.entity_mut(e).insert(make(2));
    assert_eq!(take_log(&mut world), ["discard 1", "insert 2"]);
    // insert_if_new over an existing value: nothing
    world.entity_mut(e).insert_if_new(make(9));
    assert_eq!(take_log(&mut world), Vec::<String>::new());
    // remove
    world.entity_mut(e).remove::<C>();
    assert_eq!(take_log(&mut world), ["discard 2", "remove 2"]);
    // remove of an absent component: nothing
    world.entity_mut(e).remove::<C>();
    assert!(take_log(&mut world).is_empty());
    // insert (new)
    world.entity_mut(e).insert(make(3));
    assert_eq!(take_log(&mut world), ["add 3", "insert 3"]);
    // take
    let taken = world.entity_mut(e).take::<C>();
    assert!(taken.is_some());
    assert_eq!(take_log(&mut world), ["discard 3", "remove 3"]);
    // despawn
    world.entity_mut(e).insert(make(4));
    take_log(&mut world);
    world.despawn(e);
    assert_eq!(take_log(&mut world), ["despawn 4", "discard 4", "remove 4"]);
    // spawn_batch
    let n = world
        .spawn_batch((10..13).map(|i| (make(i), Plain(i))))
        .count();
    assert_eq!(n, 3);
    assert_eq!(
        take_log(&mut world),
        [
            "add 10",
            "insert 10",
            "add 11",
            "insert 11",
            "add 12",
            "insert 12"
        ]
    );
    // commands
    let mut queue = CommandQueue::default();
    let mut commands = Commands::new(&mut queue, &world);
    let c = commands.spawn(make(20)).id();
    commands.entity(c).insert(make(21)).remove::<C>().despawn();
    queue.apply(&mut world);
    assert_eq!(
        take_log(&mut world),
        [
            "add 20",
            "insert 20",
            "discard 20",
            "insert 21",
            "discard 21",
            "remove 21"
        ]
    );
    world.check_integrity().unwrap();
}

#[test]
fn hook_order_and_counts_on_table_components() {
    hook_order_on_every_path(TableHooked);
}

#[test]
fn hook_order_and_counts_on_sparse_components() {
    hook_order_on_every_path(SparseHooked);
}

#[test]
fn archetypes_without_hooks_have_no_flags() {
    let mut world = World::new();
    world.init_resource::<Log>();
    let plain = world.spawn(Plain(1)).id();
    let hooked = world.spawn((Plain(1), TableHooked(1))).id();
    assert!(world.entity(plain).archetype().flags().is_empty());
    let flags = world.entity(hooked).archetype().flags();
    assert!(flags.contains(crate::archetype::ArchetypeFlags::ON_ADD_HOOK));
    assert!(!flags.contains(crate::archetype::ArchetypeFlags::ON_ADD_OBSERVER));
}

#[derive(Component)]
struct Countdown(u32);
#[derive(Component, Debug, PartialEq)]
struct Spawned(u32);

#[test]
fn hooks_queue_commands_and_read_other_components() {
    fn on_insert(mut world: DeferredWorld<'_>, context: HookContext) {
        // Read another component of the entity.
        let plain = world.get::<Plain>(context.entity).map_or(0, |p| p.0);
        let left = world.get::<Countdown>(context.entity).unwrap().0;
        let entity = context.entity;
        let mut commands = world.commands();
        commands.spawn(Spawned(plain));
        if left > 0 {
            // Commands applied right after: re-inserting fires the hook again.
            commands.entity(entity).insert(Countdown(left - 1));
        } else {
            commands.entity(entity).despawn();
        }
    }
    let mut world = World::new();
    world
        .register_component_hooks::<Countdown>()
        .on_insert(on_insert);
    let e = world.spawn((Countdown(2), Plain(7)));
    // The commands despawned the entity: the handle knows, and refuses
    // further use with a message naming the entity.
    assert!(e.is_despawned());
    let id = e.id();
    let message = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        e.get::<Countdown>().is_some()
    }))
    .unwrap_err()
    .downcast::<String>()
    .unwrap();
    assert!(
        message.contains(&format!("{id:?}")) && message.contains("despawned"),
        "{message}"
    );
    let mut spawned = world.query::<&Spawned>();
    assert_eq!(spawned.iter(&world).count(), 3);
    assert!(spawned.iter(&world).all(|s| s.0 == 7));
    assert_eq!(world.entity_count(), 3);
}

#[test]
#[should_panic(expected = "already has an `on_add` hook")]
fn a_second_hook_of_one_kind_panics_naming_the_component() {
    let mut world = World::new();
    world
        .register_component_hooks::<TableHooked>()
        .on_add(|_, _| {});
}

#[test]
fn runtime_hooks_on_an_existing_archetype_fire() {
    static SEEN: Mutex<Vec<u32>> = Mutex::new(Vec::new());
    #[derive(Component)]
    struct Late(u32);
    let mut world = World::new();
    let e = world.spawn(Late(1)).id();
    world.register_component_hooks::<Late>().on_remove(|w, c| {
        SEEN.lock()
            .unwrap()
            .push(w.get::<Late>(c.entity).unwrap().0);
    });
    world.entity_mut(e).remove::<Late>();
    assert_eq!(*SEEN.lock().unwrap(), [1]);
}

// ---- observers -----------------------------------------------------------------

#[derive(Component, Debug)]
struct Player(u32);
#[derive(Component, Debug)]
#[component(storage = "SparseSet")]
struct Buff;

#[test]
fn observers_see_each_lifecycle_event() {
    let mut world = World::new();
    world.init_resource::<Log>();
    world.add_observer(
        |on: On<Add<Player>>, q: Query<&Player>, mut log: ResMut<Log>| {
            log.0.push(format!("add {}", q.get(on.entity).unwrap().0));
        },
    );
    world.add_observer(|_: On<Insert<Player>>, mut log: ResMut<Log>| log.0.push("insert".into()));
    world.add_observer(|_: On<Discard<Player>>, mut log: ResMut<Log>| log.0.push("discard".into()));
    world.add_observer(|on: On<Remove<(Player, Buff)>>, mut log: ResMut<Log>| {
        log.0
            .push(format!("remove {}", on.trigger().components.len()));
    });
    world.add_observer(|_: On<Despawn<Player>>, mut log: ResMut<Log>| log.0.push("despawn".into()));
    let e = world.spawn(Player(5)).id();
    assert_eq!(take_log(&mut world), ["add 5", "insert"]);
    world.entity_mut(e).insert(Player(6));
    assert_eq!(take_log(&mut world), ["discard", "insert"]);
    world.entity_mut(e).insert(Buff);
    assert!(take_log(&mut world).is_empty());
    world.entity_mut(e).remove::<Buff>();
    assert_eq!(take_log(&mut world), ["remove 1"]);
    world.despawn(e);
    assert_eq!(take_log(&mut world), ["despawn", "discard", "remove 1"]);
}

#[derive(Debug)]
struct Explode {
    power: u32,
    entity: Entity,
}
impl Event for Explode {
    type Trigger<'a> = crate::event::EntityTrigger;
}
impl crate::event::EntityEvent for Explode {
    fn event_target(&self) -> Entity {
        self.entity
    }
}

#[derive(Component)]
struct Crater(u32);

#[test]
fn custom_events_entity_observers_and_spawning_observers() {
    let mut world = World::new();
    world.init_resource::<Log>();
    static TARGETS: Mutex<Vec<Entity>> = Mutex::new(Vec::new());
    world.add_observer(|on: On<Explode>, mut commands: Commands| {
        TARGETS.lock().unwrap().push(on.entity);
        commands.spawn(Crater(on.power));
    });
    let bomb = world.spawn(Plain(1)).id();
    let other = world.spawn(Plain(2)).id();
    world
        .entity_mut(bomb)
        .observe(|on: On<Explode>, mut log: ResMut<Log>| {
            log.0.push(format!(
                "bomb {:?} went off with {}",
                on.entity,
                on.event().power
            ));
        });
    world.trigger(Explode {
        power: 3,
        entity: Entity::PLACEHOLDER,
    });
    assert_eq!(
        world
            .query::<&Crater>()
            .iter(&world)
            .map(|c| c.0)
            .collect::<Vec<_>>(),
        [3]
    );
    assert!(
        take_log(&mut world).is_empty(),
        "entity observers need their entity as the target"
    );
    world.trigger(Explode {
        power: 4,
        entity: other,
    });
    assert!(take_log(&mut world).is_empty(), "not this entity");
    world.trigger(Explode {
        power: 5,
        entity: bomb,
    });
    assert_eq!(
        take_log(&mut world),
        [format!("bomb {bomb:?} went off with 5")]
    );
    // commands.trigger
    let mut queue = CommandQueue::default();
    Commands::new(&mut queue, &world).trigger(Explode {
        power: 6,
        entity: Entity::PLACEHOLDER,
    });
    queue.apply(&mut world);
    assert_eq!(world.query::<&Crater>().iter(&world).count(), 4);
    // Global observers run for every trigger; untargeted ones carry the
    // placeholder.
    assert_eq!(
        *TARGETS.lock().unwrap(),
        [Entity::PLACEHOLDER, other, bomb, Entity::PLACEHOLDER]
    );
}

#[test]
fn despawned_observers_no_longer_fire() {
    let mut world = World::new();
    world.init_resource::<Log>();
    let observer = world
        .add_observer(|_: On<Add<Player>>, mut log: ResMut<Log>| log.0.push("seen".into()))
        .id();
    world.spawn(Player(1));
    assert_eq!(take_log(&mut world), ["seen"]);
    assert!(world.despawn(observer));
    world.spawn(Player(2));
    assert!(take_log(&mut world).is_empty());
}

#[test]
#[should_panic(expected = "watches a lifecycle event of no component")]
fn a_lifecycle_observer_must_name_components() {
    let mut world = World::new();
    world.add_observer(|_: On<Add<()>>| {});
}

// ---- required components ------------------------------------------------------------

#[derive(Component, Debug, PartialEq, Default)]
struct Health(u32);
#[derive(Component, Debug, PartialEq)]
struct Armor(u32);
#[derive(Component, Debug, PartialEq, Default)]
#[component(storage = "SparseSet")]
struct Tag;

#[derive(Debug, PartialEq)]
struct Soldier;
impl Component for Soldier {
    const STORAGE_TYPE: StorageType = StorageType::Table;
    type Mutability = crate::component::Mutable;
    fn register_required_components(required: &mut RequiredComponentsRegistrar<'_>) {
        required
            .register::<Health>(|| Health(100))
            .register::<Armor>(|| Armor(5));
    }
}

#[derive(Debug, PartialEq)]
struct Captain;
impl Component for Captain {
    const STORAGE_TYPE: StorageType = StorageType::Table;
    type Mutability = crate::component::Mutable;
    fn register_required_components(required: &mut RequiredComponentsRegistrar<'_>) {
        required
            .register::<Soldier>(|| Soldier)
            .register::<Tag>(Tag::default);
    }
}

#[test]
fn required_components_simple_transitive_and_given_values_win() {
    let mut world = World::new();
    let s = world.spawn(Soldier).id();
    assert_eq!(world.get::<Health>(s), Some(&Health(100)));
    assert_eq!(world.get::<Armor>(s), Some(&Armor(5)));
    let c = world.spawn((Captain, Armor(50))).id();
    assert!(world.entity(c).contains::<Soldier>());
    assert!(world.entity(c).contains::<Tag>());
    assert_eq!(world.get::<Health>(c), Some(&Health(100)));
    assert_eq!(
        world.get::<Armor>(c),
        Some(&Armor(50)),
        "the caller's value wins"
    );
    // Inserting onto an entity that already has a required component keeps it.
    let e = world.spawn(Health(1)).id();
    world.entity_mut(e).insert(Soldier);
    assert_eq!(world.get::<Health>(e), Some(&Health(1)));
    assert_eq!(world.get::<Armor>(e), Some(&Armor(5)));
    // spawn_batch
    let batch: Vec<Entity> = world.spawn_batch((0..5).map(|_| Captain)).collect();
    for e in batch {
        assert_eq!(world.get::<Armor>(e), Some(&Armor(5)));
        assert!(world.entity(e).contains::<Tag>());
    }
    world.check_integrity().unwrap();
}

#[test]
fn required_components_fire_their_hooks() {
    #[derive(Debug)]
    struct NeedsHooked;
    impl Component for NeedsHooked {
        const STORAGE_TYPE: StorageType = StorageType::SparseSet;
        type Mutability = crate::component::Mutable;
        fn register_required_components(required: &mut RequiredComponentsRegistrar<'_>) {
            required.register::<TableHooked>(|| TableHooked(42));
        }
    }
    let mut world = World::new();
    world.init_resource::<Log>();
    world.spawn(NeedsHooked);
    assert_eq!(take_log(&mut world), ["add 42", "insert 42"]);
}

#[derive(Debug)]
struct CycleA;
#[derive(Debug)]
struct CycleB;
impl Component for CycleA {
    const STORAGE_TYPE: StorageType = StorageType::Table;
    type Mutability = crate::component::Mutable;
    fn register_required_components(required: &mut RequiredComponentsRegistrar<'_>) {
        required.register::<CycleB>(|| CycleB);
    }
}
impl Component for CycleB {
    const STORAGE_TYPE: StorageType = StorageType::Table;
    type Mutability = crate::component::Mutable;
    fn register_required_components(required: &mut RequiredComponentsRegistrar<'_>) {
        required.register::<CycleA>(|| CycleA);
    }
}

#[test]
fn a_requirement_cycle_panics_naming_the_components() {
    let mut world = World::new();
    let error = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        world.register_component::<CycleA>();
    }))
    .unwrap_err();
    let message = error.downcast_ref::<String>().unwrap();
    assert!(message.contains("cycle"), "{message}");
    assert!(
        message.contains("CycleA") && message.contains("CycleB"),
        "{message}"
    );
}

#[test]
fn a_panicking_required_constructor_leaves_the_world_untouched() {
    #[derive(Debug)]
    struct Fragile;
    #[derive(Debug)]
    struct NeedsFragile(#[allow(dead_code)] String);
    impl Component for Fragile {
        const STORAGE_TYPE: StorageType = StorageType::Table;
        type Mutability = crate::component::Mutable;
    }
    impl Component for NeedsFragile {
        const STORAGE_TYPE: StorageType = StorageType::Table;
        type Mutability = crate::component::Mutable;
        fn register_required_components(required: &mut RequiredComponentsRegistrar<'_>) {
            required.register::<Health>(|| Health(1));
            required.register::<Fragile>(|| panic!("no Fragile today"));
        }
    }
    let mut world = World::new();
    let e = world.spawn(Plain(1)).id();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        world.entity_mut(e).insert(NeedsFragile("x".into()));
    }));
    assert!(result.is_err());
    assert!(!world.entity(e).contains::<NeedsFragile>());
    assert!(!world.entity(e).contains::<Health>());
    world.check_integrity().unwrap();
    world.spawn(Plain(2));
    world.check_integrity().unwrap();
}

/// Entities reserved by hooks (`commands().spawn(..)` reserves the id at
/// once) become live before the despawn frees the despawned entity's id:
/// the spawn is not lost and no two entities share an id.
#[test]
fn hooks_of_a_despawn_can_spawn() {
    #[derive(Component)]
    struct Dying(u32);
    #[derive(Component, Debug, PartialEq)]
    struct Born(u32);
    fn spawn_on_despawn(mut world: DeferredWorld<'_>, ctx: HookContext) {
        let v = world.get::<Dying>(ctx.entity).expect("in place").0;
        world.commands().spawn(Born(v));
    }
    fn spawn_on_remove(mut world: DeferredWorld<'_>, ctx: HookContext) {
        let v = world.get::<Dying>(ctx.entity).expect("in place").0;
        world.commands().spawn(Born(v + 100));
    }
    let mut world = World::new();
    world
        .register_component_hooks::<Dying>()
        .on_despawn(spawn_on_despawn)
        .on_remove(spawn_on_remove);
    let dying: Vec<Entity> = (0..4).map(|i| world.spawn(Dying(i)).id()).collect();
    for &e in &dying {
        assert!(world.despawn(e));
        assert!(!world.contains_entity(e));
        world.check_integrity().unwrap();
    }
    let mut born: Vec<(Entity, u32)> = world
        .query::<(Entity, &Born)>()
        .iter(&world)
        .map(|(e, b)| (e, b.0))
        .collect();
    born.sort_by_key(|&(_, v)| v);
    let values: Vec<u32> = born.iter().map(|&(_, v)| v).collect();
    assert_eq!(values, [0, 1, 2, 3, 100, 101, 102, 103]);
    assert_eq!(world.entity_count(), 8);
    for (e, _) in born {
        assert!(!dying.contains(&e), "{e:?} reuses a despawned entity's id");
    }
}

/// A hook of a batch spawn that only reserves entities (queues no command)
/// does not make the batch hand out the reserved ids again.
#[test]
fn hooks_of_a_batch_spawn_can_reserve_entities() {
    #[derive(Resource, Default)]
    struct Reserved(Vec<Entity>);
    #[derive(Component)]
    struct Batched(#[allow(dead_code)] u32);
    fn reserve(mut world: DeferredWorld<'_>, _: HookContext) {
        let e = world.commands().spawn_empty().id();
        world.resource_mut::<Reserved>().0.push(e);
    }
    let mut world = World::new();
    world.init_resource::<Reserved>();
    world.register_component_hooks::<Batched>().on_add(reserve);
    let batch: Vec<Entity> = world.spawn_batch((0..5).map(Batched)).collect();
    world.flush();
    world.check_integrity().unwrap();
    let reserved = world.resource::<Reserved>().0.clone();
    assert_eq!(reserved.len(), 5);
    let mut all: Vec<Entity> = batch.iter().chain(&reserved).copied().collect();
    all.sort_by_key(|e| e.index());
    all.dedup();
    assert_eq!(all.len(), 10, "batch {batch:?}, reserved {reserved:?}");
    assert!(all.iter().all(|&e| world.contains_entity(e)));
    assert_eq!(world.entity_count(), 10);
}

/// Observers of one entity go with it: despawned with their target (or
/// when `ObservedBy` is removed), while global observers and the
/// observers of other entities stay.
#[test]
fn entity_observers_are_despawned_with_their_target() {
    use crate::observer::{ObservedBy, ObserverState};
    let mut world = World::new();
    world.init_resource::<Log>();
    let global = world.add_observer(|_: On<Explode>| {}).id();
    let a = world.spawn(Plain(1)).id();
    let b = world.spawn(Plain(2)).id();
    let watch = |world: &mut World, target: Entity, tag: &'static str| {
        world
            .entity_mut(target)
            .observe(move |on: On<Explode>, mut log: ResMut<Log>| {
                log.0.push(format!("{tag} {}", on.event().power));
            });
    };
    watch(&mut world, a, "a1");
    watch(&mut world, a, "a2");
    watch(&mut world, b, "b");
    let observers_of_a = world.get::<ObservedBy>(a).unwrap().get().to_vec();
    assert_eq!(observers_of_a.len(), 2);
    let observers_of_b = world.get::<ObservedBy>(b).unwrap().get().to_vec();
    assert_eq!(world.query::<&ObserverState>().iter(&world).count(), 4);
    world.trigger(Explode {
        power: 1,
        entity: a,
    });
    assert_eq!(take_log(&mut world), ["a1 1", "a2 1"]);

    assert!(world.despawn(a));
    for observer in observers_of_a {
        assert!(
            !world.contains_entity(observer),
            "{observer} outlived its target"
        );
    }
    assert_eq!(world.query::<&ObserverState>().iter(&world).count(), 2);
    assert!(world.contains_entity(global));
    // A new entity in `a`'s slot is watched by no one.
    let reused = world.spawn(Plain(3)).id();
    world.trigger(Explode {
        power: 2,
        entity: reused,
    });
    world.trigger(Explode {
        power: 3,
        entity: b,
    });
    assert_eq!(take_log(&mut world), ["b 3"]);

    world.entity_mut(b).remove::<ObservedBy>();
    assert!(!world.contains_entity(observers_of_b[0]));
    world.trigger(Explode {
        power: 4,
        entity: b,
    });
    assert!(take_log(&mut world).is_empty());
    assert_eq!(world.query::<&ObserverState>().iter(&world).count(), 1);
    world.check_integrity().unwrap();
}

/// An entity observer despawned on its own leaves its target's
/// `ObservedBy` (which would otherwise list a dead id, and grow without
/// bound on a long-lived target that is observed again and again); the
/// target's other observers stay listed and keep running.
#[test]
fn a_despawned_entity_observer_leaves_its_targets_list() {
    use crate::observer::ObservedBy;
    let mut world = World::new();
    world.init_resource::<Log>();
    let target = world.spawn(Plain(1)).id();
    // `observe` returns the target; its observer is the last one listed.
    let observe = |world: &mut World, f: fn(On<Explode>, ResMut<Log>)| {
        world.entity_mut(target).observe(f);
        *world
            .get::<ObservedBy>(target)
            .unwrap()
            .get()
            .last()
            .unwrap()
    };
    let kept = observe(&mut world, |on, mut log| {
        log.0.push(format!("kept {}", on.event().power))
    });
    for round in 0..3 {
        let passing = observe(&mut world, |_, _| {});
        assert_ne!(passing, kept);
        assert_eq!(
            world.get::<ObservedBy>(target).unwrap().get(),
            [kept, passing],
            "round {round}"
        );
        assert!(world.despawn(passing));
        assert_eq!(world.get::<ObservedBy>(target).unwrap().get(), [kept]);
    }
    world.trigger(Explode {
        power: 1,
        entity: target,
    });
    assert_eq!(take_log(&mut world), ["kept 1"]);
    // The last one despawned takes the list away (as bevy does), the
    // target otherwise untouched.
    assert!(world.despawn(kept));
    assert!(world.get::<ObservedBy>(target).is_none());
    assert_eq!(world.get::<Plain>(target).map(|p| p.0), Some(1));
    world.check_integrity().unwrap();
}

/// A parameter whose `queue` panics on demand (a user `SystemParam` may).
struct PanickyQueue;

static QUEUE_PANICS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

// SAFETY: it reads and writes nothing of the world.
unsafe impl crate::system::SystemParam for PanickyQueue {
    type State = ();
    type Item<'w, 's> = PanickyQueue;

    fn init_state(_: &mut World, _: &mut crate::system::SystemMeta) {}

    unsafe fn get_param<'w, 's>(
        _: &'s mut (),
        _: &crate::system::SystemMeta,
        _: crate::world::UnsafeWorldCell<'w>,
        _: crate::change_detection::Tick,
    ) -> PanickyQueue {
        PanickyQueue
    }

    fn queue(_: &mut (), _: &mut CommandQueue) {
        if QUEUE_PANICS.load(std::sync::atomic::Ordering::Relaxed) {
            panic!("queue panics");
        }
    }
}

#[test]
fn an_observer_whose_parameter_panics_in_queue_keeps_running_later() {
    #[derive(Component)]
    struct Watched;
    #[derive(Resource, Default)]
    struct Runs(u32);

    let mut world = World::new();
    world.init_resource::<Runs>();
    world.add_observer(
        |_: On<Add<Watched>>, _: PanickyQueue, mut runs: ResMut<Runs>| {
            runs.0 += 1;
        },
    );
    QUEUE_PANICS.store(true, std::sync::atomic::Ordering::Relaxed);
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        world.spawn(Watched);
    }));
    QUEUE_PANICS.store(false, std::sync::atomic::Ordering::Relaxed);
    assert!(caught.is_err(), "the queue panic goes on");
    assert_eq!(world.resource::<Runs>().0, 1);
    world.spawn(Watched);
    assert_eq!(world.resource::<Runs>().0, 2, "the observer still runs");
}
