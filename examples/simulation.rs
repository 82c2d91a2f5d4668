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
//! - **A parallel schedule with ordering** (`build_schedule`): seven stages,
//!   sense → decide → move → eat → reproduce → age/die → stats, joined with
//!   `.chain()`; within a stage `.after(..)` orders what must be ordered
//!   and the rest may run at once. `With<Rabbit>` / `Without<Rabbit>` make
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
//! - **Observers and hooks**: observers on `On<Add, Rabbit>` and
//!   `On<Despawn, Rabbit>` (and the same for foxes) count births and
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

// A system's signature spelling out its queries is the point here.
#![allow(clippy::type_complexity)]

use std::collections::HashSet;
use std::f32::consts::{FRAC_PI_4, TAU};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::Parser;
use ecs::{component::HookContext, prelude::*, world::DeferredWorld};
use image::{Rgb, RgbImage};
use indicatif::{ProgressBar, ProgressStyle};

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

// ---- components ---------------------------------------------------------

#[derive(Component, Clone, Copy, Debug, Default, PartialEq)]
struct Position {
    x: f32,
    y: f32,
}

/// Units per frame.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq)]
struct Velocity {
    x: f32,
    y: f32,
}

#[derive(Component, Clone, Copy, Debug, Default)]
struct Energy(f32);

#[derive(Component, Clone, Copy, Debug, Default)]
struct Age {
    frames: u32,
    lifespan: u32,
}

/// The spatial-grid cell the animal was in when it last moved (`u32::MAX`
/// until `update_cells` first sees it).
#[derive(Component, Clone, Copy, Debug)]
struct Cell(u32);

#[derive(Component, Default)]
#[require(Velocity, Cell = Cell(u32::MAX), Age, Energy)]
struct Animal;

#[derive(Component, Default)]
#[require(Animal)]
struct Rabbit;

#[derive(Component, Default)]
#[require(Animal)]
struct Fox;

/// A rabbit that has seen a hunting fox, and where.
#[derive(Component)]
#[component(storage = "SparseSet")]
struct Fleeing {
    from: Position,
}

/// A fox looking for food.
#[derive(Component)]
#[component(storage = "SparseSet")]
struct Hungry;

/// Gives birth at frame `due`.
#[derive(Component)]
#[component(storage = "SparseSet", on_add = count_conception)]
struct Pregnant {
    due: u32,
}

fn count_conception(mut world: DeferredWorld, context: HookContext) {
    let is_fox = world.get::<Fox>(context.entity).is_some();
    world.resource_mut::<Census>().tally(is_fox).conceived += 1;
}

/// What every animal is spawned with; `#[require]` adds the rest.
#[derive(Bundle)]
struct Body {
    position: Position,
    energy: Energy,
    age: Age,
}

#[derive(Bundle)]
struct RabbitBundle {
    rabbit: Rabbit,
    body: Body,
}

#[derive(Bundle)]
struct FoxBundle {
    fox: Fox,
    body: Body,
}

// ---- the two species ----------------------------------------------------

struct Traits {
    /// Units per frame when wandering, and when fleeing or chasing.
    speed: f32,
    sprint: f32,
    /// Energy burnt per frame: `basal`, plus `per_speed2` times speed².
    basal: f32,
    per_speed2: f32,
    max_energy: f32,
    /// Conceives with this chance per frame from this age, above this
    /// energy; gives birth to up to `litter` young after `gestation`
    /// frames, each costing the mother `birth_cost`.
    conception_chance: f32,
    maturity: u32,
    fertile: f32,
    gestation: u32,
    litter: u32,
    birth_cost: f32,
    newborn_energy: f32,
    lifespan: (u32, u32),
}

const RABBIT: Traits = Traits {
    speed: 0.6,
    sprint: 1.5,
    basal: 0.12,
    per_speed2: 0.1,
    max_energy: 40.0,
    conception_chance: 0.01,
    maturity: 40,
    fertile: 30.0,
    gestation: 15,
    litter: 3,
    birth_cost: 6.0,
    newborn_energy: 12.0,
    lifespan: (150, 350),
};

