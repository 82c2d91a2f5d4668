//! `#[component(immutable)]`: components whose values change only by
//! replacement. `modify_component` changes one between the `on_discard`
//! and `on_insert` hooks and observers, so hooks see every change; untyped
//! mutable access refuses them; relationships are immutable.
//! (Typed mutable access does not compile: `tests/ui/immutable_*.rs`.)

mod common;

use std::alloc::Layout;
use std::collections::HashMap;

use common::drop_log::{DropLog, Payload};
use common::integrity::integrity;
use common::panics::expect_panic;
use ecs::component::{
    Component, ComponentDescriptor, ComponentMutability, Immutable, Mutable, StorageType,
};
use ecs::lifecycle::HookContext;
use ecs::prelude::*;
use ecs::query::QueryBuilder;
use ecs::world::error::{EntityComponentError, EntityMutableFetchError};
use ecs::world::{DeferredWorld, FilteredEntityMut};

/// The log the hooks and observers of `Level` write to.
#[derive(Resource, Default)]
struct Log(Vec<String>);

#[derive(Component, Debug, PartialEq, Clone, Copy)]
#[component(immutable, on_discard = level_discarded, on_insert = level_inserted)]
struct Level(u32);

fn level_discarded(mut world: DeferredWorld, context: HookContext) {
    let level = world.get::<Level>(context.entity).unwrap().0;
    world
        .resource_mut::<Log>()
        .0
        .push(format!("discard {level}"));
}

fn level_inserted(mut world: DeferredWorld, context: HookContext) {
    let level = world.get::<Level>(context.entity).unwrap().0;
    world
        .resource_mut::<Log>()
        .0
        .push(format!("insert {level}"));
}

#[derive(Component, Debug, PartialEq)]
struct Speed(f32);

fn log_world() -> World {
    let mut world = World::new();
    world.init_resource::<Log>();
    world
}

fn take_log(world: &mut World) -> Vec<String> {
    std::mem::take(&mut world.resource_mut::<Log>().0)
}

#[test]
fn components_declare_their_mutability() {
    struct Manual;
    impl Component for Manual {
        const STORAGE_TYPE: StorageType = StorageType::SparseSet;
        type Mutability = Immutable;
    }
    const {
        assert!(!<<Level as Component>::Mutability as ComponentMutability>::MUTABLE);
        assert!(<<Speed as Component>::Mutability as ComponentMutability>::MUTABLE);
        assert!(!<<Manual as Component>::Mutability as ComponentMutability>::MUTABLE);
        assert!(!<<ChildOf as Component>::Mutability as ComponentMutability>::MUTABLE);
        assert!(<<Children as Component>::Mutability as ComponentMutability>::MUTABLE);
    }
    let mut world = World::new();
    for (id, mutable) in [
        (world.register_component::<Level>(), false),
        (world.register_component::<Speed>(), true),
        (world.register_component::<Manual>(), false),
        (world.register_component::<ChildOf>(), false),
    ] {
        let info = world.components().get_info(id).unwrap();
        assert_eq!(info.mutable(), mutable, "{}", info.name());
    }
    assert!(!ComponentDescriptor::new::<Level>().mutable());
    let _: Mutable = Mutable;
}

