//! The scenarios on `ecs` (this repository).

use crate::case::{case, fresh_world_case, Case};
use crate::check_all;
use crate::{
    approx_eq, heavy_work, ADD_REMOVE_N, FRAG_PER_TYPE, HEAVY_N, SCHEDULE_N, SIMPLE_N, WAVE,
};
use ecs::prelude::*;
use glam::{Mat4, Vec3};

/// The first of the four components of `simple_*` and `heavy_compute`.
#[derive(Component, Clone, Copy)]
pub struct Transform(pub Mat4);
/// Moved by `Velocity` in `simple_iter`.
#[derive(Component, Clone, Copy)]
pub struct Position(pub Vec3);
/// Spawned, never read: it widens the table.
#[derive(Component, Clone, Copy)]
pub struct Rotation(pub Vec3);
/// Added to `Position` in `simple_iter`.
#[derive(Component, Clone, Copy)]
pub struct Velocity(pub Vec3);

#[derive(Component, Clone, Copy)]
struct A(f32);
#[derive(Component, Clone, Copy)]
struct B(f32);
#[derive(Component, Clone, Copy)]
struct C(f32);
#[derive(Component, Clone, Copy)]
struct D(f32);
#[derive(Component, Clone, Copy)]
struct E(f32);
#[derive(Component, Clone, Copy)]
#[component(storage = "SparseSet")]
struct SparseB(#[allow(dead_code)] f32);

/// Spawns `n` entities with `Transform`, `Position`, `Rotation` and
/// `Velocity`, in one batch: the world of `simple_insert` and `simple_iter`.
pub fn spawn_simple(world: &mut World, n: usize) {
    world.spawn_batch((0..n).map(|_| {
        (
            Transform(Mat4::from_scale(Vec3::ONE)),
            Position(Vec3::X),
            Rotation(Vec3::X),
            Velocity(Vec3::X),
        )
    }));
}

/// `SIMPLE_N` entities spawned by `spawn_simple`, with its values.
fn check_simple(world: &mut World) {
    let mut q = world.query::<(&Transform, &Position, &Rotation, &Velocity)>();
    assert_eq!(q.iter(world).count(), SIMPLE_N);
    assert!(q
        .iter(world)
        .all(|(_, p, _, v)| p.0 == Vec3::X && v.0 == Vec3::X));
}

/// `simple_insert`: a new world, then one `spawn_batch`.
pub fn simple_insert() -> Box<dyn Case> {
    fresh_world_case(
        World::new,
        |world| spawn_simple(world, SIMPLE_N),
        check_simple,
    )
}

/// `spawn_waves`: a new world, then `simple_insert`'s entities spawned
/// in batches of [`WAVE`], as a game spawns a few each frame.
pub fn spawn_waves() -> Box<dyn Case> {
    fresh_world_case(
        World::new,
        |world| {
            for _ in 0..SIMPLE_N / WAVE {
                spawn_simple(world, WAVE);
            }
        },
        check_simple,
    )
}

struct SimpleIter {
    world: World,
    query: QueryState<(&'static Velocity, &'static mut Position)>,
}

fn simple_iter_for(s: &mut SimpleIter) {
    for (velocity, mut position) in s.query.iter_mut(&mut s.world) {
        position.0 += velocity.0;
    }
}

fn simple_iter_each_run(s: &mut SimpleIter) {
    s.query
        .iter_mut(&mut s.world)
        .for_each(|(velocity, mut position)| {
            position.0 += velocity.0;
        });
}

/// The `simple_iter` world and query, timed with `run` and checked to add
/// `Velocity` to every `Position` once per run.
fn simple_iter_case(run: impl Fn(&mut SimpleIter) + Copy + 'static) -> Box<dyn Case> {
    let mut world = World::new();
    spawn_simple(&mut world, SIMPLE_N);
    let query = world.query::<(&Velocity, &mut Position)>();
    case(SimpleIter { world, query }, run, move |s| {
        let mut read = s.world.query::<&Position>();
        let before: Vec<Vec3> = read.iter(&s.world).map(|p| p.0).collect();
        run(s);
        let after: Vec<Vec3> = read.iter(&s.world).map(|p| p.0).collect();
        assert_eq!(before.len(), SIMPLE_N);
        assert!(before.iter().zip(&after).all(|(b, a)| *a == *b + Vec3::X));
    })
}

/// `simple_iter`: a `for` loop over `(&Velocity, &mut Position)`.
pub fn simple_iter() -> Box<dyn Case> {
    simple_iter_case(simple_iter_for)
}

/// `simple_iter_each`: the same through `iter_mut(..).for_each`.
pub fn simple_iter_each() -> Box<dyn Case> {
    simple_iter_case(simple_iter_each_run)
}

#[derive(Component, Clone, Copy)]
struct Data(f32);

macro_rules! frag_world {
    ($($t:ident),*) => {{
        let mut world = World::new();
        $(
            #[derive(Component, Clone, Copy)]
            struct $t(#[allow(dead_code)] f32);
            world.spawn_batch((0..FRAG_PER_TYPE).map(|_| ($t(0.0), Data(1.0))));
        )*
        world
    }};
}

struct FragIter {
    world: World,
    query: QueryState<&'static mut Data>,
}

fn frag_iter_for(s: &mut FragIter) {
    for mut data in s.query.iter_mut(&mut s.world) {
        data.0 *= 2.0;
    }
}

fn frag_iter_each_run(s: &mut FragIter) {
    s.query
        .iter_mut(&mut s.world)
        .for_each(|mut data| data.0 *= 2.0);
}

/// The `frag_iter` world (26 archetypes) and query, timed with `run` and
/// checked to double every `Data` once per run.
fn frag_iter_case(run: impl Fn(&mut FragIter) + Copy + 'static) -> Box<dyn Case> {
    let mut world =
        frag_world!(A, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P, Q, R, S, T, U, V, W, X, Y, Z);
    let query = world.query::<&mut Data>();
    case(FragIter { world, query }, run, move |s| {
        s.query.for_each_mut(&mut s.world, |mut data| data.0 = 1.0);
        run(s);
        let mut read = s.world.query::<&Data>();
        assert_eq!(read.iter(&s.world).count(), 26 * FRAG_PER_TYPE);
        assert!(read.iter(&s.world).all(|d| d.0 == 2.0));
    })
}

/// `frag_iter`: a `for` loop doing `Data *= 2` over 26 archetypes.
pub fn frag_iter() -> Box<dyn Case> {
    frag_iter_case(frag_iter_for)
}

/// `frag_iter_each`: the same through `iter_mut(..).for_each`.
pub fn frag_iter_each() -> Box<dyn Case> {
    frag_iter_case(frag_iter_each_run)
}

struct Heavy {
    world: World,
    query: QueryState<(&'static mut Position, &'static mut Transform)>,
}

fn heavy_for(s: &mut Heavy) {
    for (mut pos, mut mat) in s.query.iter_mut(&mut s.world) {
        heavy_work(&mut pos.0, &mut mat.0);
    }
}

fn heavy_par(s: &mut Heavy) {
    s.query
        .par_iter_mut(&mut s.world)
        .for_each(|(mut pos, mut mat)| heavy_work(&mut pos.0, &mut mat.0));
}

/// The `heavy_compute` world and query, timed with `run` and checked to
/// apply [`heavy_work`] to every entity once per run.
fn heavy_case(run: impl Fn(&mut Heavy) + Copy + 'static) -> Box<dyn Case> {
    let mut world = World::new();
    world.spawn_batch((0..HEAVY_N).map(|_| {
        (
            Transform(Mat4::from_rotation_x(1.2)),
            Position(Vec3::X),
            Rotation(Vec3::X),
            Velocity(Vec3::X),
        )
    }));
    let query = world.query::<(&mut Position, &mut Transform)>();
    case(Heavy { world, query }, run, move |s| {
        s.query
            .for_each_mut(&mut s.world, |(mut pos, _)| pos.0 = Vec3::Y);
        run(s);
        let expected = Mat4::from_rotation_x(1.2).transform_vector3(Vec3::Y);
        let mut read = s.world.query::<&Position>();
        assert_eq!(read.iter(&s.world).count(), HEAVY_N);
        assert!(read.iter(&s.world).all(|p| approx_eq(p.0, expected)));
    })
}

/// `heavy_compute`: [`heavy_work`] in a `for` loop over `iter_mut`.
pub fn heavy_compute() -> Box<dyn Case> {
    heavy_case(heavy_for)
}

/// `heavy_compute_par`: [`heavy_work`] in `par_iter_mut(..).for_each`.
pub fn heavy_compute_par() -> Box<dyn Case> {
    heavy_case(heavy_par)
}

struct AddRemove {
    world: World,
    entities: Vec<Entity>,
}

fn add_remove_setup<Base: Component + Copy>(base: Base) -> AddRemove {
    let mut world = World::new();
    let entities = world.spawn_batch((0..ADD_REMOVE_N).map(|_| base)).collect();
    AddRemove { world, entities }
}

fn insert_all<T: Component + Copy>(s: &mut AddRemove, value: T) {
    for &e in &s.entities {
        s.world.entity_mut(e).insert(value);
    }
}

fn remove_all<T: Component>(s: &mut AddRemove) {
    for &e in &s.entities {
        s.world.entity_mut(e).remove::<T>();
    }
    s.world.clear_trackers();
}

fn verify_add_remove<Base: Component, T: Component + Copy>(s: &mut AddRemove, value: T) {
    insert_all(s, value);
    assert_eq!(
        s.world.query::<(&Base, &T)>().iter(&s.world).count(),
        ADD_REMOVE_N
    );
    remove_all::<T>(s);
    assert_eq!(s.world.query::<&T>().iter(&s.world).count(), 0);
    assert_eq!(
        s.world.query::<&Base>().iter(&s.world).count(),
        ADD_REMOVE_N
    );
}

/// Entities with `base`: insert `value` on every one, then remove it.
fn add_remove_case<Base: Component + Copy, T: Component + Copy>(
    base: Base,
    value: T,
) -> Box<dyn Case> {
    case(
        add_remove_setup(base),
        move |s| {
            insert_all(s, value);
            remove_all::<T>(s);
        },
        move |s| verify_add_remove::<Base, T>(s, value),
    )
}

/// `add_remove`: insert then remove a table component on every entity.
pub fn add_remove() -> Box<dyn Case> {
    add_remove_case(A(0.0), B(0.0))
}

/// `sparse_add_remove`: the same with a sparse-set component.
pub fn sparse_add_remove() -> Box<dyn Case> {
    add_remove_case(A(0.0), SparseB(0.0))
}

#[derive(Component, Clone, Copy)]
#[component(no_change_ticks)]
struct TicklessA(#[allow(dead_code)] f32);
#[derive(Component, Clone, Copy)]
#[component(no_change_ticks)]
struct TicklessB(#[allow(dead_code)] f32);

/// `add_remove_tickless`: `add_remove` with both components
/// `#[component(no_change_ticks)]`, so moves carry no change ticks.
pub fn add_remove_tickless() -> Box<dyn Case> {
    add_remove_case(TicklessA(0.0), TicklessB(0.0))
}

fn ab(mut query: Query<(&mut A, &mut B)>) {
    for (mut a, mut b) in &mut query {
        std::mem::swap(&mut a.0, &mut b.0);
    }
}

fn cd(mut query: Query<(&mut C, &mut D)>) {
    for (mut c, mut d) in &mut query {
        std::mem::swap(&mut c.0, &mut d.0);
    }
}

fn ce(mut query: Query<(&mut C, &mut E)>) {
    for (mut c, mut e) in &mut query {
        std::mem::swap(&mut c.0, &mut e.0);
    }
}

struct Sched {
    world: World,
    schedule: Schedule,
}

/// `schedule`: three systems on the default (parallel) schedule.
pub fn schedule() -> Box<dyn Case> {
    let mut world = World::new();
    world.spawn_batch((0..SCHEDULE_N).map(|_| (A(0.0), B(0.0))));
    world.spawn_batch((0..SCHEDULE_N).map(|_| (A(0.0), B(0.0), C(0.0))));
    world.spawn_batch((0..SCHEDULE_N).map(|_| (A(0.0), B(0.0), C(0.0), D(0.0))));
    world.spawn_batch((0..SCHEDULE_N).map(|_| (A(0.0), B(0.0), C(0.0), E(0.0))));
    let mut schedule = Schedule::default();
    schedule.add_systems((ab, cd, ce));
    case(
        Sched { world, schedule },
        |s| s.schedule.run(&mut s.world),
        |s| {
            let w = &mut s.world;
            for (mut a, mut b) in w.query::<(&mut A, &mut B)>().iter_mut(w) {
                a.0 = 1.0;
                b.0 = 2.0;
            }
            for mut c in w.query::<&mut C>().iter_mut(w) {
                c.0 = 3.0;
            }
            for mut d in w.query::<&mut D>().iter_mut(w) {
                d.0 = 4.0;
            }
            for mut e in w.query::<&mut E>().iter_mut(w) {
                e.0 = 5.0;
            }
            s.schedule.run(w);
            check_all!(w, (&A, &B), (a, b) => a.0 == 2.0 && b.0 == 1.0, 4 * SCHEDULE_N);
            check_all!(w, (&C, &D), (c, d) => c.0 == 4.0 && d.0 == 3.0, SCHEDULE_N);
            check_all!(w, (&C, &E), (c, e) => c.0 == 5.0 && e.0 == 3.0, SCHEDULE_N);
            check_all!(w, &C, filter (Without<D>, Without<E>), c => c.0 == 3.0, SCHEDULE_N);
        },
    )
}

mod nested {
    use ecs::prelude::*;
    crate::nested_sets_scenario!();
}
pub use nested::nested_sets;

mod message_scenario {
    use ecs::prelude::*;
    crate::messages_scenario!(ecs);
}
pub use message_scenario::messages;

struct SpawnDespawn {
    world: World,
    entities: Vec<Entity>,
}

fn spawn_all(s: &mut SpawnDespawn) {
    for _ in 0..SIMPLE_N {
        let e = s
            .world
            .spawn((Position(Vec3::X), Rotation(Vec3::X), Velocity(Vec3::X)))
            .id();
        s.entities.push(e);
    }
}

fn despawn_all(s: &mut SpawnDespawn) {
    for e in s.entities.drain(..) {
        s.world.despawn(e);
    }
    s.world.clear_trackers();
}

/// `spawn_despawn`: single spawns, then despawn them all.
pub fn spawn_despawn() -> Box<dyn Case> {
    let state = SpawnDespawn {
        world: World::new(),
        entities: Vec::with_capacity(SIMPLE_N),
    };
    case(
        state,
        |s| {
            spawn_all(s);
            despawn_all(s);
        },
        |s| {
            spawn_all(s);
            assert_eq!(s.world.entity_count(), SIMPLE_N);
            let mut q = s.world.query::<(&Position, &Rotation, &Velocity)>();
            assert_eq!(q.iter(&s.world).count(), SIMPLE_N);
            despawn_all(s);
            assert_eq!(s.world.entity_count(), 0);
        },
    )
}
