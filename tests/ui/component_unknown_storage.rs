use ecs::prelude::*;

#[derive(Component)]
#[component(storage = "Tabel")]
struct Position {
    x: f32,
    y: f32,
}

fn main() {}
