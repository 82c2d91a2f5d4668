//! `#[component(no_change_ticks)]`: components whose change ticks the world does
//! not keep. Their values move between tables like any other's, every value
//! is dropped once, neighbours with ticks keep answering `Added`/`Changed`,
//! and every term or call that would read their ticks panics naming them.

mod common;

use std::alloc::Layout;

use common::drop_log::{DropLog, Payload};
use common::integrity::integrity;
use common::panics::expect_panic;
use ecs::change_detection::Tick;
use ecs::component::{ComponentDescriptor, StorageType};
use ecs::prelude::*;
use ecs::ptr::OwningPtr;
use ecs::query::QueryBuilder;
use ecs::world::FilteredEntityRef;

#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(no_change_ticks)]
struct Vel(i64);

#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(no_change_ticks, storage = "SparseSet")]
struct Heat(i64);

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Pos(i64);

#[derive(Component)]
struct Marker;

#[derive(Component)]
#[component(no_change_ticks)]
struct Owned(Payload);

#[test]
fn the_attribute_and_the_registry_say_no_change_ticks() {
    let mut world = World::new();
    let vel = world.register_component::<Vel>();
    let pos = world.register_component::<Pos>();
    const { assert!(!<Vel as Component>::CHANGE_TICKS && <Pos as Component>::CHANGE_TICKS) };
    assert!(!world.components().get_info(vel).unwrap().has_change_ticks());
    assert!(world.components().get_info(pos).unwrap().has_change_ticks());
}

/// Inserting and removing other components moves tickless values between
/// tables (and swaps rows inside them); every value stays with its entity.
#[test]
fn tickless_values_follow_their_entities_through_moves() {
    let mut world = World::new();
    let entities: Vec<Entity> = (0..64)
        .map(|i| world.spawn((Vel(i), Pos(-i), Heat(i * 10))).id())
        .collect();
    for (i, &e) in entities.iter().enumerate() {
        if i % 3 == 0 {
            world.entity_mut(e).insert(Marker);
        }
    }
    for (i, &e) in entities.iter().enumerate().rev() {
        if i % 2 == 0 {
            world.entity_mut(e).remove::<Marker>();
        }
        if i % 5 == 0 {
            world.entity_mut(e).remove::<Pos>();
        }
    }
    for &e in entities.iter().step_by(7) {
        world.despawn(e);
    }
    for (i, &e) in entities.iter().enumerate() {
        let i = i as i64;
        if i % 7 == 0 {
            assert!(world.get_entity(e).is_err());
            continue;
        }
        assert_eq!(world.get::<Vel>(e), Some(&Vel(i)), "entity {i}");
        assert_eq!(world.get::<Heat>(e), Some(&Heat(i * 10)), "entity {i}");
        assert_eq!(world.get::<Pos>(e).is_some(), i % 5 != 0, "entity {i}");
    }
    let mut seen: Vec<i64> = world
        .query::<(&Vel, &Heat)>()
        .iter(&world)
        .map(|(v, h)| {
            assert_eq!(h.0, v.0 * 10);
            v.0
        })
        .collect();
    seen.sort_unstable();
    let expected: Vec<i64> = (0..64).filter(|i| i % 7 != 0).collect();
    assert_eq!(seen, expected);
    integrity(&world);
}

/// A component with ticks in the same tables as a tickless one still
/// carries its ticks through every move.
#[test]
fn neighbours_with_ticks_keep_them() {
    let mut world = World::new();
    let entities: Vec<Entity> = (0..8).map(|i| world.spawn((Vel(i), Pos(i))).id()).collect();
    world.clear_trackers();
    let mut changed = world.query_filtered::<Entity, Changed<Pos>>();
    let mut added = world.query_filtered::<Entity, Added<Pos>>();
    *world.get_mut::<Pos>(entities[5]).unwrap() = Pos(50);
    // Moves every entity (and swaps rows) after the write.
    for &e in &entities {
        world.entity_mut(e).insert(Marker);
    }
    world.entity_mut(entities[0]).remove::<Marker>();
    assert_eq!(changed.iter(&world).collect::<Vec<_>>(), [entities[5]]);
    assert_eq!(added.iter(&world).count(), 0);
    let late = world.spawn((Vel(9), Pos(9))).id();
    world.entity_mut(late).insert(Marker);
    assert_eq!(added.iter(&world).collect::<Vec<_>>(), [late]);
}

