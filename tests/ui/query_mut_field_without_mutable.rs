use ecs::prelude::*;
use ecs::query::QueryData;

#[derive(Component)]
struct Position(f32, f32);

#[derive(Component)]
struct Velocity(f32, f32);

// Writes `Position`, but is not marked `#[query_data(mutable)]`.
#[derive(QueryData)]
struct Mover {
    entity: Entity,
    pos: &'static mut Position,
    vel: &'static Velocity,
}

fn main() {}
