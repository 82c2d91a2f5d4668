use ecs::prelude::*;

#[derive(Component, Clone, Copy)]
struct Position(f32, f32);

#[derive(Bundle)]
union Either {
    position: Position,
    raw: [f32; 2],
}

fn main() {}
