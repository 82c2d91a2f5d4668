use super::{
    indexed, random_sum, shuffled_indices, CHANGED_EVERY, CHANGED_N, MANY_ARCHETYPES, PATTERN_N,
    PER_ARCHETYPE,
};
use crate::bulk::split_case;
use crate::case::{case, Case};
use crate::ours::{Position, Rotation, Transform, Velocity};
use ecs::prelude::*;
use ecs::system::CommandQueue;
use glam::{Mat4, Vec3};
use std::hint::black_box;

macro_rules! wide_components {
    ($($w:ident),*) => {$(
        #[derive(Component, Clone, Copy)]
        struct $w(f32);
    )*};
}
wide_components!(W0, W1, W2, W3, W4, W5, W6, W7);

type Wide = (
    &'static mut W0,
    &'static W1,
    &'static W2,
    &'static W3,
    &'static W4,
    &'static W5,
    &'static W6,
    &'static W7,
);

struct WideIter {
    world: World,
    query: QueryState<Wide>,
}

fn wide_for(s: &mut WideIter) {
    for (mut w0, w1, w2, w3, w4, w5, w6, w7) in s.query.iter_mut(&mut s.world) {
        w0.0 += w1.0 + w2.0 + w3.0 + w4.0 + w5.0 + w6.0 + w7.0;
    }
}

fn wide_each(s: &mut WideIter) {
    s.query
        .iter_mut(&mut s.world)
        .for_each(|(mut w0, w1, w2, w3, w4, w5, w6, w7)| {
            w0.0 += w1.0 + w2.0 + w3.0 + w4.0 + w5.0 + w6.0 + w7.0;
        });
}

fn wide_case(run: impl Fn(&mut WideIter) + Copy + 'static) -> Box<dyn Case> {
    let mut world = World::new();
    world.spawn_batch((0..PATTERN_N).map(|_| {
        (
            W0(0.0),
            W1(1.0),
            W2(1.0),
            W3(1.0),
            W4(1.0),
            W5(1.0),
            W6(1.0),
            W7(1.0),
        )
    }));
    let query = world.query::<Wide>();
    case(WideIter { world, query }, run, move |s| {
        s.query
            .for_each_mut(&mut s.world, |(mut w0, ..)| w0.0 = 0.0);
        run(s);
        let mut read = s.world.query::<&W0>();
        assert_eq!(read.iter(&s.world).count(), PATTERN_N);
        assert!(read.iter(&s.world).all(|w| w.0 == 7.0));
    })
}

/// `wide_iter`: a `for` loop over eight terms, one of them written.
pub fn wide_iter() -> Box<dyn Case> {
    wide_case(wide_for)
}

/// `wide_iter_each`: the same through `iter_mut(..).for_each`.
pub fn wide_iter_each() -> Box<dyn Case> {
    wide_case(wide_each)
}

#[derive(Component, Clone, Copy)]
struct Data(f32);

macro_rules! marker {
    ($i:tt, $m:ident) => {
        #[derive(Component, Clone, Copy)]
        struct $m;
    };
}
crate::for_each_marker!(marker);

struct ManyArchetypes {
    world: World,
    query: QueryState<&'static mut Data>,
}

fn many_archetypes_run(s: &mut ManyArchetypes) {
    for mut data in s.query.iter_mut(&mut s.world) {
        data.0 += 1.0;
    }
}

/// `many_archetypes`: a `for` loop over `&mut Data` matching 1,000
/// archetypes of 10 entities (`Data` plus a distinct set of markers).
pub fn many_archetypes() -> Box<dyn Case> {
    let mut world = World::new();
    for mask in 0..MANY_ARCHETYPES {
        for _ in 0..PER_ARCHETYPE {
            let mut e = world.spawn(Data(0.0));
            macro_rules! add {
                ($i:tt, $m:ident) => {
                    if mask & (1 << $i) != 0 {
                        e.insert($m);
                    }
                };
            }
            crate::for_each_marker!(add);
        }
    }
    assert!(world.archetypes().len() >= MANY_ARCHETYPES);
    let query = world.query::<&mut Data>();
    case(ManyArchetypes { world, query }, many_archetypes_run, |s| {
        s.query.for_each_mut(&mut s.world, |mut d| d.0 = 0.0);
        many_archetypes_run(s);
        let mut read = s.world.query::<&Data>();
        assert_eq!(read.iter(&s.world).count(), MANY_ARCHETYPES * PER_ARCHETYPE);
        assert!(read.iter(&s.world).all(|d| d.0 == 1.0));
    })
}

struct RandomGet {
    world: World,
    query: QueryState<(&'static Position, &'static Velocity)>,
    order: Vec<Entity>,
    sum: f64,
}

