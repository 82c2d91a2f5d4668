//! Parallelism: systems that touch different data run at the same time,
//! and one system can split a query across threads.
//!
//! A particle simulation. The default `Schedule` runs systems on rayon's
//! thread pool as soon as what they must wait for is done: explicit
//! `.before` / `.after` / `.chain()` edges, and any earlier system whose
//! data access conflicts with theirs (conflicting systems that are not
//! ordered run in the order they were added, so a run never depends on
//! thread timing). Inside a system, `query.par_iter_mut().for_each(..)`
//! splits the entities into batches across threads. The same systems on
//! `Schedule::single_threaded()` give bit-for-bit the same world.
//!
//! `cargo run --example parallel`

use std::collections::HashSet;
use std::sync::{Condvar, Mutex};
use std::thread::ThreadId;
use std::time::Duration;

use ecs::prelude::*;

const PARTICLES: u32 = 10_000;
const FRAMES: u32 = 10;

#[derive(Component, Debug, Clone, Copy, PartialEq)]
struct Position {
    x: f32,
    y: f32,
}

#[derive(Component, Debug, Clone, Copy, PartialEq)]
struct Velocity {
    x: f32,
    y: f32,
}

#[derive(Component, Debug, Clone, Copy, PartialEq)]
struct Temperature(f32);

#[derive(Component, Debug, Clone, Copy, PartialEq)]
struct Age(u32);

#[derive(Resource)]
struct Gravity(f32);

#[derive(Resource, Debug, Default, PartialEq)]
struct Stats {
    highest: f32,
    mean_temperature: f32,
    total_age: u64,
}

// ---- the simulation -----------------------------------------------------------
// `gravity`, `movement` and `bounce` all use `Velocity` or `Position`, so
// they run one after another (here, in the `.chain()` order). `cooling`
// and `aging` share nothing with them or with each other: they may run at
// the same time as any of them.

fn gravity(mut particles: Query<&mut Velocity>, gravity: Res<Gravity>) {
    let g = gravity.0;
    particles.par_iter_mut().for_each(|mut v| v.y -= g);
}

fn movement(mut particles: Query<(&mut Position, &Velocity)>) {
    particles.par_iter_mut().for_each(|(mut p, v)| {
        p.x += v.x;
        p.y += v.y;
    });
}

fn bounce(mut particles: Query<(&mut Position, &mut Velocity)>) {
    particles.par_iter_mut().for_each(|(mut p, mut v)| {
        if p.y < 0.0 {
            p.y = -p.y;
            v.y = -v.y * 0.8;
        }
    });
}

fn cooling(mut particles: Query<&mut Temperature>, meeting: Option<Res<Meeting>>) {
    if let Some(meeting) = meeting {
        meeting.arrive();
    }
    particles.par_iter_mut().for_each(|mut t| t.0 *= 0.9);
}

fn aging(mut particles: Query<&mut Age>, meeting: Option<Res<Meeting>>) {
    if let Some(meeting) = meeting {
        meeting.arrive();
    }
    // A plain loop is fine too: cheap work does not need splitting.
    for mut age in &mut particles {
        age.0 += 1;
    }
}

fn stats(particles: Query<(&Position, &Temperature, &Age)>, mut stats: ResMut<Stats>) {
    let mut sum = Stats::default();
    for (p, t, a) in &particles {
        sum.highest = sum.highest.max(p.y);
        sum.mean_temperature += t.0;
        sum.total_age += u64::from(a.0);
    }
    sum.mean_temperature /= particles.count() as f32;
    *stats = sum;
}

// ---- the proof that two systems overlapped -------------------------------------

/// Not part of the simulation: `cooling` and `aging` each wait here (up to
/// a second) for the other. The first to arrive is joined before the
/// timeout only if the two run at the same time. Only the multi-threaded
/// world has this resource.
#[derive(Resource, Default)]
struct Meeting {
    state: Mutex<MeetingState>,
    all_here: Condvar,
}

#[derive(Default)]
struct MeetingState {
    arrivals: u32,
    /// Frames where the first to arrive was joined in time.
    together: u32,
    threads: HashSet<ThreadId>,
}

