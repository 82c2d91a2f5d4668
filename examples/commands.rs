//! Commands: how systems spawn, despawn and reshape entities, and when
//! those changes happen.
//!
//! A system borrows parts of the world while it runs, so it cannot add or
//! remove entities or components directly. It queues `Commands` instead:
//! spawning (one entity, or a batch), inserting and removing components,
//! despawning, and any custom `FnOnce(&mut World)`. They are applied after
//! the system, before any system ordered after it, and at the end of the
//! schedule's run. A command aimed at an entity that is gone by then does
//! nothing and logs a warning (through the `log` crate): it never panics.
//!
//! A tower-defence wave: towers hit every enemy, break shields and set
//! enemies on fire; fire burns; the next wave comes when the field is clear.
//!
//! `cargo run --example commands`

use std::sync::Mutex;

use ecs::prelude::*;

#[derive(Component)]
struct Enemy;

#[derive(Component, Debug, PartialEq)]
struct Health(i32);

/// Takes one hit instead of the enemy.
#[derive(Component)]
struct Shield;

/// Added by a tower's hit and never removed: a sparse set keeps that cheap.
#[derive(Component)]
#[component(storage = "SparseSet")]
struct Burning;

#[derive(Resource, Default)]
struct Wave(u32);

/// Starts a wave when no enemy is left.
fn spawn_wave(mut commands: Commands, enemies: Query<Entity, With<Enemy>>, mut wave: ResMut<Wave>) {
    if !enemies.is_empty() {
        return;
    }
    wave.0 += 1;
    let grunt_health = 5 + 10 * wave.0 as i32;
    commands.spawn_batch((0..3).map(move |_| (Enemy, Health(grunt_health))));
    // `spawn` reserves the entity at once: its id can be stored or used in
    // more commands now, though the entity only exists once they apply.
    let boss = commands.spawn((Enemy, Health(40))).id();
    commands.entity(boss).insert(Shield);
    assert!(!enemies.contains(boss), "not spawned yet, only reserved");
    // Any closure over `&mut World` is a command. Commands apply in the
    // order queued, so by the time this one runs the spawns above are done.
    let number = wave.0;
    commands.queue(move |world: &mut World| {
        let count = world
            .query_filtered::<Entity, With<Enemy>>()
            .iter(world)
            .count();
        println!("  wave {number}: {count} enemies enter, the boss is {boss:?}");
    });
}

/// Hits every enemy: a shield breaks instead (it is removed), otherwise
/// the enemy loses 10 health and catches fire.
#[allow(clippy::type_complexity)] // clippy finds most real queries complex
fn towers_fire(
    mut commands: Commands,
    shielded: Query<Entity, (With<Enemy>, With<Shield>)>,
    mut exposed: Query<(Entity, &mut Health), (With<Enemy>, Without<Shield>)>,
) {
    for enemy in &shielded {
        commands.entity(enemy).remove::<Shield>();
    }
    for (enemy, mut health) in &mut exposed {
        health.0 -= 10;
        if health.0 <= 0 {
            commands.entity(enemy).despawn();
        } else {
            // Replaces the `Burning` of an enemy already on fire.
            commands.entity(enemy).insert(Burning);
        }
    }
}

/// Fire burns for 5. It runs beside `towers_fire`, not after it, so it
/// sees neither the fires that system lit this frame (their inserts have
/// not applied yet) nor its despawns: an enemy both systems finish off is
/// despawned twice, and the second despawn only logs a warning.
fn burn(mut commands: Commands, mut burning: Query<(Entity, &mut Health), With<Burning>>) {
    for (enemy, mut health) in &mut burning {
        health.0 -= 5;
        if health.0 <= 0 {
            commands.entity(enemy).despawn();
        }
    }
}

/// Counts enemies, how many of them burn, and their total health.
fn tally(enemies: Query<(&Health, Has<Burning>), With<Enemy>>) -> [i32; 3] {
    let mut counts = [0; 3];
    for (health, burning) in &enemies {
        counts[0] += 1;
        counts[1] += i32::from(burning);
        counts[2] += health.0;
    }
    counts
}

/// Collects what the library logs at `warn` level, so the example can
/// show and check it. Any `log` backend (env_logger, tracing, ..) works.
struct WarningCollector;

static WARNINGS: Mutex<Vec<String>> = Mutex::new(Vec::new());

impl log::Log for WarningCollector {
    fn enabled(&self, metadata: &log::Metadata) -> bool {
        metadata.level() <= log::Level::Warn
    }
    fn log(&self, record: &log::Record) {
        if self.enabled(record.metadata()) {
            WARNINGS.lock().unwrap().push(record.args().to_string());
        }
    }
    fn flush(&self) {}
}

fn take_warnings() -> Vec<String> {
    std::mem::take(&mut *WARNINGS.lock().unwrap())
}

fn main() {
    log::set_logger(&WarningCollector).expect("the only logger");
    log::set_max_level(log::LevelFilter::Warn);

    let mut world = World::new();
    world.init_resource::<Wave>();

    let mut frame = Schedule::default();
    frame.add_systems((spawn_wave, (towers_fire, burn).after(spawn_wave)));
    // Where commands apply: after each system with `Commands`, before the
    // systems ordered after it.
    frame
        .initialize(&mut world)
        .expect("the frame schedule has no ordering errors");
    println!("execution order:");
    for step in frame.execution_order().expect("initialised") {
        println!("  {}", step.replace("commands::", ""));
    }

    let mut history = Vec::new();
    for number in 1..=5 {
        println!("frame {number}:");
        frame.run(&mut world);
        // After `run`, every command has applied.
        let [enemies, burning, health] = world.run_system_once(tally).unwrap();
        let warnings = take_warnings();
        println!(
            "  enemies: {enemies} ({burning} burning, {health} health in all), warnings: {}",
            warnings.len()
        );
        if let Some(first) = warnings.first() {
            println!("  first warning: {first}");
        }
        history.push([enemies, burning, health, warnings.len() as i32]);
    }

    // The wave's commands applied before the towers ran (they are ordered
    // after `spawn_wave`), so a new wave is hit in its first frame; the
    // fire lit by a hit burns from the next frame on.
    assert_eq!(
        history,
        [
            [4, 3, 55, 0], // grunts 15 -> 5, burning; the shield saved the boss's 40
            [1, 1, 30, 3], // grunts killed by both systems: 3 stale despawns
            [1, 1, 15, 0], // the boss 30 -> 20 -> 15
            [0, 0, 0, 0],  // the boss 15 -> 5 -> 0: only `burn` despawned it
            [4, 3, 85, 0], // wave 2 (grunts 25 -> 15), hit at once
        ]
    );
    assert!(
        history[1][3] == 3,
        "a command on a despawned entity warns instead of panicking"
    );
    assert_eq!(world.resource::<Wave>().0, 2);
    world
        .check_integrity()
        .expect("the world's storage is consistent");
}
