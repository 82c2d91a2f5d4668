use ecs::prelude::*;

#[derive(Component)]
struct Position(f32, f32);

#[derive(Component)]
struct Velocity(f32, f32);

#[derive(Bundle)]
enum Motion {
    Still(Position),
    Moving(Position, Velocity),
}

fn main() {}
