use ecs::prelude::*;

#[derive(Component)]
struct Position(f32);

#[derive(Bundle)]
#[bundle(ignore_from_components)]
struct Spawner {
    position: Position,
}

// A field that cannot be rebuilt needs `ignore_from_components` here too.
#[derive(Bundle)]
struct Outer {
    spawner: Spawner,
}

fn main() {}
