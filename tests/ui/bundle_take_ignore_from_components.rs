use ecs::prelude::*;

#[derive(Component)]
struct Position(f32);

// Inserted whole, but never rebuilt from its components.
#[derive(Bundle)]
#[bundle(ignore_from_components)]
struct Spawner {
    position: Position,
}

fn main() {
    let mut world = World::new();
    let e = world.spawn(Spawner { position: Position(1.0) }).id();
    let _ = world.entity_mut(e).take::<Spawner>();
}