const FOX: Traits = Traits {
    speed: 0.5,
    sprint: 1.7,
    basal: 0.15,
    per_speed2: 0.08,
    max_energy: 100.0,
    conception_chance: 0.007,
    maturity: 80,
    fertile: 80.0,
    gestation: 40,
    litter: 2,
    birth_cost: 25.0,
    newborn_energy: 40.0,
    lifespan: (400, 800),
};

fn traits(is_fox: bool) -> &'static Traits {
    if is_fox {
        &FOX
    } else {
        &RABBIT
    }
}

/// Animals per square unit at the start; foxes per den, and its radius.
const DENSITY: f32 = 0.1;
const DEN_SIZE: u32 = 800;
const DEN_RADIUS: f32 = 40.0;
/// Side of a grid cell; also how far a hungry fox sees.
const CELL_SIZE: f32 = 16.0;
/// How close a hunting fox comes before a rabbit notices it, and before it
/// catches one; what a rabbit is worth to it.
const NOTICE: f32 = 6.0;
const CATCH: f32 = 1.0;
const MEAL: f32 = 25.0;
/// Foxes get hungry below `HUNGRY` energy, and are sated above `SATED`.
const HUNGRY: f32 = 50.0;
const SATED: f32 = 85.0;
/// Grass per tile is in 0..=1. A grazing rabbit eats `BITE` of it per
/// frame, at `GRASS_ENERGY` per unit, where it is at least `GOOD_GRASS`.
const TILE_SIZE: f32 = 4.0;
const BITE: f32 = 0.08;
const GRASS_ENERGY: f32 = 10.0;
const GOOD_GRASS: f32 = 0.15;
/// Logistic regrowth per frame, and a trickle so bare tiles recover.
const REGROWTH: f32 = 0.5;
const SEEDING: f32 = 0.004;

// ---- resources ----------------------------------------------------------

#[derive(Resource)]
struct Settings {
    seed: u64,
    /// Side of the meadow: positions are in `0.0..size`.
    size: f32,
    /// Grid cells per side.
    cells: u32,
}

impl Settings {
    fn cell_of(&self, p: Position) -> u32 {
        let max = self.cells - 1;
        let (cx, cy) = ((p.x / CELL_SIZE) as u32, (p.y / CELL_SIZE) as u32);
        cy.min(max) * self.cells + cx.min(max)
    }

    /// The shortest vector from `a` to `b` across the wrapping edges.
    fn delta(&self, a: Position, b: Position) -> (f32, f32) {
        let fold = |d: f32| d - self.size * (d / self.size).round();
        (fold(b.x - a.x), fold(b.y - a.y))
    }

    fn wrap(&self, v: f32) -> f32 {
        let w = v.rem_euclid(self.size);
        if w < self.size {
            w
        } else {
            0.0
        }
    }
}

#[derive(Resource, Default)]
struct Clock {
    frame: u32,
}

/// Grass height per tile, row by row.
#[derive(Resource)]
struct Pasture {
    side: u32,
    grass: Vec<f32>,
}

impl Pasture {
    fn index(&self, x: f32, y: f32) -> usize {
        let tile = |v: f32| (v / TILE_SIZE).floor().rem_euclid(self.side as f32) as u32 % self.side;
        (tile(y) * self.side + tile(x)) as usize
    }

    fn at(&self, x: f32, y: f32) -> f32 {
        self.grass[self.index(x, y)]
    }
}

/// Animals of one species by grid cell, rebuilt every frame by a counting
/// sort over `Cell`: `entries[starts[c]..starts[c + 1]]` are in cell `c`.
#[derive(Default)]
struct Grid {
    cells: u32,
    starts: Vec<u32>,
    entries: Vec<(Entity, Position)>,
}

impl Grid {
    /// `animals` is called twice: to count, then to place.
    fn rebuild<'a, I>(&mut self, cells: u32, animals: impl Fn() -> I)
    where
        I: Iterator<Item = (Entity, &'a Position, &'a Cell)>,
    {
        let count = (cells * cells) as usize;
        self.cells = cells;
        self.starts.clear();
        self.starts.resize(count + 1, 0);
        for (_, _, cell) in animals() {
            self.starts[cell.0 as usize + 1] += 1;
        }
        for c in 0..count {
            self.starts[c + 1] += self.starts[c];
        }
        let mut next = self.starts.clone();
        let placeholder = (Entity::PLACEHOLDER, Position::default());
        self.entries.clear();
        self.entries
            .resize(self.starts[count] as usize, placeholder);
        for (entity, &position, cell) in animals() {
            let slot = &mut next[cell.0 as usize];
            self.entries[*slot as usize] = (entity, position);
            *slot += 1;
        }
    }

