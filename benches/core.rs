//! Criterion benches of the ecs_bench_suite scenarios on `ecs` alone, for
//! profiling and for `cargo bench` users:
//!
//! ```text
//! cargo bench --bench core                 # every scenario
//! cargo bench --bench core -- add_remove   # one (criterion's name filter)
//! ```
//!
//! The scenarios are not written twice: this bench compiles the compare
//! crate's own code for `ecs` (`benches/compare/src/ours.rs`), its sizes and
//! shared work (`params.rs`), its hand-written `Vec` loops (`floor.rs`) and
//! the `Case` type they are built on (`harness.rs`), so a scenario measured
//! here is exactly the one `benches/compare` times against bevy_ecs and
//! hecs. Each group times `ecs` and, where one exists, the floor; after the
//! timing, each case runs once more and asserts what it did, as in the
//! comparison. Ratios to the peers come from `benches/compare` only (see
//! `docs/PERFORMANCE.md`).

use criterion::{criterion_group, criterion_main, Criterion};
use ecs::prelude::*;
use glam::{Mat4, Vec3};

// `params` first: its `check_all!` macro is used by the modules after it.
#[macro_use]
#[path = "compare/src/params.rs"]
mod params;
// The measuring half of the harness (rounds, medians) is the comparison's
// own; only `Case` and `case` are used here.
#[allow(dead_code)]
#[path = "compare/src/harness.rs"]
mod harness;

#[path = "compare/src/floor.rs"]
mod floor;
#[path = "compare/src/ours.rs"]
mod ours;

use harness::Case;
use params::*;

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
    scenario(c, "sparse_add_remove", ours::sparse_add_remove, None);
    scenario(c, "schedule", ours::schedule, None);
    scenario(c, "spawn_despawn", ours::spawn_despawn, None);
}

#[derive(Component, Clone, Copy)]
struct Transform(#[allow(dead_code)] Mat4);
#[derive(Component, Clone, Copy)]
struct Position(Vec3);
#[derive(Component, Clone, Copy)]
struct Rotation(#[allow(dead_code)] Vec3);
#[derive(Component, Clone, Copy)]
struct Velocity(Vec3);

/// `simple_iter` written as a `for` loop over `iter_mut` (the external
/// cursor), which the scenario's `for_each_mut` does not exercise.
fn simple_iter_external(c: &mut Criterion) {
    let mut world = World::new();
    // The scenario's entities: four components, two of them read.
    world.spawn_batch((0..SIMPLE_N).map(|_| {
        (
            Transform(Mat4::from_scale(Vec3::ONE)),
            Position(Vec3::X),
            Rotation(Vec3::X),
            Velocity(Vec3::X),
        )
    }));
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

criterion_group!(benches, scenarios, simple_iter_external);
criterion_main!(benches);
