//! `Query::par_iter_many_unique` and `par_iter_many_unique_mut`.

mod common;

use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::sync::Mutex;

use common::panics::expect_panic;
use ecs::entity::{EntityHashSet, UniqueEntityVec};
use ecs::prelude::*;
use ecs::query::QueryEntityError;

#[derive(Component, Debug, PartialEq)]
struct Health(u32);

#[derive(Component)]
struct Frozen;

fn world_with(n: u32) -> (World, Vec<Entity>) {
    let mut world = World::new();
    let entities = (0..n).map(|i| world.spawn(Health(i)).id()).collect();
    (world, entities)
}

#[test]
fn reads_exactly_the_items_of_the_set() {
    let (mut world, entities) = world_with(100);
    let set: EntityHashSet = entities.iter().copied().step_by(2).collect();
    let expected: u32 = (0..100).step_by(2).sum();
    for batch in [1, 3, 1000] {
        let total = AtomicU32::new(0);
        let count = AtomicUsize::new(0);
        let mut state = world.query::<&Health>();
        state
            .query(&world)
            .par_iter_many_unique(&set)
            .batching(batch)
            .for_each(|health| {
                total.fetch_add(health.unwrap().0, Ordering::Relaxed);
                count.fetch_add(1, Ordering::Relaxed);
            });
        assert_eq!(total.into_inner(), expected, "batch size {batch}");
        assert_eq!(count.into_inner(), 50);
    }
    world.check_integrity().unwrap();
}

#[test]
fn writes_every_item_of_the_set_once() {
    let (mut world, entities) = world_with(64);
    let set: UniqueEntityVec = entities[..40]
        .iter()
        .copied()
        .collect::<EntityHashSet>()
        .into();
    let mut state = world.query::<&mut Health>();
    state
        .query_mut(&mut world)
        .par_iter_many_unique_mut(set)
        .batching(5)
        .for_each(|health| health.unwrap().0 += 1000);
    for (i, &e) in entities.iter().enumerate() {
        let bump = if i < 40 { 1000 } else { 0 };
        assert_eq!(world.get::<Health>(e), Some(&Health(i as u32 + bump)));
    }
}

#[test]
fn entities_the_query_cannot_return_give_errors() {
    let (mut world, entities) = world_with(4);
    world.entity_mut(entities[1]).insert(Frozen);
    let despawned = world.spawn(Health(9)).id();
    world.despawn(despawned);
    let set: EntityHashSet = entities.iter().copied().chain([despawned]).collect();
    let errors = Mutex::new(Vec::new());
    let found = AtomicUsize::new(0);
    let mut state = world.query_filtered::<&Health, Without<Frozen>>();
    state
        .query(&world)
        .par_iter_many_unique(&set)
        .batching(1)
        .for_each(|item| match item {
            Ok(_) => {
                found.fetch_add(1, Ordering::Relaxed);
            }
            Err(error) => errors.lock().unwrap().push(error),
        });
    assert_eq!(found.into_inner(), 3);
    let errors = errors.into_inner().unwrap();
    assert_eq!(errors.len(), 2);
    assert!(errors
        .iter()
        .any(|e| matches!(e, QueryEntityError::QueryDoesNotMatch(e) if *e == entities[1])));
    assert!(errors
        .iter()
        .any(|e| !matches!(e, QueryEntityError::QueryDoesNotMatch(..))));
}

#[test]
fn for_each_init_makes_a_value_per_batch() {
    let (mut world, entities) = world_with(30);
    let set: EntityHashSet = entities.iter().copied().collect();
    let inits = AtomicUsize::new(0);
    let seen = AtomicUsize::new(0);
    let mut state = world.query::<&Health>();
    state
        .query(&world)
        .par_iter_many_unique(&set)
        .batching(10)
        .for_each_init(
            || {
                inits.fetch_add(1, Ordering::Relaxed);
                Vec::new()
            },
            |local: &mut Vec<u32>, item| {
                local.push(item.unwrap().0);
                assert!(local.len() <= 10, "a value lives for one batch");
                seen.fetch_add(1, Ordering::Relaxed);
            },
        );
    assert_eq!(seen.into_inner(), 30);
    let inits = inits.into_inner();
    assert!((1..=3).contains(&inits), "{inits} inits");
}

#[test]
fn works_as_a_system_parameter() {
    #[derive(Resource)]
    struct Targets(EntityHashSet);

    fn heal(mut query: Query<&mut Health>, targets: Res<Targets>) {
        query
            .par_iter_many_unique_mut(&targets.0)
            .for_each(|health| health.unwrap().0 += 1);
    }

    let (mut world, entities) = world_with(3);
    world.insert_resource(Targets([entities[0], entities[2]].into_iter().collect()));
    world.run_system_once(heal).unwrap();
    assert_eq!(world.get::<Health>(entities[0]), Some(&Health(1)));
    assert_eq!(world.get::<Health>(entities[1]), Some(&Health(1)));
    assert_eq!(world.get::<Health>(entities[2]), Some(&Health(3)));
}

#[test]
fn a_panicking_callback_leaves_the_world_consistent() {
    let (mut world, entities) = world_with(20);
    let set: EntityHashSet = entities.iter().copied().collect();
    let mut state = world.query::<&mut Health>();
    let message = expect_panic(|| {
        state
            .query_mut(&mut world)
            .par_iter_many_unique_mut(&set)
            .batching(2)
            .for_each(|health| {
                let mut health = health.unwrap();
                health.0 += 1;
                if health.0 == 7 {
                    panic!("health 7 refused");
                }
            });
    });
    assert!(message.contains("health 7 refused"), "{message}");
    world.check_integrity().unwrap();
    let mut state = world.query::<&Health>();
    assert_eq!(state.iter(&world).count(), 20);
}

#[test]
fn a_zero_batch_size_panics() {
    let (world, entities) = world_with(1);
    let set: EntityHashSet = entities.into_iter().collect();
    let mut world = world;
    let mut state = world.query::<&Health>();
    let message = expect_panic(|| {
        state.query(&world).par_iter_many_unique(&set).batching(0);
    });
    assert!(message.contains("batch size"), "{message}");
}