    /// Everything in `cell` and its eight neighbours.
    fn around(&self, cell: u32) -> impl Iterator<Item = &(Entity, Position)> + '_ {
        let n = self.cells;
        let (cx, cy) = (cell % n, cell / n);
        (0..9).flat_map(move |k| {
            let c = ((cy + n + k / 3 - 1) % n * n + (cx + n + k % 3 - 1) % n) as usize;
            &self.entries[self.starts[c] as usize..self.starts[c + 1] as usize]
        })
    }

    /// The position of the nearest entry within `radius` of `p`.
    fn nearest(
        &self,
        settings: &Settings,
        p: Position,
        cell: u32,
        radius: f32,
    ) -> Option<Position> {
        let mut best = (radius * radius, None);
        for &(_, q) in self.around(cell) {
            let (dx, dy) = settings.delta(p, q);
            if dx * dx + dy * dy <= best.0 {
                best = (dx * dx + dy * dy, Some(q));
            }
        }
        best.1
    }
}

#[derive(Resource, Default)]
struct RabbitGrid(Grid);

/// Hunting foxes only: sleeping ones scare nobody.
#[derive(Resource, Default)]
struct FoxGrid(Grid);

#[derive(Default, Clone, Copy)]
struct Tally {
    born: u64,
    died: u64,
    eaten: u64,
    starved: u64,
    old_age: u64,
    conceived: u64,
}

#[derive(Resource, Default)]
struct Census {
    rabbits: Tally,
    foxes: Tally,
    /// Of all animal-frames, those where `Changed<Position>` matched.
    cells_recomputed: u64,
    animal_frames: u64,
}

impl Census {
    fn tally(&mut self, is_fox: bool) -> &mut Tally {
        if is_fox {
            &mut self.foxes
        } else {
            &mut self.rabbits
        }
    }
}

#[derive(Clone, Copy, Default)]
struct Sample {
    rabbits: u32,
    foxes: u32,
    fleeing: u32,
    hungry: u32,
    grass: f32,
}

#[derive(Resource, Default)]
struct History(Vec<Sample>);

// ---- randomness ---------------------------------------------------------

/// SplitMix64: tiny, and good enough for a simulation.
struct Rng(u64);

