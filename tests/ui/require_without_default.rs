use ecs::prelude::*;

#[derive(Component)]
struct Velocity(f32, f32);

#[derive(Component)]
struct Mass(f32);

#[derive(Component)]
#[require(Velocity, Mass = Mass(1.0))]
struct Body;

fn main() {}
