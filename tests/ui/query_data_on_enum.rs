use ecs::prelude::*;
use ecs::query::QueryData;

#[derive(Component)]
struct Position(f32, f32);

#[derive(QueryData)]
enum Either {
    Entity(Entity),
    Position(&'static Position),
}

fn main() {}
