//! The first program to run: spawn entities, change their components, and
//! look at how the world stores them.
//!
//! `cargo run --release --example quickstart`

use ecs::prelude::*;

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

#[derive(Component, Debug)]
struct Name(String);

/// A status that comes and goes often: sparse-set storage makes adding and
/// removing it cheap, and entities with and without it share a table.
#[derive(Component, Debug)]
#[component(storage = "SparseSet")]
struct Stunned {
    turns: u32,
}

#[derive(Bundle)]
struct Mover {
    name: Name,
    position: Position,
    velocity: Velocity,
}

#[derive(Resource, Debug, Default)]
struct Turn(u32);

fn describe(world: &World, entity: Entity) -> String {
    let e = world.entity(entity);
    let names: Vec<&str> = e
        .archetype()
        .components()
        .map(|id| {
            let full = world.components().get_name(id).unwrap_or("?");
            full.rsplit("::").next().unwrap_or(full)
        })
        .collect();
    let location = e.location();
    format!(
        "{entity:?} in archetype {} (table {}, row {}): [{}]",
        location.archetype_id.index(),
        location.table_id.index(),
        location.table_row.index(),
        names.join(", ")
    )
}

fn main() {
    let mut world = World::new();
    world.init_resource::<Turn>();

    let ship = world
        .spawn(Mover {
            name: Name("ship".into()),
            position: Position { x: 0.0, y: 0.0 },
            velocity: Velocity { x: 1.0, y: 0.5 },
        })
        .id();
    let rock = world
        .spawn((Name("rock".into()), Position { x: 10.0, y: -3.0 }))
        .id();
    let drones: Vec<Entity> = world
        .spawn_batch((0..1_000).map(|i| Mover {
            name: Name(format!("drone {i}")),
            position: Position {
                x: i as f32,
                y: 0.0,
            },
            velocity: Velocity { x: 0.0, y: 1.0 },
        }))
        .collect();

    println!("spawned {} entities", world.entity_count());
    for e in [ship, rock] {
        let name = &world.get::<Name>(e).expect("both are named").0;
        println!("  {name}: {}", describe(&world, e));
    }

    // Three turns of movement, by hand (queries come with `world.query`).
    for _ in 0..3 {
        for &e in drones.iter().chain([&ship, &rock]) {
            let Some(&velocity) = world.get::<Velocity>(e) else {
                continue;
            };
            let mut position = world
                .get_mut::<Position>(e)
                .expect("movers have a position");
            position.x += velocity.x;
            position.y += velocity.y;
        }
        world.resource_mut::<Turn>().0 += 1;
    }
    println!(
        "after {} turns the ship is at {:?}",
        world.resource::<Turn>().0,
        world.get::<Position>(ship).unwrap()
    );

    // Stun the ship: a sparse-set component, so the ship moves to a new
    // archetype but keeps its table row.
    world.entity_mut(ship).insert(Stunned { turns: 2 });
    println!("stunned: {}", describe(&world, ship));

    // The rock starts moving; the ship recovers and loses its velocity.
    world.entity_mut(rock).insert(Velocity { x: -1.0, y: 0.0 });
    let stunned = world.entity_mut(ship).take::<Stunned>();
    world.entity_mut(ship).remove::<Velocity>();
    if let Some(Stunned { turns }) = stunned {
        println!("took Stunned {{ turns: {turns} }} back from the ship");
    }
    println!("  {}", describe(&world, ship));
    println!("  {}", describe(&world, rock));

    for &e in drones.iter().step_by(2) {
        world.despawn(e);
    }
    println!(
        "despawned half the drones: {} entities remain",
        world.entity_count()
    );

    println!("archetypes:");
    for archetype in world.archetypes().iter().filter(|a| !a.is_empty()) {
        println!(
            "  #{:<2} {:>4} entities, table {}, {} components",
            archetype.id().index(),
            archetype.len(),
            archetype.table_id().index(),
            archetype.component_count()
        );
    }
    world
        .check_integrity()
        .expect("the world's storage is consistent");
    println!("storage integrity: ok");
}
