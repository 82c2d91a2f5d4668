//! Deterministic rollback: a schedule of a dozen systems (commands, an
//! observer, messages, spawns, despawns, change detection and a seeded
//! random generator held in a resource) runs 100 frames; a snapshot taken
//! at frame 50, restored, and the last 50 frames run again reach the first
//! run's checksum, on both executors, and both executors agree.
//!
//! The runs are deterministic: a fixed proptest seed, and no failure files.

use ecs::prelude::*;
use ecs::schedule::{ExecutorKind, ScheduleLabel};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};

#[derive(ScheduleLabel, Clone, Debug, PartialEq, Eq, Hash)]
struct Step;

#[derive(Component, Clone, Copy, Debug, PartialEq, Hash)]
#[component(snapshot = hash)]
struct Pos(i32, i32);

#[derive(Component, Clone, Copy, Debug, PartialEq, Hash)]
#[component(snapshot = hash)]
struct Vel(i32, i32);

#[derive(Component, Clone, Copy, Debug, PartialEq, Hash)]
#[component(snapshot = hash)]
struct Health(i32);

#[derive(Component, Clone, Copy, Debug, PartialEq, Hash)]
#[component(snapshot = hash)]
struct Age(u32);

/// Sparse, and added and removed often: archetype moves every frame.
#[derive(Component, Clone, Copy, Debug, PartialEq, Hash)]
#[component(snapshot = hash, storage = "SparseSet")]
struct Shield(u8);

/// A xorshift64 generator: the only source of randomness, so restoring it
/// replays the same choices.
#[derive(Resource, Clone, Debug, PartialEq, Hash)]
#[resource(snapshot = hash)]
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Rng(seed | 1)
    }

    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

#[derive(Resource, Clone, Debug, Default, PartialEq, Hash)]
#[resource(snapshot = hash)]
struct Stats {
    frame: u32,
    spawned: u32,
    despawned: u32,
    hits: u32,
    shields_observed: u32,
    moved_seen: u64,
    population: u32,
}

#[derive(Message, Clone, Debug, PartialEq)]
struct Hit {
    target: Entity,
    damage: i32,
}

fn update_messages(mut hits: ResMut<Messages<Hit>>) {
    hits.update();
}

fn count_frame(mut stats: ResMut<Stats>) {
    stats.frame += 1;
}

fn spawner(mut rng: ResMut<Rng>, mut commands: Commands, mut stats: ResMut<Stats>) {
    for _ in 0..rng.below(4) {
        let pos = Pos(rng.below(64) as i32, rng.below(64) as i32);
        let vel = Vel(rng.below(5) as i32 - 2, rng.below(5) as i32 - 2);
        let mut entity = commands.spawn((pos, vel, Health(3 + rng.below(6) as i32), Age(0)));
        if rng.below(3) == 0 {
            entity.insert(Shield(rng.below(4) as u8 + 1));
        }
        stats.spawned += 1;
    }
}

fn movement(mut movers: Query<(&mut Pos, &Vel)>) {
    for (mut pos, vel) in &mut movers {
        if vel.0 != 0 || vel.1 != 0 {
            pos.0 += vel.0;
            pos.1 += vel.1;
        }
    }
}

fn bounce(mut movers: Query<(&Pos, &mut Vel)>) {
    for (pos, mut vel) in &mut movers {
        if !(0..64).contains(&pos.0) {
            vel.0 = -vel.0;
        }
        if !(0..64).contains(&pos.1) {
            vel.1 = -vel.1;
        }
    }
}

fn aging(mut ages: Query<&mut Age>) {
    for mut age in &mut ages {
        age.0 += 1;
    }
}

/// Sees only what moved since its last run: a restore must bring back
/// the ticks and this system's last run for the count to replay.
fn watch_moves(moved: Query<&Pos, Changed<Pos>>, mut stats: ResMut<Stats>) {
    stats.moved_seen += moved.iter().count() as u64;
}

fn collide(bodies: Query<(Entity, &Pos)>, mut rng: ResMut<Rng>, mut hits: MessageWriter<Hit>) {
    let mut cells: Vec<(i32, i32, Entity)> =
        bodies.iter().map(|(e, p)| (p.0 / 8, p.1 / 8, e)).collect();
    cells.sort();
    for pair in cells.windows(2) {
        if (pair[0].0, pair[0].1) == (pair[1].0, pair[1].1) {
            let target = if rng.below(2) == 0 {
                pair[0].2
            } else {
                pair[1].2
            };
            hits.write(Hit {
                target,
                damage: 1 + rng.below(2) as i32,
            });
        }
    }
}

