use ecs::prelude::*;

#[derive(Component)]
struct Position(f32, f32);

#[derive(Bundle)]
struct PlayerBundle {
    pos: Position,
    score: u32,
}

fn main() {}
