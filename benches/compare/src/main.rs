//! The ecs_bench_suite scenarios on `ecs` (ours), bevy_ecs and hecs, side
//! by side, plus a hand-written `Vec` loop (the floor) where one exists.
//!
//! ```text
//! cargo run --release --manifest-path benches/compare/Cargo.toml
//! ```
//!
//! Every scenario runs on every library interleaved in one process: round
//! r takes one sample of each library (in an order that rotates from round
//! to round), each sample times a batch of iterations, and the table
//! reports the median sample per library and the ratios of ours to the best
//! peer and to the floor. The table goes to stdout, `docs/compare.md` and,
//! as a bar chart, `docs/compare.svg`.
//!
//! Flags: `--quick` (a short, noisier run that writes nothing unless
//! `--write` is given), `--rounds N`, `--only NAME` (scenarios whose name
//! contains NAME; writes nothing unless `--write`), `--no-write`.

mod bevy;
mod bulk;
mod harness;
mod hecs_lib;
mod patterns;
mod report;
mod save_load;
mod simulation;

// The `simulation` example's modules, for the `simulation` scenario: they
// name each other `crate::..`, so they sit at the crate root. The report,
// the picture and the flags stay in the example.
#[path = "../../../examples/simulation/components.rs"]
mod components;
#[path = "../../../examples/simulation/grid.rs"]
mod grid;
#[path = "../../../examples/simulation/meadow.rs"]
mod meadow;
#[path = "../../../examples/simulation/resources.rs"]
mod resources;
#[path = "../../../examples/simulation/rng.rs"]
mod rng;
#[path = "../../../examples/simulation/species.rs"]
mod species;
#[path = "../../../examples/simulation/systems.rs"]
mod systems;

use ecs_scenarios::{floor, ours};

/// The `relations` scenario's one-to-many case on bevy_ecs.
mod bevy_relations {
    use bevy_ecs::prelude::*;

    ecs_scenarios::relations_one_to_many!(bevy_ecs);
}
use harness::{measure, Build, Lib, Plan, Scenario, Target};
use std::time::{Duration, Instant};

/// `cases!(name: Ours, Bevy, ...)`: each listed library's case for scenario
/// `name`, taken from the module that holds that library's scenarios.
macro_rules! cases {
    ($name:ident: $($lib:ident),+) => {
        vec![$((Lib::$lib, cases!(@module $lib, $name) as Build)),+]
    };
    (@module Ours, $name:ident) => { ours::$name };
    (@module Bevy, $name:ident) => { bevy::$name };
    (@module Hecs, $name:ident) => { hecs_lib::$name };
    (@module Floor, $name:ident) => { floor::$name };
}

/// `pattern_cases!(name: Ours, Bevy, ...)`: the same for the scenarios of
/// `ecs_scenarios::patterns`.
macro_rules! pattern_cases {
    ($name:ident: $($lib:ident),+) => {
        vec![$((Lib::$lib, pattern_cases!(@module $lib, $name) as Build)),+]
    };
    (@module Ours, $name:ident) => { ecs_scenarios::patterns::ours::$name };
    (@module Bevy, $name:ident) => { patterns::bevy::$name };
    (@module Hecs, $name:ident) => { patterns::hecs_lib::$name };
    (@module Floor, $name:ident) => { ecs_scenarios::patterns::floor::$name };
}