#[test]
fn modify_component_runs_discard_then_insert_around_the_change() {
    let mut world = log_world();
    world.add_observer(
        |on: On<Discard<Level>>, levels: Query<&Level>, mut log: ResMut<Log>| {
            let level = levels.get(on.entity).unwrap().0;
            log.0.push(format!("observed discard {level}"));
        },
    );
    world.add_observer(
        |on: On<Insert<Level>>, levels: Query<&Level>, mut log: ResMut<Log>| {
            let level = levels.get(on.entity).unwrap().0;
            log.0.push(format!("observed insert {level}"));
        },
    );
    let e = world.spawn(Level(1)).id();
    assert_eq!(take_log(&mut world), ["insert 1", "observed insert 1"]);

    let old = world.modify_component(e, |level: &mut Level| std::mem::replace(&mut level.0, 2));
    assert_eq!(old, Ok(Some(1)));
    assert_eq!(world.get::<Level>(e), Some(&Level(2)));
    assert_eq!(
        take_log(&mut world),
        [
            "discard 1",
            "observed discard 1",
            "insert 2",
            "observed insert 2"
        ]
    );

    // The handle's form, typed and by id.
    let id = world.component_id::<Level>().unwrap();
    let mut entity = world.entity_mut(e);
    assert_eq!(
        entity.modify_component(|level: &mut Level| level.0 += 1),
        Some(())
    );
    let doubled = entity.modify_component_by_id(id, |mut level| {
        // SAFETY: `id` is `Level`'s.
        let level = unsafe { level.as_mut().deref_mut::<Level>() };
        level.0 *= 2;
        level.0
    });
    assert_eq!(doubled, Some(6));
    assert_eq!(entity.get::<Level>(), Some(&Level(6)));
    assert_eq!(
        take_log(&mut world),
        [
            "discard 2",
            "observed discard 2",
            "insert 3",
            "observed insert 3",
            "discard 3",
            "observed discard 3",
            "insert 6",
            "observed insert 6"
        ]
    );
    integrity(&world);
}

