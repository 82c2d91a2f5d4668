//! The `simulation` row: the `simulation` example's `Frame` schedule on
//! ours and on bevy_ecs, from the same seed.
//!
//! Ours runs the example's own modules (declared at the crate root, where
//! their `crate::` paths point). bevy_ecs runs [`bevy`], a port of the same
//! files: `diff examples/simulation/systems.rs
//! benches/compare/src/simulation/bevy/systems.rs` shows the `use` lines
//! and the few places marked `Porting:`.
//!
//! Each timed iteration runs [`FRAMES`] frames of one world that carries on
//! from batch to batch, both executors multi-threaded. After timing, each
//! library's check compares what its runs ended with (populations, tallies,
//! mean grass, and the fingerprint of every animal's key, position and
//! energy) with the other library's: the timed worlds, and fresh worlds
//! run [`CHECK_FRAMES`] frames on the single-threaded and on the
//! multi-threaded executor.

pub mod bevy;

use std::sync::Mutex;

use ecs_scenarios::{case, Case};

/// Animals at the start (one in twelve a fox).
pub const ENTITIES: u32 = 20_000;
/// Frames per timed iteration.
pub const FRAMES: u32 = 10;
/// Frames of the fresh worlds the check runs.
pub const CHECK_FRAMES: u32 = 60;
const SEED: u64 = 1;

/// What a run ended with, in terms both libraries share.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outcome {
    frames: u32,
    rabbits: usize,
    foxes: usize,
    fleeing: usize,
    hungry: usize,
    /// The last frame's statistics: rabbits, foxes, fleeing, hungry, and
    /// the mean grass height (`f32` bits).
    last_sample: [u32; 5],
    /// Per species (rabbits, foxes): born, died, eaten, starved, old age,
    /// conceived.
    tallies: [[u64; 6]; 2],
    cells_recomputed: u64,
    fingerprint: u64,
}

/// The outcomes recorded so far, by library and run.
static OUTCOMES: Mutex<Vec<(&str, &str, Outcome)>> = Mutex::new(Vec::new());

/// Records `lib`'s outcome of `run` and asserts it equals every other
/// library's outcome of the same run after as many frames.
fn agree(lib: &'static str, run: &'static str, outcome: Outcome) {
    let mut all = OUTCOMES.lock().unwrap_or_else(|e| e.into_inner());
    for &(other, other_run, theirs) in all.iter() {
        if other != lib && other_run == run && theirs.frames == outcome.frames {
            assert_eq!(
                outcome, theirs,
                "simulation, {run}: {lib} ended otherwise than {other}"
            );
            eprintln!(
                "    {run}: {lib} ended as {other} did after {} frames (fingerprint {:016x})",
                outcome.frames, outcome.fingerprint
            );
        }
    }
    all.push((lib, run, outcome));
}

/// The case and its check for one library: `$ecs` is the library's crate,
/// `$sim` the module that holds its `meadow`, `resources` and `systems`.
macro_rules! simulation_on {
    ($module:ident, $lib:literal, $ecs:ident, $($sim:ident)::+) => {
        pub mod $module {
            use $ecs::prelude::*;
            use $($sim)::+::meadow::{fingerprint, populate};
            use $($sim)::+::resources::{Census, History, Tally};
            use $($sim)::+::components::{Fleeing, Fox, Hungry, Rabbit};
            use $($sim)::+::systems::{build_schedule, Frame};
            use super::{agree, case, Case, Outcome, CHECK_FRAMES, ENTITIES, FRAMES, SEED};

            fn world(single_threaded: bool) -> World {
                let mut world = World::new();
                populate(&mut world, ENTITIES, SEED);
                world.add_schedule(build_schedule(single_threaded));
                world
            }

            fn count<T: Component>(world: &mut World) -> usize {
                world.query_filtered::<(), With<T>>().iter(world).count()
            }

            fn outcome(world: &mut World) -> Outcome {
                let tally = |t: &Tally| [t.born, t.died, t.eaten, t.starved, t.old_age, t.conceived];
                let history = &world.resource::<History>().0;
                let frames = history.len() as u32;
                let last_sample = history.last().map_or([0; 5], |s| {
                    [s.rabbits, s.foxes, s.fleeing, s.hungry, s.grass.to_bits()]
                });
                let census = world.resource::<Census>();
                let (tallies, cells_recomputed) = (
                    [tally(&census.rabbits), tally(&census.foxes)],
                    census.cells_recomputed,
                );
                Outcome {
                    frames,
                    rabbits: count::<Rabbit>(world),
                    foxes: count::<Fox>(world),
                    fleeing: count::<Fleeing>(world),
                    hungry: count::<Hungry>(world),
                    last_sample,
                    tallies,
                    cells_recomputed,
                    fingerprint: fingerprint(world),
                }
            }

            fn run(world: &mut World, frames: u32) {
                for _ in 0..frames {
                    world.run_schedule(Frame);
                }
            }

            fn check(timed: &mut World) {
                let timed = outcome(timed);
                assert!(timed.frames > 0, "the timed world ran no frame");
                agree($lib, "the timed worlds", timed);
                let [mut single, mut multi] = [true, false].map(world);
                run(&mut single, CHECK_FRAMES);
                run(&mut multi, CHECK_FRAMES);
                let (single, multi) = (outcome(&mut single), outcome(&mut multi));
                assert_eq!(single.frames, CHECK_FRAMES);
                assert!(single.rabbits > 0 && single.tallies[0][1] > 0, "nothing happened: {single:?}");
                agree($lib, "single-threaded", single);
                agree($lib, "multi-threaded", multi);
                assert_eq!(single, multi, "simulation on {}: the executors disagree", $lib);
            }

            /// `FRAMES` frames per iteration of a world that carries on.
            pub fn simulation() -> Box<dyn Case> {
                case(
                    world(false),
                    |world| run(world, FRAMES),
                    check,
                )
            }
        }
    };
}

simulation_on!(ours, "ours", ecs, crate);
simulation_on!(on_bevy, "bevy_ecs", bevy_ecs, crate::simulation::bevy);