impl Rng {
    /// A generator for one entity in one frame: the same numbers whichever
    /// thread asks.
    fn for_entity(seed: u64, entity: Entity, frame: u32, stream: u64) -> Rng {
        let key = (u64::from(frame) << 8) | stream;
        Rng(seed
            ^ entity.to_bits().wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ key.wrapping_mul(0xD1B5_4A32_D192_ED03))
    }

    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let z = (self.0 ^ (self.0 >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        let z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `lo..hi`.
    fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * ((self.next_u64() >> 40) as f32 / (1u64 << 24) as f32)
    }

    fn below(&mut self, n: u32) -> u32 {
        (self.next_u64() % u64::from(n)) as u32
    }
}

/// Streams keep the draws of different systems apart.
const WANDER: u64 = 1;
const BREED: u64 = 2;
const BIRTH: u64 = 3;

// ---- stage 1: sense -----------------------------------------------------

fn regrow_grass(mut pasture: ResMut<Pasture>) {
    for g in &mut pasture.grass {
        *g = (*g + REGROWTH * *g * (1.0 - *g) + SEEDING).min(1.0);
    }
}

/// Only animals that moved need their cell recomputed (newborns count as
/// moved: an added component is a changed one).
fn update_cells(
    mut moved: Query<(&Position, &mut Cell), Changed<Position>>,
    animals: Query<(), With<Animal>>,
    settings: Res<Settings>,
    mut census: ResMut<Census>,
) {
    for (&position, mut cell) in &mut moved {
        cell.0 = settings.cell_of(position);
        census.cells_recomputed += 1;
    }
    census.animal_frames += animals.count() as u64;
}

fn index_rabbits(
    rabbits: Query<(Entity, &Position, &Cell), With<Rabbit>>,
    settings: Res<Settings>,
    mut grid: ResMut<RabbitGrid>,
) {
    grid.0.rebuild(settings.cells, || rabbits.iter());
}

fn index_foxes(
    foxes: Query<(Entity, &Position, &Cell), (With<Fox>, With<Hungry>)>,
    settings: Res<Settings>,
    mut grid: ResMut<FoxGrid>,
) {
    grid.0.rebuild(settings.cells, || foxes.iter());
}

/// Rabbits that see a hunting fox start fleeing; those that see none any
/// more stop. Both are sparse-set inserts and removes, through commands.
fn spot_foxes(
    mut commands: Commands,
    mut rabbits: Query<(Entity, &Position, &Cell, Option<&mut Fleeing>), With<Rabbit>>,
    foxes: Res<FoxGrid>,
    settings: Res<Settings>,
) {
    for (rabbit, &position, cell, fleeing) in &mut rabbits {
        let fox = foxes.0.nearest(&settings, position, cell.0, NOTICE);
        match (fox, fleeing) {
            (Some(from), Some(mut fleeing)) => fleeing.from = from,
            (Some(from), None) => {
                commands.entity(rabbit).insert(Fleeing { from });
            }
            (None, Some(_)) => {
                commands.entity(rabbit).remove::<Fleeing>();
            }
            (None, None) => {}
        }
    }
}

fn feel_hunger(mut commands: Commands, foxes: Query<(Entity, &Energy, Has<Hungry>), With<Fox>>) {
    for (fox, energy, hungry) in &foxes {
        if !hungry && energy.0 < HUNGRY {
            commands.entity(fox).insert(Hungry);
        } else if hungry && energy.0 > SATED {
            commands.entity(fox).remove::<Hungry>();
        }
    }
}

// ---- stage 2: decide ----------------------------------------------------

fn head_towards(dx: f32, dy: f32, speed: f32) -> Velocity {
    let scale = speed / (dx * dx + dy * dy).sqrt().max(1e-6);
    let (x, y) = (dx * scale, dy * scale);
    Velocity { x, y }
}

/// Keeps roughly the current heading, turning a little at random.
fn wander(velocity: &Velocity, rng: &mut Rng, speed: f32) -> Velocity {
    let heading = if *velocity == Velocity::default() {
        rng.range(0.0, TAU)
    } else {
        velocity.y.atan2(velocity.x) + rng.range(-0.6, 0.6)
    };
    head_towards(heading.cos(), heading.sin(), speed)
}

/// Flee; or graze; or go where the grass looks best.
fn steer_rabbits(
    mut rabbits: Query<
        (Entity, &Position, &Energy, &mut Velocity, Option<&Fleeing>),
        (With<Rabbit>, Without<Fox>),
    >,
    pasture: Res<Pasture>,
    settings: Res<Settings>,
    clock: Res<Clock>,
) {
    let (pasture, settings, frame) = (&*pasture, &*settings, clock.frame);
    rabbits
        .par_iter_mut()
        .for_each(|(rabbit, &p, energy, mut velocity, fleeing)| {
            let mut rng = Rng::for_entity(settings.seed, rabbit, frame, WANDER);
            if let Some(fleeing) = fleeing {
                let (dx, dy) = settings.delta(fleeing.from, p);
                let jitter = rng.range(-0.3, 0.3);
                *velocity = head_towards(dx - dy * jitter, dy + dx * jitter, RABBIT.sprint);
            } else if energy.0 < RABBIT.max_energy * 0.95 && pasture.at(p.x, p.y) >= GOOD_GRASS {
                *velocity = Velocity::default();
            } else {
                // Look two tiles away in eight directions.
                let mut best = (pasture.at(p.x, p.y) + 0.05, None);
                for k in 0..8 {
                    let (sin, cos) = (k as f32 * FRAC_PI_4).sin_cos();
                    let (dx, dy) = (cos * 2.0 * TILE_SIZE, sin * 2.0 * TILE_SIZE);
                    let grass = pasture.at(p.x + dx, p.y + dy);
                    if grass > best.0 {
                        best = (grass, Some((dx, dy)));
                    }
                }
                *velocity = match best.1 {
                    Some((dx, dy)) => head_towards(dx, dy, RABBIT.speed),
                    None => wander(&velocity, &mut rng, RABBIT.speed),
                };
            }
        });
}

/// Hungry foxes chase the nearest rabbit in sight, or prowl; fed ones
/// sleep. `Without<Rabbit>` makes this query disjoint from
/// `steer_rabbits`', so the two may write `Velocity` at the same time.
fn steer_foxes(
    mut foxes: Query<
        (Entity, &Position, &Cell, &mut Velocity, Has<Hungry>),
        (With<Fox>, Without<Rabbit>),
    >,
    rabbits: Res<RabbitGrid>,
    settings: Res<Settings>,
    clock: Res<Clock>,
) {
    let (rabbits, settings, frame) = (&rabbits.0, &*settings, clock.frame);
    foxes
        .par_iter_mut()
        .for_each(|(fox, &p, cell, mut velocity, hungry)| {
            if !hungry {
                *velocity = Velocity::default();
            } else if let Some(prey) = rabbits.nearest(settings, p, cell.0, CELL_SIZE) {
                let (dx, dy) = settings.delta(p, prey);
                *velocity = head_towards(dx, dy, FOX.sprint);
            } else {
                let mut rng = Rng::for_entity(settings.seed, fox, frame, WANDER);
                *velocity = wander(&velocity, &mut rng, FOX.speed);
            }
        });
}

// ---- stage 3: move ------------------------------------------------------

/// Writes `Position` only for animals that move: that is what makes
/// `Changed<Position>` in `update_cells` worth having.
fn movement(mut animals: Query<(&mut Position, &Velocity)>, settings: Res<Settings>) {
    let settings = &*settings;
    animals.par_iter_mut().for_each(|(mut position, velocity)| {
        if *velocity != Velocity::default() {
            position.x = settings.wrap(position.x + velocity.x);
            position.y = settings.wrap(position.y + velocity.y);
        }
    });
}

/// Runs beside `movement`: it writes `Energy`, movement writes `Position`,
/// both only read `Velocity`.
fn metabolism(mut animals: Query<(&mut Energy, &Velocity, Has<Fox>)>) {
    animals.par_iter_mut().for_each(|(mut energy, v, is_fox)| {
        let t = traits(is_fox);
        energy.0 -= t.basal + t.per_speed2 * (v.x * v.x + v.y * v.y);
    });
}

// ---- stage 4: eat -------------------------------------------------------

fn graze(
    mut rabbits: Query<(&Position, &mut Energy, &Velocity), (With<Rabbit>, Without<Fox>)>,
    mut pasture: ResMut<Pasture>,
) {
    for (p, mut energy, velocity) in &mut rabbits {
        if *velocity == Velocity::default() {
            let i = pasture.index(p.x, p.y);
            let bite = pasture.grass[i].min(BITE);
            pasture.grass[i] -= bite;
            energy.0 = (energy.0 + bite * GRASS_ENERGY).min(RABBIT.max_energy);
        }
    }
}

/// Hungry foxes catch the rabbits within reach. Runs beside `graze`: both
/// write `Energy`, but `Without<Rabbit>` keeps this query off rabbits.
fn hunt(
    mut commands: Commands,
    mut foxes: Query<(&Position, &Cell, &mut Energy), (With<Hungry>, Without<Rabbit>)>,
    rabbits: Query<&Position, With<Rabbit>>,
    grid: Res<RabbitGrid>,
    settings: Res<Settings>,
    mut census: ResMut<Census>,
    mut eaten: Local<HashSet<Entity>>,
) {
    eaten.clear();
    // The grid holds where rabbits were before they moved: look wider,
    // then check where they are now.
    let reach = CATCH + RABBIT.sprint + FOX.sprint;
    let within = |a, b, r: f32| {
        let (dx, dy) = settings.delta(a, b);
        dx * dx + dy * dy <= r * r
    };
    for (&p, cell, mut energy) in &mut foxes {
        let prey = grid.0.around(cell.0).find(|&&(rabbit, seen)| {
            within(p, seen, reach)
                && !eaten.contains(&rabbit)
                && rabbits.get(rabbit).is_ok_and(|&now| within(p, now, CATCH))
        });
        if let Some(&(rabbit, _)) = prey {
            eaten.insert(rabbit);
            commands.entity(rabbit).despawn();
            energy.0 = (energy.0 + MEAL).min(FOX.max_energy);
            census.rabbits.eaten += 1;
        }
    }
}

// ---- stage 5: reproduce -------------------------------------------------

fn give_birth(
    mut commands: Commands,
    mut mothers: Query<(Entity, &Position, &mut Energy, &Pregnant, Has<Fox>)>,
    settings: Res<Settings>,
    clock: Res<Clock>,
) {
    for (mother, &p, mut energy, pregnant, is_fox) in &mut mothers {
        if pregnant.due > clock.frame {
            continue;
        }
        let t = traits(is_fox);
        let mut rng = Rng::for_entity(settings.seed, mother, clock.frame, BIRTH);
        for _ in 0..=rng.below(t.litter) {
            let x = settings.wrap(p.x + rng.range(-1.0, 1.0));
            let y = settings.wrap(p.y + rng.range(-1.0, 1.0));
            let body = Body {
                position: Position { x, y },
                energy: Energy(t.newborn_energy),
                age: Age {
                    frames: 0,
                    lifespan: rng.range(t.lifespan.0 as f32, t.lifespan.1 as f32) as u32,
                },
            };
            if is_fox {
                commands.spawn(FoxBundle { fox: Fox, body });
            } else {
                commands.spawn(RabbitBundle {
                    rabbit: Rabbit,
                    body,
                });
            }
            energy.0 -= t.birth_cost;
        }
        commands.entity(mother).remove::<Pregnant>();
    }
}

fn conceive(
    mut commands: Commands,
    animals: Query<(Entity, &Energy, &Age, Has<Fox>), (With<Animal>, Without<Pregnant>)>,
    settings: Res<Settings>,
    clock: Res<Clock>,
) {
    for (animal, energy, age, is_fox) in &animals {
        let t = traits(is_fox);
        if age.frames >= t.maturity
            && energy.0 >= t.fertile
            && Rng::for_entity(settings.seed, animal, clock.frame, BREED).range(0.0, 1.0)
                < t.conception_chance
        {
            let due = clock.frame + t.gestation;
            commands.entity(animal).insert(Pregnant { due });
        }
    }
}

// ---- stage 6: age and die -----------------------------------------------

fn age_and_die(
    mut commands: Commands,
    mut animals: Query<(Entity, &mut Age, &Energy, Has<Fox>)>,
    mut census: ResMut<Census>,
) {
    for (animal, mut age, energy, is_fox) in &mut animals {
        age.frames += 1;
        let tally = census.tally(is_fox);
        if energy.0 <= 0.0 {
            tally.starved += 1;
        } else if age.frames > age.lifespan {
            tally.old_age += 1;
        } else {
            continue;
        }
        commands.entity(animal).despawn();
    }
}

// ---- stage 7: stats -----------------------------------------------------

fn record_stats(
    rabbits: Query<(), With<Rabbit>>,
    foxes: Query<(), With<Fox>>,
    fleeing: Query<(), With<Fleeing>>,
    hungry: Query<(), With<Hungry>>,
    pasture: Res<Pasture>,
    mut history: ResMut<History>,
) {
    history.0.push(Sample {
        rabbits: rabbits.count() as u32,
        foxes: foxes.count() as u32,
        fleeing: fleeing.count() as u32,
        hungry: hungry.count() as u32,
        grass: pasture.grass.iter().sum::<f32>() / pasture.grass.len() as f32,
    });
}

fn advance_clock(mut clock: ResMut<Clock>) {
    clock.frame += 1;
}

// ---- setup and main -----------------------------------------------------

fn build_schedule(single_threaded: bool) -> Schedule {
    let mut schedule = match single_threaded {
        true => Schedule::single_threaded(),
        false => Schedule::default(),
    };
    let sense = (
        regrow_grass,
        feel_hunger,
        update_cells,
        (index_rabbits, index_foxes).after(update_cells),
        spot_foxes.after(index_foxes),
    );
    let decide = (steer_rabbits, steer_foxes);
    let act = (movement, metabolism);
    let eat = (graze, hunt);
    let reproduce = (give_birth, conceive).chain();
    let stats = (record_stats, advance_clock).chain();
    // Each stage starts when the previous one is done and its commands are
    // applied.
    schedule.add_systems((sense, decide, act, eat, reproduce, age_and_die, stats).chain());
    schedule.set_timing(true);
    schedule
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
    world.spawn_batch(rabbits);
    world.spawn_batch(foxes);
    world.insert_resource(settings);

    // Observers added after the first animals count only births and deaths.
    world.add_observer(|_: On<Add, Rabbit>, mut census: ResMut<Census>| census.rabbits.born += 1);
    world.add_observer(|_: On<Add, Fox>, mut census: ResMut<Census>| census.foxes.born += 1);
    world.add_observer(|_: On<Despawn, Rabbit>, mut c: ResMut<Census>| c.rabbits.died += 1);
    world.add_observer(|_: On<Despawn, Fox>, mut census: ResMut<Census>| census.foxes.died += 1);
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

    let mut schedule = build_schedule(args.single_threaded);
    let bar = ProgressBar::new(u64::from(args.frames)).with_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} frames, {msg} [{elapsed}, eta {eta}]")
            .expect("a valid template"),
    );
    let run = Instant::now();
    for _ in 0..args.frames {
        schedule.run(&mut world);
        if let Some(last) = world.resource::<History>().0.last() {
            bar.set_message(format!("{} rabbits, {} foxes", last.rabbits, last.foxes));
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    print_timings(&schedule, run.elapsed(), args.frames);
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

// ---- reporting ----------------------------------------------------------

fn print_timings(schedule: &Schedule, wall: Duration, frames: u32) {
    let timings = schedule.system_timings();
    let busy: Duration = timings.iter().map(|t| t.total).sum();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "\n{:<14} {:>5} {:>9} {:>8} {:>8} {:>6}",
        "system", "runs", "total ms", "mean ms", "max ms", "share"
    );
    for t in &timings {
        let name = t.name.rsplit("::").next().unwrap_or(&t.name);
        let mean = ms(t.total) / t.runs.max(1) as f64;
        let share = 100.0 * t.total.as_secs_f64() / busy.as_secs_f64().max(1e-9);
        println!(
            "{name:<14} {:>5} {:>9.1} {mean:>8.3} {:>8.3} {share:>5.1}%",
            t.runs,
            ms(t.total),
            ms(t.max)
        );
    }
    println!(
        "{frames} frames in {:.2} s ({:.1} frames/s); systems busy {:.2} s, {:.2}x the wall time",
        wall.as_secs_f64(),
        f64::from(frames) / wall.as_secs_f64(),
        busy.as_secs_f64(),
        busy.as_secs_f64() / wall.as_secs_f64()
    );
}

fn print_populations(world: &mut World) {
    let (history, census) = (&world.resource::<History>().0, world.resource::<Census>());
    let (Some(first), Some(last)) = (history.first(), history.last()) else {
        return;
    };
    println!(
        "\n{:<8} {:>7} {:>7} {:>7} {:>7} {:>8} {:>8} {:>8} {:>8} {:>8}",
        "", "first", "min", "max", "last", "born", "died", "eaten", "starved", "old age"
    );
    let rabbits: fn(&Sample) -> u32 = |s| s.rabbits;
    for (name, count, t) in [
        ("rabbits", rabbits, census.rabbits),
        ("foxes", |s| s.foxes, census.foxes),
    ] {
        let (min, max) = (
            history.iter().map(count).min(),
            history.iter().map(count).max(),
        );
        println!(
            "{name:<8} {:>7} {:>7} {:>7} {:>7} {:>8} {:>8} {:>8} {:>8} {:>8}",
            count(first),
            min.unwrap_or(0),
            max.unwrap_or(0),
            count(last),
            t.born,
            t.died,
            t.eaten,
            t.starved,
            t.old_age
        );
    }
    let mean = |f: fn(&Sample) -> u32| {
        history.iter().map(|s| f(s) as f64).sum::<f64>() / history.len() as f64
    };
    println!(
        "on average {:.0} rabbits fleeing and {:.0} foxes hungry; grass at {:.0}% at the end",
        mean(|s| s.fleeing),
        mean(|s| s.hungry),
        100.0 * last.grass
    );
    println!(
        "conceptions (counted by the Pregnant on_add hook): {} rabbits, {} foxes",
        census.rabbits.conceived, census.foxes.conceived
    );
    println!(
        "update_cells: Changed<Position> matched {:.1}% of animal-frames, skipped the rest",
        100.0 * census.cells_recomputed as f64 / census.animal_frames.max(1) as f64
    );
    // Order-independent, so it does not depend on where entities are stored.
    let mut animals = world.query_filtered::<(Entity, &Position, &Energy), With<Animal>>();
    let fingerprint = animals.iter(world).fold(0u64, |sum, (e, p, energy)| {
        let bits = [p.x.to_bits(), p.y.to_bits(), energy.0.to_bits()];
        let mut rng = Rng(e.to_bits()
            ^ bits
                .iter()
                .fold(0, |h, &b| h * 0x1_0000_0001 + u64::from(b)));
        sum.wrapping_add(rng.next_u64())
    });
    println!("fingerprint of the final state: {fingerprint:016x}");
}

// ---- the picture --------------------------------------------------------

const MAP: u32 = 512;
const PLOT: u32 = 128;
const DIRT: [u8; 3] = [92, 70, 46];
const GRASS: [u8; 3] = [58, 142, 52];
const RABBIT_COLOUR: [u8; 3] = [236, 226, 206];
const FOX_COLOUR: [u8; 3] = [255, 96, 24];

/// The meadow (grass, rabbits, foxes) above the populations over time.
fn render(world: &mut World) -> RgbImage {
    let mut image = RgbImage::new(MAP, MAP + PLOT);
    let scale = MAP as f32 / world.resource::<Settings>().size;
    let pasture = world.resource::<Pasture>();
    for (x, y, pixel) in image.enumerate_pixels_mut().filter(|&(_, y, _)| y < MAP) {
        let grass = pasture.at((x as f32 + 0.5) / scale, (y as f32 + 0.5) / scale);
        *pixel = Rgb(std::array::from_fn(|i| {
            (f32::from(DIRT[i]) + (f32::from(GRASS[i]) - f32::from(DIRT[i])) * grass) as u8
        }));
    }
    let mut rabbits = world.query_filtered::<&Position, With<Rabbit>>();
    for p in rabbits.iter(world) {
        let (x, y) = ((p.x * scale) as u32 % MAP, (p.y * scale) as u32 % MAP);
        image.put_pixel(x, y, Rgb(RABBIT_COLOUR));
    }
    let mut foxes = world.query_filtered::<&Position, With<Fox>>();
    for p in foxes.iter(world) {
        let (x, y) = ((p.x * scale) as u32, (p.y * scale) as u32);
        for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
            image.put_pixel((x + dx) % MAP, (y + dy) % MAP, Rgb(FOX_COLOUR));
        }
    }

    let history = &world.resource::<History>().0;
    let series: [(fn(&Sample) -> f32, [u8; 3]); 3] = [
        (|s| s.grass, GRASS),
        (|s| s.rabbits as f32, RABBIT_COLOUR),
        (|s| s.foxes as f32, FOX_COLOUR),
    ];
    for (value, colour) in series {
        let (min, max) = history
            .iter()
            .map(value)
            .fold((f32::MAX, f32::MIN), |(lo, hi), v| (lo.min(v), hi.max(v)));
        let y_of = |s: &Sample| {
            let t = (value(s) - min) / (max - min).max(1e-6);
            MAP + PLOT - 4 - (t * (PLOT - 8) as f32) as u32
        };
        let mut previous = None;
        for x in 0..MAP {
            let Some(sample) = history.get(x as usize * history.len() / MAP as usize) else {
                break;
            };
            let y = y_of(sample);
            let (lo, hi) = previous.map_or((y, y), |p: u32| (p.min(y), p.max(y)));
            for yy in lo..=hi {
                image.put_pixel(x, yy, Rgb(colour));
            }
            previous = Some(y);
        }
    }
    image
}