fn scenarios() -> Vec<Scenario> {
    use Lib::*;
    vec![
        Scenario {
            name: "simple_insert",
            what: "spawn_batch 10,000 × (Transform, Position, Rotation, Velocity) into a new world",
            peers: &[Bevy, Hecs],
            target: Target::Peer(0.8),
            cases: cases!(simple_insert: Ours, Bevy, Hecs),
        },
        Scenario {
            name: "spawn_waves",
            what: "1,000 spawn_batch calls of 10 × (Transform, Position, Rotation, Velocity) into a new world",
            peers: &[Bevy, Hecs],
            target: Target::Peer(0.8),
            cases: cases!(spawn_waves: Ours, Bevy, Hecs),
        },
        Scenario {
            name: "simple_iter",
            what: "position += velocity over 10,000 entities, in a `for` loop",
            peers: &[Bevy, Hecs],
            target: Target::Floor(1.1),
            cases: cases!(simple_iter: Ours, Bevy, Hecs, Floor),
        },
        Scenario {
            name: "simple_iter_each",
            what: "the same through `iter_mut(..).for_each`",
            peers: &[Bevy, Hecs],
            target: Target::Floor(1.1),
            cases: cases!(simple_iter_each: Ours, Bevy, Hecs, Floor),
        },
        Scenario {
            name: "dynamic_iter",
            what: "simple_iter's work through a `QueryBuilder` query of `FilteredEntityMut`, by component id, entity by entity (floor: our typed `simple_iter` for loop)",
            peers: &[Bevy],
            target: Target::Peer(0.8),
            cases: vec![
                (Lib::Ours, ecs_scenarios::dynamic::ours::dynamic_iter as Build),
                (Lib::Bevy, bevy::dynamic_iter as Build),
                (Lib::Floor, ecs_scenarios::ours::simple_iter as Build),
            ],
        },
        Scenario {
            name: "dynamic_contiguous",
            what: "the same built query table by table (`contiguous_iter_mut`), each value by row through untyped pointers (floor: our typed `simple_iter` for loop; bevy has no contiguous access for built queries)",
            peers: &[],
            target: Target::Floor(1.5),
            cases: vec![
                (Lib::Ours, ecs_scenarios::dynamic::ours::dynamic_contiguous as Build),
                (Lib::Floor, ecs_scenarios::ours::simple_iter as Build),
            ],
        },
        Scenario {
            name: "frag_iter",
            what: "Data *= 2 over 26 archetypes × 20 entities, in a `for` loop",
            peers: &[Bevy, Hecs],
            target: Target::Peer(0.8),
            cases: cases!(frag_iter: Ours, Bevy, Hecs, Floor),
        },
        Scenario {
            name: "frag_iter_each",
            what: "the same through `iter_mut(..).for_each`",
            peers: &[Bevy, Hecs],
            target: Target::Peer(0.8),
            cases: cases!(frag_iter_each: Ours, Bevy, Hecs, Floor),
        },
        Scenario {
            name: "heavy_compute",
            what: "1,000 entities, 100 Mat4 inversions each, in a `for` loop",
            peers: &[Bevy, Hecs],
            target: Target::Peer(1.0),
            cases: cases!(heavy_compute: Ours, Bevy, Hecs, Floor),
        },
        Scenario {
            name: "heavy_compute_par",
            what: "the same in parallel (`par_iter_mut(..).for_each`; hecs: rayon over `iter_batched`)",
            peers: &[Bevy, Hecs],
            target: Target::Peer(1.0),
            cases: cases!(heavy_compute_par: Ours, Bevy, Hecs, Floor),
        },
        Scenario {
            name: "add_remove",
            what: "insert B on 10,000 entities with A, then remove it",
            peers: &[Bevy, Hecs],
            target: Target::Peer(1.0),
            cases: cases!(add_remove: Ours, Bevy, Hecs),
        },
        Scenario {
            name: "add_remove_tickless",
            what: "the same with A and B `#[component(no_change_ticks)]` (ours; the peers keep no such \
                   opt-in and run `add_remove`)",
            peers: &[Bevy, Hecs],
            target: Target::Peer(1.0),
            cases: cases!(add_remove_tickless: Ours, Bevy, Hecs),
        },
        Scenario {
            name: "sparse_add_remove",
            what: "the same with B a sparse-set component (not on hecs)",
            peers: &[Bevy],
            target: Target::Peer(0.8),
            cases: cases!(sparse_add_remove: Ours, Bevy),
        },
        Scenario {
            name: "schedule",
            what: "systems (A,B), (C,D), (C,E) on a parallel schedule, 4 × 10,000 entities",
            peers: &[Bevy],
            target: Target::Peer(0.8),
            cases: cases!(schedule: Ours, Bevy, Hecs),
        },
        Scenario {
            name: "nested_sets",
            what: "50 systems in chained, nested and conditional sets, 10 × 320 entities (not on hecs)",
            peers: &[Bevy],
            target: Target::Peer(0.8),
            cases: cases!(nested_sets: Ours, Bevy),
        },
        Scenario {
            name: "messages",
            what: "write_batch 100,000 messages, read them all, update the buffers (not on hecs)",
            peers: &[Bevy],
            target: Target::Peer(0.8),
            cases: cases!(messages: Ours, Bevy),
        },
        Scenario {
            name: "relations",
            what: "100,000 entities with up to 8 relations each: 10,000 × all sources and all targets of X (bevy: one-to-many ChildOf/Children)",
            peers: &[Bevy],
            target: Target::Floor(2.0),
            cases: vec![
                (Lib::Ours, ecs_scenarios::relations::ours as Build),
                (Lib::Bevy, bevy_relations::relations_one_to_many as Build),
                (Lib::Floor, ecs_scenarios::relations::floor as Build),
            ],
        },
        Scenario {
            name: "spawn_despawn",
            what: "10,000 single spawns of 3 components, then despawn all",
            peers: &[Bevy, Hecs],
            target: Target::Peer(0.8),
            cases: cases!(spawn_despawn: Ours, Bevy, Hecs),
        },
        Scenario {
            name: "save_load_column",
            what: "save 100,000 × 4 small components in the column format to a Vec<u8> (postcard) and load them into a new world",
            peers: &[Hecs],
            target: Target::Peer(1.0),
            cases: vec![
                (Lib::Ours, save_load::ours::save_load_column as Build),
                (Lib::Hecs, save_load::hecs_lib::save_load_column as Build),
            ],
        },
        Scenario {
            name: "bulk_insert",
            what: "insert B into the 10,000 entities with A (ours: one `World::insert_for`; bevy: `insert_batch`; hecs: `insert_one` each)",
            peers: &[Bevy, Hecs],
            target: Target::Peer(0.1),
            cases: vec![
                (Lib::Ours, ecs_scenarios::bulk::ours::bulk_insert as Build),
                (Lib::Bevy, bulk::bevy::bulk_insert as Build),
                (Lib::Hecs, bulk::hecs_lib::bulk_insert as Build),
            ],
        },
        Scenario {
            name: "bulk_insert_loop",
            what: "the same insert entity by entity on every library",
            peers: &[Bevy, Hecs],
            target: Target::Peer(0.8),
            cases: vec![
                (Lib::Ours, ecs_scenarios::bulk::ours::bulk_insert_loop as Build),
                (Lib::Bevy, bulk::bevy::bulk_insert_loop as Build),
                (Lib::Hecs, bulk::hecs_lib::bulk_insert as Build),
            ],
        },
        Scenario {
            name: "bulk_remove",
            what: "remove B from the 10,000 entities with it (ours: one `World::remove_for`; bevy, hecs: entity by entity)",
            peers: &[Bevy, Hecs],
            target: Target::Peer(0.1),
            cases: vec![
                (Lib::Ours, ecs_scenarios::bulk::ours::bulk_remove as Build),
                (Lib::Bevy, bulk::bevy::bulk_remove as Build),
                (Lib::Hecs, bulk::hecs_lib::bulk_remove as Build),
            ],
        },
        Scenario {
            name: "wide_iter",
            what: "w0 += w1 + … + w7: a query of 8 terms over 10,000 entities, in a `for` loop",
            peers: &[Bevy, Hecs],
            target: Target::Peer(0.8),
            cases: pattern_cases!(wide_iter: Ours, Bevy, Hecs, Floor),
        },
        Scenario {
            name: "wide_iter_each",
            what: "the same through `iter_mut(..).for_each`",
            peers: &[Bevy, Hecs],
            target: Target::Peer(0.8),
            cases: pattern_cases!(wide_iter_each: Ours, Bevy, Hecs, Floor),
        },
        Scenario {
            name: "many_archetypes",
            what: "Data += 1 over 1,000 archetypes × 10 entities, in a `for` loop",
            peers: &[Bevy, Hecs],
            target: Target::Peer(0.8),
            cases: pattern_cases!(many_archetypes: Ours, Bevy, Hecs, Floor),
        },
        Scenario {
            name: "random_get",
            what: "10,000 `QueryState::get` of (&Position, &Velocity) in a fixed shuffled order (hecs: a `view`'s `get`)",
            peers: &[Bevy, Hecs],
            target: Target::Peer(0.8),
            cases: pattern_cases!(random_get: Ours, Bevy, Hecs, Floor),
        },
        Scenario {
            name: "random_get_world",
            what: "the same lookups through `World::get::<Position>`",
            peers: &[Bevy, Hecs],
            target: Target::Peer(0.8),
            cases: pattern_cases!(random_get_world: Ours, Bevy, Hecs, Floor),
        },
        Scenario {
            name: "sparse_iter",
            what: "a `for` loop over a sparse-set component on 10,000 entities (hecs has no sparse sets: its table form)",
            peers: &[Bevy, Hecs],
            target: Target::Peer(0.8),
            cases: pattern_cases!(sparse_iter: Ours, Bevy, Hecs, Floor),
        },
        Scenario {
            name: "sparse_iter_each",
            what: "the same through `iter_mut(..).for_each`",
            peers: &[Bevy, Hecs],
            target: Target::Peer(0.8),
            cases: pattern_cases!(sparse_iter_each: Ours, Bevy, Hecs, Floor),
        },
        Scenario {
            name: "sparse_iter_has",
            what: "(&mut Position, Has<Sparse>) over 10,000 entities, half with the sparse-set component (hecs: `Satisfies` of its table form)",
            peers: &[Bevy, Hecs],
            target: Target::Peer(0.8),
            cases: pattern_cases!(sparse_iter_has: Ours, Bevy, Hecs, Floor),
        },
        Scenario {
            name: "sparse_iter_option",
            what: "(&mut Position, Option<&Sparse>) over the same entities (hecs: its table form)",
            peers: &[Bevy, Hecs],
            target: Target::Peer(0.8),
            cases: pattern_cases!(sparse_iter_option: Ours, Bevy, Hecs, Floor),
        },
        Scenario {
            name: "commands_spawn",
            what: "10,000 `commands.spawn((A, B))`, then the queue applied (hecs: `CommandBuffer`)",
            peers: &[Bevy, Hecs],
            target: Target::Peer(0.8),
            cases: pattern_cases!(commands_spawn: Ours, Bevy, Hecs),
        },
        Scenario {
            name: "changed_filter",
            what: "Query<&Counter, Changed<Counter>> over 100,000 entities, 1% changed (not on hecs)",
            peers: &[Bevy],
            target: Target::Peer(0.8),
            cases: pattern_cases!(changed_filter: Ours, Bevy, Floor),
        },
        Scenario {
            name: "snapshot_restore",
            what: "World::snapshot then World::restore of 100,000 entities × 4 Copy components (floor: the 4 columns cloned and copied back; not on bevy or hecs)",
            peers: &[],
            target: Target::Floor(1.5),
            cases: vec![
                (Lib::Ours, ecs_scenarios::snapshot::ours as Build),
                (Lib::Floor, ecs_scenarios::snapshot::floor as Build),
            ],
        },
        Scenario {
            name: "snapshot_ring",
            what: "World::snapshot_into a snapshot kept from the round before, then World::restore, of 100,000 entities × 4 Copy components, as a rollback saving every frame into a ring does (floor: the 4 columns copied into kept Vecs and back; not on bevy or hecs)",
            peers: &[],
            target: Target::Floor(1.5),
            cases: vec![
                (Lib::Ours, ecs_scenarios::snapshot::ours_ring as Build),
                (Lib::Floor, ecs_scenarios::snapshot::floor_ring as Build),
            ],
        },
        Scenario {
            name: "simulation",
            what: "10 frames of the `simulation` example (20,000 animals at the start, seed 1, multi-threaded executor; the world runs on from batch to batch), the same systems ported to bevy_ecs",
            peers: &[Bevy],
            target: Target::Peer(0.8),
            cases: vec![
                (Lib::Ours, simulation::ours::simulation as Build),
                (Lib::Bevy, simulation::on_bevy::simulation as Build),
            ],
        },
    ]
}