fn apply_hits(
    hits: Res<Messages<Hit>>,
    mut targets: Query<(&mut Health, Option<&mut Shield>)>,
    mut stats: ResMut<Stats>,
) {
    for hit in hits.iter_current_update_messages() {
        let Ok((mut health, shield)) = targets.get_mut(hit.target) else {
            continue;
        };
        stats.hits += 1;
        match shield {
            Some(mut shield) if shield.0 > 0 => shield.0 -= 1,
            _ => health.0 -= hit.damage,
        }
    }
}

fn drop_spent_shields(shields: Query<(Entity, &Shield)>, mut commands: Commands) {
    for (entity, shield) in &shields {
        if shield.0 == 0 {
            commands.entity(entity).remove::<Shield>();
        }
    }
}

fn reaper(
    bodies: Query<(Entity, &Health, &Age)>,
    mut commands: Commands,
    mut stats: ResMut<Stats>,
) {
    for (entity, health, age) in &bodies {
        if health.0 <= 0 || age.0 > 40 {
            commands.entity(entity).despawn();
            stats.despawned += 1;
        }
    }
}

fn reshield(mut rng: ResMut<Rng>, bare: Query<Entity, Without<Shield>>, mut commands: Commands) {
    let bare: Vec<Entity> = bare.iter().collect();
    if !bare.is_empty() && rng.below(2) == 0 {
        let pick = bare[rng.below(bare.len() as u64) as usize];
        // Another system may despawn it in the same frame: `try_insert`,
        // as in bevy, where `insert` reports that to the error handler.
        commands.entity(pick).try_insert(Shield(1));
    }
}

fn census(bodies: Query<&Health>, mut stats: ResMut<Stats>) {
    stats.population = bodies.iter().count() as u32;
}

fn world_with(seed: u64, kind: ExecutorKind) -> World {
    let mut world = World::new();
    world.insert_resource(Rng::new(seed));
    world.init_resource::<Stats>();
    world.add_message::<Hit>();
    world.register_resource_snapshot::<Messages<Hit>>();
    world.add_observer(|_: On<Add<Shield>>, mut stats: ResMut<Stats>| {
        stats.shields_observed += 1;
    });
    let mut schedule = Schedule::new(Step);
    schedule.set_executor_kind(kind);
    schedule.add_systems((
        (update_messages, count_frame, spawner).chain(),
        movement,
        bounce,
        aging,
        watch_moves.after(movement),
        collide.after(bounce),
        apply_hits.after(collide),
        drop_spent_shields.after(apply_hits),
        reaper.after(apply_hits).after(aging),
        reshield.after(drop_spent_shields),
        census.after(reaper),
    ));
    world.add_schedule(schedule);
    world
}

/// Runs `frames` frames with a snapshot before frame `snapshot_at`, then
/// restores it and runs the rest again; returns the final checksum after
/// checking the replay reaches it.
fn run_and_replay(seed: u64, kind: ExecutorKind, frames: u32, snapshot_at: u32) -> u64 {
    let mut world = world_with(seed, kind);
    let mut snapshot = None;
    let mut at_snapshot = 0;
    for frame in 0..frames {
        if frame == snapshot_at {
            snapshot = Some(world.snapshot());
            at_snapshot = world.checksum();
        }
        world.run_schedule(Step);
    }
    let first = world.checksum();
    let first_stats = world.resource::<Stats>().clone();
    assert!(first_stats.spawned > 0 && first_stats.despawned > 0);

    world.restore(&snapshot.expect("taken")).unwrap();
    assert_eq!(world.checksum(), at_snapshot, "the restore is the snapshot");
    for _ in snapshot_at..frames {
        world.run_schedule(Step);
    }
    assert_eq!(
        world.resource::<Stats>(),
        &first_stats,
        "seed {seed:#x}, {kind:?}"
    );
    assert_eq!(world.checksum(), first, "seed {seed:#x}, {kind:?}");
    first
}

fn config() -> Config {
    Config {
        cases: if cfg!(miri) { 1 } else { 100 },
        failure_persistence: None,
        rng_seed: RngSeed::Fixed(0x726f_6c6c_6261_636b),
        ..Config::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn a_restored_run_replays_to_the_same_checksum(seed in any::<u64>()) {
        let (frames, snapshot_at) = if cfg!(miri) { (4, 2) } else { (100, 50) };
        let multi = run_and_replay(seed, ExecutorKind::MultiThreaded, frames, snapshot_at);
        let single = run_and_replay(seed, ExecutorKind::SingleThreaded, frames, snapshot_at);
        prop_assert_eq!(multi, single, "both executors reach one state");
    }
}

#[test]
fn the_checksum_tells_seeds_apart() {
    let frames = if cfg!(miri) { 4 } else { 20 };
    let checksum = |seed| {
        let mut world = world_with(seed, ExecutorKind::SingleThreaded);
        for _ in 0..frames {
            world.run_schedule(Step);
        }
        world.checksum()
    };
    assert_ne!(checksum(1), checksum(2));
    assert_eq!(checksum(3), checksum(3));
}
