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
//! `(seed, entity, frame)`, never from a shared generator, so the order in
//! which threads visit entities does not matter: the fingerprint printed at
//! the end is the same with and without `--single-threaded`.
//!
//! # Where things are
//!
//! `components.rs` (components, bundles, the `Pregnant` hook),
//! `species.rs` (traits and constants), `resources.rs` and `grid.rs`
//! (resources and the spatial index), `rng.rs` (per-entity randomness),
//! `systems.rs` (the systems and `build_schedule`), `report.rs` (the
//! printed summary and the picture); this file parses the flags, sets the
//! world up and runs the frames.

// A system's signature spelling out its queries is the point here.
#![allow(clippy::type_complexity)]

mod components;
mod grid;
mod report;
mod resources;
mod rng;
mod species;
mod systems;

use std::f32::consts::TAU;
use std::path::PathBuf;
use std::time::Instant;

use clap::Parser;
use ecs::prelude::*;
use indicatif::{ProgressBar, ProgressStyle};

use components::{Age, Body, Eaten, Energy, Fox, FoxBundle, Position, Rabbit, RabbitBundle};
use report::{print_populations, print_timings, render};
use resources::{Census, Clock, FoxGrid, History, Pasture, RabbitGrid, Settings};
use rng::Rng;
use species::{Traits, CELL_SIZE, DENSITY, DEN_RADIUS, DEN_SIZE, FOX, RABBIT, TILE_SIZE};
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

fn populate(world: &mut World, args: &Args) {
    let cells = ((args.entities as f32 / DENSITY).sqrt() / CELL_SIZE)
        .round()
        .max(3.0) as u32;
    let size = cells as f32 * CELL_SIZE;
    let side = (size / TILE_SIZE) as u32;
    let mut rng = Rng(args.seed);
    let grass = (0..side * side).map(|_| rng.range(0.2, 1.0)).collect();
    world.insert_resource(Pasture { side, grass });
    let settings = Settings {
        seed: args.seed,
        size,
        cells,
    };
    world.init_resource::<Clock>();
    world.init_resource::<RabbitGrid>();
    world.init_resource::<FoxGrid>();
    world.init_resource::<Census>();
    world.init_resource::<History>();

    // Rabbits all over the meadow; foxes in a few dens, from where they
    // spread. Ages spread over the lifespan, so deaths start at once.
    let body = |t: &Traits, rng: &mut Rng, x: f32, y: f32| {
        let lifespan = rng.range(t.lifespan.0 as f32, t.lifespan.1 as f32) as u32;
        let (frames, energy) = (rng.below(lifespan), rng.range(0.4, 0.9) * t.max_energy);
        let (x, y) = (settings.wrap(x), settings.wrap(y));
        Body {
            position: Position { x, y },
            energy: Energy(energy),
            age: Age { frames, lifespan },
        }
    };
    let foxes = args.entities / 12;
    let rabbits: Vec<_> = (foxes..args.entities)
        .map(|_| {
            let (x, y) = (rng.range(0.0, size), rng.range(0.0, size));
            let body = body(&RABBIT, &mut rng, x, y);
            RabbitBundle {
                rabbit: Rabbit,
                body,
            }
        })
        .collect();
    let dens: Vec<_> = (0..foxes.div_ceil(DEN_SIZE))
        .map(|_| (rng.range(0.0, size), rng.range(0.0, size)))
        .collect();
    let foxes: Vec<_> = (0..foxes)
        .map(|i| {
            let (x, y) = dens[(i / DEN_SIZE) as usize];
            let (angle, r) = (rng.range(0.0, TAU), DEN_RADIUS * rng.range(0.0, 1.0).sqrt());
            let body = body(&FOX, &mut rng, x + r * angle.cos(), y + r * angle.sin());
            FoxBundle { fox: Fox, body }
        })
        .collect();
    world.add_message::<Eaten>();
    world.spawn_batch(rabbits);
    world.spawn_batch(foxes);
    world.insert_resource(settings);

    // Observers added after the first animals count only births and deaths.
    world.add_observer(|_: On<Add<Rabbit>>, mut census: ResMut<Census>| census.rabbits.born += 1);
    world.add_observer(|_: On<Add<Fox>>, mut census: ResMut<Census>| census.foxes.born += 1);
    world.add_observer(|_: On<Despawn<Rabbit>>, mut c: ResMut<Census>| c.rabbits.died += 1);
    world.add_observer(|_: On<Despawn<Fox>>, mut census: ResMut<Census>| census.foxes.died += 1);
}

fn main() {
    let args = Args::parse();
    let mut world = World::new();
    let setup = Instant::now();
    populate(&mut world, &args);
    let Settings { size, cells, .. } = *world.resource::<Settings>();
    println!(
        "{} animals on a {size}x{size} meadow ({} grid cells), seed {}, set up in {:.0?}",
        world.entity_count(),
        cells * cells,
        args.seed,
        setup.elapsed()
    );

    world.add_schedule(build_schedule(args.single_threaded));
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
