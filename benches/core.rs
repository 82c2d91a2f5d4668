//! Criterion benches of the ecs_bench_suite scenarios on `ecs` alone, for
//! profiling and for `cargo bench` users:
//!
//! ```text
//! cargo bench --bench core                 # every scenario
//! cargo bench --bench core -- add_remove   # one (criterion's name filter)
//! ```
//!
//! The scenarios are not written twice: they come from the
//! `ecs-scenarios` crate (`benches/scenarios`), which `benches/compare`
//! also times against bevy_ecs and hecs, so a scenario measured here is
//! exactly the one compared there. Each group times `ecs` and, where one
//! exists, the floor; after the timing, each case runs once more and
//! asserts what it did, as in the comparison. Ratios to the peers come from
//! `benches/compare` only (see `docs/compare.md`).

use criterion::{criterion_main, Criterion};
use ecs::prelude::*;
use ecs_scenarios::ours::{spawn_simple, Position, Velocity};
use ecs_scenarios::{floor, ours, Case, SIMPLE_N};

/// One criterion group per scenario: `ecs`, then the floor if there is
/// one. Each case's state is built once (as in the comparison), timed in
/// batches of criterion's choosing, then verified.
fn scenario(
    c: &mut Criterion,
    name: &str,
    ours: fn() -> Box<dyn Case>,
    floor: Option<fn() -> Box<dyn Case>>,
) {
    let mut group = c.benchmark_group(name);
    for (lib, build) in [("ecs", Some(ours)), ("floor", floor)] {
        let Some(build) = build else { continue };
        let mut case = build();
        group.bench_function(lib, |b| {
            b.iter_custom(|iters| {
                let iters = u32::try_from(iters).expect("a batch of at most u32::MAX iterations");
                case.run_batch(iters)
            })
        });
        case.verify();
    }
    group.finish();
}

fn scenarios(c: &mut Criterion) {
    scenario(c, "simple_insert", ours::simple_insert, None);
    scenario(
        c,
        "simple_iter",
        ours::simple_iter,
        Some(floor::simple_iter),
    );
    scenario(c, "frag_iter", ours::frag_iter, Some(floor::frag_iter));
    scenario(
        c,
        "heavy_compute",
        ours::heavy_compute,
        Some(floor::heavy_compute),
    );
    scenario(c, "add_remove", ours::add_remove, None);
    scenario(c, "add_remove_tickless", ours::add_remove_tickless, None);
    scenario(c, "sparse_add_remove", ours::sparse_add_remove, None);
    scenario(c, "schedule", ours::schedule, None);
    scenario(c, "nested_sets", ours::nested_sets, None);
    scenario(c, "messages", ours::messages, None);
    scenario(c, "spawn_despawn", ours::spawn_despawn, None);
    scenario(c, "spawn_waves", ours::spawn_waves, None);
    scenario(
        c,
        "relations",
        ecs_scenarios::relations::ours,
        Some(ecs_scenarios::relations::floor),
    );
}

/// `simple_iter` written as a `for` loop over `iter_mut` (the external
/// cursor), which the scenario's `for_each_mut` does not exercise.
fn simple_iter_external(c: &mut Criterion) {
    let mut world = World::new();
    spawn_simple(&mut world, SIMPLE_N);
    let mut query = world.query::<(&Velocity, &mut Position)>();
    c.bench_function("simple_iter/ecs_iter_mut", |b| {
        b.iter(|| {
            for (velocity, mut position) in query.iter_mut(&mut world) {
                position.0 += velocity.0;
            }
        })
    });
    let moved = query.iter(&world).filter(|(_, p)| p.0.x > 1.0).count();
    assert_eq!(moved, SIMPLE_N, "every position moved");
}

// In a private module: `criterion_group!` makes an undocumented `pub fn`.
mod group {
    use super::{scenarios, simple_iter_external};
    criterion::criterion_group!(benches, scenarios, simple_iter_external);
}
criterion_main!(group::benches);
