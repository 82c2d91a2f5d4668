//! A fixed-timestep loop without an app framework: physics advances in
//! equal steps whatever the frame rate.
//!
//! ```text
//! cargo run --example fixed_timestep
//! ```
//!
//! The `Update` schedule runs once per rendered frame, whose length varies.
//! Its exclusive system `run_fixed_steps` adds the frame's time to an
//! accumulator and runs the `FixedUpdate` schedule once per whole step in
//! it: zero, one or several times per frame. Inside `FixedUpdate`, the
//! `Physics` sets run in order (`configure_sets(..).chain()`), and the
//! whole physics set is skipped while the game is paused
//! (`run_if(not(resource_exists::<Paused>))`).
//!
//! The program runs the same ten seconds of play twice, once at a steady
//! 60 frames per second and once at a jittery rate, and checks that the
//! ball ends in the same place: only the number of fixed steps matters.

use ecs::prelude::*;

/// Runs once per rendered frame.
#[derive(ScheduleLabel, Debug, Clone, PartialEq, Eq, Hash)]
struct Update;

/// Runs once per fixed step, from `Update`.
#[derive(ScheduleLabel, Debug, Clone, PartialEq, Eq, Hash)]
struct FixedUpdate;

/// The steps of the physics, in order.
#[derive(SystemSet, Debug, Clone, PartialEq, Eq, Hash)]
enum Physics {
    Forces,
    Integrate,
    Collide,
}

/// Time not simulated yet, the fixed step, and how many steps ran.
#[derive(Resource)]
struct FixedTime {
    accumulated: f64,
    step: f64,
    steps: u32,
}

/// How long the current rendered frame took.
#[derive(Resource)]
struct FrameTime(f64);

/// While present, physics stands still.
#[derive(Resource)]
struct Paused;

#[derive(Component, Debug, Clone, Copy, PartialEq)]
struct Position(f64);

#[derive(Component, Debug, Clone, Copy, PartialEq)]
struct Velocity(f64);

const GRAVITY: f64 = -9.81;
const BOUNCE: f64 = 0.8;

fn gravity(time: Res<FixedTime>, mut balls: Query<&mut Velocity>) {
    for mut v in &mut balls {
        v.0 += GRAVITY * time.step;
    }
}

fn integrate(time: Res<FixedTime>, mut balls: Query<(&mut Position, &Velocity)>) {
    for (mut p, v) in &mut balls {
        p.0 += v.0 * time.step;
    }
}

fn bounce(mut balls: Query<(&mut Position, &mut Velocity)>) {
    for (mut p, mut v) in &mut balls {
        if p.0 < 0.0 {
            p.0 = -p.0;
            v.0 = -v.0 * BOUNCE;
        }
    }
}

fn count_step(mut time: ResMut<FixedTime>) {
    time.steps += 1;
}

/// Runs `FixedUpdate` once per whole step accumulated.
fn run_fixed_steps(world: &mut World) {
    let frame = world.resource::<FrameTime>().0;
    world.resource_mut::<FixedTime>().accumulated += frame;
    loop {
        let mut time = world.resource_mut::<FixedTime>();
        if time.accumulated < time.step {
            break;
        }
        time.accumulated -= time.step;
        world.run_schedule(FixedUpdate);
    }
}

fn new_world() -> World {
    let mut world = World::new();
    world.insert_resource(FixedTime {
        accumulated: 0.0,
        step: 1.0 / 50.0,
        steps: 0,
    });
    world.insert_resource(FrameTime(0.0));
    world.spawn((Position(10.0), Velocity(0.0)));

    let mut fixed = Schedule::new(FixedUpdate);
    fixed.configure_sets(
        (Physics::Forces, Physics::Integrate, Physics::Collide)
            .chain()
            .run_if(not(resource_exists::<Paused>)),
    );
    fixed.add_systems((
        gravity.in_set(Physics::Forces),
        integrate.in_set(Physics::Integrate),
        bounce.in_set(Physics::Collide),
        count_step.after(Physics::Collide),
    ));
    world.add_schedule(fixed);

    let mut update = Schedule::new(Update);
    update.add_systems(run_fixed_steps);
    world.add_schedule(update);
    world
}

/// Plays `frames` (each frame's length in seconds) and returns the ball's
/// height and the number of fixed steps that ran.
fn play(
    frames: impl IntoIterator<Item = f64>,
    pause_between: Option<(usize, usize)>,
) -> (f64, u32) {
    let mut world = new_world();
    for (i, frame) in frames.into_iter().enumerate() {
        if let Some((from, to)) = pause_between {
            if i == from {
                world.insert_resource(Paused);
            }
            if i == to {
                world.remove_resource::<Paused>();
            }
        }
        world.resource_mut::<FrameTime>().0 = frame;
        world.run_schedule(Update);
    }
    let height = world
        .query::<&Position>()
        .single(&world)
        .expect("one ball")
        .0;
    (height, world.resource::<FixedTime>().steps)
}

fn main() {
    // Ten seconds at a steady 60 frames per second...
    let steady = vec![1.0 / 60.0; 600];
    // ...and the same ten seconds at a jittery rate: frames of 5 to 45 ms.
    let mut jittery = Vec::new();
    let mut total = 0.0;
    let mut k = 0u32;
    while total < 10.0 {
        let frame = (0.005 + 0.040 * f64::from(k * 7919 % 101) / 100.0).min(10.0 - total);
        jittery.push(frame);
        total += frame;
        k += 1;
    }
    let (steady_height, steady_steps) = play(steady, None);
    let (jittery_height, jittery_steps) = play(jittery.iter().copied(), None);
    println!(
        "steady:  {} frames, {steady_steps} fixed steps, ball at {steady_height:.4} m",
        600
    );
    println!(
        "jittery: {} frames, {jittery_steps} fixed steps, ball at {jittery_height:.4} m",
        jittery.len()
    );
    // Sums of float frame lengths may land a step apart, so compare the
    // jittery run with exactly as many steps of one step per frame.
    let (exact_height, exact_steps) = play(vec![1.0 / 50.0; jittery_steps as usize], None);
    assert_eq!(exact_steps, jittery_steps);
    assert_eq!(
        exact_height, jittery_height,
        "the same fixed steps end in the same place"
    );

    // Paused for a second in the middle: the fixed steps still run, the
    // physics set does not.
    let (paused_height, paused_steps) = play(vec![1.0 / 60.0; 600], Some((300, 360)));
    println!("paused a second: {paused_steps} fixed steps, ball at {paused_height:.4} m");
    assert_eq!(paused_steps, steady_steps);
    assert_ne!(paused_height, steady_height);
}
