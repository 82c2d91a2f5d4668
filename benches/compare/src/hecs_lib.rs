//! The scenarios on hecs, written as a hecs user writes them: `World`,
//! `query_mut`, `spawn_batch`, `insert_one` / `remove_one`, and rayon over
//! `iter_batched` batches for the parallel scenario. hecs has no scheduler
//! and no sparse-set storage: `schedule` runs its three systems one after
//! the other, and `sparse_add_remove` does not run on hecs.

use ecs_scenarios::{
    approx_eq, case, fresh_world_case, heavy_work, Case, ADD_REMOVE_N, FRAG_PER_TYPE, HEAVY_N,
    SCHEDULE_N, SIMPLE_N, WAVE,
};
use glam::{Mat4, Vec3};
use hecs::{Entity, World};
use rayon::prelude::*;

#[derive(Clone, Copy)]
struct Transform(Mat4);
#[derive(Clone, Copy)]
struct Position(Vec3);
#[derive(Clone, Copy)]
struct Rotation(#[allow(dead_code)] Vec3);
#[derive(Clone, Copy)]
struct Velocity(Vec3);

#[derive(Clone, Copy)]
struct A(f32);
#[derive(Clone, Copy)]
struct B(f32);
#[derive(Clone, Copy)]
struct C(f32);
#[derive(Clone, Copy)]
struct D(f32);
#[derive(Clone, Copy)]
struct E(f32);

fn spawn_simple(world: &mut World, n: usize) {
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
    let mut n = 0;
    for (_, p, _, v) in world.query_mut::<(&Transform, &Position, &Rotation, &Velocity)>() {
        assert!(p.0 == Vec3::X && v.0 == Vec3::X);
        n += 1;
    }
    assert_eq!(n, SIMPLE_N);
}

pub fn simple_insert() -> Box<dyn Case> {
    fresh_world_case(
        World::new,
        |world| spawn_simple(world, SIMPLE_N),
        check_simple,
    )
}

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

fn simple_iter_for(world: &mut World) {
    for (velocity, position) in world.query_mut::<(&Velocity, &mut Position)>() {
        position.0 += velocity.0;
    }
}

fn simple_iter_each_run(world: &mut World) {
    world
        .query_mut::<(&Velocity, &mut Position)>()
        .into_iter()
        .for_each(|(velocity, position)| position.0 += velocity.0);
}

fn simple_iter_case(run: impl Fn(&mut World) + Copy + 'static) -> Box<dyn Case> {
    let mut world = World::new();
    spawn_simple(&mut world, SIMPLE_N);
    case(world, run, move |world| {
        let before: Vec<Vec3> = world
            .query_mut::<&Position>()
            .into_iter()
            .map(|p| p.0)
            .collect();
        run(world);
        let after: Vec<Vec3> = world
            .query_mut::<&Position>()
            .into_iter()
            .map(|p| p.0)
            .collect();
        assert_eq!(before.len(), SIMPLE_N);
        assert!(before.iter().zip(&after).all(|(b, a)| *a == *b + Vec3::X));
    })
}

pub fn simple_iter() -> Box<dyn Case> {
    simple_iter_case(simple_iter_for)
}

pub fn simple_iter_each() -> Box<dyn Case> {
    simple_iter_case(simple_iter_each_run)
}

#[derive(Clone, Copy)]
struct Data(f32);

macro_rules! frag_world {
    ($($t:ident),*) => {{
        let mut world = World::new();
        $(
            #[derive(Clone, Copy)]
            struct $t(#[allow(dead_code)] f32);
            world.spawn_batch((0..FRAG_PER_TYPE).map(|_| ($t(0.0), Data(1.0))));
        )*
        world
    }};
}

fn frag_for(world: &mut World) {
    for data in world.query_mut::<&mut Data>() {
        data.0 *= 2.0;
    }
}

fn frag_each(world: &mut World) {
    world
        .query_mut::<&mut Data>()
        .into_iter()
        .for_each(|data| data.0 *= 2.0);
}

fn frag_iter_case(run: impl Fn(&mut World) + Copy + 'static) -> Box<dyn Case> {
    let world =
        frag_world!(A, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P, Q, R, S, T, U, V, W, X, Y, Z);
    case(world, run, move |world| {
        for data in world.query_mut::<&mut Data>() {
            data.0 = 1.0;
        }
        run(world);
        let mut n = 0;
        for data in world.query_mut::<&Data>() {
            assert_eq!(data.0, 2.0);
            n += 1;
        }
        assert_eq!(n, 26 * FRAG_PER_TYPE);
    })
}

pub fn frag_iter() -> Box<dyn Case> {
    frag_iter_case(frag_for)
}

pub fn frag_iter_each() -> Box<dyn Case> {
    frag_iter_case(frag_each)
}

fn heavy_for(world: &mut World) {
    for (pos, mat) in world.query_mut::<(&mut Position, &mut Transform)>() {
        heavy_work(&mut pos.0, &mut mat.0);
    }
}

fn heavy_par(world: &mut World) {
    let mut query = world.query::<(&mut Position, &mut Transform)>();
    let batches: Vec<_> = query.iter_batched(64).collect();
    batches.into_par_iter().for_each(|batch| {
        for (pos, mat) in batch {
            heavy_work(&mut pos.0, &mut mat.0);
        }
    });
}

fn heavy_case(run: impl Fn(&mut World) + Copy + 'static) -> Box<dyn Case> {
    let mut world = World::new();
    world.spawn_batch((0..HEAVY_N).map(|_| {
        (
            Transform(Mat4::from_rotation_x(1.2)),
            Position(Vec3::X),
            Rotation(Vec3::X),
            Velocity(Vec3::X),
        )
    }));
    case(world, run, move |world| {
        for pos in world.query_mut::<&mut Position>() {
            pos.0 = Vec3::Y;
        }
        run(world);
        let expected = Mat4::from_rotation_x(1.2).transform_vector3(Vec3::Y);
        let mut n = 0;
        for pos in world.query_mut::<&Position>() {
            assert!(approx_eq(pos.0, expected));
            n += 1;
        }
        assert_eq!(n, HEAVY_N);
    })
}

pub fn heavy_compute() -> Box<dyn Case> {
    heavy_case(heavy_for)
}

pub fn heavy_compute_par() -> Box<dyn Case> {
    heavy_case(heavy_par)
}

struct AddRemove {
    world: World,
    entities: Vec<Entity>,
}

fn insert_all(s: &mut AddRemove) {
    for &e in &s.entities {
        s.world.insert_one(e, B(0.0)).unwrap();
    }
}

fn remove_all(s: &mut AddRemove) {
    for &e in &s.entities {
        s.world.remove_one::<B>(e).unwrap();
    }
}

/// `add_remove_tickless`: hecs has no components without change ticks,
/// so its case is `add_remove`'s.
pub fn add_remove_tickless() -> Box<dyn Case> {
    add_remove()
}

pub fn add_remove() -> Box<dyn Case> {
    let mut world = World::new();
    let entities = world
        .spawn_batch((0..ADD_REMOVE_N).map(|_| (A(0.0),)))
        .collect();
    case(
        AddRemove { world, entities },
        |s| {
            insert_all(s);
            remove_all(s);
        },
        |s| {
            insert_all(s);
            assert_eq!(
                s.world.query_mut::<(&A, &B)>().into_iter().count(),
                ADD_REMOVE_N
            );
            remove_all(s);
            assert_eq!(s.world.query_mut::<&B>().into_iter().count(), 0);
            assert_eq!(s.world.query_mut::<&A>().into_iter().count(), ADD_REMOVE_N);
        },
    )
}

/// The three systems of the bevy and ecs schedules, run one after the other
/// (hecs has no scheduler).
fn schedule_run(world: &mut World) {
    for (a, b) in world.query_mut::<(&mut A, &mut B)>() {
        std::mem::swap(&mut a.0, &mut b.0);
    }
    for (c, d) in world.query_mut::<(&mut C, &mut D)>() {
        std::mem::swap(&mut c.0, &mut d.0);
    }
    for (c, e) in world.query_mut::<(&mut C, &mut E)>() {
        std::mem::swap(&mut c.0, &mut e.0);
    }
}

pub fn schedule() -> Box<dyn Case> {
    let mut world = World::new();
    world.spawn_batch((0..SCHEDULE_N).map(|_| (A(0.0), B(0.0))));
    world.spawn_batch((0..SCHEDULE_N).map(|_| (A(0.0), B(0.0), C(0.0))));
    world.spawn_batch((0..SCHEDULE_N).map(|_| (A(0.0), B(0.0), C(0.0), D(0.0))));
    world.spawn_batch((0..SCHEDULE_N).map(|_| (A(0.0), B(0.0), C(0.0), E(0.0))));
    case(world, schedule_run, |w| {
        for (a, b) in w.query_mut::<(&mut A, &mut B)>() {
            a.0 = 1.0;
            b.0 = 2.0;
        }
        for c in w.query_mut::<&mut C>() {
            c.0 = 3.0;
        }
        for d in w.query_mut::<&mut D>() {
            d.0 = 4.0;
        }
        for e in w.query_mut::<&mut E>() {
            e.0 = 5.0;
        }
        schedule_run(w);
        let count = |it: &mut dyn Iterator<Item = bool>| {
            it.map(|ok| {
                assert!(ok);
            })
            .count()
        };
        let ab = count(
            &mut w
                .query_mut::<(&A, &B)>()
                .into_iter()
                .map(|(a, b)| a.0 == 2.0 && b.0 == 1.0),
        );
        assert_eq!(ab, 4 * SCHEDULE_N);
        let cd = count(
            &mut w
                .query_mut::<(&C, &D)>()
                .into_iter()
                .map(|(c, d)| c.0 == 4.0 && d.0 == 3.0),
        );
        assert_eq!(cd, SCHEDULE_N);
        let ce = count(
            &mut w
                .query_mut::<(&C, &E)>()
                .into_iter()
                .map(|(c, e)| c.0 == 5.0 && e.0 == 3.0),
        );
        assert_eq!(ce, SCHEDULE_N);
        let c_only = count(
            &mut w
                .query_mut::<(&C, Option<&D>, Option<&E>)>()
                .into_iter()
                .filter(|(_, d, e)| d.is_none() && e.is_none())
                .map(|(c, _, _)| c.0 == 3.0),
        );
        assert_eq!(c_only, SCHEDULE_N);
    })
}

struct SpawnDespawn {
    world: World,
    entities: Vec<Entity>,
}

fn spawn_all(s: &mut SpawnDespawn) {
    for _ in 0..SIMPLE_N {
        let e = s
            .world
            .spawn((Position(Vec3::X), Rotation(Vec3::X), Velocity(Vec3::X)));
        s.entities.push(e);
    }
}

fn despawn_all(s: &mut SpawnDespawn) {
    for e in s.entities.drain(..) {
        s.world.despawn(e).unwrap();
    }
}

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
            assert_eq!(s.world.len() as usize, SIMPLE_N);
            let n = s
                .world
                .query_mut::<(&Position, &Rotation, &Velocity)>()
                .into_iter()
                .count();
            assert_eq!(n, SIMPLE_N);
            despawn_all(s);
            assert_eq!(s.world.len(), 0);
        },
    )
}
