//! The main example: rabbits and foxes on a meadow. 100,000 animals, the
//! features a game or a simulation uses, on every core.
//!
//! ```text
//! cargo run --release --example simulation                     # 300 frames, 100k animals
//! cargo run --release --example simulation -- --frames 20 --entities 20000   # a quick look
//! cargo run --release --example simulation -- --help
//! ```
//!
//! Flags: `--entities N` (animals at the start, default 100,000; one in
//! twelve is a fox), `--frames N` (default 300), `--seed N`, `--out PATH`
//! (the picture, default `target/simulation.png`), `--dot PATH` (write the
//! archetype graph in Graphviz DOT), `--inspect` (print `World::inspect`),
//! `--single-threaded`.
//!
//! # What it simulates
//!
//! A square meadow whose edges wrap around, with grass growing on it tile
//! by tile. Rabbits start all over it, foxes in a few dens. Rabbits graze
//! where the grass is good, look for better grass where it is not, and
//! flee from hunting foxes. Foxes sleep while fed; hungry, they chase the
//! nearest rabbit in sight and eat it if they catch it. Well-fed animals
//! become pregnant and give birth some frames later; animals die of hunger
//! or of old age. At the end the program prints where the time went and
//! how the populations did, and draws the meadow (grass green to brown,
//! rabbits pale, foxes orange) above a plot of the populations over time
//! (grass green, rabbits pale, foxes orange; each curve scaled to its own
//! range) into a PNG.
//!
//! # The ECS features it shows, and where
//!
//! - **Both storages**: `Position`, `Velocity`, `Energy`, `Age`, `Cell`
//!   live in tables and are read every frame; `Fleeing`, `Hungry` and
//!   `Pregnant` come and go every few frames, so they are
//!   `#[component(storage = "SparseSet")]`: adding or removing one does not
//!   move the animal's table row.
//! - **Required components and bundles**: `Rabbit` and `Fox` require
//!   `Animal`, which requires `Velocity`, `Cell`, `Age` and `Energy`. The
//!   bundles (`RabbitBundle`, `FoxBundle`, both nesting `Body`) name only
//!   what they set; the rest is filled in.
//! - **Resources**: `Settings`, `Clock`, `Pasture` (the grass), `RabbitGrid`
//!   and `FoxGrid` (spatial index), `Census` and `History` (statistics).
//! - **A parallel schedule with sets, ordering and run conditions**
//!   (`build_schedule`): the `Frame` schedule (a `ScheduleLabel`, run with
//!   `World::run_schedule`) has seven stages, a `SystemSet` each: sense →
//!   decide → move → eat → reproduce → age/die → stats, chained with
//!   `configure_sets`; within a stage `.after(..)` orders what must be
//!   ordered and the rest may run at once. `hunt` and `give_birth` run only
//!   when there is a fox or a pregnancy (`run_if(any_with_component::<..>)`). `With<Rabbit>` / `Without<Rabbit>` make
//!   the queries of `steer_rabbits` and `steer_foxes` (and of `graze` and
//!   `hunt`) disjoint, so they run side by side although both write the
//!   same component.
//! - **Parallel queries**: `steer_rabbits`, `steer_foxes`, `movement` and
//!   `metabolism` use `Query::par_iter_mut`.
//! - **Change detection**: `update_cells` recomputes the grid cell only for
//!   `Changed<Position>`. Grazing rabbits and sleeping foxes stand still,
//!   `movement` leaves their `Position` untouched, and they are skipped
//!   (the summary says how many).
//! - **Commands** every frame: births (`spawn`), deaths and meals
//!   (`despawn`), and the sparse markers (`insert`, `remove`).
//! - **Messages**: `hunt` writes an `Eaten` message per meal
//!   (`MessageWriter`); `count_meals` reads them (`MessageReader`) in the
//!   stats stage, and `message_update_system` turns the buffers over at
//!   the end of the frame, after every reader ran.
//! - **Observers and hooks**: observers on `On<Add<Rabbit>>` and
//!   `On<Despawn<Rabbit>>` (and the same for foxes) count births and
//!   deaths; an `on_add` hook on `Pregnant` counts conceptions.
//! - **Introspection**: per-system timings (`Schedule::set_timing`,
//!   `Schedule::system_timings`), `World::archetype_graph_dot`, and
//!   `World::inspect`.
//!
//! # Determinism
//!
//! A run depends only on its flags. Systems draw chance from
//! `(seed, animal, frame)`, never from a shared generator, so the order in
//! which threads visit entities does not matter: the fingerprint printed at
//! the end is the same with and without `--single-threaded`. An animal is
//! known by its `RandomKey`, drawn at birth, rather than by its `Entity`, so
//! a run does not depend on how the ECS numbers entities either: the same
//! systems on bevy_ecs (`benches/compare`, the `simulation` row) end with
//! the same fingerprint.
//!
//! # Where things are
//!
//! `components.rs` (components, bundles, the `Pregnant` hook),
//! `species.rs` (traits and constants), `resources.rs` and `grid.rs`
//! (resources and the spatial index), `rng.rs` (per-animal randomness),
//! `systems.rs` (the systems and `build_schedule`), `meadow.rs` (setting
//! the world up, and the fingerprint), `report.rs` (the printed summary
//! and the picture); this file parses the flags and runs the frames.