/// A move leaves a tickless component's ticks behind (the world writes
/// fixed ones in its place), where a component with ticks carries its own;
/// a sparse-set swap-remove leaves the swapped-in value the removed one's.
#[test]
fn moves_leave_the_ticks_of_tickless_components_behind() {
    let mut world = World::new();
    for _ in 0..5 {
        world.increment_change_tick();
    }
    let e = world.spawn((Vel(1), Pos(1))).id();
    let spawned = world.get_mut::<Pos>(e).unwrap().added();
    assert_ne!(spawned, Tick::new(0));
    assert_eq!(world.get_mut::<Vel>(e).unwrap().added(), spawned);
    world.entity_mut(e).insert(Marker);
    assert_eq!(world.get_mut::<Pos>(e).unwrap().added(), spawned);
    assert_eq!(world.get_mut::<Vel>(e).unwrap().added(), Tick::new(0));

    let a = world.spawn(Heat(1)).id();
    world.increment_change_tick();
    let b = world.spawn(Heat(2)).id();
    let (a_added, b_added) = (
        world.get_mut::<Heat>(a).unwrap().added(),
        world.get_mut::<Heat>(b).unwrap().added(),
    );
    assert_ne!(a_added, b_added);
    world.entity_mut(a).remove::<Heat>();
    assert_eq!(world.get::<Heat>(b), Some(&Heat(2)));
    assert_eq!(world.get_mut::<Heat>(b).unwrap().added(), a_added);
}

#[test]
fn writes_through_queries_and_par_iter_land() {
    let mut world = World::new();
    let n = if cfg!(miri) { 64 } else { 1_000 };
    let entities: Vec<Entity> = (0..n)
        .map(|i| world.spawn((Vel(i), Heat(i))).id())
        .collect();
    for (mut v, mut h) in world.query::<(&mut Vel, &mut Heat)>().iter_mut(&mut world) {
        v.0 += 1;
        h.0 *= 2;
    }
    world
        .query::<&mut Vel>()
        .par_iter_mut(&mut world)
        .for_each(|mut v| v.0 *= 3);
    for (i, &e) in entities.iter().enumerate() {
        let i = i as i64;
        assert_eq!(world.get::<Vel>(e), Some(&Vel((i + 1) * 3)));
        assert_eq!(world.get::<Heat>(e), Some(&Heat(i * 2)));
    }
    // Clamping old ticks skips tickless columns and leaves values alone.
    for _ in 0..3 {
        world.increment_change_tick();
        world.check_change_ticks_now();
    }
    assert_eq!(world.get::<Vel>(entities[10]), Some(&Vel(33)));
}

#[test]
fn every_tickless_value_is_dropped_once() {
    let log = DropLog::default();
    let mut world = World::new();
    let entities: Vec<Entity> = (0..20)
        .map(|i| world.spawn((Owned(Payload::new(i, &log)), Pos(0))).id())
        .collect();
    for &e in entities.iter().step_by(2) {
        world.entity_mut(e).insert(Marker);
    }
    for &e in entities.iter().step_by(3) {
        world.entity_mut(e).remove::<Pos>();
    }
    for (i, &e) in entities.iter().enumerate() {
        assert_eq!(world.get::<Owned>(e).unwrap().0.id, i as u32);
    }
    world
        .entity_mut(entities[1])
        .insert(Owned(Payload::new(100, &log)));
    log.assert_dropped_once(&[1]);
    world.entity_mut(entities[2]).remove::<Owned>();
    log.assert_dropped_once(&[1, 2]);
    world.despawn(entities[4]);
    drop(world);
    let mut all: Vec<u32> = (0..20).collect();
    all.push(100);
    log.assert_dropped_once(&all);
    log.assert_no_double_drop();
}

