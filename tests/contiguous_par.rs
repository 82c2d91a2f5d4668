//! `Query::contiguous_par_iter` and `contiguous_par_iter_mut`.

mod common;

use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};

use common::panics::expect_panic;
use ecs::prelude::*;
use ecs::query::QueryNotDenseError;

#[derive(Component, Debug, PartialEq)]
struct Health(u32);

#[derive(Component)]
struct Marker;

#[derive(Component)]
#[component(storage = "SparseSet")]
struct Sparse;

/// 60 entities over two tables (with and without `Marker`).
fn world() -> World {
    let mut world = World::new();
    world.spawn_batch((0..40).map(Health));
    world.spawn_batch((40..60).map(|i| (Health(i), Marker)));
    world
}

#[test]
fn every_row_is_seen_once_in_batches() {
    let mut world = world();
    for batch in [1, 7, 25, 1000] {
        let total = AtomicU32::new(0);
        let rows = AtomicUsize::new(0);
        let mut state = world.query::<(Entity, &Health)>();
        state
            .query(&world)
            .contiguous_par_iter()
            .unwrap()
            .batching(batch)
            .for_each(|(entities, health)| {
                assert_eq!(entities.len(), health.len());
                assert!(!health.is_empty() && health.len() <= batch);
                for (e, h) in entities.iter().zip(health) {
                    assert_eq!(world.get::<Health>(*e), Some(h));
                }
                total.fetch_add(health.iter().map(|h| h.0).sum(), Ordering::Relaxed);
                rows.fetch_add(health.len(), Ordering::Relaxed);
            });
        assert_eq!(total.into_inner(), (0..60).sum(), "batch size {batch}");
        assert_eq!(rows.into_inner(), 60);
    }
}

#[test]
fn writes_reach_every_row_and_mark_it_changed() {
    let mut world = world();
    world.clear_trackers();
    let mut state = world.query::<&mut Health>();
    state
        .query_mut(&mut world)
        .contiguous_par_iter_mut()
        .unwrap()
        .batching(9)
        .for_each(|mut health| {
            for h in health.iter_mut() {
                h.0 *= 2;
            }
        });
    let mut values: Vec<u32> = world.query::<&Health>().iter(&world).map(|h| h.0).collect();
    values.sort_unstable();
    assert_eq!(values, (0..60).map(|i| i * 2).collect::<Vec<_>>());
    let mut changed = world.query_filtered::<(), Changed<Health>>();
    assert_eq!(changed.iter(&world).count(), 60);
}

#[test]
fn an_untouched_batch_is_not_marked_changed() {
    let mut world = world();
    world.clear_trackers();
    let mut state = world.query_filtered::<&mut Health, With<Marker>>();
    state
        .query_mut(&mut world)
        .contiguous_par_iter_mut()
        .unwrap()
        .batching(5)
        .for_each(|mut health| {
            // Writes only the batches starting at a multiple of 10.
            if health.bypass_change_detection()[0].0 % 10 == 0 {
                health[0].0 += 1;
            }
        });
    let mut changed = world.query_filtered::<&Health, Changed<Health>>();
    let mut marked: Vec<u32> = changed.iter(&world).map(|h| h.0).collect();
    marked.sort_unstable();
    // Batches of 5 rows over 40..60; those starting at 40 and 50 were
    // written, and each marks its own rows only.
    assert_eq!(marked, [41, 41, 42, 43, 44, 51, 51, 52, 53, 54]);
}

#[test]
fn for_each_init_makes_a_value_per_batch() {
    let mut world = world();
    let inits = AtomicUsize::new(0);
    let mut state = world.query::<&Health>();
    state
        .query(&world)
        .contiguous_par_iter()
        .unwrap()
        .batching(10)
        .for_each_init(
            || {
                inits.fetch_add(1, Ordering::Relaxed);
            },
            |_, health| assert!(health.len() <= 10),
        );
    let inits = inits.into_inner();
    assert!(inits == 1 || inits == 6, "{inits} inits");
}

#[test]
fn a_sparse_query_is_not_dense() {
    let mut world = world();
    world.spawn((Health(1), Sparse));
    let mut state = world.query_filtered::<&Health, With<Sparse>>();
    let result: Result<_, QueryNotDenseError> =
        state.query(&world).contiguous_par_iter().map(|_| ());
    assert!(result.is_err());
}

#[test]
fn a_panicking_callback_leaves_the_world_consistent() {
    let mut world = world();
    let mut state = world.query::<&mut Health>();
    let message = expect_panic(|| {
        state
            .query_mut(&mut world)
            .contiguous_par_iter_mut()
            .unwrap()
            .batching(4)
            .for_each(|mut health| {
                if health.iter().any(|h| h.0 == 13) {
                    panic!("unlucky batch");
                }
                health[0].0 += 100;
            });
    });
    assert!(message.contains("unlucky batch"), "{message}");
    world.check_integrity().unwrap();
    assert_eq!(world.query::<&Health>().iter(&world).count(), 60);
}
