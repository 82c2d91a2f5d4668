//! Criterion benches of the core operations on `ecs` alone.
use criterion::{black_box, criterion_group, criterion_main, Criterion};
use ecs::prelude::*;

#[derive(Component, Clone, Copy)]
struct A(#[allow(dead_code)] f32);
#[derive(Component, Clone, Copy)]
struct B(#[allow(dead_code)] f32);
#[derive(Component, Clone, Copy)]
#[component(storage = "SparseSet")]
struct S(#[allow(dead_code)] f32);

fn spawn_batch(c: &mut Criterion) {
    c.bench_function("spawn_batch_10k", |b| {
        b.iter(|| {
            let mut world = World::new();
            world.spawn_batch((0..10_000).map(|i| (A(i as f32), B(0.0))));
            black_box(world.entity_count())
        })
    });
}

fn add_remove(c: &mut Criterion) {
    let mut world = World::new();
    let entities: Vec<_> = world
        .spawn_batch((0..10_000).map(|i| A(i as f32)))
        .collect();
    c.bench_function("add_remove_table_10k", |b| {
        b.iter(|| {
            for &e in &entities {
                world.entity_mut(e).insert(B(1.0));
            }
            for &e in &entities {
                world.entity_mut(e).remove::<B>();
            }
        })
    });
    c.bench_function("add_remove_sparse_10k", |b| {
        b.iter(|| {
            for &e in &entities {
                world.entity_mut(e).insert(S(1.0));
            }
            for &e in &entities {
                world.entity_mut(e).remove::<S>();
            }
        })
    });
}

fn spawn_despawn(c: &mut Criterion) {
    c.bench_function("spawn_despawn_10k", |b| {
        let mut world = World::new();
        let mut entities = Vec::with_capacity(10_000);
        b.iter(|| {
            for i in 0..10_000 {
                entities.push(world.spawn((A(i as f32), B(0.0), S(0.0))).id());
            }
            for e in entities.drain(..) {
                world.despawn(e);
            }
        })
    });
}

criterion_group!(benches, spawn_batch, add_remove, spawn_despawn);
criterion_main!(benches);
