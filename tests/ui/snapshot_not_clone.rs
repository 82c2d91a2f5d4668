use ecs::prelude::*;

#[derive(Component)]
#[component(snapshot)]
struct Position(f32, f32);

#[derive(Resource)]
#[resource(snapshot)]
struct Score(u32);

fn main() {}