#[test]
fn a_modified_value_reads_as_added_and_changed() {
    #[derive(Resource, Default)]
    struct Seen(Vec<(&'static str, Vec<Entity>)>);
    fn record(
        added: Query<Entity, Added<Level>>,
        changed: Query<Entity, Changed<Level>>,
        mut seen: ResMut<Seen>,
    ) {
        seen.0.push(("added", added.iter().collect()));
        seen.0.push(("changed", changed.iter().collect()));
    }
    let mut world = log_world();
    world.init_resource::<Seen>();
    let mut schedule = Schedule::default();
    schedule.add_systems(record);
    let (a, b) = (world.spawn(Level(1)).id(), world.spawn(Level(2)).id());
    schedule.run(&mut world);
    world.resource_mut::<Seen>().0.clear();

    // Neither touched: nothing reads as new.
    schedule.run(&mut world);
    world
        .modify_component(b, |level: &mut Level| level.0 = 20)
        .unwrap();
    schedule.run(&mut world);
    let seen = std::mem::take(&mut world.resource_mut::<Seen>().0);
    assert_eq!(
        seen,
        [
            ("added", vec![]),
            ("changed", vec![]),
            ("added", vec![b]),
            ("changed", vec![b]),
        ]
    );
    assert_eq!(world.get::<Level>(a), Some(&Level(1)));
}

#[test]
fn modify_component_of_a_missing_value_or_entity() {
    #[derive(Component)]
    #[component(immutable)]
    struct NeverRegistered;
    let mut world = log_world();
    let e = world.spawn(Speed(1.0)).id();
    world.spawn(Level(1));
    take_log(&mut world);

    assert_eq!(
        world.modify_component(e, |_: &mut NeverRegistered| ()),
        Ok(None)
    );
    assert_eq!(world.modify_component(e, |_: &mut Level| ()), Ok(None));
    assert_eq!(
        world.entity_mut(e).modify_component(|_: &mut Level| ()),
        None
    );
    assert!(
        take_log(&mut world).is_empty(),
        "no hook runs for a value not there"
    );

    world.despawn(e);
    for result in [
        world.modify_component(e, |_: &mut Level| ()),
        world.modify_component(e, |_: &mut NeverRegistered| ()),
    ] {
        let Err(error @ EntityMutableFetchError::NotSpawned(_)) = result else {
            panic!("expected NotSpawned, got {result:?}");
        };
        assert!(error.to_string().contains(&format!("{e}")), "{error}");
    }
    // A mutable component may be modified the same way.
    let e = world.spawn(Speed(1.0)).id();
    world
        .modify_component(e, |s: &mut Speed| s.0 = 3.0)
        .unwrap();
    assert_eq!(world.get::<Speed>(e), Some(&Speed(3.0)));
}

#[test]
fn hooks_keep_an_index_of_immutable_values_exact() {
    #[derive(Resource, Default)]
    struct Index(HashMap<u32, Entity>);

    #[derive(Component, Clone, Copy, Debug, PartialEq)]
    #[component(immutable, on_insert = index, on_discard = unindex)]
    struct Key(u32);

    fn index(mut world: DeferredWorld, context: HookContext) {
        let key = world.get::<Key>(context.entity).unwrap().0;
        let previous = world.resource_mut::<Index>().0.insert(key, context.entity);
        assert_eq!(previous, None, "key {key} indexed twice");
    }
    fn unindex(mut world: DeferredWorld, context: HookContext) {
        let key = world.get::<Key>(context.entity).unwrap().0;
        assert_eq!(
            world.resource_mut::<Index>().0.remove(&key),
            Some(context.entity)
        );
    }

    let mut world = World::new();
    world.init_resource::<Index>();
    let mut entities = Vec::new();
    let mut next_key = 0;
    // A fixed mix of spawns, re-keys by modify and by insert, removals
    // and despawns.
    for step in 0u32..200 {
        match step % 5 {
            0 | 1 => {
                entities.push(world.spawn(Key(next_key)).id());
                next_key += 1;
            }
            2 => {
                let e = entities[(step as usize * 7) % entities.len()];
                let key = next_key;
                next_key += 1;
                world.modify_component(e, |k: &mut Key| k.0 = key).unwrap();
            }
            3 => {
                let e = entities[(step as usize * 3) % entities.len()];
                world.entity_mut(e).insert(Key(next_key));
                next_key += 1;
            }
            _ => {
                let e = entities.swap_remove((step as usize * 11) % entities.len());
                if step % 2 == 0 {
                    world.despawn(e);
                } else {
                    world.entity_mut(e).remove::<Key>();
                }
            }
        }
    }
    let mut expected: HashMap<u32, Entity> = HashMap::new();
    for (e, key) in world.query::<(Entity, &Key)>().iter(&world) {
        expected.insert(key.0, e);
    }
    assert_eq!(world.resource::<Index>().0, expected);
    assert!(!expected.is_empty());
}

#[test]
fn commands_the_hooks_queue_apply_before_modify_returns() {
    #[derive(Component)]
    struct Spawned;
    #[derive(Component)]
    #[component(immutable, on_insert = spawn_one)]
    struct Noisy(u32);
    fn spawn_one(mut world: DeferredWorld, _: HookContext) {
        world.commands().spawn(Spawned);
    }
    let mut world = World::new();
    let e = world.spawn(Noisy(0)).id();
    assert_eq!(world.query::<&Spawned>().iter(&world).count(), 1);
    world.modify_component(e, |n: &mut Noisy| n.0 += 1).unwrap();
    assert_eq!(world.query::<&Spawned>().iter(&world).count(), 2);
    let mut entity = world.entity_mut(e);
    entity.modify_component(|n: &mut Noisy| n.0 += 1);
    assert_eq!(entity.get::<Noisy>().unwrap().0, 2);
    assert_eq!(world.query::<&Spawned>().iter(&world).count(), 3);
}

#[test]
fn a_handle_follows_its_entity_when_the_hooks_move_it() {
    #[derive(Component)]
    struct Odd;
    /// Its `on_insert` queues a move to another table on every change.
    #[derive(Component, Debug, PartialEq)]
    #[component(immutable, on_insert = sort)]
    struct Counter(u32);
    fn sort(mut world: DeferredWorld, context: HookContext) {
        let odd = world.get::<Counter>(context.entity).unwrap().0 % 2 == 1;
        let mut commands = world.commands();
        let mut entity = commands.entity(context.entity);
        if odd {
            entity.insert(Odd);
        } else {
            entity.remove::<Odd>();
        }
    }
    let mut world = World::new();
    let others: Vec<Entity> = (0..4).map(|i| world.spawn(Counter(i)).id()).collect();
    let e = world.spawn(Counter(10)).id();
    let mut entity = world.entity_mut(e);
    for n in 11..15 {
        entity.modify_component(|c: &mut Counter| c.0 = n);
        assert_eq!(entity.get::<Counter>(), Some(&Counter(n)));
        assert_eq!(entity.contains::<Odd>(), n % 2 == 1);
    }
    for (i, &other) in others.iter().enumerate() {
        assert_eq!(world.get::<Counter>(other), Some(&Counter(i as u32)));
    }
    integrity(&world);
}

#[test]
fn sparse_immutable_components_are_refused_and_modified_alike() {
    #[derive(Component, Debug, PartialEq)]
    #[component(immutable, storage = "SparseSet", on_insert = level_inserted_sparse)]
    struct Flag(u32);
    fn level_inserted_sparse(mut world: DeferredWorld, context: HookContext) {
        let flag = world.get::<Flag>(context.entity).unwrap().0;
        world.resource_mut::<Log>().0.push(format!("flag {flag}"));
    }
    let mut world = log_world();
    let flag = world.register_component::<Flag>();
    let speed = world.register_component::<Speed>();
    let e = world.spawn((Flag(1), Speed(1.0))).id();
    assert!(world.entity_mut(e).get_mut_by_id(flag).is_err());
    let mut query = QueryBuilder::<FilteredEntityMut>::new(&mut world)
        .mut_id(flag)
        .mut_id(speed)
        .build();
    let mut entity = query.get_mut(&mut world, e).unwrap();
    assert!(entity.get_mut_by_id(flag).is_none());
    assert!(entity.get_by_id(flag).is_some());
    assert!(entity.get_mut_by_id(speed).is_some());

    world.modify_component(e, |f: &mut Flag| f.0 = 2).unwrap();
    assert_eq!(world.get::<Flag>(e), Some(&Flag(2)));
    assert_eq!(take_log(&mut world), ["flag 1", "flag 2"]);
    integrity(&world);
}

#[test]
fn assume_mutable_access_reaches_immutable_values() {
    // `Plain` has no hooks or observers, so a change in place keeps every
    // hook in step: the contract of the `assume_mutable` calls below.
    #[derive(Component, Debug, PartialEq)]
    #[component(immutable)]
    struct Plain(u32);
    let mut world = World::new();
    let plain = world.register_component::<Plain>();
    let e = world.spawn(Plain(0)).id();

    let mut entity = world.entity_mut(e);
    // SAFETY: `Plain` has no hooks (above).
    unsafe { entity.get_mut_assume_mutable::<Plain>() }
        .unwrap()
        .0 += 1;
    // SAFETY: as above; `plain` is `Plain`'s id.
    unsafe {
        entity
            .get_mut_assume_mutable_by_id(plain)
            .unwrap()
            .as_mut()
            .deref_mut::<Plain>()
            .0 += 1;
    }
    // SAFETY: as above.
    unsafe { world.entity_mut(e).into_mut_assume_mutable::<Plain>() }
        .unwrap()
        .0 += 1;
    // SAFETY: as above; `plain` is `Plain`'s id.
    unsafe {
        world
            .entity_mut(e)
            .into_mut_assume_mutable_by_id(plain)
            .unwrap()
            .into_inner()
            .deref_mut::<Plain>()
            .0 += 1;
    }
    assert_eq!(world.get::<Plain>(e), Some(&Plain(4)));

    let mut query = world.query::<EntityMut>();
    let mut entity = query.get_mut(&mut world, e).unwrap();
    // SAFETY: as above.
    unsafe { entity.get_mut_assume_mutable::<Plain>() }
        .unwrap()
        .0 += 1;
    // SAFETY: as above; `plain` is `Plain`'s id.
    unsafe {
        entity
            .get_mut_assume_mutable_by_id(plain)
            .unwrap()
            .as_mut()
            .deref_mut::<Plain>()
            .0 += 1;
    }
    // SAFETY: as above.
    unsafe { entity.into_mut_assume_mutable::<Plain>() }
        .unwrap()
        .0 += 1;
    assert_eq!(world.get::<Plain>(e), Some(&Plain(7)));

    let mut query = QueryBuilder::<FilteredEntityMut>::new(&mut world)
        .mut_id(plain)
        .build();
    let entity = query.get_mut(&mut world, e).unwrap();
    // SAFETY: as above.
    unsafe { entity.into_mut_assume_mutable::<Plain>() }
        .unwrap()
        .0 += 1;
    assert_eq!(world.get::<Plain>(e), Some(&Plain(8)));
}

#[test]
fn untyped_mutable_access_refuses_immutable_components() {
    let mut world = log_world();
    let level = world.register_component::<Level>();
    let speed = world.register_component::<Speed>();
    let e = world.spawn((Level(1), Speed(1.0))).id();

    let mut entity = world.entity_mut(e);
    assert_eq!(
        entity.get_mut_by_id(level).err(),
        Some(EntityComponentError::MissingComponent(level))
    );
    assert!(entity.get_mut_by_id(speed).is_ok());
    assert!(entity.get_by_id(level).is_ok());
    assert_eq!(
        world.entity_mut(e).into_mut_by_id(level).err(),
        Some(EntityComponentError::MissingComponent(level))
    );

    // `EntityMut` from a query.
    let mut query = world.query::<EntityMut>();
    let mut entity = query.get_mut(&mut world, e).unwrap();
    assert!(entity.get_mut_by_id(level).is_err());
    assert!(entity.get_mut_by_id(speed).is_ok());
    assert!(entity.into_mut_by_id(level).is_err());

    // A built query asking to write both: the immutable one reads only.
    let mut query = QueryBuilder::<FilteredEntityMut>::new(&mut world)
        .mut_id(level)
        .mut_id(speed)
        .build();
    for mut entity in query.iter_mut(&mut world) {
        assert!(entity.get_mut_by_id(level).is_none());
        assert!(entity.get_by_id(level).is_some());
        // SAFETY: `speed` is `Speed`'s id.
        unsafe {
            entity
                .get_mut_by_id(speed)
                .unwrap()
                .as_mut()
                .deref_mut::<Speed>()
                .0 = 2.0;
        }
    }
    for table in query.contiguous_iter_mut(&mut world).unwrap() {
        assert!(table.get_mut_by_id(level).is_none());
        assert!(table.get_by_id(level).is_some());
        assert!(table.get_mut_by_id(speed).is_some());
    }
    assert_eq!(world.get::<Speed>(e), Some(&Speed(2.0)));
    assert_eq!(world.get::<Level>(e), Some(&Level(1)));
}

#[test]
fn a_dynamic_component_takes_its_mutability_from_the_descriptor() {
    let mut world = World::new();
    // SAFETY: `u32` values need no drop and are `Send + Sync`.
    let descriptor = unsafe {
        ComponentDescriptor::new_with_layout("Seed", StorageType::Table, Layout::new::<u32>(), None)
    };
    assert!(descriptor.mutable());
    let seed = world.register_component_with_descriptor(descriptor.with_mutable(false));
    assert!(!world.components().get_info(seed).unwrap().mutable());

    let e = world.spawn_empty().id();
    let mut entity = world.entity_mut(e);
    ecs::ptr::OwningPtr::make(7u32, |ptr| {
        // SAFETY: `seed` holds `u32`s.
        unsafe { entity.insert_by_id(seed, ptr) };
    });
    assert!(entity.get_mut_by_id(seed).is_err());
    let read = world.modify_component_by_id(e, seed, |mut value| {
        // SAFETY: `seed` holds `u32`s.
        let value = unsafe { value.as_mut().deref_mut::<u32>() };
        *value += 1;
        *value
    });
    assert_eq!(read, Ok(Some(8)));
    let seed_value = world.entity(e).get_by_id(seed).unwrap();
    // SAFETY: `seed` holds `u32`s.
    assert_eq!(unsafe { seed_value.deref::<u32>() }, &8);

    let message = expect_panic(|| ComponentDescriptor::new::<Speed>().with_mutable(false));
    assert!(
        message.contains("Speed") && message.contains("#[component(immutable)]"),
        "{message}"
    );
}

#[test]
fn a_panic_in_modify_still_completes_the_replacement() {
    #[derive(Component)]
    #[component(immutable, on_discard = discard_hook, on_insert = insert_hook)]
    struct Owned(Payload, u32);
    #[derive(Resource)]
    struct Armed(bool);
    fn discard_hook(mut world: DeferredWorld, context: HookContext) {
        let n = world.get::<Owned>(context.entity).unwrap().1;
        world.resource_mut::<Log>().0.push(format!("discard {n}"));
        if world.resource::<Armed>().0 {
            panic!("discard hook of {n}");
        }
    }
    fn insert_hook(mut world: DeferredWorld, context: HookContext) {
        let n = world.get::<Owned>(context.entity).unwrap().1;
        world.resource_mut::<Log>().0.push(format!("insert {n}"));
    }
    let drops = DropLog::default();
    let mut world = log_world();
    world.insert_resource(Armed(false));
    let e = world.spawn(Owned(Payload::new(1, &drops), 1)).id();
    take_log(&mut world);

    // `f` panics after changing the value: it stays as `f` left it, and
    // `on_insert` still runs (the replacement is whole) before the panic
    // goes on.
    let message = expect_panic(|| {
        world.modify_component(e, |owned: &mut Owned| {
            owned.1 = 2;
            panic!("closure");
        })
    });
    assert_eq!(message, "closure");
    assert_eq!(take_log(&mut world), ["discard 1", "insert 2"]);
    let owned = world.get::<Owned>(e).unwrap();
    assert_eq!((owned.0.id, owned.1), (1, 2));
    integrity(&world);

    // A panicking `on_discard`: `f` and `on_insert` still run.
    world
        .entity_mut(e)
        .insert(Owned(Payload::new(13, &drops), 13));
    drops.assert_dropped_once(&[1]);
    take_log(&mut world);
    world.resource_mut::<Armed>().0 = true;
    let message = expect_panic(|| world.modify_component(e, |owned: &mut Owned| owned.1 = 99));
    assert_eq!(message, "discard hook of 13");
    assert_eq!(take_log(&mut world), ["discard 13", "insert 99"]);
    assert_eq!(world.get::<Owned>(e).unwrap().1, 99);
    world.resource_mut::<Armed>().0 = false;
    integrity(&world);

    // The world goes on; each value is dropped once.
    world.despawn(e);
    drops.assert_dropped_once(&[1, 13]);
}

#[test]
fn a_relationship_is_immutable_and_modify_relinks_it() {
    let mut world = World::new();
    let (first, second) = (world.spawn_empty().id(), world.spawn_empty().id());
    let child = world.spawn(ChildOf(first)).id();
    let sibling = world.spawn(ChildOf(first)).id();

    world
        .modify_component(child, |c: &mut ChildOf| c.0 = second)
        .unwrap();
    assert_eq!(world.get::<ChildOf>(child), Some(&ChildOf(second)));
    assert_eq!(&**world.get::<Children>(first).unwrap(), &[sibling]);
    assert_eq!(&**world.get::<Children>(second).unwrap(), &[child]);
    integrity(&world);

    // Moving the last child away removes the emptied list.
    world
        .entity_mut(sibling)
        .modify_component(|c: &mut ChildOf| c.0 = second);
    assert!(world.get::<Children>(first).is_none());
    assert_eq!(&**world.get::<Children>(second).unwrap(), &[child, sibling]);
    integrity(&world);
}