fn random_get_setup() -> RandomGet {
    let mut world = World::new();
    let entities: Vec<Entity> = world
        .spawn_batch((0..PATTERN_N).map(|i| {
            (
                Transform(Mat4::IDENTITY),
                Position(indexed(i)),
                Rotation(Vec3::X),
                Velocity(Vec3::Z),
            )
        }))
        .collect();
    let order = shuffled_indices(PATTERN_N)
        .into_iter()
        .map(|i| entities[i])
        .collect();
    let query = world.query::<(&Position, &Velocity)>();
    RandomGet {
        world,
        query,
        order,
        sum: 0.0,
    }
}

fn random_get_run(s: &mut RandomGet) {
    let mut sum = 0.0f64;
    for &e in &s.order {
        let (p, v) = s.query.get(&s.world, e).unwrap();
        sum += f64::from(p.0.x + v.0.z);
    }
    s.sum = black_box(sum);
}

fn random_get_world_run(s: &mut RandomGet) {
    let mut sum = 0.0f64;
    for &e in &s.order {
        let p = s.world.get::<Position>(e).unwrap();
        sum += f64::from(p.0.x + p.0.y);
    }
    s.sum = black_box(sum);
}

/// `random_get`: `QueryState::get` on 10,000 entities in shuffled order.
pub fn random_get() -> Box<dyn Case> {
    case(random_get_setup(), random_get_run, |s| {
        s.sum = 0.0;
        random_get_run(s);
        assert_eq!(s.sum, random_sum(PATTERN_N));
    })
}

/// `random_get_world`: `World::get` on the same entities and order.
pub fn random_get_world() -> Box<dyn Case> {
    case(random_get_setup(), random_get_world_run, |s| {
        s.sum = 0.0;
        random_get_world_run(s);
        assert_eq!(s.sum, random_sum(PATTERN_N));
    })
}

#[derive(Component, Clone, Copy)]
#[component(storage = "SparseSet")]
struct Sparse(f32);

/// 10,000 entities with `Position`; every one (`all`) or every other one
/// also has the sparse-set `Sparse(1.0)`.
fn sparse_world(all: bool) -> World {
    let mut world = World::new();
    for i in 0..PATTERN_N {
        let mut e = world.spawn(Position(Vec3::ZERO));
        if all || i % 2 == 0 {
            e.insert(Sparse(1.0));
        }
    }
    world
}

struct SparseIter {
    world: World,
    query: QueryState<&'static mut Sparse>,
}

/// Every entity's `Sparse` is 1 after one pass from 0.
fn check_sparse_ones(world: &mut World) {
    let mut read = world.query::<&Sparse>();
    assert_eq!(read.iter(world).count(), PATTERN_N);
    assert!(read.iter(world).all(|v| v.0 == 1.0));
}

fn sparse_iter_run(s: &mut SparseIter) {
    for mut sparse in s.query.iter_mut(&mut s.world) {
        sparse.0 += 1.0;
    }
}

/// `sparse_iter`: a `for` loop over `&mut Sparse`, a sparse-set component
/// on 10,000 entities.
pub fn sparse_iter() -> Box<dyn Case> {
    let mut world = sparse_world(true);
    let query = world.query::<&mut Sparse>();
    case(SparseIter { world, query }, sparse_iter_run, |s| {
        s.query.for_each_mut(&mut s.world, |mut v| v.0 = 0.0);
        sparse_iter_run(s);
        check_sparse_ones(&mut s.world);
    })
}

fn sparse_iter_each_run(s: &mut SparseIter) {
    s.query
        .iter_mut(&mut s.world)
        .for_each(|mut sparse| sparse.0 += 1.0);
}

/// `sparse_iter_each`: `sparse_iter` through `iter_mut(..).for_each`.
pub fn sparse_iter_each() -> Box<dyn Case> {
    let mut world = sparse_world(true);
    let query = world.query::<&mut Sparse>();
    case(SparseIter { world, query }, sparse_iter_each_run, |s| {
        s.query.for_each_mut(&mut s.world, |mut v| v.0 = 0.0);
        sparse_iter_each_run(s);
        check_sparse_ones(&mut s.world);
    })
}

