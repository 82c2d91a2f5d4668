//! The systems, stage by stage, and the schedule that orders them.

use std::collections::HashSet;
use std::f32::consts::{FRAC_PI_4, TAU};

use bevy_ecs::message::message_update_system;
use bevy_ecs::prelude::*;
// Porting: bevy's prelude has no `ScheduleLabel`.
use bevy_ecs::schedule::{ScheduleLabel, SingleThreadedExecutor};

use super::components::*;
use super::resources::*;
use super::rng::{Rng, BIRTH, BREED, WANDER};
use crate::species::*;

// ---- stage 1: sense -----------------------------------------------------

pub fn regrow_grass(mut pasture: ResMut<Pasture>) {
    for g in &mut pasture.grass {
        *g = (*g + REGROWTH * *g * (1.0 - *g) + SEEDING).min(1.0);
    }
}

/// Only animals that moved need their cell recomputed (newborns count as
/// moved: an added component is a changed one).
pub fn update_cells(
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

pub fn index_rabbits(
    rabbits: Query<(Entity, &Position, &Cell), With<Rabbit>>,
    settings: Res<Settings>,
    mut grid: ResMut<RabbitGrid>,
) {
    grid.0.rebuild(settings.cells, || rabbits.iter());
}

pub fn index_foxes(
    foxes: Query<(Entity, &Position, &Cell), (With<Fox>, With<Hungry>)>,
    settings: Res<Settings>,
    mut grid: ResMut<FoxGrid>,
) {
    grid.0.rebuild(settings.cells, || foxes.iter());
}

/// Rabbits that see a hunting fox start fleeing; those that see none any
/// more stop. Both are sparse-set inserts and removes, through commands.
pub fn spot_foxes(
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

pub fn feel_hunger(
    mut commands: Commands,
    foxes: Query<(Entity, &Energy, Has<Hungry>), With<Fox>>,
) {
    for (fox, energy, hungry) in &foxes {
        if !hungry && energy.0 < HUNGRY {
            commands.entity(fox).insert(Hungry);
        } else if hungry && energy.0 > SATED {
            commands.entity(fox).remove::<Hungry>();
        }
    }
}

// ---- stage 2: decide ----------------------------------------------------

pub fn head_towards(dx: f32, dy: f32, speed: f32) -> Velocity {
    let scale = speed / (dx * dx + dy * dy).sqrt().max(1e-6);
    let (x, y) = (dx * scale, dy * scale);
    Velocity { x, y }
}

/// Keeps roughly the current heading, turning a little at random.
pub fn wander(velocity: &Velocity, rng: &mut Rng, speed: f32) -> Velocity {
    let heading = if *velocity == Velocity::default() {
        rng.range(0.0, TAU)
    } else {
        velocity.y.atan2(velocity.x) + rng.range(-0.6, 0.6)
    };
    head_towards(heading.cos(), heading.sin(), speed)
}

/// Flee; or graze; or go where the grass looks best.
pub fn steer_rabbits(
    mut rabbits: Query<
        (
            &RandomKey,
            &Position,
            &Energy,
            &mut Velocity,
            Option<&Fleeing>,
        ),
        (With<Rabbit>, Without<Fox>),
    >,
    pasture: Res<Pasture>,
    settings: Res<Settings>,
    clock: Res<Clock>,
) {
    let (pasture, settings, frame) = (&*pasture, &*settings, clock.frame);
    rabbits
        .par_iter_mut()
        .for_each(|(&rabbit, &p, energy, mut velocity, fleeing)| {
            let mut rng = Rng::for_animal(settings.seed, rabbit, frame, WANDER);
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
pub fn steer_foxes(
    mut foxes: Query<
        (&RandomKey, &Position, &Cell, &mut Velocity, Has<Hungry>),
        (With<Fox>, Without<Rabbit>),
    >,
    rabbits: Res<RabbitGrid>,
    settings: Res<Settings>,
    clock: Res<Clock>,
) {
    let (rabbits, settings, frame) = (&rabbits.0, &*settings, clock.frame);
    foxes
        .par_iter_mut()
        .for_each(|(&fox, &p, cell, mut velocity, hungry)| {
            if !hungry {
                *velocity = Velocity::default();
            } else if let Some(prey) = rabbits.nearest(settings, p, cell.0, CELL_SIZE) {
                let (dx, dy) = settings.delta(p, prey);
                *velocity = head_towards(dx, dy, FOX.sprint);
            } else {
                let mut rng = Rng::for_animal(settings.seed, fox, frame, WANDER);
                *velocity = wander(&velocity, &mut rng, FOX.speed);
            }
        });
}

// ---- stage 3: move ------------------------------------------------------

/// Writes `Position` only for animals that move: that is what makes
/// `Changed<Position>` in `update_cells` worth having.
pub fn movement(mut animals: Query<(&mut Position, &Velocity)>, settings: Res<Settings>) {
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
pub fn metabolism(mut animals: Query<(&mut Energy, &Velocity, Has<Fox>)>) {
    animals.par_iter_mut().for_each(|(mut energy, v, is_fox)| {
        let t = traits(is_fox);
        energy.0 -= t.basal + t.per_speed2 * (v.x * v.x + v.y * v.y);
    });
}

// ---- stage 4: eat -------------------------------------------------------

pub fn graze(
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
pub fn hunt(
    mut commands: Commands,
    mut foxes: Query<(&Position, &Cell, &mut Energy), (With<Hungry>, Without<Rabbit>)>,
    rabbits: Query<&Position, With<Rabbit>>,
    grid: Res<RabbitGrid>,
    settings: Res<Settings>,
    mut meals: MessageWriter<Eaten>,
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
            meals.write(Eaten { rabbit });
        }
    }
}

// ---- stage 5: reproduce -------------------------------------------------

pub fn give_birth(
    mut commands: Commands,
    mut mothers: Query<(
        Entity,
        &RandomKey,
        &Position,
        &mut Energy,
        &Pregnant,
        Has<Fox>,
    )>,
    settings: Res<Settings>,
    clock: Res<Clock>,
) {
    for (mother, &key, &p, mut energy, pregnant, is_fox) in &mut mothers {
        if pregnant.due > clock.frame {
            continue;
        }
        let t = traits(is_fox);
        let mut rng = Rng::for_animal(settings.seed, key, clock.frame, BIRTH);
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
                key: RandomKey(rng.next_u64()),
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

pub fn conceive(
    mut commands: Commands,
    animals: Query<
        (Entity, &RandomKey, &Energy, &Age, Has<Fox>),
        (With<Animal>, Without<Pregnant>),
    >,
    settings: Res<Settings>,
    clock: Res<Clock>,
) {
    for (animal, &key, energy, age, is_fox) in &animals {
        let t = traits(is_fox);
        if age.frames >= t.maturity
            && energy.0 >= t.fertile
            && Rng::for_animal(settings.seed, key, clock.frame, BREED).range(0.0, 1.0)
                < t.conception_chance
        {
            let due = clock.frame + t.gestation;
            commands.entity(animal).insert(Pregnant { due });
        }
    }
}

// ---- stage 6: age and die -----------------------------------------------

pub fn age_and_die(
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

pub fn record_stats(
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

/// Counts the meals `hunt` reported this frame; the rabbits eaten are
/// despawned by now, since `hunt`'s commands ran at the end of its stage.
pub fn count_meals(
    mut meals: MessageReader<Eaten>,
    rabbits: Query<(), With<Rabbit>>,
    mut census: ResMut<Census>,
) {
    for meal in meals.read() {
        debug_assert!(
            !rabbits.contains(meal.rabbit),
            "{} was eaten but lives",
            meal.rabbit
        );
        census.rabbits.eaten += 1;
    }
}

pub fn advance_clock(mut clock: ResMut<Clock>) {
    clock.frame += 1;
}

// ---- the schedule --------------------------------------------------------

/// The schedule the main loop runs once per frame.
#[derive(ScheduleLabel, Debug, Clone, PartialEq, Eq, Hash)]
pub struct Frame;

/// The stages of a frame, in order: each starts when the previous one is
/// done and its commands are applied.
#[derive(SystemSet, Debug, Clone, PartialEq, Eq, Hash)]
pub enum Stage {
    Sense,
    Decide,
    Act,
    Eat,
    Reproduce,
    Die,
    Stats,
}

pub fn build_schedule(single_threaded: bool) -> Schedule {
    let mut schedule = Schedule::new(Frame);
    if single_threaded {
        schedule.set_executor(SingleThreadedExecutor::new());
    }
    schedule.configure_sets(
        (
            Stage::Sense,
            Stage::Decide,
            Stage::Act,
            Stage::Eat,
            Stage::Reproduce,
            Stage::Die,
            Stage::Stats,
        )
            .chain(),
    );
    schedule.add_systems((
        (
            regrow_grass,
            feel_hunger,
            update_cells,
            (index_rabbits, index_foxes).after(update_cells),
            spot_foxes.after(index_foxes),
        )
            .in_set(Stage::Sense),
        (steer_rabbits, steer_foxes).in_set(Stage::Decide),
        (movement, metabolism).in_set(Stage::Act),
        // Without foxes there is nobody to hunt; without pregnancies nobody
        // to give birth: those systems are skipped.
        (graze, hunt.run_if(any_with_component::<Fox>)).in_set(Stage::Eat),
        (give_birth.run_if(any_with_component::<Pregnant>), conceive)
            .chain()
            .in_set(Stage::Reproduce),
        age_and_die.in_set(Stage::Die),
        // Every reader of `Eaten` ran this frame: the buffers can turn over.
        (
            count_meals,
            record_stats,
            advance_clock,
            message_update_system,
        )
            .chain()
            .in_set(Stage::Stats),
    ));
    schedule
}