impl Meeting {
    fn arrive(&self) {
        let mut state = self.state.lock().unwrap();
        state.arrivals += 1;
        state.threads.insert(std::thread::current().id());
        let first = state.arrivals % 2 == 1;
        self.all_here.notify_all();
        let (mut state, wait) = self
            .all_here
            .wait_timeout_while(state, Duration::from_secs(1), |s| s.arrivals % 2 == 1)
            .unwrap();
        if first && !wait.timed_out() {
            state.together += 1;
        }
    }
}

fn build_schedule(mut schedule: Schedule) -> Schedule {
    schedule.add_systems((
        (gravity, movement, bounce).chain(),
        cooling.before(stats),
        aging.before(stats),
        stats.after(bounce),
    ));
    schedule
}

fn build_world() -> World {
    let mut world = World::new();
    world.insert_resource(Gravity(0.5));
    world.init_resource::<Stats>();
    world
        .spawn_batch((0..PARTICLES).map(|i| {
            (
                Position {
                    x: i as f32,
                    y: 10.0 + (i % 7) as f32,
                },
                Velocity {
                    x: 0.1 * (i % 3) as f32,
                    y: 0.0,
                },
                Temperature(100.0 + (i % 50) as f32),
                Age(i % 5),
            )
        }))
        .for_each(drop);
    world
}

type Snapshot = Vec<(Entity, Position, Velocity, Temperature, Age)>;

fn snapshot(world: &mut World) -> Snapshot {
    let mut query = world.query::<(Entity, &Position, &Velocity, &Temperature, &Age)>();
    let mut all: Snapshot = query
        .iter(world)
        .map(|(e, p, v, t, a)| (e, *p, *v, *t, *a))
        .collect();
    all.sort_by_key(|row| row.0);
    all
}

fn main() {
    let mut parallel = build_schedule(Schedule::default());
    let mut serial = build_schedule(Schedule::single_threaded());
    let mut parallel_world = build_world();
    let mut serial_world = build_world();
    parallel_world.init_resource::<Meeting>();

    parallel
        .initialize(&mut parallel_world)
        .expect("the schedule has no ordering errors");
    let order = parallel.execution_order().expect("initialised");
    let order: Vec<&str> = order
        .iter()
        .map(|s| s.trim_start_matches("parallel::"))
        .collect();
    // The order a single thread would follow; the multi-threaded executor
    // starts each system as soon as its predecessors are done.
    println!("execution order: {}", order.join(" -> "));
    let position = |name: &str| order.iter().position(|s| *s == name).unwrap();
    assert!(position("gravity") < position("movement"));
    assert!(position("movement") < position("bounce"));
    assert!(position("bounce") < position("stats"));
    assert!(position("cooling") < position("stats") && position("aging") < position("stats"));

    for _ in 0..FRAMES {
        parallel.run(&mut parallel_world);
        serial.run(&mut serial_world);
    }

    let meeting = parallel_world.resource::<Meeting>().state.lock().unwrap();
    println!(
        "cooling and aging ran at the same time in {} of {FRAMES} frames, on {} threads in all",
        meeting.together,
        meeting.threads.len()
    );
    assert_eq!(meeting.together, FRAMES, "non-conflicting systems overlap");
    drop(meeting);

    let stats = parallel_world.resource::<Stats>();
    println!(
        "after {FRAMES} frames of {PARTICLES} particles: highest y {:.2}, mean temperature {:.2}, total age {}",
        stats.highest, stats.mean_temperature, stats.total_age
    );
    let initial_age: u64 = (0..PARTICLES).map(|i| u64::from(i % 5)).sum();
    assert_eq!(
        stats.total_age,
        initial_age + u64::from(PARTICLES * FRAMES),
        "every particle aged once per frame"
    );
    assert_eq!(stats, serial_world.resource::<Stats>());
    assert_eq!(
        snapshot(&mut parallel_world),
        snapshot(&mut serial_world),
        "both executors compute the same world"
    );
    println!("the single-threaded schedule computed the same world");
}
