//! `#[derive(MapEntities)]` and `SceneEntityMapper`.

mod common;

use common::panics::expect_panic;
use ecs::entity::{EntityHashMap, EntityMapper, MapEntities, SceneEntityMapper};
use ecs::prelude::*;

#[derive(MapEntities, Debug, PartialEq)]
struct Named {
    #[entities]
    target: Entity,
    #[entities]
    many: Vec<Entity>,
    #[entities]
    maybe: Option<Entity>,
    untouched: Entity,
}

#[derive(MapEntities, Debug, PartialEq)]
struct Tuple(#[entities] Entity, Entity);

#[derive(MapEntities, Debug, PartialEq)]
struct Unit;

#[derive(MapEntities, Debug, PartialEq)]
enum Order<T> {
    Follow(#[entities] Entity, T),
    Guard {
        #[entities]
        post: Entity,
        radius: T,
    },
    Idle,
}

/// A component deriving both: the component's cloning uses the same
/// marked fields.
#[derive(Component, MapEntities, Clone, Debug, PartialEq)]
struct Target(#[entities] Entity);

fn entities() -> (Entity, Entity, Entity) {
    (
        Entity::from_raw(1),
        Entity::from_raw(2),
        Entity::from_raw(3),
    )
}

#[test]
fn the_derive_maps_marked_fields_only() {
    let (a, b, c) = entities();
    let mut map = EntityHashMap::default();
    map.insert(a, b);
    map.insert(c, b);

    let mut named = Named {
        target: a,
        many: vec![a, c, b],
        maybe: Some(c),
        untouched: a,
    };
    named.map_entities(&mut map);
    assert_eq!(
        named,
        Named {
            target: b,
            many: vec![b, b, b],
            maybe: Some(b),
            untouched: a,
        }
    );

    let mut tuple = Tuple(a, a);
    tuple.map_entities(&mut map);
    assert_eq!(tuple, Tuple(b, a));

    let mut unit = Unit;
    unit.map_entities(&mut map);

    let mut follow = Order::Follow(a, 5u8);
    follow.map_entities(&mut map);
    assert_eq!(follow, Order::Follow(b, 5));
    let mut guard = Order::Guard {
        post: c,
        radius: 2.0f32,
    };
    guard.map_entities(&mut map);
    assert_eq!(
        guard,
        Order::Guard {
            post: b,
            radius: 2.0
        }
    );
    let mut idle = Order::<u8>::Idle;
    idle.map_entities(&mut map);
    assert_eq!(idle, Order::Idle);
}

#[test]
fn a_component_deriving_both_is_remapped_when_cloned() {
    let mut world = World::new();
    let a = world.spawn_empty().id();
    let b = world.spawn_empty().id();
    let mut target = Target(a);
    target.map_entities(&mut (a, b));
    assert_eq!(target, Target(b));
    let source = world.spawn_empty().id();
    world.entity_mut(source).insert(Target(source));
    let copy = world.entity_mut(source).clone_and_spawn();
    // The clone's self-reference points at the clone.
    assert_eq!(world.get::<Target>(copy), Some(&Target(copy)));
}

#[test]
fn scene_mapper_hands_out_dead_entities_on_one_index() {
    let mut world = World::new();
    let live = world.spawn_empty().id();
    let mut map = EntityHashMap::default();
    let (a, b, _) = entities();
    let mut mapper = SceneEntityMapper::new(&mut map, &mut world);
    mapper.set_mapped(live, live);
    let dead_a = mapper.get_mapped(a);
    assert_eq!(mapper.get_mapped(a), dead_a, "the mapping is remembered");
    let dead_b = mapper.get_mapped(b);
    assert_eq!(
        dead_b.index(),
        dead_a.index(),
        "one index for every dead handle"
    );
    assert_ne!(dead_b, dead_a);
    assert_eq!(mapper.get_mapped(live), live);
    assert_eq!(mapper.get_map().len(), 3);
    mapper.get_map_mut().remove(&live);
    assert_eq!(mapper.get_map().len(), 2);
    // Entities spawned meanwhile never take the mapper's index.
    let meanwhile = world.spawn_empty().id();
    assert_ne!(meanwhile.index(), dead_a.index());
    mapper.finish(&mut world);

    assert!(!world.entities().contains(dead_a));
    assert!(!world.entities().contains(dead_b));
    let reused = world.spawn_empty().id();
    assert_eq!(reused.index(), dead_a.index());
    assert!(reused.generation() > dead_a.generation());
    assert!(reused.generation() > dead_b.generation());
    assert_eq!(map.len(), 2);
    world.check_integrity().unwrap();
}

#[test]
fn world_scope_returns_the_index_and_the_result() {
    let mut world = World::new();
    let mut map = EntityHashMap::default();
    let (a, _, _) = entities();
    let (dead, spawned) = SceneEntityMapper::world_scope(&mut map, &mut world, |world, mapper| {
        let spawned = world.spawn_empty().id();
        mapper.set_mapped(Entity::from_raw(9), spawned);
        (mapper.get_mapped(a), spawned)
    });
    assert_eq!(map[&a], dead);
    assert_eq!(map[&Entity::from_raw(9)], spawned);
    assert!(world.entities().contains(spawned));
    let reused = world.spawn_empty().id();
    assert_eq!(reused.index(), dead.index());
    assert!(reused.generation() > dead.generation());
    world.check_integrity().unwrap();
}

#[test]
fn a_mapper_that_hands_out_nothing_still_returns_its_index() {
    let mut world = World::new();
    let mut map = EntityHashMap::default();
    let before = world.entities().total_count();
    SceneEntityMapper::world_scope(&mut map, &mut world, |_, _| {});
    let e = world.spawn_empty().id();
    assert_eq!(
        world.entities().total_count(),
        before.max(e.index() as usize + 1)
    );
    assert_eq!(world.entity_count(), 1);
    world.check_integrity().unwrap();
}

#[test]
fn a_panicking_scope_still_returns_the_index() {
    let mut world = World::new();
    let mut map = EntityHashMap::default();
    let mut dead = None;
    let message = expect_panic(|| {
        SceneEntityMapper::world_scope(&mut map, &mut world, |_, mapper| {
            dead = Some(mapper.get_mapped(Entity::from_raw(5)));
            panic!("scene load failed");
        })
    });
    assert!(message.contains("scene load failed"), "{message}");
    let dead = dead.unwrap();
    let reused = world.spawn_empty().id();
    assert_eq!(reused.index(), dead.index());
    assert!(reused.generation() > dead.generation());
    world.check_integrity().unwrap();
}