// A system's signature spelling out its queries is the point here.
#![allow(clippy::type_complexity)]

mod components;
mod grid;
mod meadow;
mod report;
mod resources;
mod rng;
mod species;
mod systems;

use std::path::PathBuf;
use std::time::Instant;

use clap::Parser;
use ecs::prelude::*;
use indicatif::{ProgressBar, ProgressStyle};

use meadow::populate;
use report::{print_populations, print_timings, render};
use resources::{History, Settings};
use systems::{build_schedule, Frame};

/// Rabbits and foxes on a meadow: an ecosystem simulation.
#[derive(Parser, Debug)]
struct Args {
    /// Animals at the start (one in twelve is a fox). The meadow grows with
    /// the number, so the density stays the same.
    #[arg(long, default_value_t = 100_000)]
    entities: u32,
    /// Frames to simulate.
    #[arg(long, default_value_t = 300)]
    frames: u32,
    /// Seed of every random choice.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Where to write the picture of the final state.
    #[arg(long, default_value = "target/simulation.png")]
    out: PathBuf,
    /// Also write the archetype graph (Graphviz DOT) here.
    #[arg(long)]
    dot: Option<PathBuf>,
    /// Print a summary of the world at the end.
    #[arg(long)]
    inspect: bool,
    /// Run every system on the main thread.
    #[arg(long)]
    single_threaded: bool,
}

fn main() {
    let args = Args::parse();
    let mut world = World::new();
    let setup = Instant::now();
    populate(&mut world, args.entities, args.seed);
    let Settings { size, cells, .. } = *world.resource::<Settings>();
    println!(
        "{} animals on a {size}x{size} meadow ({} grid cells), seed {}, set up in {:.0?}",
        world.entity_count(),
        cells * cells,
        args.seed,
        setup.elapsed()
    );

    let mut schedule = build_schedule(args.single_threaded);
    schedule.set_timing(true);
    world.add_schedule(schedule);
    let bar = ProgressBar::new(u64::from(args.frames)).with_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} frames, {msg} [{elapsed}, eta {eta}]")
            .expect("a valid template"),
    );
    let run = Instant::now();
    for _ in 0..args.frames {
        world.run_schedule(Frame);
        if let Some(last) = world.resource::<History>().0.last() {
            bar.set_message(format!("{} rabbits, {} foxes", last.rabbits, last.foxes));
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    let schedules = world.resource::<Schedules>();
    let frame = schedules.get(Frame).expect("added above");
    print_timings(frame, run.elapsed(), args.frames);
    print_populations(&mut world);

    if args.inspect {
        println!("\n{}", world.inspect());
    }
    if let Some(dot) = &args.dot {
        std::fs::write(dot, world.archetype_graph_dot()).expect("writing the DOT file");
        println!("archetype graph: {}", dot.display());
    }
    if let Some(dir) = args.out.parent().filter(|dir| !dir.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).expect("creating the picture's directory");
    }
    render(&mut world)
        .save(&args.out)
        .expect("writing the picture");
    println!("picture: {}", args.out.display());
}