struct Args {
    plan: Plan,
    quick: bool,
    only: Option<String>,
    write: bool,
    /// `--profile NAME`: run one scenario on one library only, for a
    /// profiler (no interleaving, no table).
    profile: Option<String>,
    lib: Lib,
    iters: u32,
}

fn parse_args() -> Args {
    let mut quick = false;
    let mut rounds = None;
    let mut only = None;
    let mut write = None;
    let mut profile = None;
    let mut lib = Lib::Ours;
    let mut iters = 20;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--quick" => quick = true,
            "--rounds" => {
                let n = args.next().and_then(|n| n.parse().ok());
                rounds = Some(
                    n.filter(|&n| n > 0)
                        .expect("--rounds takes a positive number"),
                );
            }
            "--only" => only = Some(args.next().expect("--only takes a scenario name")),
            "--write" => write = Some(true),
            "--no-write" => write = Some(false),
            "--profile" => profile = Some(args.next().expect("--profile takes a scenario name")),
            "--lib" => {
                let name = args.next().expect("--lib takes ours, bevy, hecs or floor");
                lib = *Lib::ALL
                    .iter()
                    .find(|l| l.short() == name)
                    .expect("--lib takes ours, bevy, hecs or floor");
            }
            "--iters" => {
                let n = args.next().and_then(|n| n.parse().ok());
                iters = n
                    .filter(|&n| n > 0)
                    .expect("--iters takes a positive number");
            }
            "-h" | "--help" => {
                println!(
                    "usage: ecs-compare [--quick] [--rounds N] [--only NAME] [--write | --no-write]\n       \
                     ecs-compare --profile NAME [--lib ours|bevy|hecs|floor] [--iters N]"
                );
                std::process::exit(0);
            }
            other => panic!("unknown argument {other:?} (try --help)"),
        }
    }
    let plan = if quick {
        Plan {
            rounds: rounds.unwrap_or(9),
            sample_target: Duration::from_millis(4),
        }
    } else {
        Plan {
            rounds: rounds.unwrap_or(101),
            sample_target: Duration::from_millis(15),
        }
    };
    let write = write.unwrap_or(!quick && only.is_none());
    Args {
        plan,
        quick,
        only,
        write,
        profile,
        lib,
        iters,
    }
}