/// Every term and call that reads change ticks refuses a tickless
/// component by name, and the world stays usable afterwards.
#[test]
fn reading_ticks_of_a_tickless_component_panics_naming_it() {
    let mut world = World::new();
    let e = world.spawn((Vel(1), Heat(2), Pos(3))).id();
    let cases: Vec<(&str, String)> = vec![
        (
            "`Changed<",
            expect_panic(|| world.query_filtered::<Entity, Changed<Vel>>()),
        ),
        (
            "`Added<",
            expect_panic(|| world.query_filtered::<Entity, Added<Heat>>()),
        ),
        ("`Ref<", expect_panic(|| world.query::<Ref<Vel>>())),
        // Its read-only iteration yields `Ref`.
        ("`Mut<", expect_panic(|| world.query::<Mut<Vel>>())),
        (
            "`Ref<",
            expect_panic(|| world.query::<(&Pos, Option<Ref<Heat>>)>()),
        ),
        ("`get_ref`", expect_panic(|| world.get_ref::<Vel>(e))),
        (
            "`get_ref`",
            expect_panic(|| world.entity(e).get_ref::<Heat>()),
        ),
        (
            "`get_ref`",
            expect_panic(|| world.entity_mut(e).get_ref::<Vel>().is_some()),
        ),
        (
            "`Changed<",
            expect_panic(|| {
                QueryBuilder::<Entity>::new(&mut world)
                    .filter::<Changed<Vel>>()
                    .build()
            }),
        ),
        (
            "`get_ref`",
            expect_panic(|| {
                let mut all = QueryBuilder::<FilteredEntityRef>::new(&mut world)
                    .data::<&Vel>()
                    .build();
                all.single(&world).unwrap().get_ref::<Vel>().is_some()
            }),
        ),
    ];
    for (term, message) in cases {
        assert!(message.starts_with(term), "{message}");
        assert!(message.contains("no_change_ticks::"), "{message}");
        assert!(
            message.contains("#[component(no_change_ticks)]"),
            "{message}"
        );
    }
    // A system with such a query fails when it is set up, naming it too.
    fn system(_: Query<Entity, Changed<Vel>>) {}
    let mut schedule = Schedule::default();
    schedule.add_systems(system);
    let message = expect_panic(|| schedule.run(&mut world));
    assert!(message.contains("no_change_ticks::Vel"), "{message}");
    // Terms of components with ticks beside them still work.
    assert_eq!(world.query::<Ref<Pos>>().iter(&world).count(), 1);
    assert_eq!(world.get::<Vel>(e), Some(&Vel(1)));
    integrity(&world);
}

/// A dynamic component can keep no ticks too; its values move like a typed
/// one's.
#[test]
fn dynamic_tickless_components_move_their_values() {
    let mut world = World::new();
    // SAFETY: `u64` values need no drop and are `Send + Sync`.
    let descriptor = unsafe {
        ComponentDescriptor::new_with_layout(
            "Speed",
            StorageType::Table,
            Layout::new::<u64>(),
            None,
        )
    }
    .with_change_ticks(false);
    let speed = world.register_component_with_descriptor(descriptor);
    assert!(!world
        .components()
        .get_info(speed)
        .unwrap()
        .has_change_ticks());
    let message = expect_panic(|| ComponentDescriptor::new::<Pos>().with_change_ticks(false));
    assert!(message.contains("no_change_ticks::Pos"), "{message}");
    let entities: Vec<Entity> = (0..10u64)
        .map(|i| {
            let mut entity = world.spawn(Pos(i as i64));
            OwningPtr::make(i * 7, |value| {
                // SAFETY: `value` owns a `u64`, the layout of `speed`.
                unsafe { entity.insert_by_id(speed, value) };
            });
            entity.id()
        })
        .collect();
    for &e in entities.iter().rev() {
        world.entity_mut(e).insert(Marker);
    }
    for (i, &e) in entities.iter().enumerate() {
        let ptr = world.entity(e).get_by_id(speed).unwrap();
        // SAFETY: the component holds `u64`s.
        assert_eq!(unsafe { *ptr.deref::<u64>() }, i as u64 * 7);
    }
}

#[test]
fn snapshots_restore_tickless_values() {
    let mut world = World::new();
    world.register_snapshot::<Vel>();
    world.register_snapshot::<Pos>();
    let entities: Vec<Entity> = (0..50)
        .map(|i| world.spawn((Vel(i), Pos(i))).id())
        .collect();
    let snapshot = world.snapshot();
    for (i, &e) in entities.iter().enumerate() {
        world.get_mut::<Vel>(e).unwrap().0 = -1;
        if i % 2 == 0 {
            world.entity_mut(e).remove::<Pos>();
        }
    }
    world.restore(&snapshot).unwrap();
    for (i, &e) in entities.iter().enumerate() {
        assert_eq!(world.get::<Vel>(e), Some(&Vel(i as i64)));
        assert_eq!(world.get::<Pos>(e), Some(&Pos(i as i64)));
    }
    integrity(&world);
}
