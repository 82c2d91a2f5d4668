//! `Query::par_iter_many_unique`, `par_iter_many_unique_mut` and `par_iter_many`;
//! `BatchingStrategy` on every parallel walk; `QueryParIter::for_each_init`.

mod common;

use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::sync::Mutex;

use common::panics::expect_panic;
use ecs::batching::BatchingStrategy;
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

#[test]
fn par_iter_many_reads_repeats_and_reports_errors() {
    let (mut world, entities) = world_with(40);
    world.entity_mut(entities[5]).insert(Frozen);
    let dead = entities[9];
    world.despawn(dead);
    // Every live entity three times, and the dead one once.
    let list: Vec<Entity> = entities
        .iter()
        .copied()
        .filter(|&e| e != dead)
        .cycle()
        .take(39 * 3)
        .chain([dead])
        .collect();
    for strategy in [
        BatchingStrategy::new(),
        BatchingStrategy::fixed(1),
        BatchingStrategy::fixed(7),
        BatchingStrategy::new()
            .batches_per_thread(5)
            .max_batch_size(4),
    ] {
        let total = AtomicU32::new(0);
        let errors = Mutex::new(Vec::new());
        let mut state = world.query_filtered::<&Health, Without<Frozen>>();
        state
            .query(&world)
            .par_iter_many(&list)
            .batching_strategy(strategy.clone())
            .for_each(|item| match item {
                Ok(health) => {
                    total.fetch_add(health.0, Ordering::Relaxed);
                }
                Err(error) => errors.lock().unwrap().push(error),
            });
        let live: u32 = (0..40).filter(|&i| i != 9 && i != 5).sum();
        assert_eq!(total.into_inner(), 3 * live, "{strategy:?}");
        let mut errors = errors.into_inner().unwrap();
        errors.sort_by_key(|e| format!("{e:?}"));
        assert_eq!(errors.len(), 4, "{strategy:?}: {errors:?}");
        assert!(errors
            .iter()
            .any(|e| matches!(e, QueryEntityError::NoSuchEntity(e) if *e == dead)));
        assert_eq!(
            errors
                .iter()
                .filter(
                    |e| matches!(e, QueryEntityError::QueryDoesNotMatch(e) if *e == entities[5])
                )
                .count(),
            3
        );
    }
}

#[test]
fn batching_strategies_size_the_batches_of_par_iter() {
    let (mut world, _) = world_with(100);
    let mut state = world.query::<&mut Health>();
    for (strategy, largest) in [
        (BatchingStrategy::fixed(8), 8),
        (BatchingStrategy::new().max_batch_size(5), 5),
        (BatchingStrategy::fixed(1000), 100),
    ] {
        let batch_lens = Mutex::new(Vec::new());
        struct Batch<'a>(usize, &'a Mutex<Vec<usize>>);
        impl Drop for Batch<'_> {
            fn drop(&mut self) {
                self.1.lock().unwrap().push(self.0);
            }
        }
        // Several threads, so the walk is cut into batches, each with
        // its own value.
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        pool.install(|| {
            state
                .par_iter_mut(&mut world)
                .batching_strategy(strategy.clone())
                .for_each_init(
                    || Batch(0, &batch_lens),
                    |batch, mut health| {
                        batch.0 += 1;
                        health.0 += 1;
                    },
                )
        });
        let lens = batch_lens.into_inner().unwrap();
        assert_eq!(lens.iter().sum::<usize>(), 100, "{strategy:?}");
        assert!(lens.iter().all(|&n| n <= largest), "{strategy:?}: {lens:?}");
        assert!(
            lens.len() >= 100usize.div_ceil(largest),
            "{strategy:?}: {lens:?}"
        );
    }
    let mut read = world.query::<&Health>();
    assert_eq!(
        read.iter(&world).map(|h| h.0).sum::<u32>(),
        (0..100).sum::<u32>() + 3 * 100
    );
}

#[test]
fn for_each_init_on_par_iter_panicking_leaves_the_world_consistent() {
    let (mut world, _) = world_with(50);
    let mut state = world.query::<&mut Health>();
    let message = expect_panic(|| {
        state.par_iter_mut(&mut world).batching(4).for_each_init(
            Vec::<u32>::new,
            |seen, mut health| {
                seen.push(health.0);
                health.0 += 100;
                if health.0 == 133 {
                    panic!("health 133 refused");
                }
            },
        );
    });
    assert!(message.contains("health 133 refused"), "{message}");
    world.check_integrity().unwrap();
    let mut read = world.query::<&Health>();
    assert_eq!(read.iter(&world).count(), 50);
    // Each value was raised at most once.
    assert!(read
        .iter(&world)
        .all(|h| h.0 < 50 || (100..150).contains(&h.0)));
}

#[test]
fn contiguous_par_iter_on_query_state() {
    let (mut world, _) = world_with(64);
    let mut state = world.query::<&mut Health>();
    state
        .contiguous_par_iter_mut(&mut world)
        .unwrap()
        .batching_strategy(BatchingStrategy::fixed(16))
        .for_each(|mut slice| {
            assert!(slice.len() <= 16);
            for health in slice.iter_mut() {
                health.0 *= 2;
            }
        });
    let total = AtomicU32::new(0);
    state
        .contiguous_par_iter(&world)
        .unwrap()
        .for_each(|slice| {
            total.fetch_add(slice.iter().map(|h| h.0).sum::<u32>(), Ordering::Relaxed);
        });
    assert_eq!(total.into_inner(), 2 * (0..64).sum::<u32>());
}

#[test]
fn batching_strategy_arithmetic() {
    assert_eq!(BatchingStrategy::default(), BatchingStrategy::new());
    assert_eq!(BatchingStrategy::new().calc_batch_size(|| 10, 3), 4);
    assert_eq!(BatchingStrategy::new().calc_batch_size(|| 0, 3), 1);
    assert_eq!(
        BatchingStrategy::new()
            .min_batch_size(50)
            .calc_batch_size(|| 10, 3),
        50
    );
    // A fixed size never asks for the item count.
    assert_eq!(
        BatchingStrategy::fixed(9).calc_batch_size(|| unreachable!(), 0),
        9
    );
    let message = expect_panic(|| {
        BatchingStrategy::new().batches_per_thread(0);
    });
    assert!(
        message.contains("at least one batch per thread"),
        "{message}"
    );
}

#[test]
fn message_walks_take_a_batching_strategy() {
    #[derive(Message)]
    struct Hit(u32);

    let mut messages = Messages::<Hit>::default();
    messages.write_batch((0..100).map(Hit));
    let mut cursor = messages.get_cursor();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(3)
        .build()
        .unwrap();
    pool.install(|| {
        cursor
            .par_read_mut(&mut messages)
            .batching_strategy(BatchingStrategy::fixed(7))
            .for_each(|hit| hit.0 += 1)
    });
    let total = AtomicU32::new(0);
    let mut reader = messages.get_cursor();
    pool.install(|| {
        reader
            .par_read(&messages)
            .batching_strategy(BatchingStrategy::new().batches_per_thread(4))
            .for_each(|hit| {
                total.fetch_add(hit.0, Ordering::Relaxed);
            })
    });
    assert_eq!(total.into_inner(), (1..=100).sum::<u32>());
    assert_eq!(reader.read(&messages).count(), 0, "all were read");
}
