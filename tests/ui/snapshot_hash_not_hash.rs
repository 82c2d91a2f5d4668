use ecs::prelude::*;

#[derive(Component, Clone)]
#[component(snapshot = hash)]
struct Position(f32, f32);

#[derive(Resource, Clone)]
#[resource(snapshot = hash)]
struct Score(f64);

fn main() {}