struct SparseHas {
    world: World,
    query: QueryState<(&'static mut Position, Has<Sparse>)>,
}

fn sparse_has_run(s: &mut SparseHas) {
    for (mut p, has) in s.query.iter_mut(&mut s.world) {
        if has {
            p.0.x += 1.0;
        }
    }
}

fn reset_positions(world: &mut World) {
    for mut p in world.query::<&mut Position>().iter_mut(world) {
        p.0 = Vec3::ZERO;
    }
}

/// Checks that one run moved `Position.x` from 0 to 1 on exactly the
/// entities with `Sparse`, half of them.
fn check_sparse_half(world: &mut World) {
    let mut read = world.query::<(&Position, Has<Sparse>)>();
    assert_eq!(read.iter(world).count(), PATTERN_N);
    assert!(read
        .iter(world)
        .all(|(p, has)| p.0.x == if has { 1.0 } else { 0.0 }));
    assert_eq!(
        read.iter(world).filter(|(_, has)| *has).count(),
        PATTERN_N / 2
    );
}

/// `sparse_iter_has`: `(&mut Position, Has<Sparse>)` over 10,000 entities,
/// half of them with the sparse-set component.
pub fn sparse_iter_has() -> Box<dyn Case> {
    let mut world = sparse_world(false);
    let query = world.query::<(&mut Position, Has<Sparse>)>();
    case(SparseHas { world, query }, sparse_has_run, |s| {
        reset_positions(&mut s.world);
        sparse_has_run(s);
        check_sparse_half(&mut s.world);
    })
}

struct SparseOption {
    world: World,
    query: QueryState<(&'static mut Position, Option<&'static Sparse>)>,
}

fn sparse_option_run(s: &mut SparseOption) {
    for (mut p, sparse) in s.query.iter_mut(&mut s.world) {
        if let Some(sparse) = sparse {
            p.0.x += sparse.0;
        }
    }
}

/// `sparse_iter_option`: `(&mut Position, Option<&Sparse>)` over the same
/// entities.
pub fn sparse_iter_option() -> Box<dyn Case> {
    let mut world = sparse_world(false);
    let query = world.query::<(&mut Position, Option<&Sparse>)>();
    case(SparseOption { world, query }, sparse_option_run, |s| {
        reset_positions(&mut s.world);
        sparse_option_run(s);
        check_sparse_half(&mut s.world);
    })
}

#[derive(Component, Clone, Copy)]
struct A(f32);
#[derive(Component, Clone, Copy)]
struct B(f32);

struct CommandsSpawn {
    world: World,
    queue: CommandQueue,
}

fn commands_spawn_run(s: &mut CommandsSpawn) {
    let mut commands = Commands::new(&mut s.queue, &s.world);
    for i in 0..PATTERN_N {
        commands.spawn((A(i as f32), B(1.0)));
    }
    s.queue.apply(&mut s.world);
}

/// `commands_spawn`: 10,000 `Commands::spawn((A, B))`, then the queue
/// applied. Each run starts from an empty world (despawned untimed).
pub fn commands_spawn() -> Box<dyn Case> {
    let state = CommandsSpawn {
        world: World::new(),
        queue: CommandQueue::default(),
    };
    split_case(
        state,
        |s| {
            let spawned: Vec<Entity> = s
                .world
                .query_filtered::<Entity, With<A>>()
                .iter(&s.world)
                .collect();
            for e in spawned {
                s.world.despawn(e);
            }
        },
        commands_spawn_run,
        |s| {
            assert_eq!(s.world.entity_count(), PATTERN_N);
            let mut q = s.world.query::<(&A, &B)>();
            let sum: f64 = q.iter(&s.world).map(|(a, b)| f64::from(a.0 * b.0)).sum();
            assert_eq!(q.iter(&s.world).count(), PATTERN_N);
            assert_eq!(sum, random_sum(PATTERN_N) - PATTERN_N as f64);
        },
    )
}

#[derive(Component, Clone, Copy)]
struct Counter(u32);

struct ChangedFilter {
    world: World,
    query: QueryState<&'static Counter, Changed<Counter>>,
    changed: Vec<Entity>,
    seen: (usize, u64),
}

fn changed_touch(s: &mut ChangedFilter) {
    s.world.clear_trackers();
    for &e in &s.changed {
        s.world.get_mut::<Counter>(e).unwrap().0 += 1;
    }
}

fn changed_run(s: &mut ChangedFilter) {
    let (mut n, mut sum) = (0usize, 0u64);
    for c in s.query.iter(&s.world) {
        n += 1;
        sum += u64::from(c.0);
    }
    s.seen = black_box((n, sum));
}

/// `changed_filter`: `Query<&Counter, Changed<Counter>>` over 100,000
/// entities of which 1% changed since the last run (changed untimed).
pub fn changed_filter() -> Box<dyn Case> {
    let mut world = World::new();
    let all: Vec<Entity> = world
        .spawn_batch((0..CHANGED_N).map(|_| Counter(0)))
        .collect();
    let changed = all.into_iter().step_by(CHANGED_EVERY).collect();
    world.clear_trackers();
    let query = world.query_filtered::<&Counter, Changed<Counter>>();
    let state = ChangedFilter {
        world,
        query,
        changed,
        seen: (0, 0),
    };
    split_case(state, changed_touch, changed_run, |s| {
        let (n, sum) = s.seen;
        assert_eq!(n, CHANGED_N / CHANGED_EVERY);
        let per = s.world.get::<Counter>(s.changed[0]).unwrap().0;
        assert_eq!(sum, u64::from(per) * n as u64);
    })
}
