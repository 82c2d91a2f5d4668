//! Setting the meadow up, and a fingerprint of how it ended.

use std::f32::consts::TAU;

use ecs::prelude::*;

use crate::components::{
    Age, Animal, Body, Eaten, Energy, Fox, FoxBundle, Position, Rabbit, RabbitBundle, RandomKey,
};
use crate::resources::{Census, Clock, FoxGrid, History, Pasture, RabbitGrid, Settings};
use crate::rng::Rng;
use crate::species::{Traits, CELL_SIZE, DENSITY, DEN_RADIUS, DEN_SIZE, FOX, RABBIT, TILE_SIZE};

/// Fills `world` with `entities` animals (one in twelve a fox) on a meadow
/// sized for them, and with the resources, message and observers the
/// systems use.
pub fn populate(world: &mut World, entities: u32, seed: u64) {
    let cells = ((entities as f32 / DENSITY).sqrt() / CELL_SIZE)
        .round()
        .max(3.0) as u32;
    let size = cells as f32 * CELL_SIZE;
    let side = (size / TILE_SIZE) as u32;
    let mut rng = Rng(seed);
    let grass = (0..side * side).map(|_| rng.range(0.2, 1.0)).collect();
    world.insert_resource(Pasture { side, grass });
    let settings = Settings { seed, size, cells };
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
            key: RandomKey(rng.next_u64()),
        }
    };
    let foxes = entities / 12;
    let rabbits: Vec<_> = (foxes..entities)
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

/// A hash of every animal's key, position and energy. Order-independent,
/// and blind to entity ids, so it does not depend on where or under which
/// id an animal is stored.
pub fn fingerprint(world: &mut World) -> u64 {
    let mut animals = world.query_filtered::<(&RandomKey, &Position, &Energy), With<Animal>>();
    animals.iter(world).fold(0u64, |sum, (key, p, energy)| {
        let bits = [p.x.to_bits(), p.y.to_bits(), energy.0.to_bits()];
        // Wrapping: a hash, so overflow is expected (and must not panic in debug builds).
        let mut rng = Rng(key.0
            ^ bits.iter().fold(0u64, |h, &b| {
                h.wrapping_mul(0x1_0000_0001).wrapping_add(u64::from(b))
            }));
        sum.wrapping_add(rng.next_u64())
    })
}