/// Runs one scenario on one library: build, two warm-up iterations, then
/// `iters` iterations in one batch (`run_batch`, the function to restrict a
/// profiler to, e.g. `valgrind --tool=callgrind --toggle-collect='*run_batch*'`;
/// `*split_timed*` restricts it to the timed part of a case whose runs
/// start with an untimed reset), then the case's check.
fn profile(name: &str, lib: Lib, iters: u32) {
    let scenario = scenarios()
        .into_iter()
        .find(|s| s.name == name)
        .unwrap_or_else(|| panic!("no scenario named {name:?}"));
    let &(_, build) = scenario
        .cases
        .iter()
        .find(|(l, _)| *l == lib)
        .unwrap_or_else(|| panic!("{name} does not run on {}", lib.name()));
    let mut case = build();
    case.run_batch(2);
    let t = case.run_batch(iters);
    eprintln!(
        "{name} on {}: {:.1} µs per iteration ({iters} iterations)",
        lib.name(),
        t.as_secs_f64() * 1e6 / f64::from(iters)
    );
    case.verify();
    eprintln!("    verified {}", lib.name());
}

fn main() {
    let args = parse_args();
    // bevy's parallel query and multi-threaded executor run on its compute
    // task pool; ours and hecs (through rayon) use rayon's global pool. Both
    // get one thread per core.
    bevy_tasks::ComputeTaskPool::get_or_init(bevy_tasks::TaskPool::default);
    if let Some(name) = &args.profile {
        profile(name, args.lib, args.iters);
        return;
    }
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    eprintln!(
        "ecs-compare: {} rounds, ~{} ms per sample, {} cores, rayon {} threads, bevy {} threads",
        args.plan.rounds,
        args.plan.sample_target.as_millis(),
        threads,
        rayon::current_num_threads(),
        bevy_tasks::ComputeTaskPool::get().thread_num(),
    );

    let start = Instant::now();
    let mut results = Vec::new();
    for scenario in scenarios() {
        if let Some(only) = &args.only {
            if !scenario.name.contains(only.as_str()) {
                continue;
            }
        }
        eprintln!("{} ...", scenario.name);
        let t = Instant::now();
        let measured = measure(&scenario, args.plan);
        eprintln!(
            "  {} x {} iterations per sample, {:.1} s",
            args.plan.rounds,
            measured.iters,
            t.elapsed().as_secs_f64()
        );
        results.push((scenario, measured));
    }
    let total = start.elapsed();

    let rows = report::rows(&results);
    println!();
    println!("{}", report::console_table(&rows));
    println!("total {:.1} s", total.as_secs_f64());

    if args.write {
        let docs = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs");
        std::fs::create_dir_all(docs).expect("create docs/");
        let md = report::markdown(&rows, args.plan, args.quick, threads);
        std::fs::write(format!("{docs}/compare.md"), &md).expect("write docs/compare.md");
        std::fs::write(format!("{docs}/compare.svg"), report::svg(&rows))
            .expect("write docs/compare.svg");
        eprintln!("wrote docs/compare.md and docs/compare.svg");
    } else {
        eprintln!("(docs/ not written: pass --write)");
    }
}
