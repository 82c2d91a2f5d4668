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

#[derive(Component, Clone, Copy)]
struct Position([f32; 3]);
#[derive(Component, Clone, Copy)]
struct Velocity([f32; 3]);
#[derive(Component, Clone, Copy)]
struct Transform(#[allow(dead_code)] [f32; 16]);

/// `pos += vel` over 10,000 entities: external iteration, internal
/// iteration, and the floor (a hand-written loop over two Vecs).
fn simple_iter(c: &mut Criterion) {
    let mut world = World::new();
    world.spawn_batch((0..10_000).map(|i| {
        (
            Transform([1.0; 16]),
            Position([i as f32; 3]),
            Velocity([1.0, 0.5, 0.25]),
        )
    }));
    let mut query = world.query::<(&Velocity, &mut Position)>();
    let mut group = c.benchmark_group("simple_iter");
    group.bench_function("iter_mut", |b| {
        b.iter(|| {
            for (v, mut p) in query.iter_mut(&mut world) {
                p.0[0] += v.0[0];
                p.0[1] += v.0[1];
                p.0[2] += v.0[2];
            }
        })
    });
    group.bench_function("for_each", |b| {
        b.iter(|| {
            query.iter_mut(&mut world).for_each(|(v, mut p)| {
                p.0[0] += v.0[0];
                p.0[1] += v.0[1];
                p.0[2] += v.0[2];
            })
        })
    });
    let velocities = vec![Velocity([1.0, 0.5, 0.25]); 10_000];
    let mut positions: Vec<Position> = (0..10_000).map(|i| Position([i as f32; 3])).collect();
    group.bench_function("vec_floor", |b| {
        b.iter(|| {
            for (v, p) in velocities.iter().zip(positions.iter_mut()) {
                p.0[0] += v.0[0];
                p.0[1] += v.0[1];
                p.0[2] += v.0[2];
            }
            black_box(&mut positions);
        })
    });
    group.finish();
}

criterion_group!(benches, simple_iter, spawn_batch, add_remove, spawn_despawn);
criterion_main!(benches);
